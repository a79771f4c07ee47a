"""A KeyboardInterrupt raised by a callback on a library thread (a serial
queue's, the concurrent pool's, a timer's), where no package call waits to
raise it again: an exception like any other there (the stream's error,
on_error, callback_error_hook), and the thread's later deliveries are not
dropped. Each case runs in a child process: before the fix, the interrupt
stayed pending on the library thread for good, and every later value
delivered there was dropped (for the rest of the process)."""
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

PRELUDE = """
import threading
import pysignalkit as sk
hooked = []
hook_called = threading.Event()
def hook(exc, where):
    hooked.append((type(exc).__name__, where))
    hook_called.set()
sk.callback_error_hook = hook
def ki(*args):
    raise KeyboardInterrupt("from a callback")
def queue_of(kind):
    return {"serial": lambda: sk.Queue.serial("q"), "concurrent": sk.Queue.concurrent}[kind]()
"""


def run_child(code: str) -> list:
    result = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)], env=dict(os.environ),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines()


@pytest.mark.parametrize("kind", ["serial", "concurrent"])
def test_an_interrupt_in_a_queue_job_goes_to_the_hook_and_the_queue_goes_on(kind):
    lines = run_child(f"""
        queue = queue_of("{kind}")
        queue.run(ki)
        print(hook_called.wait(30), hooked)
        # The pool has several threads: enough deliveries to meet the one
        # that ran the job (each of them dropped every value before).
        results = [sk.Signal.from_iterable([1, 2, 3]).deliver_on(queue).to_list(timeout=30) for _ in range(50)]
        print(all(r == [1, 2, 3] for r in results), [r for r in results if r != [1, 2, 3]][:1])
    """)
    assert lines == ["True [('KeyboardInterrupt', 'work')]", "True []"]


def test_an_interrupt_in_a_host_queue_job_is_raised_by_drain():
    # A host queue runs in the caller of drain(): there the interrupt is
    # the caller's, as for any synchronous emission.
    lines = run_child("""
        queue = sk.Queue.host("h")
        queue.run(ki)
        try:
            queue.drain()
            print("not raised")
        except KeyboardInterrupt as exc:
            print("raised", exc)
        seen = []
        sk.Signal.from_iterable([1, 2]).deliver_on(queue).subscribe(seen.append)
        queue.drain()
        print(seen, hooked)
    """)
    assert lines == ["raised from a callback", "[1, 2] []"]


@pytest.mark.parametrize("kind", ["serial", "concurrent"])
def test_an_interrupt_in_on_next_on_a_queue_ends_that_subscription_through_on_error(kind):
    lines = run_child(f"""
        queue = queue_of("{kind}")
        seen, errors, ended = [], [], threading.Event()
        def on_next(value):
            seen.append(value)
            ki()
        def on_error(exc):
            errors.append(type(exc).__name__)
            ended.set()
        sk.Signal.from_iterable([1, 2, 3]).deliver_on(queue).subscribe(on_next, on_error)
        print(ended.wait(30), seen, errors)
        results = [sk.Signal.from_iterable([1, 2, 3]).deliver_on(queue).to_list(timeout=30) for _ in range(50)]
        print(all(r == [1, 2, 3] for r in results), hooked)
    """)
    assert lines == ["True [1] ['KeyboardInterrupt']", "True []"]


def test_an_interrupt_in_a_map_function_on_a_timer_fails_the_stream():
    # A timer fires on the concurrent pool by default: the map function
    # raises there, the stream fails with the interrupt (on_error), and the
    # pool's later timers and deliveries arrive.
    lines = run_child("""
        errors, ended = [], threading.Event()
        sk.Signal.timer(0.001).map(ki).subscribe(None, lambda exc: (errors.append(type(exc).__name__), ended.set()))
        print(ended.wait(30), errors)
        timers = [sk.Signal.timer(0.0001).to_list(timeout=30) for _ in range(20)]
        lists = [sk.Signal.from_iterable([1, 2, 3]).deliver_on(sk.Queue.concurrent()).to_list(timeout=30)
                 for _ in range(50)]
        print(all(t == [0] for t in timers), all(r == [1, 2, 3] for r in lists), hooked)
    """)
    assert lines == ["True ['KeyboardInterrupt']", "True True []"]


@pytest.mark.parametrize("kind", ["serial", "concurrent"])
def test_an_interrupt_in_a_side_effect_on_a_queue_goes_to_the_hook_and_the_values_go_on(kind):
    # run_on: the whole emission runs on the queue's thread; the side
    # effect's exception goes to callback_error_hook, as any other would,
    # and the stream goes on (before, every value was dropped: []).
    lines = run_child(f"""
        queue = queue_of("{kind}")
        def effect(value):
            if value == 1:
                ki()
        print(sk.Signal.from_iterable([1, 2, 3]).before_next(effect).run_on(queue).to_list(timeout=30), hooked)
    """)
    assert lines == ["[1, 2, 3] [('KeyboardInterrupt', 'side effect')]"]


