"""The Reduce family of Signal's operators: reduce. The same family as
the Swift core's Signal_Reduce.swift and the C layer's Operators_Reduce.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, TypeVar

from ctypes import byref

from .. import _speedups
from .._callbacks import _Callback, _Fold, _sp_fold_release, _sp_reduce
from .._core import C, Value, _Failures, _put_object, _retain_callbacks
from .._handle import _callable_arg, _InFlight
from .._signal_core import _new_signal, _signal_class
from .._standard_operators import _ReduceStandard
from .._subscription import _check_value, _REDUCE

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _ReduceOperators(_ReduceStandard[T_co]):
    """Signal's Reduce operators (mixed into pysignalkit.Signal)."""

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
        return self._fold(C.signal_reduce_left, fn, initial, "reduce")

    def _composed_reduce(self, fn: Callable[[U, T_co], U], initial: U) -> "Signal[U]":
        """reduce() after Python stages: per subscription, a stage that
        folds each value into that subscription's accumulator (and drops it,
        as a filter would; named "reduce") joins the chain, then the accumulator is emitted once the
        upstream completes. The same rules as the library's fold: every
        accumulator fits int64 (OverflowError ends the stream, the values
        after it are not folded), an exception of fn ends the stream with
        it and is this signal's `exception`."""
        _check_value(initial)
        upstream = self
        failures = _Failures()
        # start() is held by the library (deferred's callback set): it
        # records through a weak recorder, so that an exception raised again
        # by the caller (its frames holding the returned signal) makes no
        # cycle through the library (see _fold).
        recorder = failures.recorder()

        def start() -> "Signal[U]":
            accumulator = [initial]

            def fold(value: Any) -> bool:
                accumulator[0] = fn(accumulator[0], value)
                _check_value(accumulator[0])
                return False

            folded: Signal[U] = upstream._stage((_REDUCE, fold), recorder)
            return folded.then(_signal_class().deferred(lambda: _signal_class().single(accumulator[0])))

        result: Signal[U] = _signal_class().deferred(start)
        result._failures = failures
        return result

    def scan(self, fn: Callable[[U, T_co], U], initial: U) -> "Signal[U]":
        """Each accumulator fn(accumulator, value) from `initial`, emitted
        at each value (RxPY's scan(accumulator, seed)): reduce's running
        total. An exception in `fn` ends the stream with it
        (sk_signal_scan)."""
        _callable_arg(fn, "scan")
        return self._fold(C.signal_scan, fn, initial, "scan")

    def _fold(self, function: Any, fn: Callable[[U, T_co], U], initial: U, where: str) -> "Signal[U]":
        """The library's fold `function` (sk_signal_reduce_left,
        sk_signal_scan; `where`: its name) with fn(accumulator, value) from
        `initial`, whose exceptions end the stream (raised again by
        to_list): the extension fails the fold's call with the function's
        exception (sk_callback_fail), which the library makes the stream's
        error at once."""
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
                fold = _Fold(_Callback(fn, failures.recorder()), where)
                ctx = fold.ctx = _retain_callbacks(fold)
                result = _new_signal(function, pointer, byref(out), _sp_reduce, _speedups.hold(fold.cell),
                                     _sp_fold_release)
            finally:
                C.value_release(byref(out))
            result._failures = failures
            return result
