"""Async backpressure: `async for` over signal.iterate(capacity=...) on a
real asyncio loop holds at most twice the capacity (the library's ring and
one batch pulled), pulls at the reader's pace, drops what the policy says
(counted) and loses nothing with "error"; leaving early releases
everything (the `clean` fixture)."""
import asyncio
import threading

import pytest

import pysignalkit as sk

pytestmark = pytest.mark.usefixtures("clean")


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


@pytest.mark.parametrize("policy", ["drop_newest", "drop_oldest", "latest", "error"])
def test_a_fast_producer_and_a_slow_async_for_hold_at_most_twice_the_capacity(policy):
    total, capacity = 100_000, 100
    pipe = sk.Pipe()
    drops = {"count": 0, "first": None}
    stalled = threading.Event()
    sent = []

    def on_drop(value, count):
        if drops["first"] is None:
            drops["first"] = int(value)
        drops["count"] = count

    def produce(base, most):
        # Every value is put while the reader sits on its first value.
        for value in range(total):
            pipe.put(str(value))
            if value % 500 == 0:
                most[0] = max(most[0], sk.live_objects() - base)
        sent.append(total)
        stalled.set()
        pipe.complete()

    async def main():
        got, most = [], [0]
        iterator = pipe.signal().iterate(capacity=capacity, overflow=policy, on_drop=on_drop).__aiter__()
        first = asyncio.ensure_future(iterator.__anext__())
        await asyncio.sleep(0)  # the iterator subscribes, then waits for its descriptor
        base = sk.live_objects()
        producer = threading.Thread(target=produce, args=(base, most))
        producer.start()
        await asyncio.get_running_loop().run_in_executor(None, stalled.wait)
        try:
            got.append(int(await first))
            async for value in iterator:
                got.append(int(value))
                most[0] = max(most[0], sk.live_objects() - base)
        except sk.SignalError as error:
            got.append(error)
        producer.join()
        return got, most[0]

    got, most = run(main())
    assert most <= 2 * capacity + 4, f"{most} values held at once"
    values = [v for v in got if isinstance(v, int)]
    assert values == sorted(values)
    if policy == "error":
        assert isinstance(got[-1], sk.SignalError) and "capacity 100" in str(got[-1])
        # No loss: the values delivered, then every later one dropped, until
        # the error reached the reader and ended the subscription (the puts
        # after that reached no subscriber).
        assert values == list(range(len(values)))
        assert drops["first"] == len(values)
        assert 0 < drops["count"] and len(values) + drops["count"] <= total
    else:
        assert len(values) + drops["count"] == total
        assert drops["count"] >= total - 2 * capacity - 1
        if policy == "drop_oldest":
            assert values[-1] == total - 1
        if policy == "latest":
            assert values[-1] == total - 1


def test_iterate_pulls_at_the_readers_pace():
    """Nothing leaves the library until the loop body asks: a value put
    while the body runs waits in the ring, not in Python."""
    async def main():
        pipe = sk.Pipe()
        seen = []
        iterator = pipe.signal().iterate(capacity=2, overflow="drop_newest").__aiter__()
        pipe_values = iter(range(10))
        first = asyncio.ensure_future(iterator.__anext__())
        await asyncio.sleep(0)  # the iterator subscribes and waits for its descriptor
        for value in pipe_values:
            pipe.put(value)
        seen.append(await first)
        seen.append(await iterator.__anext__())
        pipe.complete()
        with pytest.raises(StopAsyncIteration):
            await iterator.__anext__()
        await iterator.aclose()
        return seen

    # 0 and 1 waited; 2...9 found the ring full.
    assert run(main()) == [0, 1]


def test_leaving_a_bounded_async_for_early_releases_everything():
    async def main():
        pipe = sk.Pipe()
        iterator = pipe.signal().iterate(capacity=4, overflow="latest").__aiter__()
        first = asyncio.ensure_future(iterator.__anext__())
        await asyncio.sleep(0)
        for value in range(20):
            pipe.put(value)
        assert await first == 0
        await iterator.aclose()  # values still wait in the ring
        pipe.put(99)  # no subscriber any more
        with pytest.raises(StopAsyncIteration):
            await iterator.__anext__()

    run(main())


def test_iterate_refuses_bad_arguments():
    signal = sk.Signal.never()
    with pytest.raises(ValueError):
        signal.iterate(capacity=0, overflow="latest")
    with pytest.raises(ValueError):
        signal.iterate(capacity=2, overflow="block")
    with pytest.raises(TypeError):
        signal.iterate(overflow="latest")
