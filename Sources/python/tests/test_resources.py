"""The operating system refusing a resource (docs/misuse.md, the Python
guide's Errors and "Threads and asyncio"): the package raises the library's
refusal as SignalKitError, in words naming what was refused, loses nothing,
and works again once the resource is back. Each case runs in a program of
its own, so that its limits stay there."""
import os
import subprocess
import sys
import textwrap


def run_child(code, timeout=120):
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=dict(os.environ),
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


def test_a_put_the_library_has_no_memory_to_copy_raises_signalkit_error():
    # Before: ValueError("signalkit: a bytes value: status -4"), without a
    # status, where Signal.single of the same value raised the library's
    # SignalKitError naming sk_value_set_bytes and the memory.
    lines = run_child("""
        import re, resource
        import pysignalkit as sk
        def room(megabytes):  # the address space from now on: what is mapped and `megabytes` more
            size = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size + (megabytes << 20), resource.RLIM_INFINITY))
        pipe, got = sk.Pipe(), []
        subscription = pipe.signal().subscribe(got.append)
        # bytes: no room for the library's copy; str: room for its UTF-8
        # (Python's copy), none for the library's.
        for value, megabytes in ((b"x" * (300 << 20), 100), ("y" * (300 << 20), 450)):
            room(megabytes)
            try:
                pipe.put(value)
                print("put")
            except sk.SignalKitError as error:
                print(error.status, "out of memory" in error.message, error.message.split(":")[0])
            resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            del value
        pipe.put(b"small")
        print(got)
        subscription.dispose()
        subscription.close(); pipe.close()
        print(sk.live_objects())
    """)
    assert lines == ["-4 True sk_value_set_bytes", "-4 True sk_value_set_string_n", "[b'small']", "0"], lines


def test_a_time_operator_at_the_descriptor_limit_raises_no_oserror():
    # A time operator without queue= looked for a running asyncio loop by
    # importing asyncio, which opens files: at the descriptor limit an
    # OSError ("Too many open files: .../asyncio/__init__.py") where the
    # guide promises the library's refusal, SignalKitError (SK_ERR_RESOURCE),
    # and a later call that works. No loop can run before asyncio is
    # imported: it is no longer imported for that.
    lines = run_child("""
        import os, resource, sys
        import pysignalkit as sk
        assert "asyncio" not in sys.modules
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
        held = []
        try:
            while True:
                held.append(os.open("/dev/null", os.O_RDONLY))
        except OSError:
            pass
        for make in (lambda: sk.Signal.timer(0.01), lambda: sk.Signal.single(1).delay(0.01),
                     lambda: sk.Signal.single(1).debounce(0.01)):
            try:
                signal = make()
                try:
                    print(signal.to_list(timeout=10))
                finally:
                    signal.close()
            except sk.SignalKitError as error:
                print(error.status)
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        signal = sk.Signal.single(1).delay(0.01)
        print(signal.to_list(timeout=10))
        signal.close()
    """)
    assert lines[:3] == ["-8", "-8", "-8"] and lines[3] == "[1]", lines


def test_a_put_waiting_for_a_thread_the_system_refuses_lets_the_other_threads_run():
    # A put whose delivery needs a new library thread (deliver_on a serial
    # queue, its first work) while the system refuses threads (the address
    # space lowered below a thread's stack) waits in the library until one
    # is given. Before: it kept the GIL meanwhile, so no other thread ran
    # and nothing could give the room back: this program never ended (it
    # was killed at run_child's timeout).
    lines = run_child("""
        import re, resource, threading
        import pysignalkit as sk
        from pysignalkit import _speedups
        go, stop, delivered = threading.Event(), threading.Event(), threading.Event()
        counts = [0, 0, 0]
        def spin(i):
            go.wait()
            while not stop.is_set():
                counts[i] += 1
        def give_room_back():
            go.wait()
            while _speedups.refused_thread_waits() == 0:  # the put is refused a thread, waiting
                pass
            before = list(counts)
            while min(now - then for now, then in zip(counts, before)) < 1000:
                pass  # each of the three others ran while the put waits
            print("ran while the put waited")
            resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        threads = [threading.Thread(target=spin, args=(i,)) for i in range(3)]
        threads.append(threading.Thread(target=give_room_back))
        for thread in threads:
            thread.start()
        pipe, got = sk.Pipe(), []
        queue = sk.Queue.serial("refused")
        subscription = pipe.signal().deliver_on(queue).subscribe(lambda v: (got.append(v), delivered.set()))
        size = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size + (1 << 20), resource.RLIM_INFINITY))
        go.set()
        pipe.put(1)
        print("put returned")
        print(delivered.wait(30), got)
        stop.set()
        for thread in threads:
            thread.join()
        subscription.dispose()
        subscription.close(); pipe.close(); queue.close()
        print(sk.wait_released(timeout=10.0))
    """, timeout=60)
    assert lines == ["ran while the put waited", "put returned", "True [1]", "True"], lines


def test_a_put_from_a_callback_on_a_library_thread_refused_a_thread_lets_the_other_threads_run():
    # The same wait, for a put made by a Python callback that runs on a
    # queue's worker (deliver_on): the callback holds the GIL there, its
    # put lets it go at the refusal and takes it back before the callback
    # goes on.
    lines = run_child("""
        import re, resource, threading
        import pysignalkit as sk
        from pysignalkit import _speedups
        go, stop, delivered = threading.Event(), threading.Event(), threading.Event()
        went_on = threading.Event()
        counts = [0]
        def spin():
            go.wait()
            while not stop.is_set():
                counts[0] += 1
        def give_room_back():
            go.wait()
            while _speedups.refused_thread_waits() == 0:
                pass
            before = counts[0]
            while counts[0] - before < 1000:
                pass
            print("ran while the put waited")
            resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        threads = [threading.Thread(target=spin), threading.Thread(target=give_room_back)]
        for thread in threads:
            thread.start()
        first, second, got = sk.Pipe(), sk.Pipe(), []
        one, two = sk.Queue.serial("one"), sk.Queue.serial("two")
        def relay(value):  # on one's worker: a put whose delivery needs another worker (two's)
            size = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size + (1 << 20), resource.RLIM_INFINITY))
            go.set()
            second.put(value * 10)
            went_on.set()  # printed by the main thread: one writer, whole lines
        last = second.signal().deliver_on(two).subscribe(lambda v: (got.append(v), delivered.set()))
        middle = first.signal().deliver_on(one).subscribe(relay)
        first.put(2)
        print("the callback went on" if went_on.wait(30) else "the callback did not go on")
        print(delivered.wait(30), got)
        stop.set()
        for thread in threads:
            thread.join()
        for handle in (middle, last):
            handle.dispose()
            handle.close()
        first.close(); second.close(); one.close(); two.close()
        print(sk.wait_released(timeout=10.0))
    """, timeout=60)
    assert lines == ["ran while the put waited", "the callback went on", "True [20]", "True"], lines
