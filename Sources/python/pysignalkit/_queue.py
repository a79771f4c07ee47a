"""Queue (serial, concurrent, host) and
the argument checks of the operators that take one."""

from __future__ import annotations

import operator
import sys
import threading
from ctypes import byref, c_int, c_size_t
from typing import Any, Callable, Optional, Tuple

from . import _core, _speedups
from ._callbacks import _c_drop_callback, _Callback, _callback_raised
from ._core import (C, _after_call, _check, _drop_fn, _Failures, _interrupts, _release_ctx, _release_fn, _report,
                    _retain_callbacks, _state, _work_fn, _object_out)
from ._handle import _call_with, _callable_arg, _count_arg, _draining, _Handle

def _work_run(ctx: int) -> None:
    _sk_user = False
    callback = _core._keep.get(ctx)
    if callback is None or _state.closing or sys.is_finalizing():
        return
    try:
        _sk_user = True
        _draining(callback.fn)
        _sk_user = False
    except BaseException as exc:
        _sk_user = False
        if not _callback_raised(callback, exc, "work"):
            _report(exc, "work")


_c_work_run = _work_fn(_speedups.operator("run", _work_run))
_interrupts.THUNK_CODES.add(_work_run.__code__)


class Queue(_Handle):
    """Where work and deliveries run: Queue.serial() (in order, on the
    library's threads), Queue.concurrent() (the library's thread pool, or
    with max_workers=n a bounded pool of its own),
    Queue.host() (runs only when drained: drain() from an event loop,
    which watches fileno(); see pysignalkit.asyncio_queue). A handle (a
    reference to a library object): copy.copy and copy.deepcopy return it
    itself; pickling raises TypeError."""
    _release = staticmethod(C.queue_release)
    # The loop of an asyncio loop's queue (asyncio_queue, _asyncio._LoopQueue),
    # held weakly; None for every other queue. A signal made on such a queue
    # fails its starts once that loop closed, and those of a to_list() on
    # the loop's thread (_start_refusal; _signal_core._on_open_loop).
    _loop: Optional[Callable[[], Any]] = None

    def _closed_loop(self) -> bool:
        """Whether this is an asyncio loop's queue whose loop has closed (or
        is gone): nothing drains it any more. False for every other queue."""
        if self._loop is None:
            return False
        loop = self._loop()
        return loop is None or bool(loop.is_closed())

    def _start_refusal(self) -> Optional[RuntimeError]:
        """Why a signal delivering on this queue must not start now, or
        None: its asyncio loop has closed (nothing would drain the queue),
        or a to_list() on the thread that runs the loop is starting it
        (its wait would keep the loop from running the deliveries)."""
        if self._loop is None:
            return None
        if self._closed_loop():
            return _loop_closed_error()
        waiting = _blocking_wait.loop
        if waiting is not None and self._loop() is waiting:
            return RuntimeError("signalkit: to_list() on the thread of the running asyncio loop this signal "
                                "delivers on would wait for ever (the loop runs the deliveries only once the call "
                                "returns): in a coroutine, use `async for value in signal` or `await signal`")
        return None

    @classmethod
    def host(cls, name: str = "python") -> "Queue":
        """A host-drained queue: its work runs on the thread that calls drain()."""
        pointer = _object_out()
        _check(C.queue_create_host(byref(pointer), _name_arg(name, "Queue.host")))
        return cls(pointer.value)

    @classmethod
    def serial(cls, name: str = "python") -> "Queue":
        """A serial queue whose work runs in order, one task at a time, on
        library-managed threads.

        It has no thread of its own: it runs on the worker threads every
        serial and concurrent queue shares, whose limits are the C library's
        ("Refused resources" in signalkit.h's conventions; docs/python.md,
        "Threads and asyncio"). Run work that blocks for long on threads of
        your own, or on a host queue drained there."""
        pointer = _object_out()
        _check(C.queue_create(byref(pointer), _name_arg(name, "Queue.serial")))
        return cls(pointer.value)

    @classmethod
    def concurrent(cls, background: bool = False, *, max_workers: Optional[int] = None,
                   name: str = "python") -> "Queue":
        """A concurrent queue: work runs on several threads at once, in no
        promised order.

        Without `max_workers`: the library's shared concurrent queue (a
        thread pool; `background`: the low-priority one). Its first work in
        a process raises SignalKitError (SK_ERR_RESOURCE) when the system
        refuses a descriptor (docs/python.md, "Threads and asyncio").

        With `max_workers=n` (1 to MAX_WORKERS): a new queue with n threads
        of its own, started here, never more than n jobs at once (RxPY's
        ThreadPoolScheduler(max_workers=n)); sk_queue_create_concurrent.
        Closing it lets pending work finish. TypeError unless max_workers
        is an int or `background` is combined with it; ValueError outside
        the range or for a name with a NUL character; SignalKitError
        (SK_ERR_RESOURCE) when the system refuses a thread."""
        if max_workers is not None:
            if background:
                raise TypeError("signalkit: Queue.concurrent: background and max_workers cannot be combined "
                                "(a bounded queue's threads have the default priority)")
            return cls(_core._concurrent_queue_pointer(max_workers, name, "signalkit: Queue.concurrent"))
        pointer = _object_out()
        _check((C.queue_concurrent_background if background else C.queue_concurrent_default)(byref(pointer)))
        return cls(pointer.value)

    def fileno(self) -> int:
        """A host queue's descriptor: readable while work is pending.
        The queue owns it: do not close it (nor hand it to something that
        will, such as os.fdopen() or a file object); poll it, or give it to
        loop.add_reader() or selectors."""
        fd = c_int()
        _check(self._call(C.queue_host_fd, byref(fd)))
        return fd.value

    def drain(self, max_tasks: int = 0) -> int:
        """Runs a host queue's pending work on the calling thread (at most
        max_tasks; 0: all); returns how many ran. TypeError unless
        max_tasks is an int, ValueError when negative, OverflowError at
        2**64 or above (never wrapped).

        A close() during the drain (by one of its jobs or another thread)
        takes effect when the drain returns, as for any call in flight
        (docs/python.md, "Threads and asyncio"): the drain runs all the jobs
        it was to run, where C's stops after the running one."""
        max_tasks = _count_arg(max_tasks, "Queue.drain", "max_tasks")
        ran = c_size_t()
        status = _call_with(_draining, C.queue_host_drain, self, max_tasks, byref(ran))
        _after_call()
        _check(status)
        return ran.value

    def run(self, fn: Callable[[], object]) -> None:
        """Runs fn() on the queue, later: never inside this call, also when
        it is made from a job of the same queue (a job that runs itself
        again runs once this one has returned, in constant stack; on a host
        queue, at a later drain(): the one that runs once fileno() is readable
        again, not necessarily the next call). An exception goes to
        callback_error_hook (where "work"). TypeError at the call unless
        `fn` is callable.

        From elsewhere this is sk_queue_async; from a job of the same queue
        (where sk_queue_async, as SwiftSignalKit's Queue.async, would run
        fn() inline) it is sk_queue_after with no delay, which enqueues it:
        then, as for the process's first timer, the first such call of a
        process raises SignalKitError (SK_ERR_RESOURCE) when no descriptor
        is left for libdispatch's timers (the Python guide, "Threads and asyncio")."""
        _callable_arg(fn, "Queue.run")
        pointer = self._enter()  # closed: ValueError before retaining anything
        try:
            ctx = _retain_callbacks(_Callback(fn, _Failures()))
            if C.queue_is_current(pointer):
                status = C.queue_after(pointer, 0.0, _c_work_run, ctx, _release_ctx)
            else:
                status = C.queue_async(pointer, _c_work_run, ctx, _release_ctx)
        finally:
            self._exit()
        _check(status)

    def is_current(self) -> bool:
        """Whether the calling thread is running this queue's work.

        Only the innermost queue counts: inside a sync onto another queue
        made from this queue's work, the other queue is current, not this
        one (but a host queue stays current on the thread draining it,
        sk_queue_is_current). A concurrent queue (Queue.concurrent(), with max_workers or
        not) is never current, inside its own work too
        (sk_queue_is_current).
        """
        return bool(self._call(C.queue_is_current))


