"""Operators against their plain-Python meaning (Hypothesis), and the
library's operators that take no Python function, through the Pythonic
forms. Every test leaves nothing alive (the `clean` fixture)."""
import itertools
import threading

import pytest
from hypothesis import example, given, settings, strategies as st

import pysignalkit as sk

pytestmark = pytest.mark.usefixtures("clean")
ints = st.lists(st.integers(min_value=-2 ** 63, max_value=2 ** 63 - 1), max_size=40)
small = st.lists(st.integers(min_value=-1000, max_value=1000), max_size=40)
PROPERTY = settings(max_examples=60, deadline=None)


def events(signal):
    """Every event of a synchronous signal, in order."""
    out = []
    with signal.subscribe(out.append, lambda e: out.append(("error", e)), lambda: out.append("done")):
        pass
    return out


@PROPERTY
@given(small)
def test_map_filter_chain_is_the_comprehension(items):
    signal = sk.Signal.from_iterable(items).map(lambda n: n + 1).filter(lambda n: n % 2 == 0).map(lambda n: n * 2)
    assert events(signal) == [(n + 1) * 2 for n in items if (n + 1) % 2 == 0] + ["done"]


@PROPERTY
@given(small, small)
def test_fused_chain_as_a_signal_under_a_library_operator(items, more):
    # The composed stages feed a library operator (take), then more stages.
    count = len(more)
    signal = sk.Signal.from_iterable(items).filter(lambda n: n > 0).map(str).take(count).map(lambda s: s + "!")
    assert events(signal) == [str(n) + "!" for n in items if n > 0][:count] + ["done"]


@PROPERTY
@given(ints, st.integers(min_value=0, max_value=50))
def test_take(items, count):
    assert events(sk.Signal.from_iterable(items).take(count)) == items[:count] + ["done"]


@PROPERTY
@given(small)
@example([532] + [0] * 34)  # the accumulator leaves int64: an OverflowError
def test_reduce_is_a_fold(items):
    got = events(sk.Signal.from_iterable(items).reduce(lambda acc, n: acc * 3 + n, 7))
    expected = _fold(items)
    if expected is None:
        assert len(got) == 1 and got[0][0] == "error" and isinstance(got[0][1], OverflowError), got
    else:
        assert got == [expected, "done"]


@PROPERTY
@given(small, st.integers(min_value=-3, max_value=3))
@example([532] + [0] * 34, 0)  # the accumulator leaves int64 after the stages
@example([1, 2, 3, 4], 3)  # the function raises at the third value
def test_reduce_after_python_stages_is_the_same_fold(items, fail_at):
    # reduce() after a map joins the composed chain (one crossing per value):
    # the same results, overflow and failure as the library's fold, per
    # subscription, and the failure is the signal's `exception`.
    calls = []

    def step(acc, n):
        calls.append(n)
        if fail_at > 0 and len(calls) == fail_at:
            raise ValueError("at %d" % n)
        return acc * 3 + n

    signal = sk.Signal.from_iterable(items).map(lambda n: n).reduce(step, 7)
    for _ in range(2):  # each subscription folds from the initial value
        calls.clear()
        got = events(signal)
        error, folded, result = _fold_failing(items, fail_at)
        assert calls == folded
        if error is None:
            assert got == [result, "done"]
        else:
            assert len(got) == 1 and got[0][0] == "error" and isinstance(got[0][1], error), got
    if error is ValueError:
        assert isinstance(signal.exception, ValueError)


def _fold_failing(items, fail_at):
    """The plain fold of the test above: (the exception type or None, the
    values the function was called with, the result)."""
    acc = 7
    for index, n in enumerate(items):
        if fail_at > 0 and index + 1 == fail_at:
            return ValueError, items[:index + 1], None
        acc = acc * 3 + n
        if not -2 ** 63 <= acc < 2 ** 63:
            return OverflowError, items[:index + 1], None
    return None, list(items), acc


def test_reduce_after_python_stages_carries_objects_and_emits_the_initial_value():
    assert events(sk.Signal.from_iterable([1, 2, 3]).map(lambda n: [n]).reduce(lambda acc, n: acc + n, [])) \
        == [[1, 2, 3], "done"]
    empty = []
    got = events(sk.Signal.from_iterable([]).filter(bool).reduce(lambda acc, n: acc, empty))
    assert got[0] is empty and got[1:] == ["done"]
    with pytest.raises(OverflowError):
        sk.Signal.from_iterable([1]).map(abs).reduce(lambda acc, n: acc, 2 ** 64)


def _fold(items):
    """The plain fold, or None once the accumulator leaves int64 (every int
    a stream carries must fit: README, Errors)."""
    acc = 7
    for n in items:
        acc = acc * 3 + n
        if not -2 ** 63 <= acc < 2 ** 63:
            return None
    return acc


