"""The Combine family of Signal's operators: combine_latest. The same family as
the Swift core's Signal_Combine.swift and the C layer's Operators_Combine.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Optional, TypeVar, Union

from .._core import C
from .._queue import Queue, _bounded_policy, _drop_arguments, _queue_arg
from .._signal_core import _new_signal, _signal_array
from .._standard_operators import _CombineStandard

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _CombineOperators(_CombineStandard[T_co]):
    """Signal's Combine operators (mixed into pysignalkit.Signal)."""

    @staticmethod
    def combine_latest(*signals: "Signal[Any]", queue: Optional["Queue"] = None) -> "Signal[List[Any]]":
        """Once each of `signals` has emitted, a list of their latest values
        at each new value of any; `queue` (optional) is where the combining
        runs."""
        array = _signal_array(signals, "combine_latest")
        on = _queue_arg(queue, "combine_latest") if queue is not None else None
        return _new_signal(C.signal_combine_latest, array, len(signals), on)

    @staticmethod
    def zip(*signals: "Signal[Any]", capacity: Optional[int] = None, overflow: Union[str, int, None] = None,
            on_drop: Optional[Callable[[Any, int], object]] = None) -> "Signal[List[Any]]":
        """The n-th values of all `signals` together, as a list, once each
        has emitted its n-th; completes once one has completed and no list
        can come any more (RxPY's zip, which gives tuples) (sk_signal_zip).

        Without `capacity` a signal that runs ahead keeps all of its lead.
        With it (sk_signal_zip_bounded), at most `capacity` values wait per
        signal and `overflow` decides about the next, as
        `on_backpressure_buffer` says ("error" fails at once: the values
        waiting have no partners yet, and go to `on_drop` with the one that
        overflowed; "block" waits for the other signals' producers, and
        fails with "cannot block" where the wait could not end: a
        TestScheduler's hot signals, which one thread feeds in turn, as
        sk_signal_zip_bounded says)."""
        if capacity is None:
            if overflow is not None or on_drop is not None:
                raise TypeError("signalkit: zip: overflow and on_drop need a capacity")
            array = _signal_array(signals, "zip")
            return _new_signal(C.signal_zip, array, len(signals))
        size, policy = _bounded_policy("zip", capacity, overflow, on_drop)
        array = _signal_array(signals, "zip")
        return _new_signal(C.signal_zip_bounded, array, len(signals), size, policy,
                           *_drop_arguments(on_drop, policy))