class _BlockingWait(threading.local):
    """The asyncio loop running on this thread while a to_list() of this
    thread subscribes (None: none), read by Queue._start_refusal."""
    loop: Optional[Any] = None


_blocking_wait = _BlockingWait()


def _running_loop() -> Optional[Any]:
    """The asyncio loop running on this thread, if any (asyncio looked up
    only when the program imported it)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return None
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _loop_closed_error() -> RuntimeError:
    """The error of a start on the queue of an asyncio loop that closed."""
    return RuntimeError("signalkit: this signal delivers on the asyncio loop it was made in, which has closed: "
                        "make it in the loop that runs it, or pass queue=")


def _queue_arg(queue: object, where: str) -> Queue:
    """`queue`, a Queue (TypeError otherwise)."""
    if not isinstance(queue, Queue):
        raise TypeError(f"signalkit: {where}: the queue is {type(queue).__name__}, not a Queue")
    return queue


def _name_arg(name: object, where: str) -> bytes:
    """A queue's name, a str without NUL (TypeError, ValueError), encoded."""
    if not isinstance(name, str):
        raise TypeError(f"signalkit: {where}: the name is {type(name).__name__}, not a str")
    if "\0" in name:
        raise ValueError(f"signalkit: {where}: the name holds a NUL character")
    return name.encode()


