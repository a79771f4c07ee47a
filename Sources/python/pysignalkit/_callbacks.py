"""the Python functions the library's
operators call (take_until's, reduce's, map_to_signal's, catch's,
deferred's, the side effects'), each entered through the extension under
the exit rules, and the C function pointers of them."""

from __future__ import annotations

import ctypes
import operator
import sys
from ctypes import byref
from typing import Any, Callable, List, Optional, Tuple, Union

from . import _core, _speedups
from ._core import (C, TAKE_COMPLETE, TAKE_PASS, Value, _deferred_fn, _drop_fn, _map_fn, _predicate_fn,
                    _detach_traceback, _Failures, _interrupts, _next_fn, _put_object, _Recorder, _reduce_fn,
                    _release_ctx_function, _report, _signal_fn, _state, _take_until_fn, _trim_traceback, _ValueP,
                    _work_fn)
from ._handle import _Handle
from ._subscription import _as_error, _fail_call, _sp_release

# --- callbacks of the library's operators -------------------------------------

class _Callback:
    """A Python function an operator of the library calls (reduce,
    take_until, map_to_signal, catch, deferred, side effects)."""
    __slots__ = ("fn", "failures")

    def __init__(self, fn: Callable[..., Any], failures: Union[_Failures, _Recorder]) -> None:
        self.fn = fn
        self.failures = failures


class _EncodeCallback(_Callback):
    """An encoder (pysignalkit.nats.publish's `encode`): an sk_map_fn's
    function that crosses as group_by's key does, its failure named
    "encode"."""
    __slots__ = ()


class _SharedDropCallback(_Callback):
    """A function and an on_drop that share one context: the bounded
    merge_map's, whose C function (sk_signal_merge_map_bounded) gives its
    signal function and its drop callback the same ctx."""
    __slots__ = ("on_drop",)

    def __init__(self, fn: Callable[..., Any], failures: Union[_Failures, _Recorder],
                 on_drop: Callable[[Any, int], object]) -> None:
        super().__init__(fn, failures)
        self.on_drop = on_drop


def _callback_raised(callback: _Callback, exc: BaseException, where: str) -> bool:
    """Records `exc`; True when it is a KeyboardInterrupt deferred to the
    caller (nothing to report), False for an exception to pass on."""
    _trim_traceback(exc)
    _detach_traceback(exc, where)  # kept (as an error value, an accumulator): no frames
    callback.failures.record(exc)
    return isinstance(exc, KeyboardInterrupt) and _interrupts.defer(exc)


def _owned_signal(result: object) -> Optional[int]:
    """A signal returned by a user's function, +1 for the library (None:
    an empty signal)."""
    if result is None:
        return None
    if not isinstance(result, _Handle) or not getattr(type(result), "_signal_value", False):  # not a Signal
        raise TypeError(f"signalkit: the function returned {type(result).__name__}, not a Signal")
    return int(result._call(C.signal_retain))


def _signal_callback(ctx: int, value: Any) -> Optional[int]:
    _sk_user = False
    callback = _core._keep.get(ctx)
    if callback is None or _state.closing or sys.is_finalizing():
        return None
    try:
        fn, argument = callback.fn, value
        if fn.__class__ is _CatchFn:  # called itself: no frame of the package in its traceback
            if _interrupts.local.pending is not None:
                # The error of an emission a KeyboardInterrupt stopped: not
                # the handler's to turn into a fallback; it goes on as it is.
                _pass_error(value)
                return None
            fn, argument = fn.fn, _as_error(value)
        _sk_user = True
        result = fn(argument)
        _sk_user = False
        return _owned_signal(result)
    except BaseException as exc:
        _sk_user = False
        _fail_call(callback.failures, exc, "signal")  # the library makes it a signal failing with exc
        return None


def _pass_error(error: object) -> None:
    """Fails the running operator callback (catch's) with `error`, the
    error it received, unchanged."""
    value = Value()
    _put_object(error, value)
    try:
        C.callback_fail(byref(value))
    finally:
        C.value_release(byref(value))


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
        _fail_call(callback.failures, exc, "deferred")  # the library makes it a signal failing with exc
        return None


class _Fold:
    """A fold's function (reduce's, scan's: `where`), called by the
    extension (_speedups_src/fold.c, on_reduce) with the accumulator and the
    value; these methods are its other ends."""
    __slots__ = ("callback", "where", "ctx", "cell", "__weakref__")

    def __init__(self, callback: _Callback, where: str) -> None:
        self.callback = callback
        self.where = where
        self.ctx = 0
        self.cell: List[Any] = [callback.fn, self]

    def reduce_failed(self, exc: BaseException) -> None:
        """The function (or the conversion of its result) raised `exc`: it
        fails the fold's call (_fail_call), the stream's error, named after
        the fold for callback_error_hook."""
        _fail_call(self.callback.failures, exc, self.where)

    def put_into(self, result: object, address: int) -> None:
        """An accumulator carried by reference, written into the out value."""
        _put_object(result, ctypes.cast(address, _ValueP).contents)

    def released(self) -> None:
        """The library let go of the function."""
        _release_ctx_function(self.ctx)
        self.cell[1] = None  # no cycle left


