"""The Meta family of Signal's operators: signals of signals: deferred, map_to_signal, switch_to_latest, queue, throttled, then, ignore_values. The same family as
the Swift core's Signal_Meta.swift and the C layer's Operators_Meta.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar, Union

from .._callbacks import _c_deferred_callback, _c_signal_callback, _Callback
from .._core import C, _Failures, _release_ctx, _retain_callbacks, _set_owner
from .._handle import _callable_arg
from .._signal_core import _new_signal, _signal_arg, _SignalCore

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _MetaOperators(_SignalCore[T_co]):
    """Signal's Meta operators (mixed into signalkit.Signal)."""

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

    def ignore_values(self) -> "Signal[Any]":
        """Only the end: no value, then the completion or the error."""
        return _new_signal(C.signal_ignore_values, self)

    def map_to_signal(self, fn: Callable[[T_co], Optional["Signal[U]"]]) -> "Signal[U]":
        """Each value mapped to a signal by fn(value) (None: an empty one;
        an exception: one failing with it); only the latest inner signal
        runs (the previous one is disposed once the new one has started): a
        switch-map."""
        return self._with_callback(C.signal_map_to_signal, _c_signal_callback, fn)

    def switch_to_latest(self: "_SignalCore[Signal[U]]") -> "Signal[U]":
        """For a signal of signals (Signal objects as values): the values
        of the latest inner signal. Type checkers accept it only on a
        Signal[Signal[U]]; at run time a value that is not a Signal fails
        the stream."""
        return _new_signal(C.signal_switch_to_latest, self)

    def queue(self: "_SignalCore[Signal[U]]") -> "Signal[U]":
        """For a signal of signals (a Signal[Signal[U]] for type checkers):
        runs them one after the other, each to its end (sk_signal_queue): a
        concat-map."""
        return _new_signal(C.signal_queue, self)

    def throttled(self: "_SignalCore[Signal[U]]") -> "Signal[U]":
        """For a signal of signals (a Signal[Signal[U]] for type checkers):
        runs the first, then only the latest arrived meanwhile
        (sk_signal_throttled)."""
        return _new_signal(C.signal_throttled, self)

    def then(self, next_signal: "Signal[U]") -> "Signal[Union[T_co, U]]":
        """This, then `next_signal` once this completes."""
        return _new_signal(C.signal_then, self, _signal_arg(next_signal, "then"))
