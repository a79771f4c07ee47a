"""The Throttle family of Signal's operators: debounce and throttle. The same family as
the Swift core's Signal_Throttle.swift and the C layer's Operators_Throttle.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from .._core import C
from .._standard_operators import _ThrottleStandard

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _ThrottleOperators(_ThrottleStandard[T_co]):
    """Signal's Throttle operators (mixed into pysignalkit.Signal)."""
