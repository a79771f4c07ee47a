"""fork(): the child of a process that used the package never calls the C
library (signalkit.h, "fork()": such a child may only exec or exit). Its
atexit hook and the finalizers of the handles it inherited do nothing, and
its calls of the package raise SignalKitError; a process that only imported
the package (a forkserver) forks children that use it fully. Each test runs
a program of its own: the test process itself is never forked."""
import os
import subprocess
import sys
import textwrap

# A parent whose library threads run (a serial queue's worker, the timer
# thread) and hold work: the serial queue's thread inside a delivery that
# waits for the parent's gate, three more deliveries queued behind it (an
# int, a str, an object carried by reference), a timer armed for an hour,
# both subscriptions live at the fork. No thread is entering or leaving
# Python at the fork (CPython before 3.12 may deadlock a fork's child on a
# lock of its own otherwise, gh-112275: not this package's to fix). `child`
# runs CHILD in each child; the parent prints one line per child: its exit
# status, or "hung" when it had not ended after HUNG_SECONDS (then killed).
PARENT = """
import gc, os, signal, sys, threading, time
import pysignalkit as sk
from pysignalkit import _core

HUNG_SECONDS = 30.0
queue = sk.Queue.serial()
pipe = sk.Pipe()
entered, gate = threading.Event(), threading.Event()

def block(value):
    if value == 1:
        entered.set()
        gate.wait(60.0)

deliveries = pipe.signal().deliver_on(queue).subscribe(block)
timer = sk.Signal.timer(3600.0, queue).subscribe(lambda v: None)
pipe.put(1)
assert entered.wait(30.0)
for value in (2, "text", object()):
    pipe.put(value)

def child(mode):
{child}

for mode in MODES:
    pid = os.fork()
    if pid == 0:
        try:
            child(mode)
        except BaseException as exc:
            if isinstance(exc, SystemExit):
                raise
            print(f"child {{mode}}: {{exc!r}}", file=sys.stderr, flush=True)
            os._exit(3)
        sys.exit(0)  # falls off the end: the atexit hooks run
    deadline = time.monotonic() + HUNG_SECONDS
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            print(mode, os.waitstatus_to_exitcode(status), flush=True)
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            print(mode, "hung", flush=True)
            break
        time.sleep(0.01)
gate.set()
deliveries.dispose()
timer.dispose()
"""