@PROPERTY
@given(st.lists(st.integers(min_value=0, max_value=3), max_size=40))
def test_distinct_until_changed(items):
    expected = [n for i, n in enumerate(items) if i == 0 or items[i - 1] != n]
    assert events(sk.Signal.from_iterable(items).distinct_until_changed()) == expected + ["done"]


@PROPERTY
@given(small)
def test_last(items):
    expected = [items[-1] if items else None]
    assert events(sk.Signal.from_iterable(items).last()) == expected + ["done"]


@PROPERTY
@given(small, st.integers(min_value=-1000, max_value=1000))
def test_take_until(items, limit):
    def decide(n):
        return sk.TAKE_COMPLETE | sk.TAKE_PASS if n >= limit else sk.TAKE_PASS

    expected = []
    for n in items:
        expected.append(n)
        if n >= limit:
            break
    assert events(sk.Signal.from_iterable(items).take_until(decide)) == expected + ["done"]


@PROPERTY
@given(small, small)
def test_then_and_merge_of_synchronous_signals(first, second):
    a, b = sk.Signal.from_iterable(first), sk.Signal.from_iterable(second)
    assert events(a.then(b)) == first + second + ["done"]
    assert events(sk.Signal.merge(a, b)) == first + second + ["done"]


@PROPERTY
@given(st.lists(st.lists(st.integers(min_value=-99, max_value=99), max_size=5), max_size=6))
def test_signals_of_signals(groups):
    # A synchronous source emits once the call that started it returns (the
    # trampoline): by then each inner signal but the last was switched away
    # from, unstarted. queue runs each to its end, in order.
    expected_latest = (groups[-1] if groups else []) + ["done"]
    assert events(sk.Signal.from_iterable(groups).map_to_signal(sk.Signal.from_iterable)) == expected_latest
    inner = sk.Signal.from_iterable(groups).map(sk.Signal.from_iterable)
    assert events(inner.switch_to_latest()) == expected_latest
    assert events(inner.queue()) == [n for group in groups for n in group] + ["done"]


def test_objects_travel_by_reference():
    class Point:
        pass

    point, table = Point(), {"a": [1, 2]}
    seen = events(sk.Signal.from_iterable([point, table, (1, "x"), None, 2.5, b"raw", "text", True]))
    assert seen[0] is point and seen[1] is table
    assert seen[2:] == [(1, "x"), None, 2.5, b"raw", "text", True, "done"]


def test_ints_outside_int64_raise_overflow_error():
    with sk.Pipe() as pipe:
        for number in (2 ** 63, -2 ** 63 - 1, 2 ** 100):
            with pytest.raises(OverflowError):
                pipe.put(number)
    # A map's result must fit too, whether it crosses the library (into
    # take) or goes straight from the composed stages to on_next (one rule:
    # tests/test_arguments.py has every route).
    for failing in (sk.Signal.from_iterable([1]).map(lambda n: 2 ** 64).take(5),
                    sk.Signal.from_iterable([1]).map(lambda n: 2 ** 64)):
        seen = events(failing)
        assert len(seen) == 1 and isinstance(seen[0][1], OverflowError)


def test_side_effects_run_in_order():
    log = []
    signal = (sk.Signal.from_iterable([1, 2])
              .before_started(lambda: log.append("started"))
              .before_next(lambda n: log.append(("before", n)))
              .after_next(lambda n: log.append(("after", n)))
              .before_completed(lambda: log.append("before completed"))
              .after_completed(lambda: log.append("after completed"))
              .after_disposed(lambda: log.append("disposed")))
    with signal.subscribe(lambda n: log.append(("next", n)), None, lambda: log.append("done")):
        pass
    assert log[:9] == ["started", ("before", 1), ("next", 1), ("after", 1), ("before", 2), ("next", 2),
                       ("after", 2), "before completed", "done"]
    assert sorted(log[9:]) == ["after completed", "disposed"]


def test_catch_continues_with_the_signal_for_the_exception():
    def fails():
        yield 1
        raise ValueError("boom")

    caught = []

    def recover(error):
        caught.append(error)
        return sk.Signal.single("recovered")

    assert events(sk.Signal.from_iterable(fails()).catch(recover)) == [1, "recovered", "done"]
    assert isinstance(caught[0], ValueError) and str(caught[0]) == "boom"


def test_restart_if_error_and_restart_start_again():
    attempts = itertools.count()

    def flaky():
        if next(attempts) < 2:
            return sk.Signal.fail(RuntimeError("not yet"))
        return sk.Signal.single("ok")

    assert events(sk.Signal.deferred(flaky).restart_if_error()) == ["ok", "done"]
    assert events(sk.Signal.from_iterable([1, 2]).restart().take(5)) == [1, 2, 1, 2, 1, "done"]


