"""the hot sources and holders of a
value: Pipe, Promise, ValuePromise. Above _signal: each gives a Signal."""

from __future__ import annotations

import concurrent.futures
import sys
import threading
import weakref
from ctypes import byref
from typing import TYPE_CHECKING, Any, Callable, Generic, Optional, TypeVar, Union

from . import _core, _speedups
from ._asyncio import SignalIterator
from ._core import (C, _LazyModule, Value, _after_call, _check, _forked_error, _interrupts, _put_object, _state,
                    _object_out)
from ._handle import _call_with, _cancel_jobs, _draining, _Handle, _thread_trampoline, _Trampoline
from ._queue import _bounded_policy, _drop_arguments
from ._signal import Signal
from ._signal_core import _new_signal, _signal_arg
from ._subscription import _put_by_reference

if TYPE_CHECKING:
    import asyncio
else:  # imported when first used (_core._LazyModule)
    asyncio = _LazyModule("asyncio", globals())

T = TypeVar("T")

_pipe_put = C.pipe_put
# A value of the library's own kinds goes in through the extension (the GIL
# kept: the callbacks the put runs on this thread cost no GIL switch);
# NotImplemented for any other object, carried by reference here.
_fast_pipe_put = _speedups.pipe_put
_nowait_begin = _speedups.nowait_begin
_nowait_end = _speedups.nowait_end


def _room_future(room: int) -> "concurrent.futures.Future[None]":
    """A future done once the room signal at `room` (+1, taken over: what
    sk_nowait_end gave) completes: once every place its scope's puts found
    full has room again. The completion runs on the library's room queue."""
    future: "concurrent.futures.Future[None]" = concurrent.futures.Future()
    future.set_running_or_notify_cancel()
    signal: Signal[Any] = _core._signal_type(room)
    subscription = signal.subscribe(None, None, lambda: future.set_result(None))
    signal.close()
    # Closed once done: here when the room was there already, else by the
    # completion's thread.
    future.add_done_callback(lambda _: subscription.close())
    return future



class _RunningLoop(threading.local):
    """The loop this thread last found running (a weak reference)."""

    loop: "Optional[weakref.ReferenceType[Any]]" = None


_running_loop = _RunningLoop()


def _require_running_loop() -> None:
    """asyncio.get_running_loop()'s check (RuntimeError outside a running
    loop) without its system call per call: CPython's asks getpid() each
    time (to tell a forked child), which was most of a put_async's cost
    where nothing waits. The loop found is remembered per thread; while an
    asyncio loop runs, its _thread_id is the thread running it, so a
    remembered loop still running on this thread needs no new look (a
    forked child never gets here: put_async refuses it first). Other loops
    (without _thread_id) are looked up each time."""
    remembered = _running_loop.loop
    loop = remembered() if remembered is not None else None
    if loop is not None and getattr(loop, "_thread_id", None) == threading.get_ident():
        return
    _running_loop.loop = weakref.ref(asyncio.get_running_loop())