def test_an_interrupt_left_pending_at_the_end_of_a_library_callback_is_reported_and_cleared():
    # A package call nested in a library thread's callback may defer an
    # interrupt to its caller and not raise it (a handle's release does
    # not): at the end of the library's callback it goes to the hook
    # (where "interrupt") and the thread's state is cleared.
    lines = run_child("""
        from pysignalkit import _core
        queue = sk.Queue.serial("q")
        queue.run(lambda: _core._interrupts.defer(KeyboardInterrupt("left"), caller=True))
        print(hook_called.wait(30), hooked)
        print(sk.Signal.from_iterable([1, 2, 3]).deliver_on(queue).to_list(timeout=30))
    """)
    assert lines == ["True [('KeyboardInterrupt', 'interrupt')]", "[1, 2, 3]"]


def test_an_interrupt_in_a_create_function_reaches_the_caller_of_subscribe():
    # On the caller's thread: the stream ends (not through on_error: the
    # rule of test_native.InterruptInCallbacksTests) and subscribe raises
    # it. Before, the put of that error raised the pending interrupt inside
    # the package's callback, where it was lost ("Exception ignored" on
    # stderr, subscribe returned).
    lines = run_child("""
        errors = []
        try:
            sk.Signal.create(ki).subscribe(None, lambda exc: errors.append(type(exc).__name__))
            print("not raised")
        except KeyboardInterrupt as exc:
            print("raised", exc)
        print(errors, hooked)
    """)
    assert lines == ["raised from a callback", "[] []"]


def test_an_interrupt_inside_a_handles_call_count_waits_until_it_is_done():
    # Found probing Ctrl-C in a new user's program (a create() function
    # emitting in a loop through nested create() signals): the interrupt
    # landed in Subscriber.on_next's _exit before it popped its count (the
    # handler raises there: the user's function runs below), so the
    # Subscriber never released its library object (1 object alive for
    # good, about 1 run in 30). Any handle's _enter, _exit or release has
    # that window. Here the package's SIGINT handler is called as Python
    # calls it, with the frame it interrupts: _exit's, about to release a
    # pipe closed during a call. It must let _exit finish (the release
    # included) and leave the interrupt to the end of the package call, as
    # for one met in a callback: before, it raised there and the pipe was
    # never released.
    assert run_child("""
        import signal, sys
        from pysignalkit._core import _interrupts
        pipe = sk.Pipe()
        pipe._enter()  # a call in flight
        pipe.close()  # released by that call's _exit
        alive = sk.live_objects()
        real_free = pipe._free
        def interrupted_free():
            _interrupts.handler(signal.SIGINT, sys._getframe(1))  # _exit's frame, as if interrupted there
            real_free()
        pipe._free = interrupted_free
        # The interrupt is raised at the end of the next package call
        # (_after_call), or, re-sent by the package 2 ms later, wherever it
        # lands outside the package's code first (this module, on a loaded
        # machine): either way inside the try.
        try:
            pipe._exit()
            sk.Pipe().close()
        except KeyboardInterrupt:
            print("interrupted")
        import gc
        gc.collect()  # a Pipe() made when it landed, before its close
        print(alive - sk.live_objects())
    """) == ["interrupted", "1"]



def test_an_interrupt_in_the_packages_own_code_outside_callbacks_leaves_nothing_alive():
    # Issue 77. Ctrl-C at a random moment of a loop of subscriptions left
    # objects alive for good about 1 run in 5: it fell in the package's
    # own code between a library object's making and its owner (here: the
    # subscription's disposable retained for the exit hook and not yet
    # stored), raised there, and nothing ever released it. The handler is
    # called here as Python calls it, with the frame it interrupts, right
    # after that retain: the interrupt must wait for the end of the package
    # call (subscribe raises it) and leave nothing behind.
    assert run_child("""
        import gc, signal, sys
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from pysignalkit._core import C, _interrupts
        pipe = sk.Pipe()  # a library object alive: the package's handler in place
        print(signal.getsignal(signal.SIGINT) == _interrupts.handler)
        real_retain = C.disposable_retain
        def interrupted_retain(disposable):
            retained = real_retain(disposable)
            _interrupts.handler(signal.SIGINT, sys._getframe(1))  # _register_subscription's frame
            return retained
        C.disposable_retain = interrupted_retain
        try:
            pipe.signal().subscribe(lambda value: None)
            print("not interrupted")
        except KeyboardInterrupt:
            print("interrupted")
        C.disposable_retain = real_retain
        pipe.close()
        gc.collect()
        print(sk.wait_released(10), sk.live_objects(), sk.pending_callbacks())
    """) == ["True", "interrupted", "True 0 0"]