def test_single_complete_fail_never():
    assert events(sk.Signal.single({"k": 1})) == [{"k": 1}, "done"]
    assert events(sk.Signal.complete()) == ["done"]
    error = KeyError("x")
    assert events(sk.Signal.fail(error)) == [("error", error)]
    with sk.Signal.never().subscribe(pytest.fail, pytest.fail, pytest.fail):
        pass


def test_ignore_values_and_combine_latest():
    assert events(sk.Signal.from_iterable([1, 2]).ignore_values()) == ["done"]
    with sk.Pipe() as left, sk.Pipe() as right:
        seen = []
        combined = sk.Signal.combine_latest(left.signal(), right.signal())
        with combined.subscribe(seen.append):
            left.put(1)
            right.put("a")
            left.put(2)
        assert seen == [[1, "a"], [2, "a"]]


def test_value_promise_and_promise():
    promise = sk.ValuePromise(1, ignore_repeated=True)
    seen = []
    with promise.get().subscribe(seen.append):
        promise.set(1)
        promise.set(2)
    assert seen == [1, 2]
    holder = sk.Promise()
    seen = []
    with holder.get().subscribe(seen.append):
        holder.set(sk.Signal.from_iterable(["x", "y"]))
    assert seen == ["x", "y"]
    del promise, holder


def test_time_operators_on_a_serial_queue():
    queue = sk.Queue.serial("time")
    done = threading.Event()
    seen = []
    signal = sk.Signal.from_iterable([1, 2, 3]).delay(0.01, queue)
    with signal.subscribe(seen.append, None, done.set):
        assert done.wait(10)
    assert seen == [1, 2, 3]
    assert sk.Signal.from_iterable([1, 2, 3]).debounce(0.01, queue).to_list(timeout=10) == [3]
    assert sk.Signal.never().timeout(0.01, sk.Signal.single("late"), queue).to_list(timeout=10) == ["late"]
    with pytest.raises(TimeoutError):
        sk.Signal.never().timeout(0.01, queue=queue).to_list(timeout=10)
    drained = threading.Event()  # the queue is serial: what the operators left on it runs first
    queue.run(drained.set)
    assert drained.wait(10)
    del queue


def test_retry_starts_again_after_a_delay():
    queue = sk.Queue.serial("retry")
    attempts = itertools.count()

    def flaky():
        if next(attempts) < 2:
            return sk.Signal.fail(RuntimeError("not yet"))
        return sk.Signal.from_iterable(["ok"])

    assert sk.Signal.deferred(flaky).retry(0.001, 0.01, queue).to_list(timeout=10) == ["ok"]
    assert next(attempts) == 3
    barrier_queue(queue)
    del queue


def test_throttle_keeps_the_latest_per_period():
    queue = sk.Queue.serial("throttle")
    with sk.Pipe() as pipe:
        seen, done = [], threading.Event()

        def on_next(value):
            seen.append(value)
            if value == 3:
                done.set()

        with pipe.signal().throttle(0.05, queue).subscribe(on_next):
            for n in (1, 2, 3):
                pipe.put(n)
            assert done.wait(10)
        # The trailing edge: the latest put arrives, in order, no value twice
        # (how many of 1 and 2 pass depends on how fast the puts ran).
        assert seen[-1] == 3 and seen == sorted(set(seen))
    barrier_queue(queue)
    del queue


def test_throttled_runs_the_first_then_the_latest_waiting():
    with sk.Pipe() as first_done:
        signals = [first_done.signal().take(1).map(lambda _: "first"), sk.Signal.single("second"),
                   sk.Signal.single("third")]
        seen = []
        with sk.Pipe() as outer, outer.signal().throttled().subscribe(seen.append):
            for signal in signals:
                outer.put(signal)
            first_done.put(None)
        assert seen == ["first", "third"]


def barrier_queue(queue):
    drained = threading.Event()
    queue.run(drained.set)
    assert drained.wait(10)


def test_a_long_chain_of_python_stages_is_composed_in_bounded_runs():
    # Each map, filter or tap composes the run of stages before it into one
    # function, compiled for the whole run: unbounded, a chain of n stages
    # built one by one compiled O(n**2) lines (500 maps: 4.4 s, 2,000: 54 s
    # to build). A run holds at most _FUSED_STAGES; the next stage starts a
    # new run over it, and the values are those of the whole chain.
    from pysignalkit._signal_core import _FUSED_STAGES
    signal = sk.Signal.from_iterable(range(5))
    made = [signal]
    for n in range(300):
        if n % 3:
            signal = signal.map(lambda v: v + 1)
        else:
            made.append(signal.filter(lambda v: v % 7 != 3))
            signal = made[-1].tap(lambda v: None)
        made.append(signal)
    assert max(len(s._stage_source.stages) for s in made[1:]) == _FUSED_STAGES
    expected = []
    for v in range(5):
        for n in range(300):
            if n % 3:
                v += 1
            elif v % 7 == 3:
                break
        else:
            expected.append(v)
    assert events(signal) == expected + ["done"]
    for s in made:
        s.close()
