"""The SideEffects family of Signal's operators: tap and the side effects before_next ... after_disposed. The same family as
the Swift core's Signal_SideEffects.swift and the C layer's Operators_SideEffects.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, TypeVar

from .._core import C
from .._handle import _callable_arg
from .._standard_operators import _SideEffectsStandard
from .._subscription import _TAP

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _SideEffectsOperators(_SideEffectsStandard[T_co]):
    """Signal's SideEffects operators (mixed into pysignalkit.Signal)."""

    def tap(self, fn: Callable[[T_co], object]) -> "Signal[T_co]":
        """Calls fn(value) for each value, which passes on unchanged (a
        Python stage, composed as map); an exception ends the stream."""
        _callable_arg(fn, "tap")
        return self._stage((_TAP, fn))
