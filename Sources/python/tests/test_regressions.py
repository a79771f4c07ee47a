"""Regression tests of defects found by a new user's exploration of the
package (each test failed, hung or crashed before its fix).

Run with `make test-python` (against the installed wheel)."""
import gc
import os
import subprocess
import sys
import textwrap
import threading

import pytest

import pysignalkit as sk

HERE = os.path.dirname(os.path.abspath(__file__))


def run_child(code, timeout=60):
    """Runs `code` in a child interpreter (-X dev); returns the CompletedProcess."""
    return subprocess.run([sys.executable, "-X", "dev", "-c", textwrap.dedent(code)], env=dict(os.environ),
                          cwd=HERE, capture_output=True, text=True, timeout=timeout)


# --- 1. Trampoline.function() outliving its Trampoline -------------------------

def test_trampoline_function_keeps_its_trampoline_alive():
    # Before: the Trampoline (and its Pipe) collected, the callable jumped
    # into freed memory (a segfault in about half the runs).
    result = run_child("""
        import gc, pysignalkit as sk
        got = []
        for i in range(50):
            pipe = sk.Pipe()
            d = pipe.signal().subscribe(got.append)
            f = sk.Trampoline(pipe, "void(i64)").function()
            del pipe
            gc.collect()
            f(i)
            d.dispose()
            del f, d
        gc.collect()
        print(len(got), sk.ffi_live_objects(), sk.live_objects())
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["50", "0", "0"]


def test_trampoline_function_after_close_raises():
    # Before: f(1) after tr.close() was a use after free (segfault).
    result = run_child("""
        import pysignalkit as sk
        for _ in range(20):
            tr = sk.Trampoline(sk.Pipe(), "void(i64)")
            f = tr.function()
            tr.close()
            try:
                f(1)
            except ValueError as e:
                assert "closed" in str(e), e
            else:
                raise SystemExit("no ValueError")
        print("ok")
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_trampoline_closed_while_other_threads_call_it():
    # Before: the process aborted (t1_tramp_min.py and t1_tclose_mode.py,
    # every run). A call read the pointer, then ctypes dropped the GIL
    # around its retain; a close() in between dropped the last reference
    # first, the call jumped into the freed closure and its handler freed
    # the trampoline a second time (libffi aborted). Also after detach(),
    # the subscription disposed or the pipe closed. No sleep: each caller
    # signals once it has made some calls; a tiny switch interval and a
    # random busy loop (which waits for nothing) land the close anywhere in
    # a call's steps. A call stopped by the close raises ValueError.
    result = run_child("""
        import gc, random, sys, threading
        import pysignalkit as sk
        sys.setswitchinterval(1e-6)
        for mode in ("unsubscribed", "close", "detach", "dispose", "pipeclose"):
            for callers in (1, 3):
                for rep in range(40):
                    pipe = sk.Pipe()
                    d = pipe.signal().subscribe("void(i64)", lambda n: None)
                    if mode == "unsubscribed":  # as t1_tramp_min.py: the calls put into no one
                        d.dispose()
                    tr = sk.Trampoline(pipe, "void(i64)")
                    fn = tr.function()
                    started = [threading.Event() for _ in range(callers)]
                    errors = []
                    def caller(started):
                        made = 0
                        while True:
                            try:
                                fn(1)
                            except ValueError as e:
                                errors.append(str(e))
                                return
                            made += 1
                            if made == 50:
                                started.set()
                    ths = [threading.Thread(target=caller, args=(e,)) for e in started]
                    for t in ths:
                        t.start()
                    for e in started:
                        assert e.wait(60)
                    for _ in range(random.randrange(2000)):
                        pass
                    {"unsubscribed": lambda: None, "close": lambda: None, "detach": tr.detach,
                     "dispose": d.dispose, "pipeclose": pipe.close}[mode]()
                    tr.close()
                    for t in ths:
                        t.join()
                    assert errors == ["Trampoline is closed"] * callers, errors
                    d.dispose()
                    del tr, fn, d, pipe, ths
        gc.collect()
        print("ok", sk.live_objects(), sk.ffi_live_objects())
    """, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok 0 0"


# --- 2. take(0) -----------------------------------------------------------------

def test_take_zero_completes_when_the_source_does(clean):
    # The library's rule (sk_signal_take, signalkit.h): take(0) passes no
    # value and completes when its source completes, not at once. This pins
    # it, and the docstring that said "then completes" now says so.
    assert sk.Signal.from_iterable([1, 2]).take(0).to_list(timeout=5) == []
    events = []
    with sk.Signal.never().take(0).subscribe(events.append, events.append, lambda: events.append("C")):
        assert events == []
    doc = sk.Signal.take.__doc__
    assert "take(0)" in doc and "never" in doc


# --- 3. SignalIterator.__anext__ after the end ------------------------------------

def test_anext_after_the_end_raises_stop_async_iteration(clean):
    # Before: a second __anext__ after the completion or the error waited
    # forever (the timeouts below fired).
    import asyncio

    async def main():
        it = sk.Signal.from_iterable([1, 2]).__aiter__()
        assert [v async for v in it] == [1, 2]
        for _ in range(2):
            with pytest.raises(StopAsyncIteration):
                await asyncio.wait_for(it.__anext__(), 5)
        failing = sk.Signal.fail(ValueError("x")).__aiter__()
        with pytest.raises(ValueError):
            await asyncio.wait_for(failing.__anext__(), 5)
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(failing.__anext__(), 5)
        closed = sk.Signal.never().__aiter__()
        await closed.aclose()
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(closed.__anext__(), 5)

    asyncio.run(main())


# --- 4. to_list inside a callback of a synchronous emission -------------------------

def test_to_list_inside_a_synchronous_callback_returns(clean):
    # Before: the inner from_iterable waited in the trampoline until the
    # outer emission returned, and to_list waited for it: a deadlock (here,
    # with the timeout, a TimeoutError).
    out = []
    errors = []
    inner = sk.Signal.from_iterable([1, 2, 3])
    with sk.Signal.single(1).subscribe(lambda v: out.append(inner.to_list(timeout=5)), errors.append):
        pass
    with sk.Signal.from_iterable("ab").subscribe(lambda v: out.append(inner.map(lambda n: n * 10).to_list(timeout=5)),
                                                errors.append):
        pass
    with sk.Pipe() as pipe, pipe.signal() as signal, \
            signal.subscribe(lambda v: out.append(sk.Signal.from_iterable([v]).to_list(timeout=5)), errors.append):
        pipe.put(7)
    assert errors == []
    assert out == [[1, 2, 3], [10, 20, 30], [10, 20, 30], [7]]
    # the outer emissions still run after their start returned (the trampoline is restored)
    order = []

    def on_next(v):
        order.append(v)
        if v == 1:
            order.append(sk.Signal.from_iterable([9]).to_list(timeout=5))

    with sk.Signal.from_iterable([1, 2]).subscribe(on_next):
        pass
    assert order == [1, [9], 2]


# --- 5. a failing reduce kept its pipeline alive ---------------------------------

class _Marker:
    pass


def _swallow(signal):
    try:
        return signal.to_list(timeout=5)
    except (ZeroDivisionError, OverflowError):
        return None


@pytest.mark.parametrize("shape", ["raise", "overflow", "composed raise", "composed overflow"])
def test_failing_reduce_keeps_nothing_alive(clean, shape):
    # Before: the exception, raised again by to_list, held the caller's
    # frames (and the signal), and the library held it through the inner
    # fold signal (or deferred's function): 20 of 20 markers stayed alive.
    import weakref
    S = sk.Signal

    def run():
        m = _Marker()
        if shape == "raise":
            s = S.from_iterable([1, 2]).reduce(lambda acc, v: (m, 1 / 0), 0)
        elif shape == "overflow":
            s = S.from_iterable([2 ** 62, 2 ** 62]).reduce(lambda acc, v: (m, acc + v)[1], 0)
        elif shape == "composed raise":
            s = S.from_iterable([1, 2]).map(lambda v: v).reduce(lambda acc, v: (m, 1 / 0), 0)
        else:
            s = S.from_iterable([2 ** 62, 2 ** 62]).map(lambda v: (m, v)[1]).reduce(lambda acc, v: acc + v, 0)
        assert _swallow(s) is None
        assert isinstance(s.exception, (ZeroDivisionError, OverflowError))  # still recorded
        return weakref.ref(m)

    refs = [run() for _ in range(20)]
    gc.collect()
    assert sum(r() is not None for r in refs) == 0


# --- 6. create's function returning an unsupported value -----------------------------

def test_create_returning_an_unsupported_value_fails_the_stream(clean):
    # Before: the TypeError went only to callback_error_hook and the stream
    # never ended (to_list timed out).
    hooked = []
    saved = sk.callback_error_hook
    sk.callback_error_hook = lambda e, w: hooked.append(e)
    try:
        s = sk.Signal.create(lambda sub: 5)
        events = []
        with s.subscribe(events.append, events.append, lambda: events.append("C")):
            pass
        assert len(events) == 1 and isinstance(events[0], TypeError), events
        assert "returned int" in str(events[0])
        assert s.exception is events[0]
        with pytest.raises(TypeError):
            s.to_list(timeout=5)
        assert hooked == []
    finally:
        sk.callback_error_hook = saved


# --- 7. Disposable.dispose() after close() ------------------------------------------

def test_dispose_after_close_raises(clean):
    # Before: dispose() after close() silently did nothing (the subscription
    # went on receiving values).
    got = []
    with sk.Pipe() as pipe, pipe.signal() as signal:
        d = signal.subscribe(got.append)
        d.close()
        with pytest.raises(ValueError, match="closed"):
            d.dispose()
        pipe.put(1)
        assert got == [1]  # close() only released the handle, as documented
        with signal.subscribe(got.append) as inner:
            inner.close()  # the block's end does not dispose a closed handle
    # the pipe's release ended the first subscription


# --- 8. native forms with a function that is not callable -----------------------------

@pytest.mark.parametrize("make", [
    lambda s: s.map("i64(i64)", None),
    lambda s: s.map("i64(i64)", "abc"),
    lambda s: s.filter("bool(i64)", 5),
    lambda s: s.subscribe("void(i64)", 5),
    lambda s: s.subscribe("void(i64)", None, 5),
])
def test_native_forms_reject_a_non_callable_at_the_call(clean, make):
    # Before: accepted; the stream failed later (or never called it).
    signal = sk.Signal.from_iterable([1, 2, 3])
    with pytest.raises(TypeError, match="not a callable"):
        make(signal)
    del signal


# --- 9. exception types of Signature and Queue.drain ----------------------------------

def test_signature_of_a_non_str_is_a_type_error(clean):
    # Before: AttributeError ('int' object has no attribute 'encode').
    with pytest.raises(TypeError, match="not a str"):
        sk.Signature(5)
    with pytest.raises(ValueError, match="NUL"):
        sk.Signature("void(i64)\0")


def test_drain_checks_its_count(clean):
    # Before: drain("a") raised ctypes.ArgumentError, drain(-1) drained
    # everything, drain(2**64 + 2) wrapped to 2.
    ran = []
    with sk.Queue.host("h") as queue:
        for i in range(5):
            queue.run(lambda i=i: ran.append(i))
        with pytest.raises(TypeError):
            queue.drain("a")
        with pytest.raises(TypeError):
            queue.drain(True)
        with pytest.raises(ValueError):
            queue.drain(-1)
        with pytest.raises(OverflowError):
            queue.drain(2 ** 64 + 2)
        assert ran == []
        assert queue.drain(2) == 2
        assert queue.drain(2 ** 64 - 1) == 3
        assert ran == [0, 1, 2, 3, 4]


# --- 10. `exception` of map / filter / tap signals -----------------------------------

def test_stage_signals_record_their_exception(clean):
    # Before: m.exception, f.exception and t.exception stayed None although
    # their functions raised (only the Disposable recorded it).
    S = sk.Signal
    m = S.from_iterable([1, 2]).map(lambda v: 1 / 0)
    f = S.from_iterable([1, 2]).filter(lambda v: 1 / 0)
    t = S.from_iterable([1, 2]).tap(lambda v: 1 / 0)
    for signal in (m, f, t):
        with signal.subscribe(None, lambda e: None) as d:
            assert isinstance(d.exception, ZeroDivisionError)
        assert signal.exception is d.exception
    m2 = S.from_iterable([1, 2]).map(lambda v: v).filter(lambda v: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        m2.to_list(timeout=5)
    assert isinstance(m2.exception, ZeroDivisionError)
    # through a library operator (the stages run in their own subscription)
    m3 = S.from_iterable([1, 2]).map(lambda v: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        m3.take(5).to_list(timeout=5)
    assert isinstance(m3.exception, ZeroDivisionError)
    # an exception of on_next is the subscription's, not the signal's
    ok = S.from_iterable([1, 2]).map(lambda v: v + 1)

    def on_next(v):
        raise KeyError(v)

    with ok.subscribe(on_next, lambda e: None) as d:
        assert isinstance(d.exception, KeyError)
    assert ok.exception is None


# --- 11. take_until's out-of-range results ----------------------------------------------

@pytest.mark.parametrize("result, kind", [(2 ** 70, ValueError), (2 ** 64 + 1, ValueError), (2 ** 63, ValueError),
                                          (4, ValueError), (-1, ValueError), ("x", TypeError), (1.0, TypeError)])
def test_take_until_invalid_result_ends_the_stream_with_the_error(clean, result, kind):
    # Before: 2**64 + 1 wrapped to TAKE_PASS (every value passed), 2**63 and
    # 4 dropped every value silently, 1.0 passed as TAKE_PASS. Then (until
    # issue 51) the stream completed and the error went to the hook; now it
    # is the stream's error, as the function's own exception is.
    reported = []
    saved = sk.callback_error_hook
    sk.callback_error_hook = lambda e, w: reported.append((type(e), w))
    try:
        events = []
        with sk.Signal.from_iterable(range(3)).take_until(lambda v: result) as signal:
            with signal.subscribe(events.append, events.append, lambda: events.append("C")):
                pass
            assert len(events) == 1 and isinstance(events[0], kind)
            assert reported == []
            assert signal.exception is events[0]
    finally:
        sk.callback_error_hook = saved
    for valid in (0, sk.TAKE_PASS, sk.TAKE_COMPLETE, sk.TAKE_PASS | sk.TAKE_COMPLETE):
        assert sk.Signal.from_iterable([5, 6]).take_until(lambda v: valid).to_list(timeout=5) in ([], [5], [5, 6])


# --- 12. documentation: SystemExit, pool starvation, cycles, docstrings -----------------

def _guide():
    from conftest import EXAMPLES
    with open(os.path.join(EXAMPLES, "..", "..", "docs", "python.md"), encoding="utf-8") as f:
        return f.read()


def test_system_exit_in_callbacks_is_an_ordinary_exception(clean):
    # What the guide's Errors section says: never unwinds through the
    # library; the stream's error; raised again by to_list.
    errors = []
    with sk.Pipe() as pipe, pipe.signal() as signal, \
            signal.subscribe(lambda v: sys.exit(3), errors.append) as d:
        pipe.put(1)
        assert len(errors) == 1 and isinstance(errors[0], SystemExit) and isinstance(d.exception, SystemExit)

    def gen():
        yield 1
        sys.exit(4)

    with pytest.raises(SystemExit):
        sk.Signal.from_iterable(gen()).to_list(timeout=5)
    text = _guide()
    assert "SystemExit" in text and "KeyboardInterrupt" in text


def test_closing_breaks_cycles_through_the_library(clean):
    # The guide: cycles through the C library are not collected; close()
    # (or dispose()) breaks them.
    import weakref

    class Box:
        pass

    pipe = sk.Pipe()
    box = Box()
    box.pipe = pipe
    box.d = pipe.signal().subscribe(lambda v, box=box: None)
    ref = weakref.ref(box)
    pipe.close()
    del box, pipe
    gc.collect()
    assert ref() is None
    for make in (lambda: sk.Pipe(replay=True), lambda: sk.ValuePromise(None)):
        holder = make()
        box = Box()
        box.holder = holder
        ref = weakref.ref(box)
        (holder.put if isinstance(holder, sk.Pipe) else holder.set)(box)
        holder.close()
        del box, holder
        gc.collect()
        assert ref() is None
    text = _guide()
    assert "garbage collector" in text and "Queue.concurrent()" in text and "starve" in text


def test_public_names_have_docstrings():
    # Before: Value's fields, __enter__ / __exit__ of TestScheduler,
    # TestRecorder and Disposable had none, and subscribe's signature showed
    # only (on_next, *args, **kwargs).
    import inspect
    import pysignalkit.testing as testing
    missing = []
    for module in (sk, testing):
        for name in module.__all__:
            obj = getattr(module, name)
            if (inspect.isclass(obj) or callable(obj)) and not (obj.__doc__ or "").strip():
                missing.append(name)
            if inspect.isclass(obj):
                for attr in ("__init__", "__enter__", "__exit__", *[a for a in vars(obj) if not a.startswith("_")]):
                    value = inspect.getattr_static(obj, attr, None)
                    function = getattr(value, "__func__", value)
                    if isinstance(function, property):
                        function = function.fget
                    if callable(function) and getattr(function, "__qualname__", "").startswith(("object.", "Exception.",
                                                                                                "BaseException.")):
                        continue  # inherited from Python itself
                    if callable(function) and not (getattr(function, "__doc__", None) or "").strip():
                        missing.append(f"{name}.{attr}")
    assert missing == []
    for field in ("kind", "u", "boolean", "int64", "real", "object"):
        assert f"`{field}`" in sk.Value.__doc__
    parameters = inspect.signature(sk.Signal.subscribe).parameters
    assert "on_error" in parameters and "on_completed" in parameters


# --- restart() of a signal that completes at once -------------------------------

@pytest.mark.parametrize("source", ["Signal.complete().restart()", "Signal.fail(ValueError('x')).restart_if_error()"])
def test_to_list_timeout_stops_a_restart_loop_of_a_signal_ending_at_once(source):
    # Before: the library started the signal again for ever inside the
    # subscribe call, where no Python code ran: the timeout never applied
    # (the child hung until killed). Each start now runs a check in Python.
    result = run_child(f"""
        import gc
        import pysignalkit as sk
        from pysignalkit import Signal
        try:
            print({source}.take(1).to_list(timeout=0.2))
        except TimeoutError as exc:
            print("TimeoutError", exc)
        gc.collect()
        print("live", sk.live_objects(), sk.pending_callbacks())
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["TimeoutError signalkit: to_list: no end within 0.2 s", "live 0 0"]


def test_ctrl_c_stops_a_restart_loop_of_a_signal_ending_at_once():
    # SIGINT while the loop runs in the library (started by subscribe, on
    # the main thread): the check at the next start lets the handler run,
    # the loop stops and subscribe raises KeyboardInterrupt. The signal is
    # sent by another thread once the loop runs (its first start).
    result = run_child("""
        import gc, os, signal, threading
        signal.signal(signal.SIGINT, signal.default_int_handler)  # not inherited (SIG_IGN in a background job)
        import pysignalkit as sk
        looping = threading.Event()
        threading.Thread(target=lambda: (looping.wait(), os.kill(os.getpid(), signal.SIGINT)), daemon=True).start()
        try:
            sk.Signal.complete().before_started(looping.set).restart().subscribe(print)
            print("returned")
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
        gc.collect()
        print("live", sk.live_objects(), sk.pending_callbacks())
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["KeyboardInterrupt", "live 0 0"]


def test_restart_still_starts_the_signal_again_at_each_completion(clean):
    values = sk.Signal.from_iterable([1, 2]).restart().take(5).to_list(timeout=30)
    assert values == [1, 2, 1, 2, 1]
    errors = []
    attempts = sk.Signal.deferred(lambda: sk.Signal.single(len(errors)) if len(errors) >= 2 else
                                  sk.Signal.fail(ValueError(errors.append(1))))
    assert attempts.restart_if_error().take(1).to_list(timeout=30) == [2]


@pytest.mark.parametrize("stage", ["map", "filter"])
@pytest.mark.parametrize("loop", ["restart", "restart_if_error"])
def test_a_restart_loop_stops_through_python_stages_when_take_completes(clean, stage, loop):
    # Before: a Python map or filter between the loop and take(3) kept the
    # library's loop going after take completed (its stage starts the
    # upstream from a custom operator's generator, which made no link), for
    # ever inside subscribe (to_list's timeout returned the values, the
    # loop still running: the stage was called 100,000 times and more).
    calls = []

    def f(value):
        calls.append(value)
        return value if stage == "map" else True

    source = sk.Signal.single(1) if loop == "restart" else \
        sk.Signal.concat(sk.Signal.single(1), sk.Signal.fail(RuntimeError("e")))
    looped = getattr(source, loop)()
    assert getattr(looped, stage)(f).take(3).to_list(timeout=30) == [1, 1, 1]
    assert calls == [1, 1, 1]


def _starts_after_dispose(build):
    """What starts once dispose() has returned: `build(signal, log)` adds
    stages (each appending to `log`) after a first map that waits, inside
    a put on another thread, until the subscription has been disposed."""
    entered, go = threading.Event(), threading.Event()
    log = []

    def slow(value):
        entered.set()
        assert go.wait(30)
        return value

    pipe = sk.Pipe()
    disposable = build(pipe.signal().map(slow), log).subscribe(lambda v: log.append("on_next"))
    putter = threading.Thread(target=pipe.put, args=(1,))
    putter.start()
    try:
        assert entered.wait(30)
        disposable.dispose()
    finally:
        go.set()
        putter.join(30)
        pipe.close()
    assert not putter.is_alive()
    return log


@pytest.mark.parametrize("stage", ["tap", "map", "filter"])
def test_no_stage_starts_after_dispose_returned(clean, stage):
    # Before: the fused chain looked at the subscription only before
    # on_next, so a stage after one that let the GIL go started after
    # dispose() had returned (docs/python.md: none of the subscription's
    # callbacks starts then).
    def build(signal, log):
        return getattr(signal, stage)(lambda v: log.append(stage) or True)

    assert _starts_after_dispose(build) == []


@pytest.mark.parametrize("after", ["skip", "take", "share", "33 maps"])
def test_no_stage_starts_after_dispose_returned_through_a_library_operator(clean, after):
    # Before: a run of fused stages followed by a library operator (or by
    # the next run of a chain longer than one run) looked at its own
    # callback list, which only the library's release ended: after the
    # first map let the GIL go, the later stages still started once
    # dispose() had returned (docs/python.md: none of the subscription's
    # callbacks starts then).
    def build(signal, log):
        def stage(name):
            return lambda v: log.append(name) or v

        if after == "33 maps":
            for index in range(32):
                signal = signal.map(stage(f"map{index}"))
            return signal
        signal = signal.filter(stage("filter")).tap(stage("tap"))
        return {"skip": lambda s: s.skip(0), "take": lambda s: s.take(5), "share": lambda s: s.share()}[after](signal)

    assert _starts_after_dispose(build) == []


# --- the default queue of the time operators --------------------------------------

def test_time_operators_without_a_queue_leave_no_live_object():
    # Before: the package kept a Queue.concurrent() handle for good once a
    # time operator ran without a queue, so live_objects() never went back
    # to 0 ("0 when everything is released"). Each use takes its own now.
    result = run_child("""
        import gc
        import pysignalkit as sk
        from pysignalkit import Signal
        print(Signal.single(1).delay(0.001).to_list(timeout=30))
        print(Signal.single(1).timeout(30).to_list(timeout=30))
        print(Signal.single(1).debounce(0.001).throttle(0.001).to_list(timeout=30))
        print(Signal.timer(0.001).to_list(timeout=30), Signal.interval(0.001).take(2).to_list(timeout=30))
        failures = []
        flaky = Signal.deferred(lambda: Signal.single(2) if failures else Signal.fail(ValueError(failures.append(1))))
        print(flaky.retry(0.001, 0.001).to_list(timeout=30))
        del flaky
        gc.collect()
        # The end reached to_list() from a timer's thread, which releases the
        # subscription's callbacks once its callback returned: maybe after.
        print(sk.wait_released(30), "live", sk.live_objects(), sk.pending_callbacks())
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[1]", "[1]", "[1]", "[0] [0, 1]", "[2]", "True live 0 0"]


def test_wait_released_waits_for_a_library_thread_still_in_a_callback(clean):
    # Before: live_objects() and pending_callbacks() could read above 0 just
    # after to_list() returned (CI: "live 4 2" in 1 run of 50 under load):
    # the library thread that delivered the end was still in the callback,
    # and releases the callbacks once it returns. Nothing said so, and a
    # leak check had no way to wait for it but a loop of its own.
    entered, leave = threading.Event(), threading.Event()

    def on_completed():
        entered.set()
        leave.wait(30)

    queue = sk.Queue.serial("wait_released")
    try:
        subscription = sk.Signal.single(1).deliver_on(queue).subscribe(on_completed=on_completed)
        assert entered.wait(30)
        subscription.dispose()
        del subscription, queue
        gc.collect()
        assert sk.pending_callbacks() > 0
        assert sk.wait_released(0.05) is False  # the callback still runs
    finally:
        leave.set()
    assert sk.wait_released(30) is True
    assert (sk.live_objects(), sk.ffi_live_objects(), sk.pending_callbacks(), sk.boxed_objects()) == (0, 0, 0, 0)
    assert sk.wait_released(0) is True


@pytest.mark.parametrize("timeout, error", [("1", TypeError), (True, TypeError), (None, TypeError),
                                            (-1, ValueError), (float("nan"), ValueError)])
def test_wait_released_checks_its_timeout(timeout, error):
    with pytest.raises(error, match="wait_released"):
        sk.wait_released(timeout)


# --- A library thread that ran a callback ends, under -X dev -----------------

def test_library_threads_that_ran_callbacks_end_cleanly_under_the_debug_allocator():
    # Before: each library thread that had run a Python callback kept its
    # Python thread state until it ended, and cleared it at its end under a
    # state the interpreter no longer found (glibc clears the interpreter's
    # key first): CPython's debug allocator (-X dev) stopped the process with
    # "Python memory allocator called without holding the GIL" (an
    # acceptance program; about one single-round run in three). Here a
    # bounded concurrent queue's worker ends with its queue, each round.
    result = run_child("""
        import threading, pysignalkit as sk
        for _ in range(40):
            queue = sk.Queue.concurrent(max_workers=1)
            ran = threading.Event()
            queue.run(ran.set)
            assert ran.wait(10)
            queue.close()
        print("released", sk.wait_released(10))
    """)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "released True", result.stdout
