"""The Merge family of Signal's operators: merge. The same family as
the Swift core's Signal_Merge.swift and the C layer's Operators_Merge.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from .._core import C
from .._signal_core import _new_signal, _signal_array
from .._standard_operators import _MergeStandard

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _MergeOperators(_MergeStandard[T_co]):
    """Signal's Merge operators (mixed into pysignalkit.Signal)."""

    @staticmethod
    def merge(*signals: "Signal[U]") -> "Signal[U]":
        """The values of all `signals` as they arrive; completes when all
        have, fails with the first error."""
        array = _signal_array(signals, "merge")
        return _new_signal(C.signal_merge, array, len(signals))