class Pipe(Generic[T], _Handle):
    """A hot source: put(value) reaches the current subscribers of
    signal(), on the putting thread. With replay=True a new subscriber
    first receives the latest value put. A handle (a reference to a library
    object): copy.copy and copy.deepcopy return it itself; pickling raises
    TypeError."""
    _release = staticmethod(C.pipe_release)
    _room: "Optional[concurrent.futures.Future[None]]" = None  # the room put_async's last put awaits
    # The line of put_async calls that wait their turn: the last one's
    # future, done once it has made its put (or given up); each waits for
    # the one before it, then for the room (put_async).
    _line: "Optional[concurrent.futures.Future[None]]" = None

    def __init__(self, replay: bool = False, capacity: Optional[int] = None, overflow: Union[str, int, None] = None,
                 on_drop: Optional[Callable[[Any, int], object]] = None) -> None:
        """A new pipe (sk_pipe_create); `replay`: see the class.

        With `capacity` (and `overflow`, required then), the values a
        callback of this pipe puts into it, on its delivering thread, wait
        at most `capacity` at a time (sk_pipe_create_bounded): such a value
        waits until the current delivery is over, so that every subscriber
        gets the values in order, and a callback that puts many at once
        would otherwise grow that queue without bound before any operator
        sees them. `overflow` and `on_drop` as Signal.on_backpressure_buffer's;
        "error" and "block" (which can never wait there: the producer is the
        delivering thread) fail the pipe after the values waiting, with a
        SignalError naming sk_pipe_create_bounded and the capacity. Values
        put from other threads, or outside a delivery, never wait there."""
        pointer = _object_out()
        if capacity is None:
            if overflow is not None or on_drop is not None:
                raise TypeError("signalkit: Pipe: overflow and on_drop need a capacity")
            _check(C.pipe_create(byref(pointer), replay))
        else:
            size, policy = _bounded_policy("Pipe", capacity, overflow, on_drop)
            _check(C.pipe_create_bounded(byref(pointer), replay, size, policy, *_drop_arguments(on_drop, policy)))
        super().__init__(pointer.value)

    def put(self, value: T) -> None:
        """Delivers `value` to the current subscribers, on this thread
        (their callbacks run before put returns)."""
        # The extension's put (_speedups_src/pipe.c, pipe_method_put,
        # installed below as Pipe.put) does the common case without this
        # frame: the outermost put of a value of the library's kinds. This
        # is the rest.
        pointer = self._enter()  # a call in flight until the put returned: see _Handle
        try:
            local = _thread_trampoline()
            if local.active:  # inside a call that drains already (a callback's put)
                status = _fast_pipe_put(pointer, value)
                if status is NotImplemented:
                    status = _put_by_reference(_pipe_put, pointer, value)
                _put_outcome(status)
                return
            local.active = True  # the outermost put of this thread: _draining, inline
            try:
                status = _fast_pipe_put(pointer, value)
                if status is NotImplemented:
                    status = _put_by_reference(_pipe_put, pointer, value)
            except BaseException:
                local.active = False
                _cancel_jobs(local)
                raise
            _finish_put(local, status)
        finally:
            self._exit()

    async def put_async(self, value: T) -> None:
        """`await pipe.put_async(value)`: put(value) made on this thread
        without ever waiting for room (sk_nowait_begin): asynchronous
        backpressure for an event loop. Where put() would wait for room in
        a bounded consumer with the block policy (deliver_on(queue,
        capacity=..., overflow="block") and the other bounded places), this
        put leaves the value there beyond the capacity, and the await ends
        once the place has room again, the loop going on meanwhile
        (asyncio.Queue.put's idiom, the value in first): each place holds
        at most its capacity plus one value per producer putting this way.
        Where nothing would wait, it costs a put() and returns at once.

        The puts of one pipe's put_async calls are made one at a time: a
        call waits until the room an earlier one awaits is there, then
        puts, so a producer that awaits each put keeps its order, and so do
        the calls of one loop. The callbacks the put runs before a
        deliver_on (the subscribers of signal(), its stages) run on this
        thread, as put()'s. put()'s exceptions are raised here (ValueError
        once the pipe is closed); cancelling the await before the put was
        made (while an earlier call's room is awaited) leaves the value
        out; after, the value is in."""
        if _state.forked:  # first: _require_running_loop trusts a loop it remembers
            raise _forked_error()
        _require_running_loop()  # RuntimeError outside a running loop, as asyncio's own awaitables
        self.pointer  # closed: ValueError now
        line, earlier = self._line, self._room
        if (line is None or line.done()) and (earlier is None or earlier.done()):
            # Nothing to wait for, nobody in line: the put at once (no await
            # between the test and the put, so no other call of this loop
            # comes between).
            room = self._put_async_now(value)
            if room is not None:
                await asyncio.wrap_future(room)
            return
        # In line: after the call before this one has put, then once the
        # room is there. (Each woken call looked only at the room: a call
        # woken late from an older room found a newer room there already
        # and put before the calls waiting for that room.)
        mine: "concurrent.futures.Future[None]" = concurrent.futures.Future()
        mine.set_running_or_notify_cancel()
        previous, self._line = self._line, mine
        turn = False
        try:
            if previous is not None and not previous.done():
                await asyncio.wrap_future(previous)
            turn = True
            while True:
                earlier = self._room
                if earlier is None or earlier.done():
                    break
                await asyncio.wrap_future(earlier)
            room = self._put_async_now(value, mine)
            if room is not None:
                await asyncio.wrap_future(room)
        finally:
            if not mine.done():
                if turn or previous is None:
                    mine.set_result(None)
                else:
                    # Given up before its turn: the next call's turn comes
                    # after the earlier calls', still.
                    def pass_on(_: object) -> None:
                        if not mine.done():
                            mine.set_result(None)

                    previous.add_done_callback(pass_on)

    def _put_async_now(self, value: T,
                       turn: "Optional[concurrent.futures.Future[None]]" = None) -> "Optional[concurrent.futures.Future[None]]":
        """put_async's put (put() in a scope that never waits); `turn`,
        the caller's place in line, is given up once the put is made (the
        next call then waits for the room this one awaits). Returns the
        room to await, or None: a function, not a coroutine, so that a put
        with room costs no second coroutine."""
        future = None
        _nowait_begin()
        try:
            self.put(value)
        finally:
            room = _nowait_end()
            if room is not None:
                future = self._room = _room_future(room)
            if turn is not None:
                turn.set_result(None)
        return future

    def signal(self) -> Signal[T]:
        """The signal of the values put from now on (and, once the pipe
        ended, of its end: complete(), fail())."""
        return _new_signal(C.pipe_signal, self)

    def __aiter__(self) -> "SignalIterator[T]":
        """`async for value in pipe`: its signal()'s values from now on,
        delivered on the running loop; the loop ends at complete() and
        raises fail()'s error (see Signal.__aiter__)."""
        return SignalIterator(self.signal())

    def complete(self) -> None:
        """Ends the pipe: its subscribers receive the completion, and so
        does every later subscriber of signal() (after the replayed value,
        with replay=True); an `async for` over signal() ends. Later puts,
        complete() and fail() do nothing (sk_pipe_put_completion). Not
        close(), which only drops this handle and ends nothing."""
        pointer = self._enter()  # a call in flight until the put returned: see _Handle
        try:
            status = _draining(C.pipe_put_completion, pointer)
        finally:
            self._exit()
        _after_call()
        _check(status)

    def fail(self, error: BaseException) -> None:
        """Ends the pipe with `error` (an exception, carried by reference),
        as complete() does with the completion: an `async for` over
        signal() raises it (sk_pipe_put_error). TypeError unless an
        exception instance."""
        if not isinstance(error, BaseException):
            raise TypeError(f"signalkit: Pipe.fail: the error is {type(error).__name__}, not an exception instance")
        _check(self._put_value(C.pipe_put_error, error))

    def _drop(self) -> None:
        # The extension's puts (Pipe.put's common case) do not count
        # themselves in _calls (its cost per put): the ones in flight on
        # this pipe are found here and join it, once the pointer is cleared
        # (no put can start after that), before the release check.
        self._pointer = None
        if self._calls is not None:  # else __init__ never ran
            if sys.is_finalizing():
                # The interpreter's end: a daemon thread stopped as it took
                # the GIL back inside a put (which lets it go while a block
                # signal exists) left that put's record on its stack, which
                # claim_puts must not read. The pipe is left to the
                # process's end, as the releases are then (_core).
                return
            _speedups.claim_puts(self, self._calls)
        super()._drop()