def run_parent(modes, child, timeout=120):
    code = f"MODES = {modes!r}\n" + PARENT.format(child=textwrap.indent(textwrap.dedent(child), "    "))
    result = subprocess.run([sys.executable, "-c", code], env=dict(os.environ), capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, result.stderr
    return dict(line.split(" ", 1) for line in result.stdout.splitlines()), result.stderr


def test_a_forked_child_that_does_not_use_the_package_exits_at_once():
    # Before: the child's atexit hook disposed the inherited subscriptions
    # through the library and waited for their releases, which only the
    # parent's library threads would run: SHUTDOWN_WAIT_SECONDS (made 60
    # here) at best, forever when a lock was held at the fork; dropping the
    # inherited handles called the library too.
    outcomes, stderr = run_parent(["exit", "drop"], """
        _core.SHUTDOWN_WAIT_SECONDS = 60.0
        if mode == "drop":
            global deliveries, timer, pipe, queue
            del deliveries, timer, pipe, queue
            gc.collect()
    """)
    assert outcomes == {"exit": "0", "drop": "0"}, stderr


def test_a_forked_child_refuses_package_calls():
    # The inherited handles and new ones alike: every call raises
    # SignalKitError naming the way out (no call reaches the library, where
    # it could wait forever); closing and disposing do nothing.
    outcomes, stderr = run_parent(["use"], """
        calls = [sk.Pipe, lambda: pipe.put(2), lambda: pipe.put(object()), lambda: queue.run(lambda: None),
                 lambda: sk.Signal.single(1).to_list(), lambda: sk.Signal.from_iterable([1, 2]).to_list(),
                 sk.Queue.serial, sk.live_objects, lambda: sk.to_value("text"),
                 lambda: __import__("asyncio").run(pipe.put_async(3))]
        for call in calls:
            try:
                call()
            except sk.SignalKitError as exc:
                assert "cannot be used in a process forked after it was used" in str(exc), exc
                assert "'spawn' or 'forkserver'" in str(exc), exc
            else:
                raise AssertionError(f"{call} did not raise")
        deliveries.dispose()
        with pipe:
            pass
        timer.close()
    """)
    assert outcomes == {"use": "0"}, stderr


def test_a_from_iterable_emission_that_forks_pulls_no_more_in_the_child():
    # A callback of from_iterable's emission into a library operator forks:
    # in the child the emission's loop (the extension's) stops before its
    # next pull, as the package's did (before it was C: it pulled on and put
    # into the library in the child); the parent's goes on.
    code = textwrap.dedent("""
        import itertools, os
        import pysignalkit as sk

        parent, pulled, children = os.getpid(), [], []

        def numbers():
            for n in itertools.count():
                pulled.append(n)
                yield n

        def on_next(value):
            if value == 3:
                pid = os.fork()
                if pid:
                    children.append(pid)

        try:
            sk.Signal.from_iterable(numbers()).take(6).subscribe(on_next)
        except sk.SignalKitError:  # the child: the package's calls after the emission refuse
            pass
        if os.getpid() != parent:
            print("child", pulled, flush=True)
            os._exit(0)
        print("parent", pulled, os.waitstatus_to_exitcode(os.waitpid(children[0], 0)[1]), flush=True)
    """)
    result = subprocess.run([sys.executable, "-c", code], env=dict(os.environ), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == ["child [0, 1, 2, 3]", "parent [0, 1, 2, 3, 4, 5] 0"], \
        (result.stdout, result.stderr)


def test_a_fork_pool_worker_using_the_package_raises_in_the_parent():
    # The most common fork: a multiprocessing pool (the "fork" method) made
    # after the parent used the package. A worker's call raises; the error
    # reaches the parent's map() (before, SignalKitError could not be
    # unpickled there, and the pool waited forever). The parent's library
    # started no thread: its pipe only marks it used.
    code = textwrap.dedent("""
        import multiprocessing, pickle
        import pysignalkit as sk

        def work(n):
            return sk.Signal.single(n).to_list()

        pipe = sk.Pipe()
        error = pickle.loads(pickle.dumps(sk.SignalKitError(-3, "sk_pipe_put: value is NULL")))
        assert (error.status, error.message, str(error)) == (-3, "sk_pipe_put: value is NULL",
                                                            "sk_pipe_put: value is NULL (invalid argument, status -3)")
        with multiprocessing.get_context("fork").Pool(1) as pool:
            try:
                pool.map(work, [1])
            except sk.SignalKitError as exc:
                print(exc.status, exc.message)
        pipe.close()
    """)
    result = subprocess.run([sys.executable, "-c", code], env=dict(os.environ), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("-6 signalkit cannot be used in a process forked after it was used"), \
        (result.stdout, result.stderr)


def test_forkserver_children_use_the_package(tmp_path):
    # The forkserver process imports the package (preloaded) but uses none
    # of it: its children, forks of it, use the package as any process.
    # The parent itself used the library (its threads run) before.
    script = tmp_path / "forkserver_children.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing
        import pysignalkit as sk

        def work(n):
            return sk.Signal.from_iterable(range(n)).deliver_on(sk.Queue.serial()).map(lambda v: v * 2) \\
                .to_list(timeout=30.0)

        if __name__ == "__main__":
            assert sk.Signal.single(1).deliver_on(sk.Queue.serial()).to_list(timeout=30.0) == [1]
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["pysignalkit"])
            with context.Pool(2) as pool:
                print(pool.map(work, [2, 3]))
    """))
    result = subprocess.run([sys.executable, str(script)], env=dict(os.environ), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[[0, 2], [0, 2, 4]]\n", result.stderr
