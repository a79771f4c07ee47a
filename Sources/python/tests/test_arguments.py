"""Bad arguments: a wrong type is a TypeError at the call (never an
AttributeError, nor a failure later on a library thread), a negative
timeout a ValueError, and an int a stream carries fits int64 whatever
route it takes (OverflowError otherwise)."""
import math

import pytest

import pysignalkit as sk

pytestmark = pytest.mark.usefixtures("clean")


def events(signal):
    seen = []
    with signal.subscribe(seen.append, lambda e: seen.append(("error", e)), lambda: seen.append("done")):
        pass
    return seen


NOT_A_SIGNAL = (1, None, "text", [sk.Signal.never], object())


@pytest.mark.parametrize("bad", NOT_A_SIGNAL)
def test_signal_arguments_must_be_signals(bad):
    with sk.Signal.single(1) as good:
        calls = [
            lambda: sk.Signal.combine_latest(good, bad),
            lambda: sk.Signal.combine_latest(bad),
            lambda: sk.Signal.merge(bad, good),
            lambda: good.then(bad),
        ]
        if bad is not None:  # None is the default alternate
            calls.append(lambda: good.timeout(1.0, bad))
        for call in calls:
            with pytest.raises(TypeError, match="Signal"):
                call()
    with sk.Promise() as promise, pytest.raises(TypeError, match="Signal"):
        promise.set(bad)


def test_combine_latest_of_ints_names_the_argument():
    with pytest.raises(TypeError, match=r"combine_latest: argument 1 is int, not a Signal"):
        sk.Signal.combine_latest(1, 2)


@pytest.mark.parametrize("bad", (None, 123, b"bytes", 1.5))
def test_queue_names_must_be_str(bad):
    for make in (sk.Queue.serial, sk.Queue.host):
        with pytest.raises(TypeError, match="name"):
            make(bad)


@pytest.mark.parametrize("bad", (1, "queue", object()))
def test_queue_arguments_must_be_queues(bad):
    with sk.Signal.single(1) as signal:
        for call in (lambda: signal.deliver_on(bad), lambda: signal.run_on(bad),
                     lambda: signal.debounce(0.1, bad), lambda: signal.throttle(0.1, bad),
                     lambda: signal.delay(0.1, bad), lambda: signal.timeout(0.1, None, bad),
                     lambda: signal.retry(0.1, 1.0, bad), lambda: sk.Signal.combine_latest(signal, queue=bad),
                     lambda: sk.Signal.interval(0.1, bad), lambda: sk.Signal.timer(0.1, bad)):
            with pytest.raises(TypeError, match="Queue"):
                call()


@pytest.mark.parametrize("bad", (None, 1, "not callable"))
def test_queue_run_checks_its_function_at_the_call(bad):
    with sk.Queue.serial("q") as queue, pytest.raises(TypeError, match="callable"):
        queue.run(bad)


@pytest.mark.parametrize("bad", (1, "text", object()))
def test_functions_must_be_callable(bad):
    with sk.Signal.single(1) as signal:
        for call in (lambda: signal.tap(bad), lambda: signal.take_until(bad), lambda: signal.reduce(bad, 0),
                     lambda: signal.map_to_signal(bad), lambda: signal.catch(bad),
                     lambda: signal.before_next(bad), lambda: signal.after_next(bad),
                     lambda: signal.before_started(bad), lambda: signal.before_completed(bad),
                     lambda: signal.after_completed(bad), lambda: signal.after_disposed(bad),
                     lambda: sk.Signal.create(bad), lambda: sk.Signal.deferred(bad),
                     lambda: signal.subscribe(None, bad), lambda: signal.subscribe(None, None, bad)):
            with pytest.raises(TypeError, match="callable"):
                call()
        if not isinstance(bad, str):  # a str is the native (signature) form
            for call in (lambda: signal.map(bad), lambda: signal.filter(bad), lambda: signal.subscribe(bad)):
                with pytest.raises(TypeError, match="callable"):
                    call()


def test_map_and_filter_without_a_function_are_type_errors():
    with sk.Signal.single(1) as signal:
        for call in (lambda: signal.map(None), lambda: signal.filter(None), lambda: signal.tap(None)):
            with pytest.raises(TypeError, match="callable"):
                call()


@pytest.mark.parametrize("bad", (1, None, 2.5))
def test_from_iterable_needs_an_iterable_at_the_call(bad):
    with pytest.raises(TypeError, match="iterable"):
        sk.Signal.from_iterable(bad)


@pytest.mark.parametrize("bad", (-1, -0.001, math.nan))
def test_negative_timeouts_are_value_errors(bad):
    with sk.Signal.never() as never:
        with pytest.raises(ValueError, match="timeout"):
            never.to_list(timeout=bad)
        for call in (lambda: never.timeout(bad), lambda: never.debounce(bad), lambda: never.throttle(bad),
                     lambda: never.delay(bad), lambda: sk.Signal.interval(bad), lambda: sk.Signal.timer(bad)):
            with pytest.raises(ValueError):
                call()