_sp_reduce = _reduce_fn(_speedups.REDUCE)
_sp_fold_release = _sp_release  # the observer's: a fold's list [fn, fold] is of its shape (observer.c, hold)


def _take_action(result: object) -> int:
    """take_until's function's result, checked: an int from 0 to
    TAKE_PASS | TAKE_COMPLETE (3); TypeError / ValueError otherwise (never
    truncated nor wrapped). A bool is refused too (True would be TAKE_PASS:
    a condition written as the function would never complete)."""
    if isinstance(result, bool):
        raise TypeError("signalkit: take_until: the function returned bool, not an int (a bitwise OR of "
                        "TAKE_PASS and TAKE_COMPLETE: TAKE_PASS | TAKE_COMPLETE to take a value and complete)")
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
        _fail_call(callback.failures, exc, "take_until")  # the answer is ignored
        return 0


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


def _predicate_callback(ctx: int, value: Any) -> bool:
    _sk_user = False
    callback = _core._keep.get(ctx)
    if callback is None or _state.closing or sys.is_finalizing():
        return False
    try:
        _sk_user = True
        result = callback.fn(value)
        _sk_user = False
        return bool(result)
    except BaseException as exc:
        _sk_user = False
        _fail_call(callback.failures, exc, "predicate")  # the answer is ignored
        return False


def _key_callback(ctx: int, argument: Any) -> None:
    _sk_user = False
    callback = _core._keep.get(ctx)
    if callback is None or _state.closing or sys.is_finalizing():
        return
    value, address = argument
    try:
        _sk_user = True
        key = callback.fn(value)
        _sk_user = False
        _put_object(key, ctypes.cast(address, _ValueP).contents)
    except BaseException as exc:
        _sk_user = False
        # The library ends the result and every group delivered before
        # with exc (and releases the out value).
        if isinstance(callback, _EncodeCallback):
            _fail_call(callback.failures, exc, "encode")
        else:
            _fail_call(callback.failures, exc, "group_by")


def _tell_drop(on_drop: Callable[[Any, int], object], value: Any, dropped: int) -> None:
    """on_drop(value, dropped), `value` already an object; an exception it
    raises goes to callback_error_hook under "on_drop" (a KeyboardInterrupt
    to the caller instead, when there is one: as a side effect's)."""
    _sk_user = False
    try:
        _sk_user = True
        on_drop(value, dropped)
        _sk_user = False
    except BaseException as exc:
        _sk_user = False
        _trim_traceback(exc)
        if not (isinstance(exc, KeyboardInterrupt) and _interrupts.defer(exc)):
            _report(exc, "on_drop")
        _detach_traceback(exc, "on_drop")  # it keeps no frame (nor the handles they hold)


def _drop_callback(ctx: int, argument: Tuple[Any, int]) -> None:
    """A bounded buffer dropped a value: its on_drop(value, dropped) is
    told, on the thread that dropped it. `argument` is (the value, the
    count), made by the extension (_speedups.operator("drop"))."""
    callback = _core._keep.get(ctx)
    if callback is None or _state.closing or sys.is_finalizing():
        return
    _tell_drop(callback.fn, argument[0], argument[1])


def _shared_drop_callback(ctx: int, argument: Tuple[Any, int]) -> None:
    """The same for a context shared with a function (_SharedDropCallback):
    its on_drop is told."""
    callback = _core._keep.get(ctx)
    if not isinstance(callback, _SharedDropCallback) or _state.closing or sys.is_finalizing():
        return
    _tell_drop(callback.on_drop, argument[0], argument[1])


_c_drop_callback = _drop_fn(_speedups.operator("drop", _drop_callback))
_c_shared_drop_callback = _drop_fn(_speedups.operator("shared_drop", _shared_drop_callback))
_c_predicate_callback = _predicate_fn(_speedups.operator("predicate", _predicate_callback))
_c_key_callback = _map_fn(_speedups.operator("key", _key_callback))
_c_signal_callback = _signal_fn(_speedups.operator("signal", _signal_callback))
_c_deferred_callback = _deferred_fn(_speedups.operator("deferred", _deferred_callback))
_c_take_until_callback = _take_until_fn(_speedups.operator("take_until", _take_until_callback))
_c_value_callback = _next_fn(_speedups.operator("value", _value_callback))
_c_work_callback = _work_fn(_speedups.operator("work", _work_callback))
for _operator_callback in (_tell_drop, _drop_callback, _shared_drop_callback, _signal_callback,
                           _deferred_callback, _Fold.reduce_failed, _Fold.put_into, _Fold.released,
                           _take_until_callback,
                           _value_callback, _work_callback, _predicate_callback, _key_callback):
    _interrupts.THUNK_CODES.add(_operator_callback.__code__)


# --------------------------------------------------------------------------
