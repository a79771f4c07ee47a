"""Errors of the Pythonic forms: the exception object reaches on_error with
its traceback, nothing is kept alive through it, on_next failures end the
subscription, and Ctrl-C / interpreter exit (in child interpreters)."""
import gc
import os
import functools
import subprocess
import sys
import textwrap
import threading
import time
import traceback
import weakref

import pytest

import pysignalkit as sk

pytestmark = pytest.mark.usefixtures("clean")


def run_child(code, timeout=120):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=dict(os.environ),
                          capture_output=True, text=True, timeout=timeout)


def test_on_error_receives_the_exception_with_its_traceback():
    def explode(n):
        raise ValueError(f"bad {n}")

    received = []

    def on_error(error):
        received.append((error, "".join(traceback.format_tb(error.__traceback__))))

    with sk.Signal.from_iterable([7]).map(explode).take(3).subscribe(None, on_error):
        pass
    error, text = received[0]
    assert isinstance(error, ValueError) and str(error) == "bad 7"
    assert "in explode" in text and 'raise ValueError(f"bad {n}")' in text
    # Afterwards it keeps no frame: the text stays as a note.
    assert error.__traceback__ is None
    assert any("in explode" in note for note in error.__notes__)


@pytest.mark.parametrize("build, values", [
    (lambda s, fn: s.scan(fn, 0), [1, 3]),
    (lambda s, fn: s.scan(fn, 0).map(lambda v: -v), [-1, -3]),  # the stage after never sees the failure
    (lambda s, fn: s.scan(fn, 0).take(5), [1, 3]),
    (lambda s, fn: s.reduce(fn, 0), []),
])
def test_on_error_receives_a_fold_s_exception_with_its_traceback(build, values):
    # scan's and reduce's function take two arguments and are called by the
    # extension: its exception is the stream's error at the value that
    # raised (the values after it are not folded); once delivered it keeps
    # no frame, its traceback is the note, which names the function and
    # none of the package's files (on_error's view of the traceback:
    # test_callback_failures.py).
    calls = []

    def add(total, n):
        calls.append(n)
        if n == 3:
            raise ValueError(f"bad {n}")
        return total + n

    seen, received = [], []
    with build(sk.Signal.from_iterable([1, 2, 3, 4]), add).subscribe(seen.append, received.append):
        pass
    assert seen == values and calls == [1, 2, 3]
    assert len(received) == 1 and isinstance(received[0], ValueError) and str(received[0]) == "bad 3"
    notes = received[0].__notes__
    assert received[0].__traceback__ is None
    assert any("in add" in note and 'raise ValueError(f"bad {n}")' in note for note in notes)
    assert not any(f"pysignalkit{os.sep}" in note for note in notes), notes


def test_an_exception_keeps_no_handle_alive():
    class Marker:
        pass

    marker = Marker()
    alive = weakref.ref(marker)

    def explode(n, kept=marker):
        raise RuntimeError("boom")

    errors = []
    signal = sk.Signal.from_iterable([1]).map(explode)
    with signal.subscribe(None, errors.append):
        pass
    del signal, explode, marker
    gc.collect()
    assert alive() is None
    assert isinstance(errors[0], RuntimeError)


def test_exception_in_on_next_disposes_and_reaches_on_error():
    seen, errors = [], []

    def on_next(n):
        seen.append(n)
        if n == 2:
            raise KeyError("stop")

    with sk.Pipe() as pipe:
        with pipe.signal().subscribe(on_next, errors.append) as subscription:
            for n in range(1, 5):
                pipe.put(n)
            assert isinstance(subscription.exception, KeyError)
    assert seen == [1, 2] and len(errors) == 1 and isinstance(errors[0], KeyError)


def test_error_without_on_error_goes_to_the_hook():
    reported = []
    import pysignalkit._core as core
    saved = sk.callback_error_hook
    sk.callback_error_hook = lambda exc, where: reported.append((type(exc), where))
    try:
        with sk.Signal.fail(OSError("gone")).subscribe(None):
            pass
        with sk.Signal.single(1).subscribe(None, None, lambda: 1 / 0):
            pass
    finally:
        sk.callback_error_hook = saved
        core.callback_error_hook = saved
    assert reported == [(OSError, "error"), (ZeroDivisionError, "completed")]


