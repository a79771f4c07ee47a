"""Handles over the C library: signals and their operators, subscriptions,
pipes, promises, queues, and the native (signature-string) forms with their
trampolines. See the package docstring for the rules."""

from __future__ import annotations

import collections
import ctypes
import functools
import inspect
import math
import operator
import sys
import threading
import time
import weakref
from ctypes import (CFUNCTYPE, byref, c_bool, c_char_p, c_double, c_float, c_int, c_int8, c_int16, c_int32, c_int64,
                    c_size_t, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)
from typing import (TYPE_CHECKING, Any, Callable, Deque, Dict, Generator, Generic, Iterable, List, NoReturn,
                    Optional, SupportsIndex, Tuple, TypeVar, Union, overload)

from . import _core, _speedups
from ._core import (KIND_DOUBLE, C, TAKE_COMPLETE, TAKE_PASS, SignalError, Value, _after_call, _callback_failed,
                    _check, _completed_fn, _deferred_fn, _detach_traceback, _fail_interrupted, _Failures,
                    _FfiObserver, _generator_fn, _interrupts, _next_fn, _object_of, _Observer, _put_object, _Recorder,
                    _reduce_fn, _register_subscription, _release_ctx, _release_ctx_function, _release_fn, _report,
                    _retain_callbacks, _set_owner, _signal_fn, _state, _take_until_fn, _trim_traceback, _ValueP,
                    _work_fn, from_value, to_value)

if TYPE_CHECKING:  # _asyncio imports this module
    from ._asyncio import SignalIterator

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)

# --------------------------------------------------------------------------
# Handles
# --------------------------------------------------------------------------


class _Uncopyable:
    """An object holding references to library objects: copy.copy and
    copy.deepcopy return the object itself (a copy taking no reference of
    its own would release the library's reference twice), and pickling
    raises TypeError (an address is valid only in the process that holds
    it)."""

    def __copy__(self: Any) -> Any:
        """The object itself: it is a reference to a library object."""
        return self

    def __deepcopy__(self: Any, memo: Dict[int, Any]) -> Any:
        """The object itself: it is a reference to a library object."""
        return self

    def __reduce_ex__(self, protocol: SupportsIndex) -> NoReturn:
        """Raises TypeError: a library handle cannot be pickled."""
        raise TypeError(f"cannot pickle {type(self).__name__!r} objects: a library handle is valid only in its "
                        "process")


class _Handle(_Uncopyable):
    """A reference to a library object, dropped by close(), at the end of a
    `with` block, or when garbage collected. Usable from any thread at
    once, and closable at any time: a close() while other threads are
    inside calls on the handle releases the library object when the last
    of those calls returns (each runs to its normal end); a call that
    starts after close() raises ValueError. With no call in flight, close()
    releases it at once. copy.copy and copy.deepcopy return the handle
    itself; pickling raises TypeError."""
    _release: Any = None  # the C release function, set by subclasses
    _pointer: Optional[int] = None  # also when a subclass's __init__ failed before setting it
    _calls: Optional[List[None]] = None  # None only when a subclass's __init__ failed before this one ran

    def __init__(self, pointer: Optional[int]) -> None:
        """A handle owning one reference to the library object at `pointer`."""
        # The calls in flight (see _enter), and the reference to release,
        # deleted (atomic under the GIL) by whoever releases it.
        self._calls = []
        if pointer:
            self._owned = pointer
        self._pointer = pointer
        _state.used = True  # a fork's child refuses the library from now on (_core._after_fork)

    @property
    def pointer(self) -> int:
        """The C handle (an address); ValueError once closed. Not counted
        as a call in flight: a C call on it goes through _enter/_exit."""
        if not self._pointer:
            raise ValueError(f"{type(self).__name__} is closed")
        return self._pointer

    def _enter(self) -> int:
        """The pointer for one C call, counted in flight until the matching
        _exit() (always call it: try/finally); ValueError once closed.

        Why this is safe without a lock (CPython's GIL): a call appends to
        _calls, then reads _pointer; close() clears _pointer, then looks at
        _calls; whoever releases sees _pointer cleared first, then _calls
        empty. A call that read the pointer before close() cleared it had
        appended before that, so every release check made after the clear
        sees it until it pops. _calls changes only through list.append and
        list.pop, each atomic under the GIL: no lock. Which thread releases
        (close(), or the last call out) is decided by deleting the _owned
        attribute (atomic too): exactly one succeeds."""
        calls = self._calls
        assert calls is not None  # made by __init__
        calls.append(None)
        pointer = self._pointer
        if not pointer:
            self._exit()
            raise ValueError(f"{type(self).__name__} is closed")
        return pointer

    def _exit(self) -> None:
        """Ends a call counted by _enter(); the last one out after a close()
        releases the library object."""
        calls = self._calls
        assert calls is not None  # made by _enter
        calls.pop()
        if not self._pointer and not calls:  # in this order: see _enter
            self._free()

    def _free(self) -> None:
        pointer = getattr(self, "_owned", None)  # None: released already, or __init__ never ran
        if not pointer:
            return
        try:
            del self._owned  # one attribute deletion, atomic under the GIL: one thread succeeds
        except AttributeError:  # another thread released it since
            return
        type(self)._release(pointer)

    def _drop(self) -> None:
        self._pointer = None
        if not self._calls:  # in this order: see _enter
            self._free()

    def _call(self, function: Any, *args: Any) -> Any:
        """function(pointer, *args), counted in flight (see _enter)."""
        pointer = self._enter()
        try:
            return function(pointer, *args)
        finally:
            self._exit()

    def close(self) -> None:
        """Drops the reference this object holds (idempotent)."""
        self._drop()
        _after_call()

    def __enter__(self: Any) -> Any:
        """The handle itself; the block's end closes it."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Closes the handle (close())."""
        self.close()

    def __del__(self) -> None:
        try:
            self._drop()  # an interrupt met here waits for the next call
        except Exception:  # interpreter shutdown: the library may be gone
            pass


def _enter_args(args: Tuple[Any, ...], entered: List[_Handle]) -> List[Any]:
    """`args` for a C call: each handle as its pointer, counted as a call in
    flight on it (_Handle._enter) and appended to `entered` (so that the
    caller exits exactly those entered, also when a later one raises
    ValueError, closed); a list of handles as a C array of their pointers;
    anything else as it is. The one loop behind _InFlight and _call_with."""
    values: List[Any] = []
    for arg in args:
        if isinstance(arg, _Handle):
            values.append(arg._enter())
            entered.append(arg)
        elif isinstance(arg, list):  # handles passed as a C array
            pointers = []
            for handle in arg:
                pointers.append(handle._enter())
                entered.append(handle)
            values.append((c_void_p * max(len(pointers), 1))(*pointers))
        else:
            values.append(arg)
    return values


def _exit_all(entered: List[_Handle]) -> None:
    """Ends the calls _enter_args counted."""
    for handle in entered:
        handle._exit()


class _InFlight:
    """A `with` block counted as a call in flight on each handle among
    `args` (_Handle._enter): ValueError at its start once one is closed,
    and a close() meanwhile releases when the block ends. For a call that
    checks the handle before retaining callbacks for the library, so that
    a close between the check and the C call cannot leave them retained.
    The block receives `args` as the C call takes them (see _enter_args)."""
    __slots__ = ("args", "entered")

    def __init__(self, *args: Any) -> None:
        self.args = args
        self.entered: List[_Handle] = []

    def __enter__(self) -> Tuple[Any, ...]:
        """`args` with the handles' pointers (a handle closed meanwhile
        lets a new _enter raise: never enter again)."""
        try:
            return tuple(_enter_args(self.args, self.entered))
        except BaseException:
            _exit_all(self.entered)
            raise

    def __exit__(self, *exc: object) -> None:
        _exit_all(self.entered)


def _call_with(function: Any, *args: Any) -> Any:
    """function(*args), each handle among `args` passed as its pointer and
    counted as a call in flight on it until function returns (_enter_args,
    the loop _InFlight runs too, without a `with` block's cost on every
    operator made): a close() on another thread meanwhile waits for it to
    release."""
    entered: List[_Handle] = []
    try:
        return function(*_enter_args(args, entered))
    finally:
        _exit_all(entered)


class _Failing:
    """`exception`: the first exception raised by this object's callbacks."""
    _failures: Optional[_Failures] = None

    @property
    def exception(self) -> Optional[BaseException]:
        """The first exception raised by this object's Python callbacks
        (None while none was); see the package docstring."""
        return self._failures.exception if self._failures is not None else None


class Disposable(_Failing, _Handle):
    """A subscription: dispose() cancels it; a `with` block disposes it and
    releases the handle at its end; close() only releases the handle (the
    subscription goes on: after close(), dispose() raises ValueError, as
    every closed handle's use does). `exception` is the first exception
    raised by its callbacks. A handle (a reference to a library object):
    copy.copy and copy.deepcopy return it itself; pickling raises TypeError."""
    _release = staticmethod(C.disposable_release)
    # What stops the subscription's Python callbacks (a weak reference to an
    # object with end(): its _Sink, or the _Gate of a native subscribe);
    # None for a disposable that is no subscription of this package.
    _callbacks: Optional["weakref.ReferenceType[Any]"] = None

    def dispose(self) -> None:
        """Cancels the subscription: once dispose() has returned, none of
        its callbacks starts, on any thread; a callback already running on
        another thread may finish (idempotent; safe from any thread and
        from its own callbacks). The package's callbacks run under the GIL,
        and dispose() stops them under the GIL before it asks the library
        to dispose (the library alone promises only that none starts on the
        disposing thread). A native subscribe given ctypes functions (not
        Python callables) has the library's rule only. ValueError
        ("Disposable is closed") once close() released the handle: it can
        no longer reach the subscription."""
        pointer = self._enter()  # a call in flight until it returned: see _Handle
        try:
            callbacks = self._callbacks() if self._callbacks is not None else None
            if callbacks is not None:
                callbacks.end()  # under the GIL: no callback of this subscription starts from here on
            C.disposable_dispose(pointer)
        finally:
            self._exit()
        _after_call()

    def __enter__(self) -> "Disposable":
        """The subscription itself; the block's end disposes it and
        releases the handle."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Disposes the subscription (unless the handle was closed in the
        block) and releases the handle."""
        try:
            if self._pointer:
                self.dispose()
        finally:
            self.close()


# --------------------------------------------------------------------------
# The trampoline: synchronous sources run after the start that asked for them
# --------------------------------------------------------------------------

# Per thread: whether a package call that starts signals is running
# (`active`), and the synchronous emissions (from_iterable) waiting for it
# to return from the library (`jobs`, a deque). A source started under such
# a call returns its disposable first and emits afterwards, so that an
# operator downstream (take, take_until, a dispose from a callback) can stop
# it. `direct`: a subscription being started right on a from_iterable
# signal, whose emission then hands the values to the subscription's Python
# callback itself (no library operator between to see them). The
# extension's type (_speedups.c), so that Pipe.put reads and sets it from C.
_Trampoline = _speedups.Trampoline

# This thread's _Trampoline, made at its first use (kept in the thread
# state: one C call per use).
_thread_trampoline = _speedups.thread_trampoline


def _draining(function: Callable[..., Any], *args: Any) -> Any:
    """Calls function(*args) (a C call that may start signals), then runs
    the emissions it scheduled on this thread, in order."""
    local = _thread_trampoline()
    if local.active:
        return function(*args)
    local.active = True
    jobs = local.jobs
    try:
        result = function(*args)
        while jobs:
            jobs.popleft()()
        return result
    finally:
        local.active = False
        _cancel_jobs(local)


def _cancel_jobs(local: _Trampoline) -> None:
    """After an exception escaped a draining call: the emissions it left
    never run (each lets its subscriber go)."""
    jobs = local.jobs
    while jobs:
        job = jobs.popleft()
        cancel = getattr(job, "cancel", None)
        if cancel is not None:
            cancel()


# --------------------------------------------------------------------------
# The Pythonic callbacks: the extension's (_speedups.c) call, per value, the
# subscription's composed chain of stages (and on_next, or the put into the
# next subscriber); the other events go to the sink's methods. The sink is
# also in the registry (_core._keep), for the exit hook.
# --------------------------------------------------------------------------

_MAP, _FILTER, _TAP = 0, 1, 2


# Every int a stream carries fits int64, whether or not it crosses the
# library (the rule of _put_object): OverflowError otherwise.
_check_int64 = _speedups.check_int64


# A chain of Python stages composed into one function, so that an event
# enters Python once for the whole chain: the code of each shape (the kinds
# of its stages) is made once, and each use binds its functions.
_CHAIN_FILE = "<signalkit chain>"
_chain_makers: Dict[Tuple[int, ...], Callable[..., Callable[[Any], Any]]] = {}
# The stage on each line of each composed chain's code ("map", "filter",
# "tap"), so that an exception says which stage raised it (_stage_of).
_STAGE_NAMES = {_MAP: "map", _FILTER: "filter", _TAP: "tap"}
_chain_lines: Dict[Any, Dict[int, str]] = {}


Stages = Tuple[Tuple[int, Callable[[Any], Any]], ...]
ChainMaker = Callable[[Callable[[Any], Any], List[Any]], Callable[[Any], Any]]


