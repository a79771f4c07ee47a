"""asyncio: await a signal, async for, and the loop's own host queue."""
import asyncio
import itertools
import os
import threading

import pytest

import pysignalkit as sk

pytestmark = pytest.mark.usefixtures("clean")


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=20))


def test_await_first_and_last():
    async def main():
        numbers = sk.Signal.from_iterable(range(5)).map(lambda n: n * n)
        return await numbers.first(), await numbers.last(), await sk.Signal.from_iterable(itertools.count()).first()

    assert run(main()) == (0, 16, 0)


def test_await_raises_the_error_and_lookup_error_when_empty():
    async def failing():
        await sk.Signal.fail(ValueError("nope"))

    async def empty():
        await sk.Signal.complete()

    with pytest.raises(ValueError, match="nope"):
        run(failing())
    with pytest.raises(LookupError):
        run(empty())


def test_async_for_from_a_worker_thread_runs_on_the_loop_thread():
    async def main():
        loop_thread = threading.get_ident()
        pipe = sk.Pipe()
        received, threads = [], set()
        signal = pipe.signal().take(100).before_next(lambda n: None)

        async def consume():
            async for value in signal:
                threads.add(threading.get_ident())
                received.append(value)

        task = asyncio.ensure_future(consume())
        await asyncio.sleep(0)  # the subscription starts in consume
        worker = threading.Thread(target=lambda: [pipe.put({"n": n}) for n in range(100)])
        worker.start()
        await task
        worker.join()
        return received, threads == {loop_thread}

    received, on_loop = run(main())
    assert [item["n"] for item in received] == list(range(100))
    assert on_loop


def test_leaving_async_for_early_disposes():
    pulled = []

    def numbers():
        for n in itertools.count():
            pulled.append(n)
            yield n

    async def main():
        seen = []
        iterator = sk.Signal.from_iterable(numbers()).take(1000).__aiter__()
        async for value in iterator:
            seen.append(value)
            if value == 2:
                break
        await iterator.aclose()
        return seen

    assert run(main()) == [0, 1, 2]