def _boom(value):
    raise ValueError(value)


def _boom_folding(total, value):
    raise ValueError(value)


@pytest.mark.parametrize("build, where", [
    (lambda s: s.map(_boom), "map"),
    (lambda s: s.filter(_boom), "filter"),
    (lambda s: s.tap(_boom), "tap"),
    (lambda s: s.map(lambda v: v).filter(lambda v: True).map(_boom), "map"),
    (lambda s: s.map(lambda v: v).filter(_boom).tap(lambda v: None), "filter"),
    (lambda s: s.map(lambda v: 2 ** 70), "map"),  # a map's result outside int64
    # Longer than one composed run (_FUSED_STAGES): the stage is still named.
    (lambda s: functools.reduce(lambda c, _: c.map(lambda v: v), range(100), s).map(_boom), "map"),
    (lambda s: functools.reduce(lambda c, _: c.tap(lambda v: None), range(70), s).filter(_boom), "filter"),
    (lambda s: s.map(_boom).take(5), "map"),  # through a library operator: the stream's error
    (lambda s: s.tap(lambda v: None).filter(_boom).distinct_until_changed(), "filter"),
    (lambda s: s, "next"),  # on_next itself raised
    # A fold's function (two arguments, called by the extension): named
    # after the fold, also through stages or library operators after it
    # (before: "map", the name of the Python stage that raised it again).
    (lambda s: s.scan(_boom_folding, 0), "scan"),
    (lambda s: s.scan(_boom_folding, 0).map(lambda v: v), "scan"),
    (lambda s: s.scan(_boom_folding, 0).take(5), "scan"),
    (lambda s: s.reduce(_boom_folding, 0), "reduce"),
])
def test_the_hook_names_the_stage_that_raised(build, where):
    # Before: "next" for every stage of the subscription's own chain (the
    # default hook printed "Exception in signalkit next callback" for a map
    # that raised), and "error" once a library operator stood between.
    reported = []
    import pysignalkit._core as core
    saved = sk.callback_error_hook
    sk.callback_error_hook = lambda exc, where: reported.append((type(exc), where))
    try:
        with build(sk.Signal.single(1)).subscribe(_boom if where == "next" else (lambda v: None)):
            pass
    finally:
        sk.callback_error_hook = saved
        core.callback_error_hook = saved
    assert len(reported) == 1 and reported[0][1] == where, reported
    assert reported[0][0] in (ValueError, OverflowError)


@pytest.mark.parametrize("build, where", [
    (lambda s: s.map(_boom), "map"), (lambda s: s.filter(_boom), "filter"), (lambda s: s.tap(_boom), "tap")])
def test_the_hook_names_the_stage_of_a_from_iterable_chain(build, where):
    # from_iterable hands its values to the chain itself (no C between):
    # the same names, and the stage signal records its exception.
    reported = []
    import pysignalkit._core as core
    saved = sk.callback_error_hook
    sk.callback_error_hook = lambda exc, where: reported.append((type(exc), where))
    try:
        signal = build(sk.Signal.from_iterable([1, 2]))
        with signal.subscribe(lambda v: None):
            pass
    finally:
        sk.callback_error_hook = saved
        core.callback_error_hook = saved
    assert reported == [(ValueError, where)]
    assert isinstance(signal.exception, ValueError)


def test_the_default_hook_message_names_the_stage(monkeypatch):
    messages = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: messages.append(unraisable.err_msg))
    with sk.Signal.single(1).map(_boom).subscribe(lambda v: None):
        pass
    assert messages == ["Exception in signalkit map callback"]


def test_a_failing_hook_keeps_the_error_it_was_given_in_its_report(monkeypatch):
    """A hook that raises: its exception reaches sys.unraisablehook with the
    stream's error as its context, for an on_next's error too (reported
    outside the except that caught it, it was lost)."""
    reports = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: reports.append(unraisable.exc_value))
    saved = sk.callback_error_hook

    def hook(exc, where):
        raise RuntimeError(f"hook failed for {where}")
    sk.callback_error_hook = hook
    try:
        pipe = sk.Pipe()
        d = pipe.signal().subscribe(lambda v: 1 / 0)
        pipe.put(1)
        d.dispose()
        other = sk.Pipe()
        e = other.signal().subscribe(None, None, lambda: 1 / 0)
        other.complete()
        e.dispose()
    finally:
        sk.callback_error_hook = saved
    assert [str(r) for r in reports] == ["hook failed for next", "hook failed for completed"]
    assert all(isinstance(r.__context__, ZeroDivisionError) for r in reports), [repr(r.__context__) for r in reports]


