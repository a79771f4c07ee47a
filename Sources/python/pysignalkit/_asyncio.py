"""asyncio integration: a host-drained
queue wired into the running loop (loop.add_reader on its descriptor),
`await signal` and `async for` (_AsyncOperators, mixed into Signal)."""

from __future__ import annotations

import collections
import concurrent.futures
import sys
import weakref
from typing import (TYPE_CHECKING, Any, AsyncIterable, Callable, Generator, Generic, List, Optional, Tuple, TypeVar,
                    Union)

from ._core import C, _LazyModule
from ._handle import Disposable, _Uncopyable
from ._queue import _BLOCK, Queue, _bounded_policy, _drop_arguments, _queue, _queue_arg
from ._signal_core import _new_signal, _SignalCore
from ._subscription import Subscriber

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    import asyncio

    from ._signal import Signal
else:  # imported when first used (_LazyModule): a program that never awaits needs none of it
    asyncio = _LazyModule("asyncio", globals())

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
U = TypeVar("U")

# loop -> its queue, held weakly: the loop's reader holds the queue, so the
# queue goes (and is released) with the loop's selector when the loop closes.
_queues: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, weakref.ref[Queue]]" = weakref.WeakKeyDictionary()


class _LoopQueue(Queue):
    """A loop's host queue (asyncio_queue): the loop owns it. Its reader
    (_LoopReader) drains it, and the queue is released when the loop lets
    go of the reader (the loop closes, its selector with it), whoever else
    holds this object; close() (and a `with` block's end) leaves it open,
    so that the loop's later `await signal`, `async for` and deliveries
    still have their queue and the reader never watches a descriptor the
    library closed."""

    def close(self) -> None:
        """Nothing: the loop owns its queue (released when the loop closes)."""


class _LoopReader:
    """The reader a loop holds for its queue (loop.add_reader): drains it.
    The queue's release is tied to this object, not to the queue object a
    program may keep: when the loop closes (or is collected) it drops its
    readers, and this one's finalizer releases the queue (pending work
    dropped, its descriptor closed; the object then says it is closed)."""
    __slots__ = ("queue", "__weakref__")

    def __init__(self, queue: Queue) -> None:
        self.queue = queue

    def __call__(self) -> None:
        self.queue.drain()


def asyncio_queue(loop: Optional[asyncio.AbstractEventLoop] = None) -> Queue:
    """The host-drained queue of `loop` (default: the running loop): work
    and deliveries put on it run on the loop's thread, drained by the loop
    itself when the queue's descriptor is readable (loop.add_reader). Made
    on first use, one per loop; signal.deliver_on(asyncio_queue()) delivers
    a signal's events where loop state may be touched freely. The loop owns
    it: close() and a `with` block leave it open; it is released when the
    loop closes (pending work dropped), also when the program kept it: its
    calls then raise ValueError, as a closed handle's."""
    if loop is None:
        loop = asyncio.get_running_loop()
    elif not isinstance(loop, asyncio.AbstractEventLoop):
        raise TypeError(f"signalkit: asyncio_queue: {type(loop).__name__} is not an asyncio event loop")
    held = _queues.get(loop)
    queue = held() if held is not None else None
    if queue is None:
        queue = _LoopQueue.host("asyncio")
        queue._loop = weakref.ref(loop)
        reader = _LoopReader(queue)
        # Not at exit: a loop still open then keeps its queue to the end, as
        # any handle the program keeps.
        finalizer = weakref.finalize(reader, queue._drop)
        finalizer.atexit = False  # type: ignore[misc, unused-ignore]  # a property older typeshed does not list
        loop.add_reader(queue.fileno(), reader)
        _queues[loop] = weakref.ref(queue)
    return queue


def _deliver_on(signal: "_SignalCore[Any]", queue: Queue) -> "Signal[Any]":
    """signal.deliver_on(queue) (the Dispatch family's operator, above this module)."""
    return _new_signal(C.signal_deliver_on, signal, _queue_arg(queue, "deliver_on"))


def _time_queue(queue: Optional[Queue], where: str) -> Queue:
    """The queue of a time operator (debounce, throttle, delay, timeout,
    retry, retry_count, buffer_with_time, sample, interval, timer):
    `queue` when given (TypeError unless a Queue); else, on a thread
    running an asyncio loop, that loop's asyncio_queue(), so that the
    operator's events arrive on the loop's thread; else a new handle of the
    library's concurrent queue (the package keeps none, so that
    live_objects() returns to 0 once everything is released). The rule is
    written once, in the package docstring's Threads paragraph."""
    if queue is not None:
        return _queue_arg(queue, where)
    if "asyncio" not in sys.modules:
        # No loop can be running: asyncio is not even imported (importing it
        # here would open its files: at the descriptor limit an OSError,
        # where the library's refusal, SignalKitError, is documented).
        return _queue(None, where)
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return _queue(None, where)
    return asyncio_queue(loop)