def _chain_maker(stages: Stages) -> Optional[ChainMaker]:
    """What makes, for a tail and a list `live`, one function for `stages`
    then tail(value) while live[0] is not None (None for no stages): a
    filtered-out value stops there; a map's int result outside int64
    raises OverflowError (_speedups.check_int64). Made once per stage
    signal; each subscription binds its tail and its callback list."""
    if not stages:
        return None
    kinds = tuple(kind for kind, _ in stages)
    make = _chain_makers.get(kinds)
    if make is None:
        names = [f"f{i}" for i in range(len(kinds))]
        lines = [f"def make(check, {', '.join(names)}, tail, live):", "    def chain(v):"]
        stage_at: Dict[int, str] = {}  # line number (from 1) -> stage
        for name, kind in zip(names, kinds):
            first = len(lines) + 1
            if kind == _MAP:
                lines += [f"        v = {name}(v)", "        check(v)"]
            elif kind == _FILTER:
                lines += [f"        if not {name}(v):", "            return"]
            else:
                lines += [f"        {name}(v)"]
            stage_at.update((line, _STAGE_NAMES[kind]) for line in range(first, len(lines) + 1))
        # The tail only while the subscription lives (live[0], the handler
        # slot of its callback list, None once ended: Disposable.dispose): a
        # stage that let the GIL go may return after a dispose() returned,
        # and on_next must not start then.
        lines += ["        if live[0] is None:", "            return", "        tail(v)", "    return chain"]
        namespace: Dict[str, Any] = {}
        exec(compile("\n".join(lines), _CHAIN_FILE, "exec"), namespace)
        if len(_chain_makers) >= 256:  # shapes are few; never an unbounded cache
            _chain_makers.clear()
            _chain_lines.clear()
        make = _chain_makers[kinds] = namespace["make"]
        chain_code = next(c for c in make.__code__.co_consts if getattr(c, "co_name", None) == "chain")
        _chain_lines[chain_code] = stage_at
    maker: ChainMaker = functools.partial(make, _check_int64, *[fn for _, fn in stages])
    return maker


def _stage_of(exc: BaseException) -> Optional[str]:
    """The stage of a composed chain that `exc` escaped from ("map",
    "filter" or "tap": its function, or a map's result check), read from
    the line the chain's frame stopped on; None when it came from the
    chain's tail (on_next, a put) or from no chain."""
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == _CHAIN_FILE and code.co_name == "chain":
            return _chain_lines.get(code, {}).get(tb.tb_lineno)
        tb = tb.tb_next
    return None


def _mark_stage(exc: BaseException, stage: str) -> None:
    """Marks `exc`, which a stage raised and which goes on as the stream's
    error, with that stage: a subscriber with no on_error reports it to
    callback_error_hook under the stage's name (_Sink.error_at), not as
    "error"."""
    try:
        setattr(exc, "_signalkit_stage", stage)
    except BaseException:  # an exception type that takes no attribute: reported as "error"
        pass


def _ignore(value: object) -> None:
    """The tail of a chain whose subscription has no on_next."""


def _error_object(pointer: Any) -> BaseException:
    """What an error callback receives for an error value: the exception it
    carries, or a SignalError holding the value."""
    return _as_error(_object_of(pointer))


def _as_error(error: object) -> BaseException:
    """The exception an error value's object stands for: itself, or a
    SignalError holding it."""
    if isinstance(error, BaseException):
        return error
    return SignalError(error)


class _Sink:
    """A Python subscription's state: its callbacks, the fused stages in
    front of on_next (map / filter of the signal it subscribed to), its
    disposable once known, and whether it ended."""
    __slots__ = ("maker", "on_next", "on_error", "on_completed", "failures", "disposable", "ended", "ctx",
                 "cell", "stage_failures", "__weakref__")

    def __init__(self, maker: Optional[ChainMaker], on_next: Any, on_error: Any, on_completed: Any,
                 failures: _Recorder, stage_failures: Optional[_Recorder] = None) -> None:
        self.maker = maker
        # The stage signal's (map / filter / tap) recorder, when the stages
        # run in this subscription's chain: an exception of a stage is also
        # that signal's `exception`.
        self.stage_failures = stage_failures
        self.on_next = on_next
        self.on_error = on_error
        self.on_completed = on_completed
        self.failures = failures
        self.disposable: Optional[int] = None
        self.ended = False
        self.ctx = 0
        # The extension's callback list (_speedups.c): [handler, sink];
        # the handler None once ended.
        self.cell: Optional[List[Any]] = None

    def end(self) -> None:
        """No later event reaches the callbacks."""
        self.ended = True
        cell = self.cell
        if cell is not None:
            cell[0] = None

    def on_release(self) -> None:
        """The library let go of the callbacks: drop the disposable kept."""
        disposable, self.disposable = self.disposable, None
        if disposable:
            C.disposable_release(disposable)

    def fail(self, exc: BaseException, where: str) -> None:
        """An exception escaped on_next or a stage: the subscription ends
        (disposed), and on_error receives it (or callback_error_hook when
        there is none). A KeyboardInterrupt goes to the caller instead,
        when there is one (not on a library thread: _Interrupts.defer)."""
        self.end()
        if where == "next":  # from the chain: callback_error_hook names the stage that raised
            where = _stage_of(exc) or "next"
        if self.stage_failures is not None and where in _STAGE_NAMES.values():
            self.stage_failures.record(exc)
        _trim_traceback(exc)
        self.failures.record(exc)
        if self.disposable:
            C.disposable_dispose(self.disposable)
        try:
            if isinstance(exc, KeyboardInterrupt) and _interrupts.defer(exc):
                return
            if self.on_error is not None and where != "error":
                try:
                    self.on_error(exc)
                    return
                except BaseException as second:
                    _trim_traceback(second)
                    if not (isinstance(second, KeyboardInterrupt) and _interrupts.defer(second)):
                        _report(second, "error")
                    _detach_traceback(second, "error")
                    return
            _report(exc, where)
        finally:
            _detach_traceback(exc, where)

    def handler(self) -> Optional[Callable[[Any], Any]]:
        """What each value goes to: the stages composed with on_next (None:
        nothing to call)."""
        maker = self.maker
        live = self.cell if self.cell is not None else [_ignore]
        if self.on_next is not None:
            return maker(self.on_next, live) if maker is not None else self.on_next
        return maker(_ignore, live) if maker is not None else None

    def failed(self, exc: Optional[BaseException]) -> None:
        """on_fail: the chain or on_next raised `exc` (None: a KeyboardInterrupt
        is pending on this thread, and the delivery does not go on)."""
        if self.ended:
            return
        if exc is None:
            exc = _interrupts.local.pending or KeyboardInterrupt()
        self.fail(exc, "next")

    def error_at(self, address: int) -> None:
        """on_error: the error value at `address`, to on_error."""
        _sk_user = False
        if self.ended or _state.closing:
            return
        self.end()
        try:
            error = _error_object(ctypes.cast(address, _ValueP))
            if self.on_error is not None:
                _sk_user = True
                self.on_error(error)
                _sk_user = False
            elif not (isinstance(error, KeyboardInterrupt) and _interrupts.was_deferred(error)):
                # (a deferred one is raised in the emission's caller)
                _report(error, getattr(error, "_signalkit_stage", "error"))
        except BaseException as exc:
            _sk_user = False
            self.fail(exc, "error")


    def completed(self) -> None:
        """on_completed: the completion, to on_completed."""
        _sk_user = False
        if self.ended or _state.closing:
            return
        self.end()
        try:
            if self.on_completed is not None:
                _sk_user = True
                self.on_completed()
                _sk_user = False
        except BaseException as exc:
            _sk_user = False
            self.fail(exc, "completed")


    def released(self) -> None:
        """on_release: the library let go of the callbacks."""
        cell = self.cell
        _release_ctx_function(self.ctx)
        if cell is not None:  # no cycle left between the sink, its list and its chain
            cell[0] = cell[1] = None


# The extension's callbacks, as the observer's function pointers.
_sp_next = _next_fn(_speedups.NEXT)
_sp_error = _next_fn(_speedups.ERROR)
_sp_completed = _completed_fn(_speedups.COMPLETED)
_sp_release = _release_fn(_speedups.RELEASE)


def _start_sink(signal: int, sink: _Sink) -> Optional[int]:
    """Starts `signal` for a Python subscription, through the extension:
    each value goes to the composed chain of its stages and on_next."""
    ctx = sink.ctx = _retain_callbacks(sink)
    cell = sink.cell = [_ignore, sink]  # the chain reads cell[0] (handler): not None while it lives
    cell[0] = sink.handler()
    if sink.ended:
        cell[0] = None
    observer = _Observer(_sp_next, _sp_error, _sp_completed, _speedups.hold(cell), _sp_release)
    return _started(signal, sink, ctx, observer)


class _StageRun(_Sink):
    """One subscription of a fused Python stage signal: the stages applied
    to each value of the upstream, the results put into the subscriber."""
    __slots__ = ("subscriber",)

    def __init__(self, maker: Optional[ChainMaker], subscriber: int, failures: _Recorder) -> None:
        super().__init__(maker, None, None, None, failures)
        self.subscriber = subscriber

    def on_release(self) -> None:
        subscriber, self.subscriber = self.subscriber, 0
        if subscriber:
            C.subscriber_release(subscriber)
        super().on_release()

    def handler(self) -> Optional[Callable[[Any], Any]]:
        """The stages, then the put of the result into the subscriber."""
        tail = functools.partial(_subscriber_put_next, self.subscriber)
        live = self.cell if self.cell is not None else [_ignore]
        return self.maker(tail, live) if self.maker is not None else tail

    def failed(self, exc: Optional[BaseException]) -> None:
        """on_fail: a stage (or the put) raised `exc`, or (None) a
        KeyboardInterrupt is pending: the stream fails with it."""
        if self.ended:
            return
        if exc is None:
            pending = _interrupts.local.pending or KeyboardInterrupt()
            self.failures.record(pending)
            self.put_error(pending)
            return
        stage = _stage_of(exc)
        if stage is not None:
            _mark_stage(exc, stage)
        _trim_traceback(exc)
        self.failures.record(exc)
        if isinstance(exc, KeyboardInterrupt):
            _interrupts.defer(exc)
        try:
            self.put_error(exc)
        except BaseException:
            pass
        _detach_traceback(exc, stage or "next")

    def error_at(self, address: int) -> None:
        """on_error: the upstream's error, passed on."""
        if not self.ended:
            self.end()
            C.subscriber_put_error(self.subscriber, ctypes.cast(address, _ValueP))

    def completed(self) -> None:
        """on_completed: the upstream's completion, passed on."""
        if not self.ended:
            self.end()
            C.subscriber_put_completion(self.subscriber)

    def put_error(self, error: object) -> None:
        self.end()
        out = Value()
        _put_object(error, out)
        try:
            C.subscriber_put_error(self.subscriber, byref(out))
        finally:
            C.value_release(byref(out))
        if self.disposable:
            C.disposable_dispose(self.disposable)


class _StageSource:
    """A fused Python stage signal: its upstream and stages, and the maker
    of their composed function."""
    __slots__ = ("upstream", "stages", "maker", "failures")

    def __init__(self, upstream: "Signal[Any]", stages: Stages, failures: _Recorder) -> None:
        self.upstream = upstream
        self.stages = stages
        self.maker = _chain_maker(stages)
        self.failures = failures


def _stage_generator(ctx: int, subscriber: int) -> Optional[int]:
    source = _core._keep.get(ctx)
    if source is None or _state.closing or sys.is_finalizing():
        return None
    try:
        run = _StageRun(source.maker, C.subscriber_retain(subscriber), source.failures)
        return _call_with(_start_sink, source.upstream, run)  # type: ignore[no-any-return]
    except BaseException as exc:
        if not _state.closing:  # else the exit began meanwhile: nothing to report
            _report(exc, "generator")
        return None


def _started(signal: int, sink: _Sink, ctx: int, observer: _Observer) -> Optional[int]:
    out = c_void_p()
    status = C.signal_start(byref(out), signal, byref(observer))
    _check(status)
    if out.value:
        retained = C.disposable_retain(out.value)
        with _core._keep_lock:
            if ctx in _core._keep:  # not released yet: the release (on_release) drops it
                sink.disposable, retained = retained, None
        if retained:  # it ended while it started
            C.disposable_release(retained)
        if sink.ended:  # it failed while it started
            C.disposable_dispose(out.value)
    return out.value


# The library's callbacks of this module are the extension's (_speedups.c,
# operator): each calls its Python function with the registry key (and the
# value as an object, or the subscriber's address), under the exit rules.
_c_stage_generator = _generator_fn(_speedups.operator("stage", _stage_generator))
for _function in (_Sink.failed, _Sink.error_at, _Sink.completed, _Sink.released, _StageRun.failed,
                  _StageRun.error_at, _StageRun.completed, _stage_generator):
    _interrupts.THUNK_CODES.add(_function.__code__)


# --- from_iterable: lazy, stopped by disposal ---------------------------------