def test_a_library_error_string_arrives_as_signal_error():
    errors = []
    with sk.Signal.from_iterable([1]).map("str(i64)", lambda n: None).subscribe(None, errors.append):
        pass
    assert isinstance(errors[0], sk.SignalError)
    assert errors[0].value == "sk_ffi: map: result (str): NULL returned as str"


def test_reduce_failure_becomes_the_error():
    errors = []
    with sk.Signal.from_iterable([1, 2, 3]).reduce(lambda acc, n: acc / (n - 2), 1.0).subscribe(
            pytest.fail, errors.append):
        pass
    assert isinstance(errors[0], ZeroDivisionError)


def test_ctrl_c_during_a_synchronous_emission_reaches_the_caller():
    result = run_child("""
        import itertools, signal
        signal.signal(signal.SIGINT, signal.default_int_handler)  # not inherited (SIG_IGN in a background job)
        import pysignalkit as sk
        seen = []
        def plus_one(n):
            if n == 1000:
                signal.raise_signal(signal.SIGINT)
            return n + 1
        try:
            sk.Signal.from_iterable(itertools.count()).map(plus_one).subscribe(seen.append)
        except KeyboardInterrupt:
            print("interrupted after", len(seen))
        import gc
        gc.collect()  # the interrupt's traceback held the frames (a cycle of Python objects)
        print("live", sk.live_objects(), sk.pending_callbacks())
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] in ("interrupted after 1000", "interrupted after 1001")
    assert result.stdout.splitlines()[1] == "live 0 0"
    assert result.stderr == ""


def test_ctrl_c_in_an_operator_callback_reaches_the_caller():
    # A side effect, take_until's and map_to_signal's functions (library
    # operators, crossing through the extension): the emission stops and the
    # caller gets the KeyboardInterrupt, reported nowhere else.
    result = run_child("""
        import itertools, signal
        signal.signal(signal.SIGINT, signal.default_int_handler)  # not inherited (SIG_IGN in a background job)
        import pysignalkit as sk
        seen = []
        def effect(n):
            if n == 100:
                signal.raise_signal(signal.SIGINT)
        count = lambda: sk.Signal.from_iterable(itertools.count())
        for signal_ in (count().before_next(effect), count().take_until(lambda n: effect(n) or sk.TAKE_PASS),
                        count().map_to_signal(lambda n: effect(n) or sk.Signal.single(n))):
            seen.clear()
            try:
                signal_.subscribe(seen.append)
                print("not interrupted")
            except KeyboardInterrupt:
                print("interrupted after", len(seen))
        del signal_
        import gc
        gc.collect()
        print("live", sk.live_objects(), sk.pending_callbacks())
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["interrupted after 100"] * 3 + ["live 0 0"]
    assert result.stderr == ""


@pytest.mark.parametrize("queue", ["serial", "concurrent", "host"])
def test_exit_with_live_subscriptions_on_each_queue_kind(queue):
    # A child still running after 90 s (seconds at most, even at a load of
    # 12) prints every thread's Python stack and exits, so that a hang (seen
    # once at load ~10, not reproduced in 390 runs since) fails with where
    # it waited instead of a bare timeout.
    for run in range(3):
        result = run_child(f"""
            import faulthandler
            faulthandler.dump_traceback_later(90, exit=True)
            import threading
            import pysignalkit as sk
            queue = {{"serial": sk.Queue.serial, "concurrent": sk.Queue.concurrent, "host": sk.Queue.host}}["{queue}"]()
            started = threading.Event()
            pipe = sk.Pipe()
            pipe.signal().map(lambda n: {{"n": n}}).deliver_on(queue).subscribe(lambda v: started.set())
            sk.Signal.interval(0.0001, queue).map(str).subscribe(lambda v: started.set())
            for n in range(5000):
                pipe.put(n)
            if "{queue}" == "host":
                queue.drain()
            started.wait(30)
            print("exiting mid-stream", flush=True)
        """)
        assert result.returncode == 0, f"run {run}: status {result.returncode}\n{result.stderr}"
        assert result.stderr == "", f"run {run}"
        assert result.stdout == "exiting mid-stream\n"


def test_errors_in_operator_callbacks_reach_on_error_or_the_hook(monkeypatch):
    # The library operators' Python callbacks cross through the extension
    # (_speedups_src/operators.c, operator()): an exception raised in one
    # still reaches on_error (a function that returns the next signal,
    # take_until's) or the hook (a side effect, a queue job; take_until's
    # with no on_error, under its name).
    reported = []
    monkeypatch.setattr(sk, "callback_error_hook", lambda exc, where: reported.append((type(exc), where)))

    def boom(*args):
        raise ValueError("boom")

    def errors_of(signal):
        errors = []
        with signal.subscribe(None, errors.append):
            pass
        return [(type(e), str(e)) for e in errors]

    assert errors_of(sk.Signal.single(1).map_to_signal(boom)) == [(ValueError, "boom")]
    assert errors_of(sk.Signal.fail(KeyError("k")).catch(boom)) == [(ValueError, "boom")]
    assert errors_of(sk.Signal.deferred(boom)) == [(ValueError, "boom")]
    assert errors_of(sk.Signal.create(boom)) == [(ValueError, "boom")]
    values = []
    with sk.Signal.from_iterable([1, 2]).before_next(boom).subscribe(values.append):
        pass
    assert values == [1, 2] and reported == [(ValueError, "side effect")] * 2
    reported.clear()
    values.clear()
    assert errors_of(sk.Signal.from_iterable([1, 2]).take_until(boom)) == [(ValueError, "boom")]
    assert reported == []
    with sk.Signal.from_iterable([1, 2]).take_until(boom).subscribe(values.append):
        pass
    assert values == [] and reported == [(ValueError, "take_until")]
    reported.clear()
    with sk.Queue.host() as queue:
        queue.run(boom)
        queue.drain()
    assert reported == [(ValueError, "work")]


@pytest.mark.parametrize("queue", ["serial", "concurrent", "background", "host", "virtual"])
def test_exit_with_live_operator_callbacks_on_each_queue_kind_needs_no_wait(queue):
    # Timers, side effects, take_until, map_to_signal, deferred, catch,
    # create(fn), queue jobs and after_disposed running on a queue at exit.
    # With no wait for them (SHUTDOWN_WAIT_SECONDS 0), the exit must still be
    # clean: once the interpreter finalizes, the extension's callbacks touch
    # Python no more (through ctypes, a library thread taking the GIL then
    # was ended under libdispatch: a crash).
    # A child still running after 90 s (seconds at most, even at a load of
    # 12) prints every thread's Python stack and exits, so that a hang (seen
    # once at load ~10, not reproduced in 390 runs since) fails with where
    # it waited instead of a bare timeout.
    for run in range(3):
        result = run_child(f"""
            import faulthandler
            faulthandler.dump_traceback_later(90, exit=True)
            import threading
            import pysignalkit as sk
            from pysignalkit import _core
            _core.SHUTDOWN_WAIT_SECONDS = 0.0
            from pysignalkit.testing import TestScheduler
            scheduler = TestScheduler()
            queue = {{"serial": sk.Queue.serial, "concurrent": sk.Queue.concurrent,
                      "background": lambda: sk.Queue.concurrent(True), "host": sk.Queue.host,
                      "virtual": lambda: scheduler.queue}}["{queue}"]()
            started = threading.Event()
            def tick(*args):
                started.set()
            def boom(v):
                raise ValueError(v)
            ticks = sk.Signal.interval(0.0001, queue)
            ticks.before_next(tick).after_next(tick).take_until(lambda v: sk.TAKE_PASS).subscribe(tick)
            ticks.map_to_signal(lambda v: sk.Signal.deferred(lambda: sk.Signal.single(v))).subscribe(tick)
            ticks.map(boom).catch(lambda e: sk.Signal.single(str(e))).restart().subscribe(tick)
            sk.Signal.create(lambda s: s.on_next(1)).run_on(queue).restart().after_disposed(tick).subscribe(tick)
            for _ in range(2000):
                queue.run(tick)
            if "{queue}" == "host":
                for _ in range(20):
                    queue.drain()
                started.set()
            if "{queue}" == "virtual":
                scheduler.advance(50)
                started.set()
            started.wait(30)
            print("exiting mid-stream", flush=True)
        """)
        assert result.returncode == 0, f"run {run}: status {result.returncode}\n{result.stderr}"
        assert result.stderr == "", f"run {run}"
        assert result.stdout == "exiting mid-stream\n"


def test_ctrl_c_in_a_hot_fan_out_stops_the_put_and_reaches_the_caller():
    # Deliveries go through the extension (_speedups_src/observer.c): once
    # one subscriber met the interrupt, no later subscriber receives the
    # value.
    result = run_child("""
        import signal
        signal.signal(signal.SIGINT, signal.default_int_handler)  # not inherited (SIG_IGN in a background job)
        import pysignalkit as sk
        seen = []
        def make(i):
            def on_next(n):
                seen.append((i, n))
                if i == 2 and n == 1:
                    signal.raise_signal(signal.SIGINT)
            return on_next
        pipe = sk.Pipe()
        subscriptions = [pipe.signal().subscribe(make(i)) for i in range(5)]
        pipe.put(0)
        try:
            pipe.put(1)
        except KeyboardInterrupt:
            print("interrupted", seen[5:])
        pipe.put(2)
        print("after", seen[8:])
        print([type(s.exception).__name__ for s in subscriptions])
        for s in subscriptions:
            s.dispose()
        del subscriptions, s
        pipe.close()
        import gc
        gc.collect()
        print("live", sk.live_objects(), sk.pending_callbacks())
    """)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "interrupted [(0, 1), (1, 1), (2, 1)]"
    # The emission stopped there: the subscriptions it had not reached yet
    # did not get the value, and stay subscribed (as listeners after the one
    # that raised in a loop); only the one that met the interrupt ended.
    assert lines[1] == "after [(0, 2), (1, 2), (3, 2), (4, 2)]"
    assert lines[2] == "['NoneType', 'NoneType', 'KeyboardInterrupt', 'NoneType', 'NoneType']"
    assert lines[3] == "live 0 0"
    assert result.stderr == ""


def test_exit_with_queued_deliveries_under_load_is_clean():
    # Eight exits at once (the machine loaded by them): deliveries queued on
    # the concurrent queue when the subscriptions are disposed still drop
    # their values (objects carried by reference) on library threads while
    # the interpreter finalizes. Those releases go through the extension,
    # which touches Python no more by then (through ctypes they took the
    # GIL, and the thread ended inside libdispatch: SIGILL, about 1 exit in
    # 5 under such load).
    code = textwrap.dedent("""
        import threading
        import pysignalkit as sk
        queue = sk.Queue.concurrent()
        started = threading.Event()
        pipe = sk.Pipe()
        pipe.signal().map(lambda n: {"n": n}).deliver_on(queue).subscribe(lambda v: started.set())
        sk.Signal.interval(0.0001, queue).map(str).subscribe(lambda v: started.set())
        for n in range(5000):
            pipe.put(n)
        started.wait(30)
    """)
    children = [subprocess.Popen([sys.executable, "-c", code], env=dict(os.environ), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(8)]
    results = [(child.wait(timeout=120), child.communicate()[1]) for child in children]
    assert results == [(0, "")] * 8


def test_exit_disposes_a_subscription_whose_release_ran_meanwhile():
    # The atexit hook disposes the subscriptions still running. One that
    # ends on a library thread meanwhile has its release drop the reference
    # the hook's list held, possibly the last: the hook must dispose through
    # a reference of its own (with handle checking on, a released handle is
    # reported instead of being a use after free, which crashed at exit about
    # one run in fifty).
    env = dict(os.environ, SIGNALKIT_CHECK_HANDLES="1")
    code = textwrap.dedent("""
        import sys
        import pysignalkit as sk
        from pysignalkit import _core
        pipe = sk.Pipe()
        pipe.signal().subscribe(lambda value: None)  # its handle is dropped at once
        dispose = _core.C.disposable_dispose
        def dispose_after_the_release(handle):
            for ctx in list(_core._subscriptions):
                _core._release_ctx_function(ctx)  # as if the subscription ended on a library thread
            dispose(handle)
            print("error:", _core.C.last_error_message(), file=sys.stderr, flush=True)
        _core.C.disposable_dispose = dispose_after_the_release
    """)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "error:" in result.stderr, "the hook disposed nothing"
    assert "released" not in result.stderr, result.stderr


# Scripts that hold signals whose Python callbacks nothing runs at exit
# (issue 43): each prints the time (time.monotonic(), the system's
# monotonic clock, the same in both processes) once its work is done.
EXIT_HOLDING = {
    "a map never subscribed": """
        s = sk.Signal.from_iterable([1, 2]).map(lambda n: n + 1)
    """,
    "a map delivered on a serial queue, never subscribed": """
        pipe = sk.Pipe()
        s = pipe.signal().map(lambda n: n + 1).deliver_on(sk.Queue.serial())
    """,
    "a timer's map never subscribed": """
        s = sk.Signal.interval(1.0, sk.Queue.serial()).map(lambda n: n + 1)
    """,
    "a subscription idle at exit": """
        pipe = sk.Pipe()
        subscription = pipe.signal().map(lambda n: n + 1).subscribe(print)
        pipe.put(1)
    """,
    "an uncaught exception while holding a map": """
        s = sk.Signal.from_iterable([1, 2]).map(lambda n: n + 1)
        print(time.monotonic(), flush=True)
        raise RuntimeError("uncaught")
    """,
}


@pytest.mark.parametrize("kind", EXIT_HOLDING)
def test_exit_waits_for_nothing_when_no_callback_runs(kind):
    # Before: the exit hook waited for every callback set no Python handle
    # held any more (SHUTDOWN_WAIT_SECONDS, 5 s), although nothing ran: the
    # first three and the uncaught exception exited 5.1-5.2 s after their
    # work. Bounded well below that, and generously above the 0.1-0.3 s an
    # exit takes here, even on a loaded machine.
    code = "import time\nimport pysignalkit as sk\n" + textwrap.dedent(EXIT_HOLDING[kind])
    if "uncaught" not in kind:
        code += "print(time.monotonic(), flush=True)\n"
    result = run_child(code)
    exited = time.monotonic()
    expected_status, expected_error = (1, "RuntimeError: uncaught") if "uncaught" in kind else (0, "")
    assert result.returncode == expected_status, result.stderr
    assert expected_error in result.stderr if expected_error else result.stderr == ""
    work_done = float(result.stdout.splitlines()[-1])
    assert exited - work_done < 1.0, f"{kind}: the exit took {exited - work_done:.2f} s after the work"


def test_exit_waits_for_a_callback_running_on_a_library_thread():
    # A queue's job is still running on the queue's thread when the
    # interpreter exits: the exit hook lets it finish (up to
    # SHUTDOWN_WAIT_SECONDS) before the interpreter finalizes. The job goes
    # on only once the exit has begun (an exit handler registered after the
    # import runs before the package's), then works and prints; without the
    # wait its thread is stopped mid-work (the line missing, or the process
    # killed).
    result = run_child("""
        import atexit, threading
        import pysignalkit as sk
        running, exiting = threading.Event(), threading.Event()
        def job():
            running.set()
            exiting.wait(60)
            total = sum(i * i for i in range(300000))
            print("the job finished:", total, flush=True)
        queue = sk.Queue.serial()
        queue.run(job)
        running.wait(60)
        atexit.register(exiting.set)
        print("the main thread is done", flush=True)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    total = sum(i * i for i in range(300000))
    assert result.stdout.splitlines() == ["the main thread is done", f"the job finished: {total}"]


def test_signals_nested_at_run_time_past_the_stack_end_with_the_librarys_error():
    """A deferred function (or a map_to_signal or catch function) that
    returns a signal of the same shape again nests one start in the next
    without bound. Python's recursion limit never sees it (each function has
    returned before the library starts the signal it made); the library
    refuses the start once less than a quarter of the thread's stack is
    left, and the stream fails with a SignalError naming the operator and
    the stack: on_error receives it and everything is released, on a thread
    of 256 KB as on the 8 MB main thread (found by a new user probing the
    refusal; README "Errors")."""
    def deferred_level():
        return sk.Signal.deferred(deferred_level)

    def mapped_level(value):
        return sk.Signal.single(value).map_to_signal(mapped_level)

    def caught_level(error):
        return sk.Signal.fail(error).catch(caught_level)

    shapes = [("sk_signal_deferred", deferred_level),
              ("sk_signal_map_to_signal", lambda: mapped_level(1)),
              ("sk_signal_catch", lambda: caught_level(ValueError("again")))]
    results = []

    def run(chosen):
        for name, make in chosen:
            events = []
            make().subscribe(events.append, events.append, lambda: events.append("completed"))
            results.append((name, events))

    old = threading.stack_size(256 * 1024)
    try:
        thread = threading.Thread(target=run, args=(shapes,))
        thread.start()
    finally:
        threading.stack_size(old)
    thread.join(120)
    assert not thread.is_alive()
    run(shapes[:1])  # and on the main thread (some 20,000 levels: one shape is enough)
    assert len(results) == len(shapes) + 1
    for name, events in results:
        assert len(events) == 1, (name, events)
        assert isinstance(events[0], sk.SignalError), (name, events)
        message = events[0].value
        assert message.startswith(f"{name}: not started: "), message
        assert "-byte stack, less than a quarter" in message, message


def nested_create(depth_reached):
    """A create() function that subscribes to the next level of itself,
    forwarding its events: a program's own recursion through subscribe,
    which nothing but Python's recursion limit and the thread's stack
    bound."""
    def level(n):
        def start(subscriber):
            depth_reached[0] = n
            level(n + 1).subscribe(subscriber.on_next, subscriber.on_error, subscriber.on_completed)
        return sk.Signal.create(start)
    return level(0)


def test_recursion_through_subscribe_in_create_reaches_on_error(clean):
    # Before: the RecursionError met at Python's limit found no room left
    # to reach the stream (printed as ignored: "Exception ignored in
    # _create_generator"), and the stream never ended. Now a create()
    # start nested past a third of the recursion limit is refused with a
    # RecursionError, with room to travel back through every level.
    reached, events = [0], []
    nested_create(reached).subscribe(events.append, events.append, lambda: events.append("completed"))
    assert len(events) == 1, events
    assert isinstance(events[0], RecursionError), events
    assert "create" in str(events[0]) and "recursion limit" in str(events[0]), events[0]
    assert 10 < reached[0] < sys.getrecursionlimit() // 3


def test_recursion_through_subscribe_in_create_with_a_raised_limit_does_not_overflow():
    # Before: with the recursion limit raised (sys.setrecursionlimit), the
    # same recursion overflowed the thread's stack: the process died of
    # SIGSEGV. Now the start is refused while half of the stack is left,
    # with a RecursionError naming it, which on_error receives.
    result = run_child("""
        import sys, threading
        import pysignalkit as sk
        def nested_create(depth_reached):  # as the test module's
            def level(n):
                def start(subscriber):
                    depth_reached[0] = n
                    level(n + 1).subscribe(subscriber.on_next, subscriber.on_error, subscriber.on_completed)
                return sk.Signal.create(start)
            return level(0)
        sys.setrecursionlimit(10 ** 6)
        events, reached = [], [0]
        def run():
            nested_create(reached).subscribe(events.append, events.append, lambda: events.append("completed"))
        old = threading.stack_size(4 * 1024 * 1024)
        thread = threading.Thread(target=run)
        thread.start()
        threading.stack_size(old)
        thread.join()
        assert len(events) == 1 and isinstance(events[0], RecursionError), events
        assert "bytes left of the thread's" in str(events[0]), events[0]
        import gc; gc.collect()
        assert sk.wait_released(10)
        print("ok", reached[0] > 100)
    """)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["ok", "True"]


@pytest.mark.parametrize("fold", ["scan", "reduce"])
def test_a_fold_is_the_library_s_fold_alone(fold):
    # Its function's exception fails the library's call (sk_callback_fail,
    # from the extension): no stage of the package's own follows the fold
    # to find a failed accumulator (before: a stage, which made a library
    # operator after the fold cost a relay per value), and the failure is
    # still the stream's error, through a library operator too.
    source = sk.Signal.from_iterable([1, 2, 3])
    folded = getattr(source, fold)(_boom_folding, 0)
    assert getattr(folded, "_stage_source", None) is None
    received = []
    with folded.take(5).subscribe(lambda v: None, received.append):
        pass
    assert len(received) == 1 and isinstance(received[0], ValueError) and str(received[0]) == "1"