async def first_value(signal: "_SignalCore[T]") -> T:
    """The first value of `signal`, delivered on the running loop; its
    error raised; LookupError if it completes without a value."""
    loop = asyncio.get_running_loop()
    future: "asyncio.Future[T]" = loop.create_future()

    def on_next(value: T) -> None:
        if not future.done():
            future.set_result(value)

    def on_error(error: BaseException) -> None:
        if not future.done():
            future.set_exception(error)

    def on_completed() -> None:
        if not future.done():
            future.set_exception(LookupError("signalkit: the signal completed without a value"))

    # take(1), then deliver_on: made here from the C operators (the
    # operator families are above this module).
    delivered = _deliver_on(_new_signal(C.signal_take, signal, 1), asyncio_queue(loop))
    subscription = delivered.subscribe(on_next, on_error, on_completed)
    # An error the library holds (Signal.fail's) is raised from here: the
    # frames of its traceback must not hold the signals that hold it.
    del signal, delivered
    try:
        return await future
    finally:
        subscription.dispose()
        subscription.close()


class SignalIterator(Generic[T_co], _Uncopyable):
    """`async for value in signal`: the subscription and its buffer (values
    are kept until read: a fast signal and a slow loop body make it grow).
    What Signal.__aiter__ returns: an AsyncIterator[T_co] (covariant, as
    Signal), with aclose().

    Once the iteration ended (the completion, the error raised once, a
    cancelled read, or aclose()), every later __anext__ raises
    StopAsyncIteration at once, as an exhausted async generator does.

    It holds a subscription: copy.copy and copy.deepcopy return the
    iterator itself; pickling raises TypeError."""

    _END = object()

    def __init__(self, signal: "_SignalCore[T_co]", capacity: Optional[int] = None,
                 overflow: Union[str, int, None] = None,
                 on_drop: Optional[Callable[[Any, int], object]] = None) -> None:
        """An iterator over `signal` (subscribed at the first read); with
        `capacity`, bounded (Signal.iterate)."""
        self._bound: Optional[Tuple[int, int, Optional[Callable[[Any, int], object]]]] = None
        if capacity is not None:
            size, policy = _bounded_policy("iterate", capacity, overflow, on_drop)
            if policy == _BLOCK:
                # The values wait for the iterator's host queue, which only
                # the reader drains: the library refuses to block for such a
                # queue (its draining thread may be the producer).
                raise ValueError("signalkit: iterate: overflow 'block' cannot wait here: the values wait for a "
                                 "queue that only the reader drains; use 'drop_newest', 'drop_oldest', 'latest' "
                                 "or 'error', or make an async producer wait with Pipe.put_async into "
                                 "deliver_on(queue, capacity=..., overflow='block')")
            self._bound = (size, policy, on_drop)
        elif overflow is not None or on_drop is not None:
            raise TypeError("signalkit: iterate: overflow and on_drop need a capacity")
        self._signal: Optional[_SignalCore[T_co]] = signal
        self._events: "Optional[asyncio.Queue[Tuple[int, Any]]]" = None
        self._subscription: Optional[Disposable] = None
        self._ended = False
        # Bounded: the values moved out of the library, read in order, and
        # the iterator's own host queue, drained only when they run out.
        self._pulled: "collections.deque[Tuple[int, Any]]" = collections.deque()
        self._host: Optional[Queue] = None
        # A bounded read waiting for the host queue's descriptor: its loop,
        # the descriptor and the future its reader sets (_pull), so that
        # _stop can end the wait, and take the watch off before the
        # descriptor closes.
        self._watch: "Optional[Tuple[asyncio.AbstractEventLoop, int, asyncio.Future[None]]]" = None

    def __aiter__(self) -> "SignalIterator[T_co]":
        """The iterator itself (the subscription starts at the first read)."""
        return self

    def _start(self) -> "asyncio.Queue[Tuple[int, Any]]":
        loop = asyncio.get_running_loop()
        events: "asyncio.Queue[Tuple[int, Any]]" = asyncio.Queue()
        self._events = events
        signal, self._signal = self._signal, None  # as in first_value: no frame holds it once started
        assert signal is not None
        delivered = _deliver_on(signal, asyncio_queue(loop))  # its values only go into `events`
        del signal
        self._subscription = delivered.subscribe(lambda value: events.put_nowait((0, value)),
                                                 lambda error: events.put_nowait((1, error)),
                                                 lambda: events.put_nowait((2, None)))
        return events

    def _start_bounded(self, size: int, policy: int, on_drop: Optional[Callable[[Any, int], object]]) -> Queue:
        # The values wait in the library, in deliver_on's ring of `size` on a
        # host queue of this iterator's, which only __anext__ drains: they
        # leave it at the reader's pace, a batch (at most `size`) at a time.
        host = Queue.host("iterate")
        self._host = host
        signal, self._signal = self._signal, None
        assert signal is not None
        pulled = self._pulled
        delivered = _new_signal(C.signal_deliver_on_bounded, signal, _queue_arg(host, "iterate"), size, policy,
                                *_drop_arguments(on_drop, policy))
        del signal
        self._subscription = delivered.subscribe(lambda value: pulled.append((0, value)),
                                                 lambda error: pulled.append((1, error)),
                                                 lambda: pulled.append((2, None)))
        return host

    async def _pull(self) -> Tuple[int, Any]:
        """The next event of a bounded iteration: drains the iterator's
        queue when none is pulled yet, waits for its descriptor while
        nothing is pending."""
        host = self._host
        if host is None:
            assert self._bound is not None
            host = self._start_bounded(*self._bound)
        while not self._pulled:
            if self._ended:  # aclose() (or another read's end) while this one waited
                return (2, None)
            if host.drain(1) > 0:
                continue
            loop = asyncio.get_running_loop()
            ready: "asyncio.Future[None]" = loop.create_future()

            def wake() -> None:
                if not ready.done():
                    ready.set_result(None)

            fd = host.fileno()
            loop.add_reader(fd, wake)
            self._watch = (loop, fd, ready)
            try:
                await ready
            finally:
                # Still this read's watch (_stop takes it off itself, before
                # the descriptor closes and its number may be another's).
                if self._watch is not None and self._watch[2] is ready:
                    self._watch = None
                    loop.remove_reader(fd)
        return self._pulled.popleft()

    async def __anext__(self) -> T_co:
        """The next value; StopAsyncIteration at the completion; the error
        raised (once); StopAsyncIteration again on every call after the end."""
        if self._ended:
            raise StopAsyncIteration
        try:
            if self._bound is not None:
                kind, payload = await self._pull()
            else:
                events = self._events if self._events is not None else self._start()
                kind, payload = await events.get()
        except BaseException:
            self._stop()
            raise
        if kind == 0:
            value: T_co = payload
            return value
        self._stop()
        if kind == 1:
            raise payload
        raise StopAsyncIteration

    def _stop(self) -> None:
        """Ends the iteration: disposes the subscription, closes the host
        queue, and ends a read still waiting (aclose() from another task:
        it raises StopAsyncIteration; it waited for ever, and a bounded
        one's watch stayed on a descriptor number the next file got)."""
        self._ended = True
        self._signal = None
        watch, self._watch = self._watch, None
        if watch is not None:
            loop, fd, ready = watch
            if not loop.is_closed():
                loop.remove_reader(fd)
            if not ready.done():
                ready.set_result(None)
        events = self._events
        if events is not None:
            events.put_nowait((2, None))  # a read waiting in events.get() ends
        subscription, self._subscription = self._subscription, None
        if subscription is not None:
            subscription.dispose()
            subscription.close()
        host, self._host = self._host, None
        self._pulled.clear()
        if host is not None:
            host.close()  # what still waits for it is dropped

    async def aclose(self) -> None:
        """Disposes the subscription (what leaving an `async for` early does
        once the iterator is collected; call it to do it at once)."""
        self._stop()

    def __del__(self) -> None:
        try:
            self._stop()
        except Exception:
            pass




