"""Issue 33's "Python fits Python": distinct_until_changed with ==, the
sources from futures, callables and async iterables, and the time
operators' default queue inside an asyncio program."""

import asyncio
import concurrent.futures
import threading

import pytest

import pysignalkit as sk

S = sk.Signal
pytestmark = pytest.mark.usefixtures("clean")  # each test leaves nothing alive


def values(signal):
    return signal.to_list(timeout=10)


def test_distinct_until_changed_compares_with_equality():
    # Before: objects carried by reference compared by identity, so two
    # equal dicts both passed.
    assert values(S.from_iterable([{"a": 1}, {"a": 1}, {"a": 2}, {"a": 2}]).distinct_until_changed()) == \
        [{"a": 1}, {"a": 2}]
    assert values(S.from_iterable([1, 1, 2, 1]).distinct_until_changed()) == [1, 2, 1]


def test_distinct_until_changed_key_and_comparer():
    words = ["apple", "avocado", "banana", "blueberry", "apricot"]
    assert values(S.from_iterable(words).distinct_until_changed(key=lambda w: w[0])) == \
        ["apple", "banana", "apricot"]
    near = values(S.from_iterable([1.0, 1.05, 2.0, 2.01]).distinct_until_changed(comparer=lambda a, b: abs(a - b) < 0.1))
    assert near == [1.0, 2.0]
    with pytest.raises(TypeError):
        S.never().distinct_until_changed(key=3)  # type: ignore[arg-type]


def test_distinct_until_changed_has_a_memory_per_subscription():
    signal = S.from_iterable([1, 1, 2]).distinct_until_changed()
    assert values(signal) == [1, 2]
    assert values(signal) == [1, 2]


def test_distinct_until_changed_keeps_its_memory_per_subscription_while_two_run_at_once():
    with sk.Pipe[int]() as pipe:
        signal = pipe.signal().map(lambda v: v).distinct_until_changed().map(lambda v: v * 10)
        first, second = [], []
        with signal.subscribe(first.append):
            for v in (1, 1, 2):
                pipe.put(v)
            with signal.subscribe(second.append):
                for v in (2, 2, 3):
                    pipe.put(v)
    assert first == [10, 20, 30]
    assert second == [20, 30]


@pytest.mark.parametrize("depth", [511, 2_000])
def test_a_long_run_of_distinct_until_changed_gets_every_value_through(depth):
    # Before: each one was a library stage of its own, and a value (and a
    # subscription's start) nested Python's frames through each: 200 in a
    # row lost every value (a RecursionError nobody could be told of), to_list
    # waited for ever and objects stayed alive.
    signal = S.from_iterable([1, 1, 2, 3, 3])
    for _ in range(depth):
        signal = signal.distinct_until_changed().map(lambda v: v)
    assert values(signal) == [1, 2, 3]


def test_an_exception_of_the_key_ends_the_stream():
    def key(value):
        raise ValueError(value)
    with pytest.raises(ValueError):
        values(S.from_iterable([1, 2]).distinct_until_changed(key=key))


def test_from_callable_calls_at_each_start():
    calls = []
    signal = S.from_callable(lambda: calls.append(1) or len(calls))
    assert values(signal) == [1]
    assert values(signal) == [2]
    with pytest.raises(ZeroDivisionError):
        values(S.from_callable(lambda: 1 / 0))


def test_from_future_of_concurrent_futures():
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        assert values(S.from_future(pool.submit(lambda: 42))) == [42]
        with pytest.raises(KeyError):
            # to_list itself, not values(): the signal holds the future, and
            # the future its exception (a frame of its traceback holding the
            # signal would make a cycle through the library).
            S.from_future(pool.submit(lambda: {}["x"])).to_list(timeout=10)
    cancelled: "concurrent.futures.Future[int]" = concurrent.futures.Future()
    cancelled.cancel()
    with pytest.raises(concurrent.futures.CancelledError):
        values(S.from_future(cancelled))
    with pytest.raises(TypeError):
        S.from_future(42)  # type: ignore[arg-type]


def test_from_future_of_asyncio_and_from_async_iterable():
    async def main():
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        loop.call_soon(future.set_result, "done")
        first = await S.from_future(future)

        async def numbers():
            for n in range(3):
                await asyncio.sleep(0)
                yield n

        got = [n async for n in S.from_async_iterable(numbers())]
        return first, got

    assert asyncio.run(asyncio.wait_for(main(), 10)) == ("done", [0, 1, 2])


def test_from_async_iterable_without_a_loop_fails():
    async def nothing():
        yield 1
    with pytest.raises(RuntimeError):
        values(S.from_async_iterable(nothing()))


def test_time_operators_in_an_asyncio_program_deliver_on_its_loop():
    # Before: with no queue, debounce delivered on a library thread, where
    # asyncio.get_running_loop() raises "no running event loop".
    async def main():
        loop = asyncio.get_running_loop()
        done = loop.create_future()

        def on_next(value):
            asyncio.get_running_loop()  # raises on any other thread
            done.set_result((value, threading.current_thread() is threading.main_thread()))

        with S.from_iterable([1, 2]).debounce(0.001).subscribe(on_next, lambda e: done.set_exception(e)):
            return await asyncio.wait_for(done, 10)

    assert asyncio.run(main()) == (2, True)


def test_time_operators_elsewhere_use_the_concurrent_queue():
    threads = []
    assert values(S.from_iterable([1]).delay(0).before_next(lambda v: threads.append(threading.current_thread()))) == [1]
    assert threads and threads[0] is not threading.main_thread()


def test_distinct_until_changed_in_the_library_compares_objects_by_identity():
    same = {"a": 1}
    assert values(S.from_iterable([same, same, {"a": 1}, 2, 2]).distinct_until_changed(in_library=True)) == \
        [same, {"a": 1}, 2]
    with pytest.raises(TypeError):
        S.never().distinct_until_changed(key=len, in_library=True)
