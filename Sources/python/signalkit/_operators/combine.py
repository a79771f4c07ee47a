"""The Combine family of Signal's operators: combine_latest. The same family as
the Swift core's Signal_Combine.swift and the C layer's Operators_Combine.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, TypeVar

from .._core import C
from .._queue import Queue, _queue_arg
from .._signal_core import _new_signal, _signal_array
from .._standard_operators import _CombineStandard

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _CombineOperators(_CombineStandard[T_co]):
    """Signal's Combine operators (mixed into signalkit.Signal)."""

    @staticmethod
    def combine_latest(*signals: "Signal[Any]", queue: Optional["Queue"] = None) -> "Signal[List[Any]]":
        """Once each of `signals` has emitted, a list of their latest values
        at each new value of any; `queue` (optional) is where the combining
        runs."""
        array = _signal_array(signals, "combine_latest")
        on = _queue_arg(queue, "combine_latest") if queue is not None else None
        return _new_signal(C.signal_combine_latest, array, len(signals), on)

    @staticmethod
    def zip(*signals: "Signal[Any]") -> "Signal[List[Any]]":
        """The n-th values of all `signals` together, as a list, once each
        has emitted its n-th; completes once one has completed and no list
        can come any more (RxPY's zip, which gives tuples) (sk_signal_zip)."""
        array = _signal_array(signals, "zip")
        return _new_signal(C.signal_zip, array, len(signals))