class _AsyncOperators(_SignalCore[T_co]):
    """`await signal`, `async for value in signal`, and the sources from
    futures and async iterables (mixed into pysignalkit.Signal)."""

    @staticmethod
    def from_future(future: "Union[concurrent.futures.Future[U], asyncio.Future[U]]") -> "Signal[U]":
        """The result of `future` (a concurrent.futures.Future or an
        asyncio future / task), then the completion; its exception as the
        error (a cancelled future: CancelledError). Delivered where the
        future's done callbacks run (the thread that completed a
        concurrent future; an asyncio future's loop), or at once when it is
        done already. Each subscription waits for the same future; a
        disposed one receives nothing (RxPY's from_future). TypeError
        unless a future. The signal keeps the future, so its exception
        raised in frames that hold the signal is a cycle the garbage
        collector does not see (python.md, "Errors")."""
        if not isinstance(future, (concurrent.futures.Future, asyncio.Future)):
            raise TypeError(f"signalkit: from_future: {type(future).__name__} is not a concurrent.futures.Future "
                            "or an asyncio future")

        def run(subscriber: Subscriber[U]) -> Callable[[], None]:
            # The subscriber while the subscription lives: a disposed one
            # lets go of it at once, also when the future never completes
            # (a concurrent future keeps its done callbacks until then).
            held: List[Optional[Subscriber[U]]] = [subscriber]
            del subscriber

            def done(finished: Any) -> None:
                target, held[0] = held[0], None
                if target is None:
                    return
                with target:
                    if finished.cancelled():
                        target.on_error(asyncio.CancelledError() if isinstance(finished, asyncio.Future)
                                        else concurrent.futures.CancelledError())
                        return
                    error = finished.exception()
                    if error is not None:
                        target.on_error(error)
                        return
                    target.on_next(finished.result())
                    target.on_completed()

            future.add_done_callback(done)

            def cancel() -> None:
                target, held[0] = held[0], None
                if target is not None:
                    target.close()

            return cancel

        return _SignalCore.create(run)

    @staticmethod
    def from_async_iterable(items: "AsyncIterable[U]", loop: Optional[asyncio.AbstractEventLoop] = None) -> "Signal[U]":
        """The items of `items` (an async iterable: an async generator, ...),
        then the completion; an exception it raises as the error. Each
        subscription iterates it anew (calls its `__aiter__`: an async
        generator, which can be iterated once, gives its items to the first
        subscription only, and completes the later ones at once, even when
        the first was disposed before its end) in a task of `loop` (default: the
        loop running where the subscription starts; none: the stream fails
        with RuntimeError), delivering on the loop's thread; disposing
        cancels the task. TypeError unless an async iterable."""
        if not hasattr(type(items), "__aiter__"):
            raise TypeError(f"signalkit: from_async_iterable: {type(items).__name__} is not an async iterable")
        if loop is not None and not isinstance(loop, asyncio.AbstractEventLoop):
            raise TypeError(f"signalkit: from_async_iterable: {type(loop).__name__} is not an asyncio event loop")

        def run(subscriber: Subscriber[U]) -> Callable[[], None]:
            target = loop if loop is not None else asyncio.get_running_loop()

            async def pump() -> None:
                try:
                    async for item in items:
                        subscriber.on_next(item)
                except asyncio.CancelledError:
                    raise
                except BaseException as error:
                    subscriber.on_error(error)
                    return
                subscriber.on_completed()

            running: Optional[asyncio.AbstractEventLoop]
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is target:
                task: Any = target.create_task(pump())
            else:
                task = asyncio.run_coroutine_threadsafe(pump(), target)

            def cancel() -> None:
                if not target.is_closed():
                    target.call_soon_threadsafe(task.cancel)

            return cancel

        return _SignalCore.create(run)

    def __await__(self) -> Generator[Any, None, T_co]:
        """`await signal`: its first value, delivered on the running loop
        (the subscription is disposed then). LookupError if it completes
        without a value; its error is raised. So `await s.first()` and
        `await s.last()`."""
        return first_value(self).__await__()

    def __aiter__(self) -> "SignalIterator[T_co]":
        """`async for value in signal`: its values, delivered on the running
        loop (buffered until read); the loop ends at its completion, raises
        its error, and disposes the subscription when left early. The
        SignalIterator it returns has aclose(), which disposes it at once."""
        return SignalIterator(self)

    def iterate(self, capacity: Optional[int] = None, overflow: Union[str, int, None] = None,
                on_drop: Optional[Callable[[Any, int], object]] = None) -> "SignalIterator[T_co]":
        """`async for value in signal.iterate(capacity=100,
        overflow="drop_oldest")`: as `async for value in signal`, with at
        most `capacity` values waiting for the loop body, `overflow`
        deciding about the next (as `on_backpressure_buffer` says; "block"
        is refused, ValueError: the values wait for a queue only the reader
        drains, for which the library cannot wait), each value dropped
        passed to on_drop(value, dropped). The "error" policy's SignalError
        names the library operator that holds the values,
        sk_signal_deliver_on_bounded, and the capacity.
        The values wait in the library and are pulled at the reader's pace:
        each read that finds none moved out yet takes one batch (at most
        `capacity`), so at most twice `capacity` values are held. Without
        `capacity`, the same as `async for value in signal`."""
        return SignalIterator(self, capacity, overflow, on_drop)