class _IterRun:
    """One subscription of from_iterable: the iterator, pulled one item at
    a time, and the flag its disposable sets. With `sink` (the subscription
    was started right on this signal from Python: no library operator
    between), the values go to the sink's stages and on_next in Python;
    the end still goes through the library's subscriber."""
    __slots__ = ("iterable", "subscriber", "stopped", "failures", "sink", "__weakref__")

    def __init__(self, iterable: Iterable[Any], subscriber: int, failures: _Recorder,
                 sink: Optional[_Sink] = None) -> None:
        self.iterable = iterable
        self.subscriber = subscriber
        self.stopped = False
        self.failures = failures
        self.sink = sink

    def on_release(self) -> None:
        self.stopped = True

    def cancel(self) -> None:
        """Never runs (the call that scheduled it failed): lets go."""
        self.stopped = True
        self._release_subscriber()

    def _release_subscriber(self) -> None:
        subscriber, self.subscriber = self.subscriber, 0
        if subscriber:
            C.subscriber_release(subscriber)

    def __call__(self) -> None:
        _sk_user = False
        subscriber = self.subscriber
        fast_put, put = _speedups.subscriber_put_next, _subscriber_put_next
        interrupted = _interrupts.local
        try:
            iterator = iter(self.iterable)
            if self.sink is not None:
                self._direct(iterator)
                return
            while not self.stopped and not _state.closing:  # checked before each pull
                try:
                    item = next(iterator)
                except StopIteration:
                    C.subscriber_put_completion(subscriber)
                    return
                if fast_put(subscriber, item) is NotImplemented:  # an object carried by reference
                    put(subscriber, item)
                if interrupted.pending is not None:
                    raise interrupted.pending
        except BaseException as exc:
            _sk_user = False
            _trim_traceback(exc)
            self.failures.record(exc)
            if isinstance(exc, KeyboardInterrupt):
                _interrupts.defer(exc)
            if not self.stopped:
                try:
                    error = Value()
                    _put_object(exc, error)
                    C.subscriber_put_error(subscriber, byref(error))
                    C.value_release(byref(error))
                except BaseException:
                    pass
            _detach_traceback(exc, "generator")
        finally:
            self._release_subscriber()


    def _direct(self, iterator: Any) -> None:
        """The values straight to the sink (stages, then on_next): what
        _sink_next would do with each, without the round trip through C."""
        sink = self.sink
        assert sink is not None
        handler = sink.handler()
        interrupted, check = _interrupts.local, _check_int64
        _sk_user = False
        while not self.stopped and not sink.ended and not _state.closing:
            try:
                item = next(iterator)
            except StopIteration:
                C.subscriber_put_completion(self.subscriber)
                return
            try:
                check(item)
            except OverflowError as exc:
                self.failures.record(exc)
                sink.fail(exc, "generator")
                return
            try:
                _sk_user = True
                if handler is not None:
                    handler(item)
                _sk_user = False
            except BaseException as exc:
                _sk_user = False
                sink.fail(exc, "next")
                return
            if interrupted.pending is not None:
                sink.fail(interrupted.pending, "next")
                return


def _stop_run(ctx: int) -> None:
    run = _core._keep.get(ctx)
    if run is not None:
        run.stopped = True


_c_stop_run = _work_fn(_speedups.operator("stop", _stop_run))


def _iter_generator(ctx: int, subscriber: int) -> Optional[int]:
    source = _core._keep.get(ctx)
    if source is None or _state.closing or sys.is_finalizing():
        return None
    iterable, failures = source
    local = _thread_trampoline()
    direct, local.direct = local.direct, None
    run = _IterRun(iterable, C.subscriber_retain(subscriber), failures, direct)
    out = c_void_p()
    try:
        _check(C.disposable_action(byref(out), _c_stop_run, _retain_callbacks(run), _release_ctx))
    except BaseException as exc:
        run.cancel()
        if not _state.closing:  # else the exit began meanwhile: nothing to report
            _report(exc, "generator")
        return None
    if local.active:
        local.jobs.append(run)  # runs once this start has returned
    else:
        run()  # started by the library itself (another thread): emits now
    return out.value


_c_iter_generator = _generator_fn(_speedups.operator("iter", _iter_generator))
_interrupts.THUNK_CODES.add(_IterRun.__call__.__code__)
_interrupts.THUNK_CODES.add(_IterRun._direct.__code__)


# --- create(fn) ---------------------------------------------------------------

class Subscriber(Generic[T], _Handle):
    """The receiving end a create() function emits into, from any thread:
    on_next(value), on_error(exception), on_completed(). After the end of
    the subscription (a completion or an error put, or a dispose: not the
    caller's doing, e.g. when a producer thread emits after it) they do
    nothing. The handle is the function's to keep: close() (or the end of
    a `with` block, or garbage collection) releases it, and a call after
    close() raises ValueError ("Subscriber is closed"), as every closed
    handle's use does; a close() while other threads are inside its calls
    releases when the last returns (see the package docstring). A handle:
    copy.copy and copy.deepcopy return it itself; pickling raises
    TypeError."""
    _release = staticmethod(C.subscriber_release)

    def __init__(self, pointer: int) -> None:
        """A handle (a reference of its own) to the sk_subscriber at `pointer`."""
        super().__init__(C.subscriber_retain(pointer))

    def _put(self, function: Any, obj: object) -> None:
        pointer = self._enter()  # a call in flight until the put returned: see _Handle
        try:
            out = Value()
            _put_object(obj, out)
            try:
                _draining(function, pointer, byref(out))
            finally:
                C.value_release(byref(out))
        finally:
            self._exit()
        _after_call()

    def on_next(self, value: T) -> None:
        """Emits a value (carried by reference unless a plain kind)."""
        # _enter and _exit written out (the loop of a create() function
        # calls this per value: two Python calls less, about 0.5 us of 2):
        # a call in flight until the put returned, see _Handle.
        calls = self._calls
        assert calls is not None  # made by __init__
        calls.append(None)
        try:
            pointer = self._pointer
            if not pointer:
                raise ValueError("Subscriber is closed")
            _draining(_subscriber_put_next, pointer, value)
        finally:
            calls.pop()
            if not self._pointer and not calls:  # in this order: see _Handle._enter
                self._free()
        _after_call()

    def on_error(self, error: BaseException) -> None:
        """Ends the subscription with an error (an exception, by reference)."""
        self._put(C.subscriber_put_error, error)

    def on_completed(self) -> None:
        """Ends the subscription with a completion."""
        pointer = self._enter()  # a call in flight until the put returned: see _Handle
        try:
            _draining(C.subscriber_put_completion, pointer)
        finally:
            self._exit()
        _after_call()

    def close(self) -> None:
        """Drops this handle (idempotent; also done when it is garbage
        collected): the subscription goes on, and later calls raise
        ValueError."""
        super().close()


def _subscriber_put_next(pointer: int, value: object) -> int:
    """sk_subscriber_put_next: through the extension for a value of the
    library's kinds, else by reference."""
    status: int = _speedups.subscriber_put_next(pointer, value)
    if status is NotImplemented:
        status = _put_by_reference(C.subscriber_put_next, pointer, value)
    return status


def _cancel_action(ctx: int) -> None:
    _sk_user = False
    holder = _core._keep.get(ctx)
    if holder is None or sys.is_finalizing():  # runs while closing too: a cancel stops library threads
        return
    try:
        action = holder[0]
        holder[0] = None
        if action is not None:
            _sk_user = True
            action()
    except BaseException as exc:
        _report(exc, "dispose")


_c_cancel_action = _work_fn(_speedups.operator("cancel", _cancel_action))
_interrupts.THUNK_CODES.add(_cancel_action.__code__)


class _Nesting(threading.local):
    """The create() functions running on this thread, outermost first: for
    each, its start's frame (_create_generator's) and how many Python
    frames deep that is (None until a deeper level needed it)."""

    def __init__(self) -> None:
        self.levels: List[List[Any]] = []


_nesting = _Nesting()

# How many create() functions must run nested on a thread before a start
# measures how deep Python's stack is: fewer cannot come near the limit by
# nesting alone, and they cost no walk of the frames.
_MEASURED_FROM = 8


def _frames_below(frame: Any, stop: Any = None) -> int:
    """How many frames from `frame` (counted) down to `stop` (not counted)
    or the thread's first."""
    count = 0
    while frame is not None and frame is not stop:
        count += 1
        frame = frame.f_back
    return count


def _create_refusal(frame: Any, levels: List[List[Any]]) -> Tuple[Optional[RecursionError], Optional[int]]:
    """Whether a create() start at `frame`, inside the create() functions
    `levels` running on this thread, is refused, and how deep in Python's
    frames it is (None: not measured). A create() function that subscribes
    to a create() signal nests the next start inside itself, and nothing in
    the C library bounds that (its stack check covers the run-time
    operators alone). Such a start is refused with a RecursionError once
    half of the thread's stack, or a third of Python's recursion limit, is
    used, so that the error still has room to travel back through every
    level, forwarded by each level's on_error: measured, that took about
    three quarters of the way in with on_error forwarded directly (5 frames
    and 2.1 KB a level back, 7 and 2.7 KB in), and more than the way in in
    Python frames through a lambda or two (past half of the limit, it was
    lost). A start outside any create() function is never refused."""
    if not levels:
        return None, None
    left, size = _speedups.stack_left()
    if size and left < size // 2:
        return RecursionError(
            f"signalkit: create: not started: {left} bytes left of the thread's {size}-byte stack, less than "
            "half (create() functions that subscribe to create() signals nest too deep; see README.md, "
            "Errors)"), None
    if len(levels) < _MEASURED_FROM:
        return None, None
    top = levels[-1]
    if top[1] is None:  # once: the deeper levels count from there
        top[1] = _frames_below(top[0])
    depth = _frames_below(frame, top[0]) + top[1]
    limit = sys.getrecursionlimit()
    if depth > limit // 3:
        return RecursionError(
            f"signalkit: create: not started: {depth} frames deep, past a third of Python's recursion limit "
            f"({limit}) (create() functions that subscribe to create() signals nest too deep; see README.md, "
            "Errors)"), depth
    return None, depth


def _create_generator(ctx: int, subscriber: int) -> Optional[int]:
    _sk_user = False
    source = _core._keep.get(ctx)
    if source is None or _state.closing or sys.is_finalizing():
        return None
    function, failures = source
    handle: Subscriber[Any] = Subscriber(subscriber)
    frame, levels = sys._getframe(), _nesting.levels
    refusal, depth = _create_refusal(frame, levels)
    if refusal is not None:
        handle.on_error(refusal)
        return None
    levels.append([frame, depth])
    try:
        _sk_user = True
        cancel = function(handle)
        _sk_user = False
    except BaseException as exc:
        _sk_user = False
        _trim_traceback(exc)
        failures.record(exc)
        if isinstance(exc, KeyboardInterrupt):
            _interrupts.defer(exc)
        try:
            handle.on_error(exc)
        except KeyboardInterrupt as again:  # the put raised the interrupt deferred above: still the caller's
            _interrupts.defer(again)
        _detach_traceback(exc, "create")
        return None
    finally:
        levels.pop()
        del frame  # no reference cycle through this frame
    if cancel is None:
        return None
    if isinstance(cancel, Disposable):
        action: Callable[[], None] = cancel.dispose
    elif callable(cancel):
        action = cancel
    else:  # the stream fails with it, as deferred's does for a result that is not a Signal
        error = TypeError(f"signalkit: create: the function returned {type(cancel).__name__}, "
                          "not None, a Disposable or a callable")
        failures.record(error)
        handle.on_error(error)
        return None
    out = c_void_p()
    try:
        ctx = _retain_callbacks([action])
    except RuntimeError:  # the exit began while the function ran: nothing will dispose it later
        try:
            action()
        except BaseException as exc:
            _report(exc, "dispose")
        return None
    _check(C.disposable_action(byref(out), _c_cancel_action, ctx, _release_ctx))
    return out.value


_c_create_generator = _generator_fn(_speedups.operator("create", _create_generator))
_interrupts.THUNK_CODES.add(_create_generator.__code__)


# --- callbacks of the library's operators -------------------------------------

class _Callback:
    """A Python function an operator of the library calls (reduce,
    take_until, map_to_signal, catch, deferred, side effects)."""
    __slots__ = ("fn", "failures")

    def __init__(self, fn: Callable[..., Any], failures: Union[_Failures, _Recorder]) -> None:
        self.fn = fn
        self.failures = failures


class _Failed:
    """An accumulator of reduce whose function raised: passed through to
    the end, where it becomes the stream's error."""
    __slots__ = ("exception",)

    def __init__(self, exception: BaseException) -> None:
        self.exception = exception


def _callback_raised(callback: _Callback, exc: BaseException, where: str) -> bool:
    """Records `exc`; True when it is a KeyboardInterrupt deferred to the
    caller (nothing to report), False for an exception to pass on."""
    _trim_traceback(exc)
    _detach_traceback(exc, where)  # kept (as an error value, an accumulator): no frames
    callback.failures.record(exc)
    return isinstance(exc, KeyboardInterrupt) and _interrupts.defer(exc)


def _failing_signal(exc: BaseException) -> Optional[int]:
    out = c_void_p()
    error = Value()
    _put_object(exc, error)
    try:
        C.signal_fail(byref(out), byref(error))
    finally:
        C.value_release(byref(error))
    return out.value


