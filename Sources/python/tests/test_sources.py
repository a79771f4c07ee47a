"""Sources: from_iterable (lazy, stopped by disposal), create, Pipe (its
completion and error for current and later subscribers),
interval and timer."""
import ctypes
import itertools
import sys
import threading

import pytest

import pysignalkit as sk

pytestmark = pytest.mark.usefixtures("clean")


def test_from_iterable_pulls_nothing_before_a_subscription():
    pulled = []

    def numbers():
        for n in itertools.count():
            pulled.append(n)
            yield n

    signal = sk.Signal.from_iterable(numbers())
    assert pulled == []
    assert signal.take(3).to_list() == [0, 1, 2]
    assert pulled == [0, 1, 2]  # take's completion disposed it: no fourth pull


def test_infinite_generator_with_take_one_returns_at_once():
    assert sk.Signal.from_iterable(itertools.count()).take(1).to_list() == [0]
    assert sk.Signal.from_iterable(itertools.count()).map(lambda n: n * 2).filter(lambda n: n > 10).take(2) \
        .to_list() == [12, 14]


def test_dispose_from_a_callback_stops_the_pull():
    pulled = []

    def numbers():
        for n in itertools.count():
            pulled.append(n)
            yield n

    seen = []
    holder = []

    def on_next(n):
        seen.append(n)
        if n == 4:
            holder[0].dispose()

    # The subscription's disposable exists before the first value: the
    # emission runs once subscribe has it (the trampoline).
    signal = sk.Signal.from_iterable(numbers())
    with sk.Pipe() as start:
        started = start.signal().map_to_signal(lambda _: signal)
        holder.append(started.subscribe(on_next))
        start.put(None)
        assert seen == [0, 1, 2, 3, 4]
        assert pulled == [0, 1, 2, 3, 4]
        holder.pop().close()


def test_from_iterable_into_a_library_operator_puts_every_kind():
    # The emission loop is the extension's (put_each): the library's kinds
    # as values, other objects by reference (the very object), an int
    # outside int64 the stream's error.
    class Box:
        pass

    box = Box()
    items = [1, "a", box, None, 2.5, [box]]
    got = sk.Signal.from_iterable(items).scan(lambda acc, v: acc + [v], []).last().to_list()
    assert got == [items] and got[0][2] is box and got[0][5][0] is box
    seen, errors = [], []
    with sk.Signal.from_iterable([1, 2 ** 63, 3]).take(5).subscribe(seen.append, errors.append):
        pass
    assert seen == [1] and len(errors) == 1 and isinstance(errors[0], OverflowError)
    assert "out of range of int64" in str(errors[0])


@pytest.mark.parametrize("build", [
    lambda s: s,  # straight to on_next: no value crosses the library
    lambda s: s.take(5),  # into a library operator
], ids=["python-only", "through-the-library"])
def test_a_lone_surrogate_fails_the_stream_whatever_its_route(build):
    # docs/python.md, "Values": a callback that returns a str UTF-8 cannot
    # encode fails the stream with UnicodeEncodeError, as does one that an
    # iterable gives. A chain of Python stages into on_next checked ints
    # only: the str reached on_next when no library operator followed.
    for signal in (sk.Signal.from_iterable([1]).map(lambda v: "\ud800"),
                   sk.Signal.from_iterable(["ok", "\ud800", "never"])):
        seen, errors = [], []
        with build(signal).subscribe(seen.append, errors.append):
            pass
        assert len(errors) == 1 and isinstance(errors[0], UnicodeEncodeError), (seen, errors)
        assert seen in ([], ["ok"])
    with sk.Pipe() as pipe:
        seen, errors = [], []
        with build(pipe.signal().map(lambda v: v + "\udfff")).subscribe(seen.append, errors.append):
            pipe.put("a")
        assert seen == [] and len(errors) == 1 and isinstance(errors[0], UnicodeEncodeError)


@pytest.mark.parametrize("build", [
    lambda s: s,  # the values straight to on_next (the package's loop)
    lambda s: s.take(10 ** 9),  # into a library operator (the extension's loop, put_each)
    lambda s: s.scan(lambda total, v: v, 0),
])
def test_an_interrupt_in_a_nested_delivery_stops_from_iterable(build):
    # on_next puts into a pipe whose subscriber raises KeyboardInterrupt:
    # the emission stops there (no further pull) and the caller gets it.
    pulled = []

    def numbers():
        for n in itertools.count():
            pulled.append(n)
            yield n

    def interrupt(v):
        if v == 5:
            raise KeyboardInterrupt

    with sk.Pipe() as inner, inner.signal().subscribe(interrupt):
        with pytest.raises(KeyboardInterrupt):
            build(sk.Signal.from_iterable(numbers())).subscribe(inner.put).dispose()
    assert pulled == [0, 1, 2, 3, 4, 5]


def test_a_long_emission_into_native_stages_lets_other_threads_run():
    # With only native stages after from_iterable no Python code runs per
    # value; the extension's loop lets the GIL go now and then, as the
    # interpreter does between bytecodes. A thread that waits for the GIL
    # (it spins until the emission has begun, then puts into the pipe that
    # ends it) therefore runs during the emission and stops it early; were
    # the GIL never let go, it would run only once all the values had gone.
    labs = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(("labs", ctypes.CDLL(None)))
    count = 20_000_000
    items = itertools.repeat(-7, count)
    stop = sk.Pipe()

    def stopper():
        while items.__length_hint__() == count:
            pass
        stop.put(1)

    stopper_thread = threading.Thread(target=stopper)
    stopper_thread.start()
    try:
        seen = sk.Signal.from_iterable(items).map("i64(i64)", labs).take_until(stop.signal()).to_list()
    finally:
        stopper_thread.join()
        stop.close()
    assert 0 < len(seen) < count and set(seen) == {7}
    assert items.__length_hint__() > 0


