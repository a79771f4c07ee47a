"""Handles over
library objects (_Handle: counted calls in flight, close, copy and pickling
rules), Disposable, the per-thread trampoline that runs synchronous
emissions after the start that asked for them, and the checks of plain
arguments. Imports only _core."""

from __future__ import annotations

import operator
import weakref
from ctypes import byref, c_void_p
from typing import Any, Callable, Dict, List, NoReturn, Optional, SupportsIndex, Tuple

from . import _speedups
from ._core import C, Value, _after_call, _Failures, _interrupts, _put_object, _state


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
        """A handle owning one reference to the library object at `pointer`.

        For the package and for bindings that hold a C handle of their own
        (a `+1` reference, as signalkit.h hands them out): user code makes
        handles with the class methods (`Signal.single`, `Pipe()`, ...). An
        address that is no such reference is not checked unless handle
        checking is on (`SIGNALKIT_CHECK_HANDLES=1`): the process may
        crash at its first use."""
        # The calls in flight (see _enter), and the reference to release,
        # deleted (atomic under the GIL) by whoever releases it.
        self._calls = []
        if pointer:
            self._owned = pointer
        self._pointer = pointer
        _state.used = True  # a fork's child refuses the library from now on (_core._after_fork)
        if not _interrupts.installed:
            _interrupts.install()  # while library objects are alive (_Interrupts.handler)

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

    def _put_value(self, function: Any, obj: object) -> int:
        """function(pointer, &value) with `obj` made a value (released once
        the call returned), counted in flight (see _enter), the emissions it
        scheduled run (_draining); then _after_call(). Its status."""
        value = Value()
        _put_object(obj, value)
        try:
            pointer = self._enter()
            try:
                status: int = _draining(function, pointer, byref(value))
            finally:
                self._exit()
        finally:
            C.value_release(byref(value))
        _after_call()
        return status

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
                callbacks.cancel()  # under the GIL: no callback of this subscription starts from here on
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
# extension's type (_speedups_src/pipe.c), so that Pipe.put reads and sets
# it from C.
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




# Arguments: a wrong type is a TypeError at the call (never an
# AttributeError, nor a failure later on a library thread).

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



# A KeyboardInterrupt never lands inside a handle's call count or release
# (_core._Interrupts.CRITICAL_CODES).
_interrupts.CRITICAL_CODES.update(code.__code__ for code in (
    _Handle._enter, _Handle._exit, _Handle._free, _Handle._drop, _enter_args, _exit_all, _InFlight.__enter__,
    _InFlight.__exit__))
