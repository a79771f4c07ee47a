"""The Throttle family of Signal's operators: debounce and throttle. The same family as
the Swift core's Signal_Throttle.swift and the C layer's Operators_Throttle.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, TypeVar

from .._core import C
from .._handle import _seconds_arg
from .._asyncio import _time_queue
from .._queue import Queue
from .._signal_core import _new_signal, _SignalCore

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _ThrottleOperators(_SignalCore[T_co]):
    """Signal's Throttle operators (mixed into signalkit.Signal)."""

    def debounce(self, seconds: float, queue: Optional["Queue"] = None) -> "Signal[T_co]":
        """The latest value once `seconds` pass without a new one, on `queue`.
        The completion flushes the pending value first (`ab|` with a 3-frame
        quiet time gives `--(b|)`); an error drops it (sk_signal_debounce)."""
        seconds = _seconds_arg(seconds, "debounce")
        on = _time_queue(queue, "debounce")  # held through the call: a default queue's only handle
        return _new_signal(C.signal_debounce, self, seconds, on)

    def throttle(self, seconds: float, queue: Optional["Queue"] = None) -> "Signal[T_co]":
        """At most one value per `seconds`, on the trailing edge: a value
        arriving when no window is open opens one (it is not delivered at
        once), and when the window ends the latest value seen during it is
        delivered. The completion flushes the pending value first, so the
        last value can come less than `seconds` after the one before it
        (`abc-d|` with a 3-frame window gives `---c-(d|)`); an error drops
        it. Every event is delivered on `queue` (sk_signal_throttle).

        Not RxPY's throttle_first, which delivers the first value of a
        window at once and drops the rest: this delivers the last one, at
        the window's end (RxJS's throttleTime with trailing: true)."""
        seconds = _seconds_arg(seconds, "throttle")
        on = _time_queue(queue, "throttle")  # held through the call: a default queue's only handle
        return _new_signal(C.signal_throttle, self, seconds, on)