def test_async_for_raises_the_error():
    async def main():
        seen = []
        with pytest.raises(ArithmeticError):
            async for value in sk.Signal.from_iterable([1, 0]).map(lambda n: 1 // n):
                seen.append(value)
        return seen

    assert run(main()) == [1]


def test_the_loop_queue_is_one_per_loop_and_drained_by_the_loop():
    async def main():
        queue = sk.asyncio_queue()
        assert sk.asyncio_queue() is queue
        done = asyncio.get_running_loop().create_future()
        threading.Thread(target=lambda: queue.run(lambda: done.set_result(threading.get_ident()))).start()
        return await done == threading.get_ident()

    assert run(main())


def test_to_list_in_the_loop_of_a_signal_delivering_there_raises_rather_than_wait_for_ever():
    """to_list() blocks its thread; on the thread of the loop a signal
    delivers on, the loop could never run the deliveries: the start fails
    at once with RuntimeError (the timeout only bounds the test should it
    not). The same signal, started the asynchronous way in the loop, or
    by to_list() on another thread, still works; and a signal that does
    not deliver on the loop is listed in it as before."""
    async def main():
        loop_signals = [sk.Signal.from_iterable([1, 2]).deliver_on(sk.asyncio_queue()),
                        sk.Signal.timer(0.001).map(lambda _: 7)]
        for signal in loop_signals:
            with pytest.raises(RuntimeError, match="would wait for ever"):
                signal.to_list(timeout=5)
        listed = [[value async for value in signal] for signal in loop_signals]
        elsewhere = await asyncio.get_running_loop().run_in_executor(None, lambda: loop_signals[0].to_list(timeout=5))
        plain = sk.Signal.from_iterable([3, 4]).to_list(timeout=5)
        for signal in loop_signals:
            signal.close()
        return listed, elsewhere, plain

    assert run(main()) == ([[1, 2], [7]], [1, 2], [3, 4])


def test_a_signal_made_on_a_loop_fails_its_starts_once_that_loop_closed():
    """A time operator made inside a loop without queue= (and a deliver_on
    of asyncio_queue()) delivers on that loop's queue; started after the
    loop closed, it went silent for ever (nothing drains that queue, and an
    interval kept scheduling work there). Each such start fails now, saying
    why, and a start inside a loop that runs still works."""
    async def make():
        pipe = sk.Pipe()
        return pipe, [sk.Signal.timer(0.001), sk.Signal.interval(0.001), pipe.signal().debounce(0.001),
                      pipe.signal().deliver_on(sk.asyncio_queue())]

    pipe, signals = run(make())
    for signal in signals:
        errors = []
        with signal.subscribe(lambda value: None, errors.append):
            pass
        assert len(errors) == 1 and isinstance(errors[0], RuntimeError), signal
        assert "the asyncio loop it was made in, which has closed" in str(errors[0])
        with pytest.raises(RuntimeError, match="which has closed"):
            signal.to_list(timeout=5)

    async def made_and_run_in_one_loop():
        return await sk.Signal.timer(0.001)

    assert run(made_and_run_in_one_loop()) == 0
    for signal in signals:
        signal.close()
    pipe.close()


def test_a_loops_queue_is_released_when_the_loop_closes_though_the_program_keeps_it():
    """The loop owns asyncio_queue()'s queue: it is released when the loop
    closes. A program that kept the object it was given kept the queue
    open: its descriptor, the deliveries pending on it (delivered later by
    a drain() on the wrong thread) and the library objects stayed, until
    that object went. The queue is released at the loop's close now,
    whoever holds the object, which then says it is closed."""
    loop = asyncio.new_event_loop()
    delivered = []

    async def setup():
        queue = sk.asyncio_queue()
        pipe = sk.Pipe()
        return queue, pipe, pipe.signal().deliver_on(queue).subscribe(delivered.append)

    queue, pipe, subscription = loop.run_until_complete(setup())
    fd = queue.fileno()
    worker = threading.Thread(target=lambda: [pipe.put(n) for n in range(3)])
    worker.start()
    worker.join()
    assert sk.pending_callbacks() > 0  # the three deliveries wait for the loop
    loop.close()
    assert not os.path.exists(f"/proc/self/fd/{fd}")
    with pytest.raises(ValueError, match="closed"):
        queue.drain()
    with pytest.raises(ValueError, match="closed"):
        queue.run(lambda: None)
    pipe.put(99)
    assert delivered == []
    subscription.dispose()
    pipe.close()


@pytest.mark.parametrize("bounded", [False, True], ids=["plain", "iterate(capacity=4)"])
def test_aclose_from_another_task_ends_the_read_waiting(bounded):
    """A task reads with async for; another awaits aclose(): the waiting
    read waited for ever, and a bounded one's watch stayed on the
    descriptor number its queue had closed, so that a later reader of a
    file given that number was never woken. The read ends now, as a read
    after aclose() does, and a later bounded iteration gets its values."""
    async def main():
        pipe = sk.Pipe()
        iterator = pipe.signal().iterate(capacity=4, overflow="drop_oldest") if bounded else pipe.signal().__aiter__()
        got = []
        first = asyncio.get_running_loop().create_future()

        async def consume():
            async for value in iterator:
                got.append(value)
                if not first.done():
                    first.set_result(None)

        consumer = asyncio.ensure_future(consume())
        for _ in range(10):
            await asyncio.sleep(0)  # the consumer's first read subscribes
        pipe.put(1)
        await asyncio.wait_for(first, 10)
        await iterator.aclose()
        await asyncio.wait_for(consumer, 10)  # ended (TimeoutError before)
        later_pipe = sk.Pipe()
        later = later_pipe.signal().iterate(capacity=4, overflow="drop_oldest")

        async def read_later():
            return [value async for value in later]

        reader = asyncio.ensure_future(read_later())
        for _ in range(10):
            await asyncio.sleep(0)
        later_pipe.put(7)
        later_pipe.complete()
        later_got = await asyncio.wait_for(reader, 10)
        pipe.close()
        later_pipe.close()
        return got, later_got

    assert run(main()) == ([1], [7])


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