def _owned_signal(result: object) -> Optional[int]:
    """A signal returned by a user's function, +1 for the library (None:
    an empty signal)."""
    if result is None:
        return None
    if not isinstance(result, Signal):
        raise TypeError(f"signalkit: the function returned {type(result).__name__}, not a Signal")
    return int(result._call(C.signal_retain))


def _signal_callback(ctx: int, value: Any) -> Optional[int]:
    _sk_user = False
    callback = _core._keep.get(ctx)
    if callback is None or _state.closing or sys.is_finalizing():
        return None
    try:
        argument = _as_error(value) if callback.fn.__class__ is _CatchFn else value
        _sk_user = True
        result = callback.fn(argument)
        _sk_user = False
        return _owned_signal(result)
    except BaseException as exc:
        _sk_user = False
        _callback_raised(callback, exc, "signal")
        return _failing_signal(exc)


class _CatchFn:
    """Marks catch's function: it receives the error as an exception."""
    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[BaseException], Any]) -> None:
        self.fn = fn

    def __call__(self, error: BaseException) -> Any:
        return self.fn(error)


def _deferred_callback(ctx: int) -> Optional[int]:
    _sk_user = False
    callback = _core._keep.get(ctx)
    if callback is None or _state.closing or sys.is_finalizing():
        return None
    try:
        _sk_user = True
        result = callback.fn()
        _sk_user = False
        return _owned_signal(result)
    except BaseException as exc:
        _sk_user = False
        _callback_raised(callback, exc, "deferred")
        return _failing_signal(exc)


class _Fold:
    """reduce's function, called by the extension (_speedups.c, on_reduce)
    with the accumulator and the value; these methods are its other ends."""
    __slots__ = ("callback", "ctx", "cell", "__weakref__")

    def __init__(self, callback: _Callback) -> None:
        self.callback = callback
        self.ctx = 0
        self.cell: List[Any] = [callback.fn, self]

    def reduce_failed(self, exc: BaseException) -> "_Failed":
        """The function (or the conversion of its result) raised `exc`: the
        accumulator becomes a failure, the stream's error at the end."""
        _callback_raised(self.callback, exc, "reduce")
        return _Failed(exc)

    def put_into(self, result: object, address: int) -> None:
        """An accumulator carried by reference, written into the out value."""
        _put_object(result, ctypes.cast(address, _ValueP).contents)

    def released(self) -> None:
        """The library let go of the function."""
        _release_ctx_function(self.ctx)
        self.cell[1] = None  # no cycle left


_speedups.set_failed_type(_Failed)
_sp_reduce = _reduce_fn(_speedups.REDUCE)


def _take_action(result: object) -> int:
    """take_until's function's result, checked: an int from 0 to
    TAKE_PASS | TAKE_COMPLETE (3); TypeError / ValueError otherwise (never
    truncated nor wrapped)."""
    try:
        action = operator.index(result)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"signalkit: take_until: the function returned {type(result).__name__}, not an int "
                        "(a bitwise OR of TAKE_PASS and TAKE_COMPLETE)") from None
    if not 0 <= action <= TAKE_PASS | TAKE_COMPLETE:
        raise ValueError(f"signalkit: take_until: the function returned {action}, not a bitwise OR of "
                         "TAKE_PASS and TAKE_COMPLETE (0 to 3)")
    return action


def _take_until_callback(ctx: int, value: Any) -> int:
    _sk_user = False
    callback = _core._keep.get(ctx)
    if callback is None or _state.closing or sys.is_finalizing():
        return TAKE_COMPLETE
    try:
        _sk_user = True
        result = callback.fn(value)
        _sk_user = False
        return _take_action(result)
    except BaseException as exc:
        _sk_user = False
        if not _callback_raised(callback, exc, "take_until"):  # else it goes to the caller
            _report(exc, "take_until")
        return TAKE_COMPLETE


def _value_callback(ctx: int, value: Any) -> None:
    _sk_user = False
    callback = _core._keep.get(ctx)
    if callback is None or _state.closing or sys.is_finalizing():
        return
    try:
        _sk_user = True
        callback.fn(value)
        _sk_user = False
    except BaseException as exc:
        _sk_user = False
        if not _callback_raised(callback, exc, "side effect"):
            _report(exc, "side effect")


def _work_callback(ctx: int) -> None:
    _sk_user = False
    callback = _core._keep.get(ctx)
    if callback is None or _state.closing or sys.is_finalizing():
        return
    try:
        _sk_user = True
        callback.fn()
        _sk_user = False
    except BaseException as exc:
        _sk_user = False
        if not _callback_raised(callback, exc, "side effect"):
            _report(exc, "side effect")


_c_signal_callback = _signal_fn(_speedups.operator("signal", _signal_callback))
_c_deferred_callback = _deferred_fn(_speedups.operator("deferred", _deferred_callback))
_c_take_until_callback = _take_until_fn(_speedups.operator("take_until", _take_until_callback))
_c_value_callback = _next_fn(_speedups.operator("value", _value_callback))
_c_work_callback = _work_fn(_speedups.operator("work", _work_callback))
for _operator_callback in (_signal_callback, _deferred_callback, _Fold.reduce_failed, _Fold.put_into,
                           _Fold.released, _take_until_callback,
                           _value_callback, _work_callback):
    _interrupts.THUNK_CODES.add(_operator_callback.__code__)


def _raise_failed(value: Any) -> Any:
    if isinstance(value, _Failed):
        raise value.exception
    return value


# --------------------------------------------------------------------------
# The native (signature-string) forms
# --------------------------------------------------------------------------

_ctypes_of = {
    "void": None, "bool": c_bool, "i8": c_int8, "i16": c_int16, "i32": c_int32, "i64": c_int64,
    "u8": c_uint8, "u16": c_uint16, "u32": c_uint32, "u64": c_uint64, "f32": c_float, "f64": c_double,
    "str": c_char_p, "ptr": c_void_p, "value": c_void_p, "ctx": c_void_p,
}


class Signature(_Handle):
    """A prepared native signature parsed from its string form
    ("void(ctx,i64)"; grammar in signalkit_ffi.h). A handle (a reference to
    a library object): copy.copy and copy.deepcopy return it itself;
    pickling raises TypeError."""
    _release = staticmethod(C.ffi_signature_release)

    def __init__(self, text: str) -> None:
        """Parses `text` (TypeError unless a str; SignalKitError when the
        library rejects it)."""
        if not isinstance(text, str):
            raise TypeError(f"signalkit: Signature: the text is {type(text).__name__}, not a str")
        if "\0" in text:
            raise ValueError("signalkit: Signature: the text holds a NUL character")
        pointer = c_void_p()
        _check(C.ffi_signature_parse(byref(pointer), text.encode()), ffi=True)
        super().__init__(pointer.value)
        self.text = text
        """The signature as given ("void(ctx,i64)")."""
        result, _, rest = text.replace(" ", "").replace("\t", "").partition("(")
        self.result = result
        """The result's type ("void", "i64"...)."""
        self.args = [a for a in rest.rstrip(")").split(",") if a]
        """The arguments' types, in order ("ctx" for the context pointer)."""

    def cfunctype(self) -> Any:
        """The ctypes CFUNCTYPE for this signature. A "str" result is
        declared c_void_p (ctypes cannot return a char * from a callback)."""
        result: Any = _ctypes_of[self.result]
        if self.result in ("str", "value"):
            result = c_void_p
        arguments: List[Any] = [_ctypes_of[a] for a in self.args]
        return CFUNCTYPE(result, *arguments)

    def __repr__(self) -> str:
        return f"Signature({self.text!r})"


def _signature(spec: Union[str, Signature]) -> Signature:
    return spec if isinstance(spec, Signature) else Signature(spec)


_integer_ranges = {"i8": (-2 ** 7, 2 ** 7 - 1), "i16": (-2 ** 15, 2 ** 15 - 1), "i32": (-2 ** 31, 2 ** 31 - 1),
                   "i64": (-2 ** 63, 2 ** 63 - 1), "u8": (0, 2 ** 8 - 1), "u16": (0, 2 ** 16 - 1),
                   "u32": (0, 2 ** 32 - 1), "u64": (0, 2 ** 64 - 1), "ptr": (0, 2 ** 64 - 1)}
# What a failed call returns to C (ignored by the library).
_fallback_of = {"void": None, "bool": False, "i8": 0, "i16": 0, "i32": 0, "i64": 0, "u8": 0, "u16": 0, "u32": 0,
                "u64": 0, "f32": 0.0, "f64": 0.0, "str": None, "ptr": None, "value": None}


def _native_result(kind: str, out: Any) -> Any:
    """`out` checked for the result type `kind`, as ctypes will pass it on:
    raises TypeError / OverflowError / ValueError instead of letting ctypes
    convert (or print and replace) it."""
    if kind == "bool":
        return bool(out)
    if kind in _integer_ranges:
        if kind == "ptr" and out is None:
            return None
        number = operator.index(out)
        low, high = _integer_ranges[kind]
        if not low <= number <= high:
            raise OverflowError(f"{number} out of range of {kind}")
        return number
    if kind in ("f32", "f64"):
        if not isinstance(out, (int, float)):
            raise TypeError(f"{kind} result must be int or float, not {type(out).__name__}")
        if isinstance(out, int):
            # As the library converts an int64 value for an f32 or f64
            # argument: only within the range in which the type holds every
            # integer, so that an int is never rounded (2^24 + 1 would
            # become 2^24) and whether a result fits does not depend on
            # which int it is.
            power, holder = _exact_integers[kind]
            if not -(2 ** power) <= out <= 2 ** power:
                raise OverflowError(f"int {out} is outside +-2^{power} (the range in which {holder} holds every integer)")
        real = float(out)
        if kind == "f32" and math.isfinite(real) and abs(real) > _FLOAT_MAX:
            # ctypes would make it infinite; the library refuses such a
            # double for an f32 argument, and so does a result here.
            raise OverflowError(f"{real!r} is outside the range of f32")
        return real
    return out


# The largest finite float (f32).
_FLOAT_MAX = (2 - 2 ** -23) * 2.0 ** 127
# The ranges in which a float (f32) and a double (f64) hold every integer:
# +-2^power, and the type's name for messages.
_exact_integers = {"f32": (24, "a float"), "f64": (53, "a double")}


_CFuncPtr: Any = getattr(ctypes, "_CFuncPtr")
_CLOSING_MESSAGE = b"signalkit: the interpreter is exiting"


class _Gate:
    """Whether a native subscription's Python callables may still be
    called: ended by its Disposable's dispose(), under the GIL, which the
    callables check under the GIL before calling the user's function."""
    __slots__ = ("ended", "__weakref__")

    def __init__(self) -> None:
        self.ended = False

    def end(self) -> None:
        """No callable of the subscription starts from now on."""
        self.ended = True


def _native(signature: Signature, fn: Any, where: str, failures: Optional[_Recorder] = None,
            gate: Optional[_Gate] = None) -> Any:
    """A C function pointer for `fn` under `signature`: `fn` itself when it
    is already a ctypes function, else a CFUNCTYPE wrapping the callable
    (str arguments arrive as Python str, value arguments as Python objects;
    a str or value result is kept alive per thread until the next call).
    An exception escaping `fn`, or a result that does not fit, fails the
    call (package docstring), recorded in `failures`. A delivery (next,
    map, filter) that starts or ends with a KeyboardInterrupt pending fails
    too: a value never goes on while the caller is being interrupted."""
    if isinstance(fn, _CFuncPtr):
        return fn
    _callable_arg(fn, where)  # TypeError at the call, as the Pythonic forms
    # The closure is the extension's, not ctypes': it enters Python under
    # the exit rules (no library thread touches Python once the
    # interpreter finalizes), as the Pythonic forms' callbacks do.
    codes = bytes(_NATIVE_CODES[kind] for kind in signature.args)
    return _speedups.native(_thunk(signature.args, signature.result, fn, where, failures, gate),
                            _NATIVE_CODES[signature.result], codes, where in ("next", "map", "filter"))


# The extension's type codes of the native closures (_speedups.c, NC_*).
_NATIVE_CODES = {"void": 0, "bool": 1, "i8": 2, "i16": 3, "i32": 4, "i64": 5, "u8": 6, "u16": 7, "u32": 8, "u64": 9,
                 "f32": 10, "f64": 11, "str": 12, "ptr": 13, "value": 13, "ctx": 13}