def test_each_subscription_iterates_again():
    signal = sk.Signal.from_iterable(range(3))
    assert signal.to_list() == [0, 1, 2]
    assert signal.to_list() == [0, 1, 2]


def test_an_exception_of_the_iterator_ends_the_stream_with_it():
    def numbers():
        yield 1
        raise LookupError("no more")

    signal = sk.Signal.from_iterable(numbers())
    with pytest.raises(LookupError, match="no more"):
        signal.to_list()
    assert isinstance(signal.exception, LookupError)


def test_create_emits_and_cancels():
    cancelled = threading.Event()
    kept = []

    def start(subscriber):
        subscriber.on_next("a")
        subscriber.on_next({"b": 2})
        kept.append(subscriber)  # emits later, from another thread
        return cancelled.set

    signal = sk.Signal.create(start)
    seen = []
    with signal.subscribe(seen.append):
        worker = threading.Thread(target=lambda: kept[0].on_next("c"))
        worker.start()
        worker.join()
    assert seen == ["a", {"b": 2}, "c"]
    assert cancelled.is_set()
    kept[0].on_next("after the end")  # does nothing
    assert seen == ["a", {"b": 2}, "c"]
    kept.clear()


def test_a_subscriber_after_its_end_does_nothing_and_after_close_raises():
    # The end of the subscription (a completion, an error, a dispose) is not
    # the caller's doing: a producer on another thread may emit after it,
    # and that does nothing. close() is: like every closed handle's use, a
    # call after it raises ValueError (it used to do nothing).
    kept = []
    with sk.Signal.create(kept.append) as signal:
        with signal.subscribe(lambda v: None):
            pass
    subscriber = kept.pop()
    subscriber.on_next(1)
    subscriber.on_error(LookupError("late"))
    subscriber.on_completed()
    subscriber.close()
    subscriber.close()  # idempotent
    for call in (lambda: subscriber.on_next(1), lambda: subscriber.on_error(LookupError("late")),
                 subscriber.on_completed):
        with pytest.raises(ValueError, match="Subscriber is closed"):
            call()


def test_create_function_that_raises_fails_the_stream():
    def start(subscriber):
        raise PermissionError("denied")

    with pytest.raises(PermissionError):
        sk.Signal.create(start).to_list()


def test_create_rejects_a_wrong_return_with_a_report():
    reports = []
    saved = sk.callback_error_hook
    sk.callback_error_hook = lambda exc, where: reports.append((type(exc), where))
    import pysignalkit._core as core
    core_saved = core.callback_error_hook
    try:
        with sk.Signal.create(lambda subscriber: 42).subscribe(None):
            pass
    finally:
        sk.callback_error_hook = saved
        core.callback_error_hook = core_saved
    # The stream fails with the TypeError: with no on_error, the hook gets
    # it as an unhandled error.
    assert reports == [(TypeError, "error")]


def test_pipe_replay_delivers_the_latest_to_a_new_subscriber():
    with sk.Pipe(replay=True) as pipe:
        pipe.put(1)
        pipe.put(2)
        seen = []
        with pipe.signal().subscribe(seen.append):
            pipe.put(3)
        assert seen == [2, 3]


def test_timer_and_interval():
    queue = sk.Queue.serial("timers")
    assert sk.Signal.timer(0.001, queue).to_list(timeout=10) == [0]
    assert sk.Signal.interval(0.001, queue).take(4).to_list(timeout=10) == [0, 1, 2, 3]
    drained = threading.Event()
    queue.run(drained.set)
    assert drained.wait(10)
    with pytest.raises(ValueError):
        sk.Signal.timer(-1, queue)
    del queue


def test_a_failing_on_next_stops_the_pull_of_a_direct_subscription():
    # from_iterable subscribed right away (the values go to on_next without
    # crossing C): an exception in on_next still ends it at once.
    pulled, errors = [], []

    def numbers():
        for n in itertools.count():
            pulled.append(n)
            yield n

    def on_next(n):
        if n == 3:
            raise ValueError("three")

    with sk.Signal.from_iterable(numbers()).map(lambda n: n).subscribe(on_next, errors.append) as subscription:
        assert isinstance(subscription.exception, ValueError)
    assert pulled == [0, 1, 2, 3]
    assert [str(e) for e in errors] == ["three"]


def test_a_pipe_completes_and_fails_for_current_and_later_subscribers():
    with sk.Pipe[int](replay=True) as pipe:
        events = []
        with pipe.signal().subscribe(events.append, on_completed=lambda: events.append("done")):
            pipe.put(1)
            pipe.complete()
            pipe.put(2)  # nothing
        assert events == [1, "done"]
        assert pipe.signal().to_list(timeout=10) == [1]  # a later subscriber: the replayed value, then the completion
    with sk.Pipe[int]() as pipe:
        pipe.fail(LookupError("gone"))
        with pytest.raises(LookupError):
            # to_list on the signal itself, not through a helper: the pipe
            # holds its error, and a frame of its traceback holding the
            # pipe's signal would make a cycle through the library (to_list
            # lets go of its own signal).
            pipe.signal().to_list(timeout=10)
        with pytest.raises(TypeError):
            pipe.fail("not an exception")  # type: ignore[arg-type]
