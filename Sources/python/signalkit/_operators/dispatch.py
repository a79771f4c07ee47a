"""The Dispatch family of Signal's operators: deliver_on and run_on: where events and starts run. The same family as
the Swift core's Signal_Dispatch.swift and the C layer's Operators_Dispatch.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from .._core import C
from .._queue import Queue, _queue_arg
from .._signal_core import _new_signal, _SignalCore

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _DispatchOperators(_SignalCore[T_co]):
    """Signal's Dispatch operators (mixed into signalkit.Signal)."""

    def deliver_on(self, queue: "Queue") -> "Signal[T_co]":
        """Every event delivered on `queue` (e.g. a host queue an event loop
        drains), in batches: one task of the queue delivers the events
        waiting. On a host queue the events that arrive meanwhile wait for
        its next drain(), so that a source emitting faster than the
        callbacks run cannot hold one drain() (or an asyncio loop draining
        its queue) for ever; on other queues the same task delivers them
        too, until none is left."""
        return _new_signal(C.signal_deliver_on, self, _queue_arg(queue, "deliver_on"))

    def run_on(self, queue: "Queue") -> "Signal[T_co]":
        """Starts this (runs its generator) on `queue`."""
        return _new_signal(C.signal_run_on, self, _queue_arg(queue, "run_on"))