def _thunk(args: List[str], result: str, fn: Any, where: str, failures: Optional[_Recorder],
           gate: Optional[_Gate] = None) -> Callable[..., Any]:
    fallback = _fallback_of[result]
    local = threading.local()
    delivery = where in ("next", "map", "filter")
    # What the callback needs once the interpreter exits, bound here: module
    # globals are cleared while the interpreter finalizes.
    state, interrupted, is_finalizing, fail = _state, _interrupts.local, sys.is_finalizing, C.ffi_callback_fail
    getframe, orphaned = sys._getframe, _interrupts.orphaned

    def call(*raw: Any) -> Any:
        # The SIGINT handler reads _sk_user: True only while `fn` runs.
        _sk_user = False
        try:
            if state.closing or is_finalizing():
                if delivery:
                    fail(_CLOSING_MESSAGE)
                return fallback
            if gate is not None and gate.ended:  # its subscription was disposed (Disposable.dispose)
                return fallback
            if delivery and interrupted.pending is not None:
                _fail_interrupted(failures)
                return fallback
            converted = []
            for kind, arg in zip(args, raw):
                if kind == "str":
                    converted.append(None if arg is None else arg.decode("utf-8", "replace"))
                elif kind == "value":
                    converted.append(from_value(arg))
                else:
                    converted.append(arg)
            if gate is not None and gate.ended:  # disposed while a conversion let the GIL go
                return fallback
            _sk_user = True
            out = fn(*converted)
            _sk_user = False
            native: Any
            if result == "str":
                if out is None:
                    native = None  # the library reports a NULL str result
                elif not isinstance(out, str):
                    raise TypeError(f"str result must be str, not {type(out).__name__}")
                elif "\0" in out:
                    raise ValueError("str result holds a NUL character")
                else:
                    local.buffer = ctypes.create_string_buffer(out.encode())
                    native = ctypes.addressof(local.buffer)
            elif result == "value":
                local.value = _OwnedValue(out)  # drops the previous one
                native = ctypes.addressof(local.value.value)
            else:
                native = _native_result(result, out)
            if delivery and interrupted.pending is not None:
                _fail_interrupted(failures)
                return fallback
            return native
        except BaseException as exc:
            _sk_user = False
            _callback_failed(exc, where, failures)
            return fallback
        finally:
            # No Python frame below: a library thread's callback, whose
            # interrupt no package call will raise (the extension's
            # callbacks do the same in _speedups.c, leave()).
            if interrupted.pending is not None and getframe().f_back is None:
                orphaned()  # left by a package call nested in `fn`: reported, cleared

    _interrupts.THUNK_CODES.add(call.__code__)
    return call


class _OwnedValue:
    """An sk_value owned by Python: released when collected."""
    value: Optional[Value] = None

    def __init__(self, obj: object) -> None:
        self.value = to_value(obj)

    def __del__(self) -> None:
        try:
            if self.value is not None:
                C.value_release(byref(self.value))
        except Exception:  # interpreter shutdown
            pass


def _fn_address(cfunc: Any) -> Optional[int]:
    """The C function's address: a native closure's (_speedups.native), or
    a ctypes function's."""
    if isinstance(cfunc, _speedups.Native):
        return cfunc.address
    address: Optional[int] = ctypes.cast(cfunc, c_void_p).value
    return address


class _NativeSet:
    """The objects a native-form callback set needs while the library holds it."""
    __slots__ = ("objects",)

    def __init__(self, *objects: Any) -> None:
        self.objects = objects


# --------------------------------------------------------------------------
# Signal
# --------------------------------------------------------------------------

Stage = Tuple[int, Callable[[Any], Any]]
NextFn = Callable[[T], object]
ErrorFn = Callable[[BaseException], object]
CompletedFn = Callable[[], object]


def _new_signal(function: Any, *args: Any) -> "Signal[Any]":
    """A signal made by function(&out, *args); handles among `args` are
    passed as their pointers (see _call_with), a list of handles as an
    array of them."""
    out = c_void_p()
    _check(_call_with(function, byref(out), *args))
    return Signal(out.value)


# Arguments: a wrong type is a TypeError at the call (never an
# AttributeError, nor a failure later on a library thread).

def _signal_arg(obj: object, where: str, index: int = 0) -> "Signal[Any]":
    """`obj`, an open Signal (TypeError otherwise; ValueError once closed).
    A C call takes its pointer through _call_with."""
    if not isinstance(obj, Signal):
        which = f"argument {index}" if index else "the argument"
        raise TypeError(f"signalkit: {where}: {which} is {type(obj).__name__}, not a Signal")
    obj.pointer  # closed: ValueError now, before anything is made
    return obj


def _signal_array(signals: Tuple[object, ...], where: str) -> "List[Signal[Any]]":
    """The signals (each checked by _signal_arg), for _call_with to pass as a C array."""
    return [_signal_arg(s, where, i + 1) for i, s in enumerate(signals)]


def _callable_arg(fn: object, where: str, optional: bool = False) -> None:
    """TypeError unless `fn` is callable (or None, when optional)."""
    if fn is None and optional:
        return
    if not callable(fn):
        raise TypeError(f"signalkit: {where}: the function is {type(fn).__name__}, not a callable")


def _count_arg(count: Any, where: str, name: str) -> int:
    """A size_t count: an int (TypeError otherwise, bool included), not
    negative (ValueError), below 2**64 (OverflowError)."""
    if isinstance(count, bool):
        raise TypeError(f"signalkit: {where}: {name} is bool, not an int")
    try:
        number = operator.index(count)
    except TypeError:
        raise TypeError(f"signalkit: {where}: {name} is {type(count).__name__}, not an int") from None
    if number < 0:
        raise ValueError(f"signalkit: {where}: {name} {number} is negative")
    if number > 2 ** 64 - 1:
        raise OverflowError(f"signalkit: {where}: {name} {number} out of range of size_t")
    return number


