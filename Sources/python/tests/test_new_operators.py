"""The operators of issue 33 in Python: each against its C operator, by
values (to_list) or, for the timed ones, on virtual time."""

import asyncio

import pytest

import signalkit as sk
from signalkit.testing import TestScheduler

S = sk.Signal
pytestmark = pytest.mark.usefixtures("clean")  # each test leaves nothing alive


def values(signal):
    return signal.to_list(timeout=10)


# --- Reduce -------------------------------------------------------------------

def test_scan_emits_each_accumulator():
    assert values(S.from_iterable([1, 2, 3]).scan(lambda acc, v: acc + v, 10)) == [11, 13, 16]
    assert values(S.from_iterable(["a", "b"]).scan(lambda acc, v: acc + [v], [])) == [["a"], ["a", "b"]]


def test_scan_fails_with_the_functions_exception():
    def fold(acc, v):
        if v == 2:
            raise ValueError("two")
        return acc + v
    with pytest.raises(ValueError, match="two"):
        values(S.from_iterable([1, 2, 3]).scan(fold, 0))


def test_pairwise():
    assert values(S.from_iterable([1, 2, 3]).pairwise()) == [[1, 2], [2, 3]]
    assert values(S.single(1).pairwise()) == []


# --- Combine ------------------------------------------------------------------

def test_zip_pairs_the_nth_values():
    assert values(S.zip(S.from_iterable([1, 2, 3]), S.from_iterable("ab"))) == [[1, "a"], [2, "b"]]


def test_with_latest_from():
    with sk.Pipe[int]() as source, sk.Pipe[str]() as other:
        seen = []
        with source.signal().with_latest_from(other.signal()).subscribe(seen.append):
            source.put(1)  # dropped: other has not emitted
            other.put("x")
            source.put(2)
            other.put("y")
            source.put(3)
        assert seen == [[2, "x"], [3, "y"]]


# --- Take -----------------------------------------------------------------------

def test_skip_and_skip_while():
    assert values(S.from_iterable(range(5)).skip(3)) == [3, 4]
    assert values(S.from_iterable([1, 2, 5, 1]).skip_while(lambda v: v < 3)) == [5, 1]
    with pytest.raises(ValueError):
        S.never().skip(-1)


def test_take_while_exclusive_and_inclusive():
    assert values(S.from_iterable([1, 2, 5, 1]).take_while(lambda v: v < 3)) == [1, 2]
    assert values(S.from_iterable([1, 2, 5, 1]).take_while(lambda v: v < 3, inclusive=True)) == [1, 2, 5]


def test_first_element_at_default_if_empty():
    assert values(S.from_iterable([4, 5]).first()) == [4]
    assert values(S.from_iterable([4, 5, 6]).first(lambda v: v > 4)) == [5]
    assert values(S.complete().first()) == []
    assert values(S.from_iterable("abc").element_at(1)) == ["b"]
    assert values(S.from_iterable("abc").element_at(5)) == []
    assert values(S.complete().default_if_empty("none")) == ["none"]
    assert values(S.single(1).default_if_empty("none")) == [1]


def test_take_until_a_signal():
    with sk.Pipe[int]() as source, sk.Pipe[str]() as stop:
        seen, ended = [], []
        with source.signal().take_until(stop.signal()).subscribe(seen.append, on_completed=lambda: ended.append(1)):
            source.put(1)
            stop.put("now")
            source.put(2)
        assert seen == [1] and ended == [1]


def test_a_predicate_that_raises_is_reported_and_counts_as_false():
    reported = []
    hook, sk.callback_error_hook = sk.callback_error_hook, lambda exc, where: reported.append(where)
    try:
        def fn(v):
            raise KeyError(v)
        assert values(S.from_iterable([1, 2]).take_while(fn)) == []
    finally:
        sk.callback_error_hook = hook
    assert reported == ["predicate"]


# --- Meta -----------------------------------------------------------------------

def test_start_with_and_concat():
    assert values(S.from_iterable([3]).start_with(1, 2)) == [1, 2, 3]
    assert values(S.concat(S.from_iterable([1, 2]), S.single(3), S.complete())) == [1, 2, 3]


def test_merge_map_limits_the_inner_signals_running():
    pipes = [sk.Pipe[str]() for _ in range(3)]
    seen = []
    outer = S.from_iterable(range(3)).merge_map(lambda i: pipes[i].signal(), max_concurrent=1)
    with outer.subscribe(seen.append):
        pipes[1].put("lost")  # not started yet: concat-map
        pipes[0].put("a")
        pipes[0].complete()
        pipes[1].put("b")
    assert seen == ["a", "b"]
    with pytest.raises(ValueError):
        S.never().merge_map(lambda v: None, max_concurrent=0)


