"""The Dispatch family of Signal's operators: deliver_on and run_on: where events and starts run. The same family as
the Swift core's Signal_Dispatch.swift and the C layer's Operators_Dispatch.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar, Union

from .._core import C
from .._handle import _InFlight
from .._queue import Queue, _bounded_policy, _drop_arguments, _queue_arg
from .._signal_core import _new_signal
from .._standard_operators import _DispatchStandard

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _DispatchOperators(_DispatchStandard[T_co]):
    """Signal's Dispatch operators (mixed into pysignalkit.Signal)."""

    def deliver_on(self, queue: "Queue", capacity: Optional[int] = None, overflow: Union[str, int, None] = None,
                   on_drop: Optional[Callable[[Any, int], object]] = None) -> "Signal[T_co]":
        """Every event delivered on `queue` (e.g. a host queue an event loop
        drains), in batches: one task of the queue delivers the events
        waiting. On a host queue the events that arrive meanwhile wait for
        its next drain(), so that a source emitting faster than the
        callbacks run cannot hold one drain() (or an asyncio loop draining
        its queue) for ever, though its batches, and each drain(), grow as
        it outruns them (a capacity bounds both: python.md, "Threads and
        asyncio"); on other queues the same task delivers them too, until
        none is left.

        Without `capacity` the values waiting are not bounded. With it
        (sk_signal_deliver_on_bounded), at most `capacity` values wait and
        `overflow` decides about the next, as `on_backpressure_buffer`
        says; a value emitted on `queue` itself is delivered at once and
        never waits."""
        if capacity is None:
            if overflow is not None or on_drop is not None:
                raise TypeError("signalkit: deliver_on: overflow and on_drop need a capacity")
            return _new_signal(C.signal_deliver_on, self, _queue_arg(queue, "deliver_on"))
        return self._bounded(C.signal_deliver_on_bounded, "deliver_on", capacity, overflow, on_drop,
                             _queue_arg(queue, "deliver_on"))

    def _bounded(self, function: Any, where: str, capacity: Any, overflow: Any,
                 on_drop: Optional[Callable[[Any, int], object]], *before: Any) -> "Signal[T_co]":
        size, policy = _bounded_policy(where, capacity, overflow, on_drop)
        with _InFlight(self) as (pointer,):  # closed: ValueError before retaining anything
            return _new_signal(function, pointer, *before, size, policy, *_drop_arguments(on_drop, policy))