def _seconds_arg(seconds: object, where: str, name: str = "seconds") -> float:
    """A duration: an int or a float, not negative nor NaN (TypeError,
    ValueError)."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError(f"signalkit: {where}: {name} is {type(seconds).__name__}, not a number")
    value = float(seconds)
    if not value >= 0:  # negative, or NaN
        raise ValueError(f"signalkit: {where}: {name} {seconds} is negative or NaN")
    return value


class Signal(Generic[T_co], _Failing, _Handle):
    """A cold stream of values of type T: nothing runs until subscribe(),
    and each subscription runs the stream anew.

    Operators return new signals (the receiver is unchanged). Values are
    Python objects: None, bool, int (int64), float, str and bytes cross the
    C library as its own value kinds; any other object is carried by
    reference (the same object arrives). `exception` is the first exception
    raised by this signal's own Python function (map, filter, tap, create, a
    from_iterable iterator, reduce, ...), if any, in any of its
    subscriptions; map / filter / tap stages compose, so the signal
    subscribed to records an exception of any stage of its chain (an
    exception of on_next is the Disposable's only). A handle (a reference to
    a library object): copy.copy and copy.deepcopy return it itself;
    pickling raises TypeError."""
    _release = staticmethod(C.signal_release)
    _stage_source: Optional[_StageSource] = None
    _signal_value = True  # carried as a signal value (switch_to_latest, queue)
    _iterable_source = False  # made by from_iterable

    def _drop(self) -> None:
        # A Python stage signal holds a handle of its upstream (its subscribe
        # and the stages composed onto it start the upstream directly):
        # closed, it lets it go too, so that closing every handle one named
        # releases everything, and a closed stage signal raises at its use
        # as every closed handle does (self.pointer) instead of running on.
        self._stage_source = None
        super()._drop()

    # --- sources --------------------------------------------------------------

    @staticmethod
    def from_iterable(items: Iterable[U]) -> "Signal[U]":
        """A signal that emits the items of `items`, pulled one at a time on
        the starting thread, then completes. Lazy: nothing is read before a
        subscription starts, each subscription iterates `items` again (an
        iterator is consumed by the first), and the emission stops as soon
        as the subscription is disposed (take, take_until, a dispose from a
        callback): an infinite generator with take(1) returns at once. An
        exception raised by the iterator ends the stream with it; Ctrl-C
        stops it (KeyboardInterrupt in the caller). TypeError at the call
        when `items` is not iterable."""
        kind = type(items)
        if not (hasattr(kind, "__iter__") or hasattr(kind, "__getitem__")):
            raise TypeError(f"signalkit: from_iterable: {kind.__name__} is not iterable")
        failures = _Failures()
        ctx = _retain_callbacks((items, failures.recorder()))
        signal: Signal[U] = _new_signal(C.signal_create, _c_iter_generator, ctx, _release_ctx)
        signal._failures = failures
        signal._iterable_source = True
        _set_owner(ctx, signal)
        return signal

    @staticmethod
    def create(function: Callable[[Subscriber[U]], Any]) -> "Signal[U]":
        """A signal whose every start calls function(subscriber): it emits
        through subscriber.on_next / on_error / on_completed, now or later
        from any thread, and returns None, a Disposable, or a callable run
        when the subscription is disposed. An exception it raises ends the
        stream with it; so does a TypeError when it returns anything else
        (the signal's `exception` is that TypeError). A start nested inside
        other create() functions on the thread (a function subscribing to
        a create() signal, recursively) fails with a RecursionError once
        half of the thread's stack, or a third of Python's recursion limit,
        is used (README.md, Errors), never running the function."""
        _callable_arg(function, "create")
        failures = _Failures()
        ctx = _retain_callbacks((function, failures.recorder()))
        signal: Signal[U] = _new_signal(C.signal_create, _c_create_generator, ctx, _release_ctx)
        signal._failures = failures
        _set_owner(ctx, signal)
        return signal

    @staticmethod
    def single(value: U) -> "Signal[U]":
        """A signal that emits `value`, then completes."""
        out = Value()
        _put_object(value, out)
        try:
            return _new_signal(C.signal_single, byref(out))
        finally:
            C.value_release(byref(out))

    @staticmethod
    def complete() -> "Signal[Any]":
        """A signal that completes at once."""
        return _new_signal(C.signal_complete)

    @staticmethod
    def fail(error: BaseException) -> "Signal[Any]":
        """A signal that fails at once with `error` (an exception, carried
        by reference). TypeError at the call unless `error` is an exception
        instance (a class, such as ValueError, is not: ValueError())."""
        if not isinstance(error, BaseException):
            what = f"the class {error.__name__}" if isinstance(error, type) else type(error).__name__
            raise TypeError(f"signalkit: Signal.fail: the error is {what}, not an exception instance")
        out = Value()
        _put_object(error, out)
        try:
            return _new_signal(C.signal_fail, byref(out))
        finally:
            C.value_release(byref(out))

    @staticmethod
    def never() -> "Signal[Any]":
        """A signal that never emits nor ends."""
        return _new_signal(C.signal_never)

    @staticmethod
    def deferred(function: Callable[[], Optional["Signal[U]"]]) -> "Signal[U]":
        """A signal that calls function() at each start and runs the signal
        it returns (None: completes at once; an exception: fails with it)."""
        _callable_arg(function, "deferred")
        failures = _Failures()
        ctx = _retain_callbacks(_Callback(function, failures.recorder()))
        signal: Signal[U] = _new_signal(C.signal_deferred, _c_deferred_callback, ctx, _release_ctx)
        signal._failures = failures
        _set_owner(ctx, signal)
        return signal

    @staticmethod
    def merge(*signals: "Signal[U]") -> "Signal[U]":
        """The values of all `signals` as they arrive; completes when all
        have, fails with the first error."""
        array = _signal_array(signals, "merge")
        return _new_signal(C.signal_merge, array, len(signals))

    @staticmethod
    def combine_latest(*signals: "Signal[Any]", queue: Optional["Queue"] = None) -> "Signal[List[Any]]":
        """Once each of `signals` has emitted, a list of their latest values
        at each new value of any; `queue` (optional) is where the combining
        runs."""
        array = _signal_array(signals, "combine_latest")
        on = _queue_arg(queue, "combine_latest") if queue is not None else None
        return _new_signal(C.signal_combine_latest, array, len(signals), on)

    @staticmethod
    def interval(seconds: float, queue: Optional["Queue"] = None) -> "Signal[int]":
        """0, 1, 2, ... one every `seconds`, on `queue` (by default the
        library's concurrent queue); never completes."""
        return Signal.create(_Timer(seconds, queue, True))

    @staticmethod
    def timer(seconds: float, queue: Optional["Queue"] = None) -> "Signal[int]":
        """0 after `seconds`, on `queue` (by default the library's
        concurrent queue), then completes."""
        return Signal.create(_Timer(seconds, queue, False))

    # --- Python stages (fused) ------------------------------------------------

    def _stage(self, stage: Stage, failures: Union[_Failures, _Recorder, None] = None) -> "Signal[Any]":
        """This signal with `stage` added to its Python stages (`failures`:
        where their exceptions are recorded; the new signal's own by
        default; a _Recorder: recorded there, weakly, and the new signal
        has no `exception` of its own)."""
        base = self._stage_source
        if base is not None:  # compose: each event enters Python once for the whole chain
            upstream, stages = base.upstream, base.stages + (stage,)
        else:
            # A handle of the stage's own (never given out, so never closed
            # but by its collection), as a library operator holds its
            # upstream: closing `self` must not stop the stage signal, which
            # starts the upstream directly (its subscribe, its generator).
            upstream, stages = Signal(self._call(C.signal_retain)), (stage,)  # closed: raises first
            upstream._iterable_source = self._iterable_source
        owned = failures if not isinstance(failures, _Recorder) else None
        if failures is None:
            owned = _Failures()
        recorder = owned.recorder() if owned is not None else failures
        assert isinstance(recorder, _Recorder)
        with _InFlight(upstream) as (pointer,):  # closed: ValueError before retaining anything
            source = _StageSource(upstream, stages, recorder)
            ctx = _retain_callbacks(source)
            signal: Signal[Any] = _new_signal(C.signal_create_over, pointer, _c_stage_generator, ctx, _release_ctx)
            signal._failures = owned
            signal._stage_source = source
            _set_owner(ctx, signal)
            return signal

    @overload
    def map(self, fn: Callable[[T_co], U]) -> "Signal[U]": ...

    @overload
    def map(self, fn: Union[str, Signature], native: Any) -> "Signal[Any]": ...

    def map(self, fn: Any, native: Any = None) -> "Signal[Any]":
        """Each value transformed by fn(value).

        A chain of Python map / filter / tap stages is composed: each event
        crosses from C into Python once for the whole chain. An exception
        in `fn` ends the stream with it (the upstream is disposed).

        Native form: map(signature, function) with a signature string such
        as "i64(i64)" and a ctypes function or a Python callable
        (sk_ffi_signal_map; package docstring)."""
        if isinstance(fn, (str, Signature)):
            return self._native_operator(C.ffi_signal_map, "map", fn, native)
        _callable_arg(fn, "map")
        return self._stage((_MAP, fn))

    @overload
    def filter(self, fn: Callable[[T_co], object]) -> "Signal[T_co]": ...

    @overload
    def filter(self, fn: Union[str, Signature], native: Any) -> "Signal[Any]": ...

    def filter(self, fn: Any, native: Any = None) -> "Signal[Any]":
        """Only the values for which fn(value) is true (composed with the
        neighbouring Python stages, as map). Native form: filter(signature,
        function), e.g. "bool(f64)"."""
        if isinstance(fn, (str, Signature)):
            return self._native_operator(C.ffi_signal_filter, "filter", fn, native)
        _callable_arg(fn, "filter")
        return self._stage((_FILTER, fn))

    def tap(self, fn: Callable[[T_co], object]) -> "Signal[T_co]":
        """Calls fn(value) for each value, which passes on unchanged (a
        Python stage, composed as map); an exception ends the stream."""
        _callable_arg(fn, "tap")
        return self._stage((_TAP, fn))

    def _native_operator(self, function: Any, where: str, spec: Union[str, Signature], fn: Any) -> "Signal[Any]":
        signature = _signature(spec)
        with _InFlight(self, signature) as (pointer, signature_pointer):  # closed: ValueError before retaining
            failures = _Failures()
            native = _native(signature, fn, where, failures.recorder())
            ctx = _retain_callbacks(_NativeSet(native, signature))
            out = c_void_p()
            status = function(byref(out), pointer, signature_pointer, _fn_address(native), ctx, _release_ctx)
            _check(status, ffi=True)
            signal: Signal[Any] = Signal(out.value)
            signal._failures = failures
            _set_owner(ctx, signal)
            return signal

    # --- the library's operators ------------------------------------------------

    def _with_callback(self, function: Any, cfn: Any, fn: Callable[..., Any], *before: Any) -> "Signal[Any]":
        _callable_arg(fn.fn if isinstance(fn, _CatchFn) else fn, function.__name__[len("sk_signal_"):])
        with _InFlight(self) as (pointer,):  # closed: ValueError before retaining anything
            failures = _Failures()
            ctx = _retain_callbacks(_Callback(fn, failures.recorder()))
            signal = _new_signal(function, pointer, *before, cfn, ctx, _release_ctx)
            signal._failures = failures
            _set_owner(ctx, signal)
            return signal

    def take(self, count: int) -> "Signal[T_co]":
        """The first `count` values, then completes right after the
        count-th (0 <= count < 2**64), as sk_signal_take does.

        take(0) passes no value and does NOT complete at once: it completes
        when this signal completes (or fails with it), the library's rule
        (the original's take(0)); so ``Signal.never().take(0)`` never ends.
        For an empty signal use Signal.complete(). 2**64 - 1 (SIZE_MAX)
        means no limit. TypeError unless `count` is an int (bool is not),
        ValueError when negative, OverflowError past SIZE_MAX."""
        count = _count_arg(count, "take", "count")
        return _new_signal(C.signal_take, self, count)

    def take_until(self, fn: Callable[[T_co], int]) -> "Signal[T_co]":
        """Asks fn(value) about each value: a bitwise OR of TAKE_PASS
        (deliver it) and TAKE_COMPLETE (then complete); 0 drops it. An
        exception in `fn` completes the stream (and is reported); so does
        any other result (a TypeError for one that is not an int, a
        ValueError for an int outside 0..3: never truncated nor wrapped)."""
        return self._with_callback(C.signal_take_until, _c_take_until_callback, fn)

    def distinct_until_changed(self) -> "Signal[T_co]":
        """Drops a value equal to the one before (plain kinds by value,
        objects carried by reference by identity)."""
        return _new_signal(C.signal_distinct_until_changed, self)

    def last(self) -> "Signal[Optional[T_co]]":
        """Only the last value (None if there was none), when this completes."""
        return _new_signal(C.signal_last, self)

    def ignore_values(self) -> "Signal[Any]":
        """Only the end: no value, then the completion or the error."""
        return _new_signal(C.signal_ignore_values, self)

    def reduce(self, fn: Callable[[U, T_co], U], initial: U) -> "Signal[U]":
        """Folds the values with fn(accumulator, value) from `initial`;
        emits the result when this completes. An exception in `fn` becomes
        the stream's error (the rest of the values are not folded).

        After Python stages (map / filter / tap), the fold joins their
        composed chain: each value enters Python once for the stages and
        the fold together, and the result crosses once, at the end."""
        _callable_arg(fn, "reduce")
        if self._stage_source is not None:
            return self._composed_reduce(fn, initial)
        with _InFlight(self) as (pointer,):  # closed: ValueError before retaining anything
            out = Value()
            _put_object(initial, out)
            # The exceptions are recorded (weakly, as everywhere) into the
            # returned signal's failures only: the inner fold signal is held by
            # the library (the stage's upstream, in the registry), and an
            # exception it held, once raised again by the caller (to_list), would
            # hold the caller's frames, and through them this signal: a cycle
            # through the library that the GC never collects.
            failures = _Failures()
            try:
                fold = _Fold(_Callback(fn, failures.recorder()))
                ctx = fold.ctx = _retain_callbacks(fold)
                folded = _new_signal(C.signal_reduce_left, pointer, byref(out), _sp_reduce,
                                     _speedups.hold(fold.cell), _sp_release)
                _set_owner(ctx, folded)
            finally:
                C.value_release(byref(out))
            return folded._stage((_MAP, _raise_failed), failures)

    def _composed_reduce(self, fn: Callable[[U, T_co], U], initial: U) -> "Signal[U]":
        """reduce() after Python stages: per subscription, a filter stage
        that folds each value into that subscription's accumulator (and
        drops it) joins the chain, then the accumulator is emitted once the
        upstream completes. The same rules as the library's fold: every
        accumulator fits int64 (OverflowError ends the stream, the values
        after it are not folded), an exception of fn ends the stream with
        it and is this signal's `exception`."""
        _check_int64(initial)
        upstream = self
        failures = _Failures()
        # start() is held by the library (deferred's callback set): it
        # records through a weak recorder, so that an exception raised again
        # by the caller (its frames holding the returned signal) makes no
        # cycle through the library (see reduce).
        recorder = failures.recorder()

        def start() -> "Signal[U]":
            accumulator = [initial]

            def fold(value: Any) -> bool:
                accumulator[0] = fn(accumulator[0], value)
                _check_int64(accumulator[0])
                return False

            folded: Signal[U] = upstream._stage((_FILTER, fold), recorder)
            return folded.then(Signal.deferred(lambda: Signal.single(accumulator[0])))

        result: Signal[U] = Signal.deferred(start)
        result._failures = failures
        return result

    def map_to_signal(self, fn: Callable[[T_co], Optional["Signal[U]"]]) -> "Signal[U]":
        """Each value mapped to a signal by fn(value) (None: an empty one;
        an exception: one failing with it); only the latest inner signal
        runs (the previous one is disposed once the new one has started): a
        switch-map."""
        return self._with_callback(C.signal_map_to_signal, _c_signal_callback, fn)

    def switch_to_latest(self: "Signal[Signal[U]]") -> "Signal[U]":
        """For a signal of signals (Signal objects as values): the values
        of the latest inner signal. Type checkers accept it only on a
        Signal[Signal[U]]; at run time a value that is not a Signal fails
        the stream."""
        return _new_signal(C.signal_switch_to_latest, self)

    def catch(self, fn: Callable[[BaseException], Optional["Signal[U]"]]) -> "Signal[Union[T_co, U]]":
        """On error, continues with the signal fn(error) returns (None:
        completes; an exception: fails with it)."""
        return self._with_callback(C.signal_catch, _c_signal_callback, _CatchFn(fn))

    def restart(self) -> "Signal[T_co]":
        """Starts this again each time it completes (never completes).

        Each start runs a check in Python first (once per start, nothing
        per value): a signal that completes as soon as it starts
        (Signal.complete(), an empty from_iterable) would otherwise be
        started again for ever inside the library, where no Python code
        runs. The loop stops (this signal is not started again) once a
        KeyboardInterrupt is pending on the thread (Ctrl-C: the subscribe
        call raises it), or once the timeout of a to_list() whose
        subscribe call runs the loop has passed (it raises TimeoutError)."""
        checked = _checked_restarts(self)  # held until the library holds it
        return _new_signal(C.signal_restart, checked)

    def restart_if_error(self) -> "Signal[T_co]":
        """Starts this again each time it fails; each start runs the check
        restart() describes (Ctrl-C or a to_list() timeout ends the loop
        of a signal that fails as soon as it starts)."""
        checked = _checked_restarts(self)  # held until the library holds it
        return _new_signal(C.signal_restart_if_error, checked)

    def retry(self, delay_increment: float, max_delay: float, queue: Optional["Queue"] = None) -> "Signal[T_co]":
        """Starts this again after each error, waiting delay_increment more
        each time (at most max_delay), on `queue`."""
        delay_increment = _seconds_arg(delay_increment, "retry", "delay_increment")
        max_delay = _seconds_arg(max_delay, "retry", "max_delay")
        on = _queue(queue, "retry")  # held through the call: a default queue's only handle
        return _new_signal(C.signal_retry, self, delay_increment, max_delay, on)

    def queue(self: "Signal[Signal[U]]") -> "Signal[U]":
        """For a signal of signals (a Signal[Signal[U]] for type checkers):
        runs them one after the other, each to its end (sk_signal_queue): a
        concat-map."""
        return _new_signal(C.signal_queue, self)

    def throttled(self: "Signal[Signal[U]]") -> "Signal[U]":
        """For a signal of signals (a Signal[Signal[U]] for type checkers):
        runs the first, then only the latest arrived meanwhile
        (sk_signal_throttled)."""
        return _new_signal(C.signal_throttled, self)

    def then(self, next_signal: "Signal[U]") -> "Signal[Union[T_co, U]]":
        """This, then `next_signal` once this completes."""
        return _new_signal(C.signal_then, self, _signal_arg(next_signal, "then"))

    def deliver_on(self, queue: "Queue") -> "Signal[T_co]":
        """Every event delivered on `queue` (e.g. a host queue an event loop
        drains), in batches: one task of the queue delivers the events
        waiting. On a host queue the events that arrive meanwhile wait for
        its next drain(), so that a source emitting faster than the
        callbacks run cannot hold one drain() (or an asyncio loop draining
        its queue) for ever; on other queues the same task delivers them
        too, until none is left."""
        return _new_signal(C.signal_deliver_on, self, _queue_arg(queue, "deliver_on"))

    def run_on(self, queue: "Queue") -> "Signal[T_co]":
        """Starts this (runs its generator) on `queue`."""
        return _new_signal(C.signal_run_on, self, _queue_arg(queue, "run_on"))

    def debounce(self, seconds: float, queue: Optional["Queue"] = None) -> "Signal[T_co]":
        """The latest value once `seconds` pass without a new one, on `queue`.
        The completion flushes the pending value first (`ab|` with a 3-frame
        quiet time gives `--(b|)`); an error drops it (sk_signal_debounce)."""
        seconds = _seconds_arg(seconds, "debounce")
        on = _queue(queue, "debounce")  # held through the call: a default queue's only handle
        return _new_signal(C.signal_debounce, self, seconds, on)

    def throttle(self, seconds: float, queue: Optional["Queue"] = None) -> "Signal[T_co]":
        """At most one value per `seconds`, on the trailing edge: a value
        arriving when no window is open opens one (it is not delivered at
        once), and when the window ends the latest value seen during it is
        delivered. The completion flushes the pending value first, so the
        last value can come less than `seconds` after the one before it
        (`abc-d|` with a 3-frame window gives `---c-(d|)`); an error drops
        it. Every event is delivered on `queue` (sk_signal_throttle)."""
        seconds = _seconds_arg(seconds, "throttle")
        on = _queue(queue, "throttle")  # held through the call: a default queue's only handle
        return _new_signal(C.signal_throttle, self, seconds, on)

    def delay(self, seconds: float, queue: Optional["Queue"] = None) -> "Signal[T_co]":
        """Delays the SUBSCRIPTION, not the values: this signal is started
        `seconds` after each subscription, from a timer on `queue` (by
        default the library's concurrent queue), and its values then pass
        through undelayed, on whatever thread it emits them. A hot source
        (a Pipe, values from an asyncio task or another thread) loses what
        is put before the timer fires; a cold one just starts later.
        Disposing before the timer fires means this is never started. This
        is SwiftSignalKit's delay (sk_signal_delay).

        To delay each value instead, delay a signal per value and play them
        in turn::

            signal.map(lambda v: Signal.single(v).delay(seconds, queue)).queue()

        (each value comes `seconds` after it arrived, or after the value
        before it was delivered when that is later; in an asyncio program
        add ``.deliver_on(asyncio_queue())`` to receive them on the loop's
        thread)."""
        seconds = _seconds_arg(seconds, "delay")
        on = _queue(queue, "delay")  # held through the call: a default queue's only handle
        return _new_signal(C.signal_delay, self, seconds, on)

    def timeout(self, seconds: float, alternate: Optional["Signal[U]"] = None,
                queue: Optional["Queue"] = None) -> "Signal[Union[T_co, U]]":
        """This, or `alternate` (by default a signal failing with
        TimeoutError) if this delivers nothing within `seconds`: this starts
        at once, and if its first event (a value, an error or the
        completion) comes first it passes through untouched; otherwise,
        when the timer on `queue` fires, this is disposed and `alternate`
        is started on `queue` instead. Exactly one of them wins; on a
        virtual-time queue an event of this due when the timer is wins
        (sk_signal_timeout)."""
        seconds = _seconds_arg(seconds, "timeout")
        other = _signal_arg(alternate, "timeout", 2) if alternate is not None else None
        on = _queue(queue, "timeout")  # held through the call: a default queue's only handle
        on.pointer  # closed: raise before making the alternate
        if other is None:  # a new exception per subscription: the library never holds a raised one
            message = f"signalkit: nothing within {seconds} s"
            other = Signal.deferred(lambda: Signal.fail(TimeoutError(message)))
        return _new_signal(C.signal_timeout, self, seconds, on, other)

    def before_next(self, fn: Callable[[T_co], object]) -> "Signal[T_co]":
        """Calls fn(value) before each value goes on (an exception is reported, not delivered)."""
        return self._with_callback(C.signal_before_next, _c_value_callback, fn)

    def after_next(self, fn: Callable[[T_co], object]) -> "Signal[T_co]":
        """Calls fn(value) after each value went on."""
        return self._with_callback(C.signal_after_next, _c_value_callback, fn)

    def before_started(self, fn: Callable[[], object]) -> "Signal[T_co]":
        """Calls fn() at each start, before this starts."""
        return self._with_callback(C.signal_before_started, _c_work_callback, fn)

    def before_completed(self, fn: Callable[[], object]) -> "Signal[T_co]":
        """Calls fn() before the completion goes on."""
        return self._with_callback(C.signal_before_completed, _c_work_callback, fn)

    def after_completed(self, fn: Callable[[], object]) -> "Signal[T_co]":
        """Calls fn() after the completion went on."""
        return self._with_callback(C.signal_after_completed, _c_work_callback, fn)

    def after_disposed(self, fn: Callable[[], object]) -> "Signal[T_co]":
        """Calls fn() once a subscription is disposed (or ended)."""
        return self._with_callback(C.signal_after_disposed, _c_work_callback, fn)

    # --- subscribing -----------------------------------------------------------

    @overload
    def subscribe(self, on_next: Optional[Callable[[T_co], object]] = None,
                  on_error: Optional[Callable[[BaseException], object]] = None,
                  on_completed: Optional[Callable[[], object]] = None) -> Disposable: ...

    @overload
    def subscribe(self, on_next: Union[str, Signature], next_fn: Any = None, on_error: Any = None,
                  on_completed: Any = None, error_signature: Union[str, Signature] = "void(str)",
                  completed_signature: Union[str, Signature] = "void()") -> Disposable: ...

    def subscribe(self, on_next: Any = None, *args: Any, **kwargs: Any) -> Disposable:
        """Starts this signal: on_next(value) for each value, then
        on_error(exception) or on_completed(). Returns the subscription (a
        Disposable; a `with` block disposes it at its end).

        Callbacks run on the thread that delivers the event (the one that
        emitted, or a queue's: see deliver_on). An exception in on_next ends
        the subscription (disposed) and goes to on_error; one in on_error or
        on_completed goes to callback_error_hook. An error value that is not
        an exception arrives as SignalError. Ctrl-C in a callback stops the
        emission and reaches the caller as KeyboardInterrupt.

        Native form: subscribe(next_signature, on_next, on_error,
        on_completed, error_signature="void(str)", completed_signature=
        "void()") with typed callbacks (sk_ffi_signal_start)."""
        if isinstance(on_next, (str, Signature)):
            return self._native_subscribe(on_next, *args, **kwargs)
        if len(args) > 2:
            raise TypeError("subscribe() takes on_next, on_error, on_completed")
        on_error = args[0] if len(args) > 0 else kwargs.pop("on_error", None)
        on_completed = args[1] if len(args) > 1 else kwargs.pop("on_completed", None)
        if kwargs:
            raise TypeError(f"subscribe() got unexpected arguments {sorted(kwargs)}")
        _callable_arg(on_next, "subscribe: on_next", optional=True)
        _callable_arg(on_error, "subscribe: on_error", optional=True)
        _callable_arg(on_completed, "subscribe: on_completed", optional=True)
        return self._subscribe(on_next, on_error, on_completed)

    def _subscribe(self, on_next: Any, on_error: Any, on_completed: Any) -> Disposable:
        base = self._stage_source
        maker = base.maker if base is not None else None  # the stages run in this subscription's own callback
        source = base.upstream if base is not None else self
        source.pointer  # closed: raise before making anything
        failures = _Failures()
        sink = _Sink(maker, on_next, on_error, on_completed, failures.recorder(),
                     base.failures if base is not None else None)
        pointer = None
        try:
            local = _thread_trampoline()
            if source._iterable_source and not local.active:
                local.direct = sink  # taken by its generator, called by this start
            signal = source._enter()  # a call in flight until the start returned: see _Handle
            try:
                pointer = _draining(_start_sink, signal, sink)
            finally:
                source._exit()
        finally:
            _thread_trampoline().direct = None
            disposable = Disposable(pointer)
            disposable._failures = failures
            disposable._callbacks = weakref.ref(sink)
            if pointer:
                _register_subscription(sink.ctx, int(pointer))
            if _interrupts.local.pending is not None:
                # Interrupted while it started: the call fails, leaving nothing running.
                disposable.dispose()
        _after_call()
        return disposable

    def _native_subscribe(self, next_signature: Union[str, Signature], on_next: Any = None, on_error: Any = None,
                          on_completed: Any = None, error_signature: Union[str, Signature] = "void(str)",
                          completed_signature: Union[str, Signature] = "void()") -> Disposable:
        with _InFlight(self) as (pointer,):  # closed: ValueError before retaining anything
            gate = _Gate()  # closed by dispose(): the Python callables below are called no more
            keep: List[Any] = [gate]
            failures = _Failures()
            observer = _FfiObserver()
            for slot, spec, fn in (("next", next_signature, on_next), ("error", error_signature, on_error),
                                   ("completed", completed_signature, on_completed)):
                if fn is None:
                    continue
                signature = _signature(spec)
                native = _native(signature, fn, slot, failures.recorder(), gate)
                keep += [signature, native]
                setattr(observer, slot + "_signature", signature.pointer)
                setattr(observer, slot, _fn_address(native))
            ctx = _retain_callbacks(_NativeSet(*keep))
            observer.ctx = ctx
            observer.release = _release_ctx
            out = c_void_p()
            # The signatures' pointers are in the observer: each is counted in
            # flight too (a Signature the caller gave may be closed meanwhile).
            with _InFlight(*[item for item in keep if isinstance(item, Signature)]):
                status = _draining(C.ffi_signal_start, byref(out), pointer, byref(observer))
            disposable = None
            if status == 0:
                _register_subscription(ctx, int(out.value or 0))
                disposable = Disposable(out.value)
                disposable._failures = failures
                disposable._callbacks = weakref.ref(gate)
            if _interrupts.local.pending is not None:
                # Interrupted while it started: the call fails, leaving nothing running.
                if disposable is not None:
                    disposable._call(C.disposable_dispose)
                    disposable._drop()
                _interrupts.raise_pending()
            _check(status, ffi=True)
            assert disposable is not None
            return disposable

    # --- asyncio --------------------------------------------------------------

    def __await__(self) -> Generator[Any, None, T_co]:
        """`await signal`: its first value, delivered on the running loop
        (the subscription is disposed then). LookupError if it completes
        without a value; its error is raised. So `await s.first()` and
        `await s.last()`."""
        from ._asyncio import first_value
        return first_value(self).__await__()

    def __aiter__(self) -> "SignalIterator[T_co]":
        """`async for value in signal`: its values, delivered on the running
        loop (buffered until read); the loop ends at its completion, raises
        its error, and disposes the subscription when left early. The
        SignalIterator it returns has aclose(), which disposes it at once."""
        from ._asyncio import SignalIterator
        return SignalIterator(self)

    def first(self) -> "Signal[T_co]":
        """The first value, then completes (take(1)); `await s.first()`."""
        return self.take(1)

    def to_list(self, timeout: Optional[float] = None) -> List[T_co]:
        """Subscribes and blocks until the end: the values as a list, or the
        error raised. TimeoutError (and the subscription disposed) once
        `timeout` seconds have passed since the call, when given. Not on a
        thread whose queue delivers it (a host queue this thread drains
        would never run).

        The timeout applies to the wait for the end, after the subscribe
        call returned: a synchronous emission that the subscribe call runs
        (a from_iterable of an endless iterator with no take, a library
        operator looping inside its start) is not cut short by it, as no
        waiting happens until it returns; Ctrl-C stops those. The one
        exception is restart() / restart_if_error(), whose loop checks the
        deadline at each start and stops, so that the TimeoutError is
        raised in time.

        Inside a callback of a synchronous emission (on_next of a
        from_iterable, a Pipe.put, another to_list...), the synchronous
        sources this call starts run right here, inside the callback (this
        thread's trampoline, which otherwise runs them after the current
        emission returns, is set aside while it waits): nested to_list
        calls return their lists. It still blocks for good if the signal
        waits for something only this thread would do after the callback
        returns (a later put of the outer emission): give a timeout."""
        wait: Optional[float] = None
        if timeout is not None:
            wait = _seconds_arg(timeout, "to_list", "timeout")
            if wait == float("inf"):
                wait = None
        deadline = None if wait is None else time.monotonic() + wait
        values: List[T_co] = []
        errors: List[BaseException] = []
        done = threading.Event()

        def on_error(error: BaseException) -> None:
            errors.append(error)
            done.set()

        # Inside a draining call of this thread (a callback of a synchronous
        # emission), the emissions this subscription schedules would wait in
        # the trampoline's jobs until that call returns, and this wait would
        # never end: the subscription drains a trampoline of its own.
        local = _thread_trampoline()
        outer_jobs = local.jobs if local.active else None
        if outer_jobs is not None:
            local.jobs, local.active = collections.deque(), False
        # The deadline also stops a restart() loop that its subscribe call
        # runs (a signal completing at once, started again for ever).
        sync = _sync_deadline
        outer_deadline = sync.at
        if deadline is not None and (outer_deadline is None or deadline < outer_deadline):
            sync.at = deadline
        try:
            try:
                subscription = self.subscribe(values.append, on_error, done.set)
            finally:
                sync.at = outer_deadline
            with subscription:
                if not done.wait(None if deadline is None else max(deadline - time.monotonic(), 0.0)):
                    raise TimeoutError(f"signalkit: to_list: no end within {timeout} s")
        finally:
            if outer_jobs is not None:
                local.jobs, local.active = outer_jobs, True
        del self  # an error the library holds (Signal.fail's) is raised: its frames must not hold the signal
        if errors:
            error = errors.pop()  # no cycle: this frame, in its traceback, no longer holds it
            try:
                raise error
            finally:
                del error
        return values


class _SyncDeadline(threading.local):
    """The deadline (time.monotonic()) of the to_list() whose subscribe
    call runs on this thread (None: none), read by restart()'s check."""
    at: Optional[float] = None


_sync_deadline = _SyncDeadline()


def _checked_restarts(signal: Signal[T]) -> Signal[T]:
    """`signal` behind a deferred whose function (one Python call per
    start) gives it, or, once a KeyboardInterrupt is pending on the thread
    or the deadline of the running to_list() has passed, a signal that
    never ends: restart / restart_if_error then stop starting it, and the
    call that started the loop returns (and raises the interrupt, or
    to_list its TimeoutError). Running Python code there also lets the
    SIGINT handler run (the package's, which defers the interrupt)."""
    signal.pointer  # closed: ValueError at the call, not at each start of the loop
    pending, deadline = _interrupts.local, _sync_deadline

    def start() -> Signal[T]:
        at = deadline.at
        if pending.pending is not None or (at is not None and time.monotonic() >= at):
            return Signal.never()
        return signal

    return Signal.deferred(start)


def _subscribe_signature(self: Any, on_next: Optional[Callable[[Any], object]] = None,
                         on_error: Optional[Callable[[BaseException], object]] = None,
                         on_completed: Optional[Callable[[], object]] = None, *native_args: Any,
                         **native_options: Any) -> Disposable:
    """What inspect.signature and help() show for Signal.subscribe (its
    overloads are what type checkers see)."""
    raise NotImplementedError


# Signal.subscribe takes *args (the native form maps its positions
# otherwise): inspect.signature / help() show the Pythonic parameters.
setattr(Signal.subscribe, "__signature__", inspect.signature(_subscribe_signature))


# --------------------------------------------------------------------------
# Timers
# --------------------------------------------------------------------------

class _Timer:
    """The create() function of interval / timer: a library timer that
    emits 0, 1, 2, ... (once for timer, then completes)."""

    def __init__(self, seconds: float, queue: Optional["Queue"], repeat: bool) -> None:
        self.seconds = _seconds_arg(seconds, "interval" if repeat else "timer")
        self.queue = _queue(queue, "interval" if repeat else "timer")
        self.queue.pointer  # closed: ValueError at the call, as deliver_on's, not at each start
        self.repeat = repeat

    def __call__(self, subscriber: Subscriber[int]) -> Callable[[], None]:
        count = [0]

        def fire() -> None:
            subscriber.on_next(count[0])
            count[0] += 1
            if not self.repeat:
                subscriber.on_completed()

        with _InFlight(self.queue) as (queue,):  # closed: ValueError before retaining anything
            ctx = _retain_callbacks(_Callback(fire, _Failures()))
            out = c_void_p()
            _check(C.timer_start(byref(out), queue, self.seconds, self.repeat, _c_work_callback, ctx, _release_ctx))
            timer = Disposable(out.value)
            return timer.dispose


# --------------------------------------------------------------------------
# Pipes, promises, queues
# --------------------------------------------------------------------------

_pipe_put = C.pipe_put
# A value of the library's own kinds goes in through the extension (the GIL
# kept: the callbacks the put runs on this thread cost no GIL switch);
# NotImplemented for any other object, carried by reference here.
_fast_pipe_put = _speedups.pipe_put


def _put_by_reference(function: Any, pointer: int, value: object) -> int:
    """function(pointer, value) through ctypes, for an object the extension
    does not convert (carried by reference, or a Signal)."""
    out = Value()
    _put_object(value, out)
    try:
        status: int = function(pointer, byref(out))
    finally:
        if out.kind > KIND_DOUBLE:  # nil, bool, int64 and double hold nothing to release
            C.value_release(byref(out))
    return status


class Pipe(Generic[T], _Handle):
    """A hot source: put(value) reaches the current subscribers of
    signal(), on the putting thread. With replay=True a new subscriber
    first receives the latest value put. A handle (a reference to a library
    object): copy.copy and copy.deepcopy return it itself; pickling raises
    TypeError."""
    _release = staticmethod(C.pipe_release)

    def __init__(self, replay: bool = False) -> None:
        """A new pipe (sk_pipe_create); `replay`: see the class."""
        pointer = c_void_p()
        _check(C.pipe_create(byref(pointer), replay))
        super().__init__(pointer.value)

    def put(self, value: T) -> None:
        """Delivers `value` to the current subscribers, on this thread
        (their callbacks run before put returns)."""
        # The extension's put (_speedups.c, pipe_method_put, installed
        # below as Pipe.put) does the common case without this frame: the
        # outermost put of a value of the library's kinds. This is the rest.
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

    def signal(self) -> Signal[T]:
        """The signal of the values put from now on."""
        return _new_signal(C.pipe_signal, self)

    def _drop(self) -> None:
        # The extension's puts (Pipe.put's common case) do not count
        # themselves in _calls (its cost per put): the ones in flight on
        # this pipe are found here and join it, once the pointer is cleared
        # (no put can start after that), before the release check.
        self._pointer = None
        if self._calls is not None:  # else __init__ never ran
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
        pointer = c_void_p()
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
        pointer = c_void_p()
        try:
            _check(C.value_promise_create(byref(pointer), byref(out), ignore_repeated))
        finally:
            C.value_release(byref(out))
        super().__init__(pointer.value)

    def set(self, value: T) -> None:
        """Sets the value: the subscribers of get() receive it on this thread."""
        out = Value()
        _put_object(value, out)
        try:
            pointer = self._enter()  # a call in flight until the set returned: see _Handle
            try:
                status = _draining(C.value_promise_set, pointer, byref(out))
            finally:
                self._exit()
        finally:
            C.value_release(byref(out))
        _after_call()
        _check(status)

    def get(self) -> Signal[T]:
        """The current value, then each new one."""
        return _new_signal(C.value_promise_get, self)


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
    library's threads), Queue.concurrent() (the library's thread pool),
    Queue.host() (runs only when drained: drain() from an event loop,
    which watches fileno(); see signalkit.asyncio_queue). A handle (a
    reference to a library object): copy.copy and copy.deepcopy return it
    itself; pickling raises TypeError."""
    _release = staticmethod(C.queue_release)

    @classmethod
    def host(cls, name: str = "python") -> "Queue":
        """A host-drained queue: its work runs on the thread that calls drain()."""
        pointer = c_void_p()
        _check(C.queue_create_host(byref(pointer), _name_arg(name, "Queue.host")))
        return cls(pointer.value)

    @classmethod
    def serial(cls, name: str = "python") -> "Queue":
        """A serial queue whose work runs in order, one task at a time, on
        library-managed threads.

        It has no thread of its own: it runs on the worker threads every
        serial and concurrent queue shares, whose limits are the C library's
        ("Refused resources" in signalkit.h's conventions; README.md,
        "Threads and asyncio"). Run work that blocks for long on threads of
        your own, or on a host queue drained there."""
        pointer = c_void_p()
        _check(C.queue_create(byref(pointer), _name_arg(name, "Queue.serial")))
        return cls(pointer.value)

    @classmethod
    def concurrent(cls, background: bool = False) -> "Queue":
        """The library's concurrent queue (a thread pool; `background`: the
        low-priority one). Its first work in a process raises
        SignalKitError (SK_ERR_RESOURCE) when the system refuses a
        descriptor (README.md, "Threads and asyncio")."""
        pointer = c_void_p()
        _check((C.queue_concurrent_background if background else C.queue_concurrent_default)(byref(pointer)))
        return cls(pointer.value)

    def fileno(self) -> int:
        """A host queue's descriptor: readable while work is pending."""
        fd = c_int()
        _check(self._call(C.queue_host_fd, byref(fd)))
        return fd.value

    def drain(self, max_tasks: int = 0) -> int:
        """Runs a host queue's pending work on the calling thread (at most
        max_tasks; 0: all); returns how many ran. TypeError unless
        max_tasks is an int, ValueError when negative, OverflowError at
        2**64 or above (never wrapped)."""
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
        queue, at the next drain()). An exception goes to
        callback_error_hook (where "work"). TypeError at the call unless
        `fn` is callable.

        From elsewhere this is sk_queue_async; from a job of the same queue
        (where sk_queue_async, as SwiftSignalKit's Queue.async, would run
        fn() inline) it is sk_queue_after with no delay, which enqueues it:
        then, as for the process's first timer, the first such call of a
        process raises SignalKitError (SK_ERR_RESOURCE) when no descriptor
        is left for libdispatch's timers (README, "Threads and asyncio")."""
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
        one.
        """
        return bool(self._call(C.queue_is_current))


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


# --------------------------------------------------------------------------
# Trampolines
# --------------------------------------------------------------------------

class Trampoline(_Handle):
    """A real C function pointer of a described signature ("void(i64)")
    that puts its arguments into a pipe or a subscriber. A handle (a
    reference to a library object): copy.copy and copy.deepcopy return it
    itself; pickling raises TypeError. Its function is valid while the
    handle lives, and from interpreter exit on until the process ends (the
    exit hook keeps every live trampoline: C threads may still call it)."""
    _release = staticmethod(C.ffi_trampoline_release)

    def __init__(self, target: Union[Pipe[Any], Subscriber[Any], int], signature: Union[str, Signature]) -> None:
        """A trampoline putting into `target` (a Pipe, the Subscriber a
        create() function receives, or an sk_subscriber's address from C)
        with the function type `signature` (void result, no ctx). The
        trampoline holds its target until it is detached or released."""
        if not isinstance(target, (Pipe, Subscriber)) and (isinstance(target, bool) or not isinstance(target, int)):
            raise TypeError(f"signalkit: Trampoline: the target is {type(target).__name__}, not a Pipe, a "
                            "Subscriber or a subscriber's address (int)")
        self.signature: Optional[Signature] = None
        """The function type of the trampoline (None once released)."""
        self.signature = _signature(signature)
        pointer = c_void_p()
        if isinstance(target, Pipe):
            _check(_call_with(C.ffi_trampoline_pipe, byref(pointer), target, self.signature), ffi=True)
        else:  # a Subscriber, or a raw sk_subscriber * (int), e.g. from a C generator
            _check(_call_with(C.ffi_trampoline_subscriber, byref(pointer), target, self.signature), ffi=True)
        super().__init__(pointer.value)
        _core._called_by_c.add(self)  # C may call its function until the process ends: kept at exit

    def _keep_for_exit(self) -> int:
        """At interpreter exit (the package's atexit hook): a reference to
        the C trampoline that is never released, so that a C thread may
        call its function until the process ends, also once this handle is
        collected; its address. ValueError once closed."""
        return int(self._call(C.ffi_trampoline_retain))

    @property
    def address(self) -> int:
        """The function's address, to hand to a C API."""
        return int(self._call(C.ffi_trampoline_function))

    def function(self) -> Callable[..., Any]:
        """The function as a Python callable (calls go through C): integer
        arguments are checked against their native types first, and f32 and
        f64 ones as a native callback's result (an int within +-2^24 or
        +-2^53, a finite float within the f32 range: OverflowError, never
        wrapped, rather than rounded or made infinite), and a KeyboardInterrupt met by the
        callbacks a call runs is raised when it returns.

        The callable keeps this Trampoline alive (dropping the Trampoline
        and its Pipe leaves it usable), and each call holds a reference of
        its own to the C trampoline while it runs; once the Trampoline was
        closed, calling it raises ValueError ("Trampoline is closed"),
        never a jump into freed memory."""
        signature = self.signature  # None once closed (_drop)
        if signature is None:
            raise ValueError("Trampoline is closed")
        cfunc = signature.cfunctype()(self.address)
        checks = [(i, kind) + _integer_ranges[kind] for i, kind in enumerate(signature.args)
                  if kind in _integer_ranges]
        # f32 and f64 arguments as the results of native callbacks: ctypes
        # would round an int (2^24 + 1 as an f32) and make a finite float
        # beyond the largest f32 infinite.
        reals = [(i, kind) for i, kind in enumerate(signature.args) if kind in ("f32", "f64")]
        trampoline = self  # kept alive by the callable: its function is valid while it lives

        def call(*args: Any) -> Any:
            for i, kind, low, high in checks:
                if i < len(args) and isinstance(args[i], int) and not low <= args[i] <= high:
                    raise OverflowError(f"signalkit: {args[i]} out of range of {kind} (argument {i})")
            for i, kind in reals:
                if i < len(args) and isinstance(args[i], (int, float)):
                    try:
                        _native_result(kind, args[i])
                    except OverflowError as e:
                        raise OverflowError(f"signalkit: {e} (argument {i})") from None
            # Counted as a call in flight on the trampoline (_Handle._enter)
            # across the whole ffi call, so that a close() meanwhile (on
            # another thread, or by a callback the call runs) releases it
            # only once the call returned: never inside the call, nor between
            # the check and the jump (a close() there used to drop the last
            # reference first: the call jumped into the freed closure, and
            # libffi aborted). The count replaced a lock and a retain and
            # release of the call's own around each call.
            trampoline._enter()  # ValueError ("Trampoline is closed") once closed
            try:
                result = _draining(cfunc, *args)
            finally:
                trampoline._exit()
            _after_call()
            return result

        call.cfunc = cfunc  # type: ignore[attr-defined]
        return call

    @property
    def calls(self) -> int:
        """How many times the function was called."""
        return int(self._call(C.ffi_trampoline_calls))

    def detach(self) -> None:
        """sk_ffi_trampoline_close: later calls do nothing."""
        self._call(C.ffi_trampoline_close)

    def _drop(self) -> None:
        super()._drop()
        signature, self.signature = getattr(self, "signature", None), None
        if signature is not None:
            signature._drop()


# A KeyboardInterrupt never lands inside a handle's call count or release
# (_core._Interrupts.CRITICAL_CODES).
_interrupts.CRITICAL_CODES.update(code.__code__ for code in (
    _Handle._enter, _Handle._exit, _Handle._free, _Handle._drop, _enter_args, _exit_all, _InFlight.__enter__,
    _InFlight.__exit__, Signal._drop, Pipe._drop, Trampoline._drop, Subscriber.on_next))


__all__ = ["Signal", "Subscriber", "Disposable", "Pipe", "Promise", "ValuePromise", "Queue", "Signature",
           "Trampoline"]
