"""The SideEffects family of Signal's operators: tap and the side effects before_next ... after_disposed. The same family as
the Swift core's Signal_SideEffects.swift and the C layer's Operators_SideEffects.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, TypeVar

from .._callbacks import _c_value_callback, _c_work_callback
from .._core import C
from .._handle import _callable_arg
from .._signal_core import _SignalCore
from .._subscription import _TAP

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _SideEffectsOperators(_SignalCore[T_co]):
    """Signal's SideEffects operators (mixed into signalkit.Signal)."""

    def tap(self, fn: Callable[[T_co], object]) -> "Signal[T_co]":
        """Calls fn(value) for each value, which passes on unchanged (a
        Python stage, composed as map); an exception ends the stream."""
        _callable_arg(fn, "tap")
        return self._stage((_TAP, fn))

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