def test_ctrl_c_during_to_list_raises_keyboard_interrupt_and_leaves_nothing_alive():
    # Issue 77: Ctrl-C while to_list() waits for a stream that never ends,
    # at a random moment after it began: KeyboardInterrupt in the caller,
    # and once the pipe is gone nothing alive. Twenty child processes, each
    # sent SIGINT from here as a terminal sends it (the process, not a
    # thread). A hang fails on the timeout; the time each took is not
    # asserted (issue 77's figure, 100 of 100 within 1 s, is in the note).
    child = textwrap.dedent("""
        import gc, signal, sys
        # Ctrl-C as a terminal's Python has it, whatever this suite
        # inherited (.ci/run starts it with SIGINT ignored).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import pysignalkit as sk
        pipe = sk.Pipe()
        interrupted = False
        try:
            # "ready" inside the try: a signal sent at once may land before
            # to_list is entered (CI23, under load), still in the caller.
            print("ready", flush=True)
            pipe.signal().to_list()
        except KeyboardInterrupt:
            interrupted = True
        pipe.close()
        del pipe
        gc.collect()
        print(interrupted, sk.wait_released(10), sk.live_objects(), sk.pending_callbacks(), flush=True)
    """)
    generator = random.Random(77)
    for attempt in range(20):
        process = subprocess.Popen([sys.executable, "-c", child], env=dict(os.environ), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
        # A random moment within the child's first 50 ms after "ready": on
        # its way into to_list, or waiting in it (a moment chosen, not a
        # wait for something).
        time.sleep(generator.uniform(0, 0.05))
        process.send_signal(signal.SIGINT)
        try:
            out, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
        assert (process.returncode, out.split(), err) == (0, ["True", "True", "0", "0"], ""), (attempt, out, err)


def test_an_interrupt_just_after_a_library_object_is_made_leaves_nothing_alive():
    # With no library object alive, Python's default SIGINT handler was in
    # place; a Ctrl-C landing between a making (here sk_signal_single) and
    # the handle that owns the object raised there and left the object
    # alive for good (1 in about 25,000 makings under a SIGINT every 1 ms).
    # The handler Python finds in place is called as Python calls it, with
    # the package frame it interrupts: the interrupt must reach the
    # program's own code and leave nothing behind.
    assert run_child("""
        import gc, signal, sys
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from pysignalkit._core import C
        print(sk.live_objects(), signal.getsignal(signal.SIGINT) is signal.default_int_handler)
        real_single = C.signal_single
        def interrupted_single(*args):
            status = real_single(*args)
            signal.getsignal(signal.SIGINT)(signal.SIGINT, sys._getframe(1))
            return status
        C.signal_single = interrupted_single
        interrupted = False
        try:
            made = sk.Signal.single(1)
            threading.Event().wait(60)  # where the program's own code runs: the interrupt comes here
        except KeyboardInterrupt:
            interrupted = True
        C.signal_single = real_single
        made = None
        gc.collect()
        print(interrupted, sk.wait_released(10), sk.live_objects())
    """) == ["0 True", "True True 0"]


def test_an_interrupt_in_the_release_of_a_carried_exception_reaches_the_program():
    # The release of a value carrying an exception a callback raised
    # formats its traceback (standard library code): a Ctrl-C landing there
    # was lost as an unraisable exception in the package's release
    # function. It must reach the program, at the end of the package call
    # that released the value.
    assert run_child("""
        import gc, signal, sys
        from pysignalkit import _core
        signal.signal(signal.SIGINT, signal.default_int_handler)
        unraisable = []
        sys.unraisablehook = lambda u: unraisable.append(type(u.exc_value).__name__)
        real_detach = _core._detach_traceback
        landed = []
        def interrupted_detach(*args):
            if not landed and sys._getframe(1).f_code is _core._box_release_function.__code__:
                landed.append(True)
                signal.getsignal(signal.SIGINT)(signal.SIGINT, sys._getframe(0))
            return real_detach(*args)
        _core._detach_traceback = interrupted_detach
        def boom(value):
            raise ValueError("boom")
        errors, interrupted = [], False
        try:
            subscription = sk.Signal.single(1).map(boom).subscribe(None, errors.append)
            subscription.close()
        except KeyboardInterrupt:
            interrupted = True
        _core._detach_traceback = real_detach
        print(landed, interrupted, unraisable, [type(e).__name__ for e in errors])
        subscription = None
        gc.collect()
        print(sk.wait_released(10), sk.live_objects(), sk.boxed_objects())
    """) == ["[True] True [] ['ValueError']", "True 0 0"]