def test_group_by_delivers_key_and_group():
    groups = {}

    def on_group(pair):
        key, group = pair
        groups[key] = []
        group.subscribe(groups[key].append)

    with S.from_iterable([1, 2, 3, 4, 5]).group_by(lambda v: v % 2).subscribe(on_group):
        pass
    assert groups == {1: [1, 3, 5], 0: [2, 4]}


# --- Share ----------------------------------------------------------------------

def test_share_subscribes_once_and_replay_replays():
    starts = []
    with sk.Pipe[int]() as pipe:
        shared = pipe.signal().before_started(lambda: starts.append(1)).share()
        a, b = [], []
        with shared.subscribe(a.append), shared.subscribe(b.append):
            pipe.put(1)
        assert a == [1] and b == [1] and starts == [1]
        replayed = pipe.signal().replay(1)
        c, d = [], []
        with replayed.subscribe(c.append):
            pipe.put(7)
            with replayed.subscribe(d.append):
                pass
        assert c == [7] and d == [7]


# --- Catch ----------------------------------------------------------------------

def test_retry_count_retries_count_times():
    attempts = []

    def start(subscriber):
        attempts.append(1)
        subscriber.on_error(ValueError("no"))

    with pytest.raises(ValueError):
        values(S.create(start).retry_count(2))
    assert len(attempts) == 3


def test_retry_count_with_a_delay_on_virtual_time():
    with TestScheduler() as scheduler:
        source = scheduler.cold("a#")
        results = scheduler.record(source.retry_count(1, scheduler.seconds(2), scheduler.queue))
        scheduler.run()
        results.assert_diagram("a--a#")


# --- Timing ---------------------------------------------------------------------

def test_buffers_and_sample():
    assert values(S.from_iterable(range(5)).buffer_with_count(2)) == [[0, 1], [2, 3], [4]]
    with pytest.raises(ValueError):
        S.never().buffer_with_count(0)
    with TestScheduler() as scheduler:
        windows = []
        buffered = scheduler.cold("ab-c--|").buffer_with_time(scheduler.seconds(3), scheduler.queue)
        sampled = scheduler.record(scheduler.cold("ab-c--|").sample(scheduler.seconds(2), scheduler.queue))
        with buffered.subscribe(lambda window: windows.append((scheduler.now, window))):
            scheduler.run()
        assert windows == [(3, ["a", "b"]), (6, ["c"])]
        sampled.assert_diagram("--b-c-|")
    with sk.Pipe[int]() as source, sk.Pipe[str]() as ticks:
        seen = []
        with source.signal().sample(ticks.signal()).subscribe(seen.append):
            source.put(1)
            source.put(2)
            ticks.put("t")
            ticks.put("t")  # nothing new
            source.put(3)
            ticks.put("t")
        assert seen == [2, 3]


# --- Pipe ends ------------------------------------------------------------------

def test_a_pipe_completes_and_fails_for_current_and_later_subscribers():
    with sk.Pipe[int](replay=True) as pipe:
        events = []
        with pipe.signal().subscribe(events.append, on_completed=lambda: events.append("done")):
            pipe.put(1)
            pipe.complete()
            pipe.put(2)  # nothing
        assert events == [1, "done"]
        assert values(pipe.signal()) == [1]  # a later subscriber: the replayed value, then the completion
    with sk.Pipe[int]() as pipe:
        pipe.fail(LookupError("gone"))
        with pytest.raises(LookupError):
            # Not through values(): the pipe holds its error, and a frame of
            # its traceback holding the pipe's signal would make a cycle
            # through the library (to_list lets go of its own signal).
            pipe.signal().to_list(timeout=10)
        with pytest.raises(TypeError):
            pipe.fail("not an exception")  # type: ignore[arg-type]


def test_async_for_over_a_pipe_ends_at_its_completion_and_raises_its_error():
    async def read(pipe, end):
        got = []
        loop = asyncio.get_running_loop()
        loop.call_soon(pipe.put, 1)
        loop.call_soon(end)
        async for value in pipe.signal():
            got.append(value)
        return got

    with sk.Pipe[int]() as pipe:
        assert asyncio.run(asyncio.wait_for(read(pipe, pipe.complete), 10)) == [1]
    with sk.Pipe[int]() as pipe:
        with pytest.raises(KeyError):
            asyncio.run(asyncio.wait_for(read(pipe, lambda: pipe.fail(KeyError("k"))), 10))


def test_async_for_over_the_pipe_itself():
    async def read(pipe):
        loop = asyncio.get_running_loop()
        loop.call_soon(pipe.put, 1)
        loop.call_soon(pipe.put, 2)
        loop.call_soon(pipe.complete)
        return [value async for value in pipe]

    with sk.Pipe[int]() as pipe:
        assert asyncio.run(asyncio.wait_for(read(pipe), 10)) == [1, 2]