def _finish_put(local: _Trampoline, status: int) -> None:
    """The end of the outermost put of a thread (`local.active` set): runs
    the emissions it scheduled, then raises the interrupt a callback met and
    the put's error status. The extension's Pipe.put calls it when its put
    left one of these."""
    try:
        jobs = local.jobs
        while jobs:
            jobs.popleft()()
    finally:
        local.active = False
        if local.jobs:
            _cancel_jobs(local)
    _put_outcome(status)


def _put_outcome(status: int) -> None:
    """After a put: raises the interrupt a callback met, then the put's
    error status."""
    if _interrupts.local.pending is not None:
        _after_call()
    if status:
        _check(status)


# Pipe.put through the extension (no Python frame per put); the method
# above stays its fallback, its signature and its documentation.
setattr(Pipe, "put", _speedups.pipe_put_method(Pipe, Pipe.put, _finish_put, _cancel_jobs))


class Promise(Generic[T], _Handle):
    """Holds the latest value of the signal set into it (sk_promise):
    get() is a signal of that value and of each later one. A handle (a
    reference to a library object): copy.copy and copy.deepcopy return it
    itself; pickling raises TypeError."""
    _release = staticmethod(C.promise_release)

    def __init__(self) -> None:
        """A new promise with no value yet (sk_promise_create)."""
        pointer = _object_out()
        _check(C.promise_create(byref(pointer)))
        super().__init__(pointer.value)

    def set(self, signal: Signal[T]) -> None:
        """Follows `signal` from now on (the previous one is disposed);
        its error or completion ends nothing: the promise keeps its value."""
        _check(_call_with(_draining, C.promise_set, self, _signal_arg(signal, "Promise.set")))
        _after_call()

    def get(self) -> Signal[T]:
        """The current value (once there is one), then each new one."""
        return _new_signal(C.promise_get, self)


class ValuePromise(Generic[T], _Handle):
    """Holds a value set directly (sk_value_promise): get() is a signal of
    the current value and of each later one; with ignore_repeated a value
    equal to the current one is not delivered again. A handle (a reference
    to a library object): copy.copy and copy.deepcopy return it itself;
    pickling raises TypeError."""
    _release = staticmethod(C.value_promise_release)

    def __init__(self, initial: T, ignore_repeated: bool = False) -> None:
        """A new promise holding `initial` (sk_value_promise_create)."""
        out = Value()
        _put_object(initial, out)
        pointer = _object_out()
        try:
            _check(C.value_promise_create(byref(pointer), byref(out), ignore_repeated))
        finally:
            C.value_release(byref(out))
        super().__init__(pointer.value)

    def set(self, value: T) -> None:
        """Sets the value: the subscribers of get() receive it on this thread."""
        _check(self._put_value(C.value_promise_set, value))

    def get(self) -> Signal[T]:
        """The current value, then each new one."""
        return _new_signal(C.value_promise_get, self)


_interrupts.CRITICAL_CODES.add(Pipe._drop.__code__)