def _queue(queue: Optional[Queue], where: str) -> Queue:
    """`queue` (TypeError unless a Queue), or, for None, a new handle of
    the library's concurrent queue: the time operators' default. The
    operator's signal (or a timer's create function) holds what it needs of
    it; the package keeps none, so that live_objects() returns to 0 once
    everything is released. The caller holds the handle until the library
    call that takes the queue has returned."""
    if queue is not None:
        return _queue_arg(queue, where)
    return Queue.concurrent()


# The capacity and policy of a place where values wait (deliver_on,
# on_backpressure_buffer, zip, merge_map, queue, buffer_with_time, async for).

# NULL function pointers: no drop callback, no release.
_NO_DROP = _drop_fn()
_NO_RELEASE = _release_fn()
_OVERFLOW_NAMES = {"drop_newest": 0, "drop_oldest": 1, "latest": 2, "error": 3, "block": 4}
_BLOCK = _OVERFLOW_NAMES["block"]
# The release of a block signal's context: counts it out of the extension's
# block signals (while any exists, the extension's puts let the GIL go),
# then releases its callbacks, if any (_speedups_src/puts.c, block_release).
_block_release = _release_fn(_speedups.BLOCK_RELEASE)


def _bounded_policy(where: str, capacity: Any, overflow: Any,
                    on_drop: Optional[Callable[[Any, int], object]]) -> Tuple[int, int]:
    """The capacity and policy of a bounded buffer or place, checked (every
    operator taking `capacity=`, `overflow=` and `on_drop=`): ValueError for
    a capacity of 0 or an unknown policy, TypeError for a missing policy or
    an on_drop that is not callable; the capacity is checked first."""
    size = _count_arg(capacity, where, "capacity")
    if size == 0:
        raise ValueError(f"signalkit: {where}: capacity is 0 (a bounded buffer holds at least one value)")
    policy = _overflow_arg(overflow, where)
    if on_drop is not None and not callable(on_drop):
        raise TypeError(f"signalkit: {where}: on_drop is {type(on_drop).__name__}, not callable")
    return size, policy


def _place_release(policy: int, release: Any) -> Any:
    """The release to hand the library with a bounded operator of `policy`
    whose context's own release is `release` (_NO_RELEASE for none):
    `release` itself, but for "block", where the operator is counted here
    among the block signals, which its release (_block_release) counts
    out. Call it in the C call's own argument list: the library runs the
    release once, also when the call fails.

    Why: a producer waiting for room in a block signal must not hold the
    GIL, which the consumer's Python callback needs to make that room; the
    extension's puts let it go while any block signal exists, and keep it
    (the cheaper path) while none does. The ctypes calls let it go always."""
    if policy != _BLOCK:
        return release
    _speedups.block_place()
    return _block_release


def _drop_arguments(on_drop: Optional[Callable[[Any, int], object]], policy: int) -> Tuple[Any, Any, Any]:
    """The C drop callback, its context (retained: the C function releases
    it, also when it fails) and its release, for `on_drop` and `policy`
    (see _place_release)."""
    if on_drop is None:
        return _NO_DROP, None, _place_release(policy, _NO_RELEASE)
    ctx = _retain_callbacks(_Callback(on_drop, _Failures()))
    return _c_drop_callback, ctx, _place_release(policy, _release_ctx)


def _overflow_arg(overflow: Any, where: str) -> int:
    """A bounded buffer's policy: one of _OVERFLOW_NAMES or an OVERFLOW_*
    constant (ValueError otherwise; TypeError for another type)."""
    if isinstance(overflow, str):
        if overflow not in _OVERFLOW_NAMES:
            raise ValueError(f"signalkit: {where}: overflow {overflow!r} is not one of "
                             + ", ".join(repr(name) for name in _OVERFLOW_NAMES))
        return _OVERFLOW_NAMES[overflow]
    if overflow is None:
        raise TypeError(f"signalkit: {where}: a capacity needs an overflow policy ("
                        + ", ".join(repr(name) for name in _OVERFLOW_NAMES) + ")")
    if isinstance(overflow, bool):
        raise TypeError(f"signalkit: {where}: overflow is {type(overflow).__name__}, not a policy name or OVERFLOW_*")
    try:
        number = operator.index(overflow)
    except TypeError:
        raise TypeError(f"signalkit: {where}: overflow is {type(overflow).__name__}, not a policy name or "
                        "OVERFLOW_*") from None
    if number not in _OVERFLOW_NAMES.values():
        raise ValueError(f"signalkit: {where}: overflow {number} is no OVERFLOW_* constant (0 to 4)")
    return number