@pytest.mark.parametrize("bad", ("1", None, [1]))
def test_timeouts_must_be_numbers(bad):
    with sk.Signal.never() as never:
        if bad is not None:  # None: no timeout
            with pytest.raises(TypeError):
                never.to_list(timeout=bad)
        with pytest.raises(TypeError):
            never.debounce(bad)


BIG = (2 ** 63, -2 ** 63 - 1, 2 ** 100)


@pytest.mark.parametrize("number", BIG)
def test_an_int_outside_int64_is_an_overflow_error_on_every_route(number):
    # single: at the call.
    with pytest.raises(OverflowError):
        sk.Signal.single(number)
    # from_iterable, straight to on_next (no operator of the library between).
    seen = events(sk.Signal.from_iterable([1, number, 3]))
    assert seen[0] == 1 and len(seen) == 2 and isinstance(seen[1][1], OverflowError)
    # from_iterable through Python stages only.
    seen = events(sk.Signal.from_iterable([1, number]).map(lambda n: n).filter(lambda n: True))
    assert seen[0] == 1 and len(seen) == 2 and isinstance(seen[1][1], OverflowError)
    # from_iterable through the library (take).
    seen = events(sk.Signal.from_iterable([1, number]).take(5))
    assert seen[0] == 1 and len(seen) == 2 and isinstance(seen[1][1], OverflowError)
    # A map's result, straight to on_next or through the library.
    for signal in (sk.Signal.from_iterable([1]).map(lambda n: number),
                   sk.Signal.from_iterable([1]).map(lambda n: number).take(5)):
        seen = events(signal)
        assert len(seen) == 1 and isinstance(seen[0][1], OverflowError), seen
    # A hot source: at the put.
    with sk.Pipe() as pipe, pipe.signal().map(lambda n: number).subscribe(None, seen.append) as sub:
        with pytest.raises(OverflowError):
            pipe.put(number)
        del seen[:]
        pipe.put(1)
        assert len(seen) == 1 and isinstance(seen[0], OverflowError)
        assert sub.exception is seen[0]


@pytest.mark.parametrize("bad", (1, None, "text"))
def test_the_other_public_functions_check_their_arguments_at_the_call(bad):
    from pysignalkit.testing import TestScheduler

    with TestScheduler() as scheduler:
        with pytest.raises(TypeError, match="Signal"):
            scheduler.record(bad)
        with pytest.raises(TypeError, match="callable"):
            scheduler.schedule(bad)
    with pytest.raises(TypeError, match="Pipe"):
        sk.Trampoline(1.5 if bad == 1 else bad, "void(i64)")
    with pytest.raises(TypeError, match="loop"):
        sk.asyncio_queue(bad if bad is not None else 1)


@pytest.mark.parametrize("bad", ["text", 5, None, ValueError, KeyboardInterrupt])
def test_fail_takes_an_exception_instance(bad):
    # Before: accepted (a class, a str...), the stream then failing with it
    # as a SignalError or a class.
    with pytest.raises(TypeError, match="Signal.fail"):
        sk.Signal.fail(bad)


def test_test_scheduler_checks_its_numbers_at_the_call():
    from pysignalkit.testing import TestScheduler

    # A frame too long for the clock's nanoseconds (an OverflowError from
    # round() before); a frame of the wrong type.
    for frame in (1e300, 1e10):
        with pytest.raises(ValueError, match="frame"):
            TestScheduler(frame)
    # Frames the C test functions refuse (longer than 1e9 s, or shorter
    # than half a nanosecond): the scheduler took them, then cold(), hot()
    # and record() raised SignalKitError (or, below 0.5 ns, the frame
    # became 1 ns where C refuses it).
    for frame in (1e9 + 1, 2e9, 9e9, 1e-10, 4.9e-10):
        with pytest.raises(ValueError, match="frame"):
            TestScheduler(frame)
    for frame in (1e9, 5e-10):
        with TestScheduler(frame) as scheduler:
            scheduler.record(scheduler.cold("a|")).close()
    # Halves of a nanosecond round away from zero, as in C (round() took
    # 2.5 ns to 2).
    with TestScheduler(2.5e-9) as scheduler:
        assert scheduler.frame_nanoseconds == 3
    for frame in ("1", None, True):
        with pytest.raises(TypeError, match="frame"):
            TestScheduler(frame)
    with TestScheduler() as scheduler:
        # Negative counts and frames: ValueError (before: run(-1) wrapped to
        # a huge task limit, seconds(-1) gave a negative duration, and
        # schedule(at=-1) ran at the next advance).
        with pytest.raises(ValueError, match="max_tasks"):
            scheduler.run(-1)
        with pytest.raises(ValueError, match="frames"):
            scheduler.seconds(-1)
        with pytest.raises(ValueError, match="at"):
            scheduler.schedule(lambda: None, at=-1)
        with pytest.raises(ValueError, match="frame"):
            scheduler.advance_to(-1)
        with pytest.raises(TypeError):
            scheduler.run(True)
        assert scheduler.pending == 0
        assert scheduler.seconds(0) == 0 and scheduler.run(0) == 0
