"""The Take family of Signal's operators: take, take_until, first, last. The same family as
the Swift core's Signal_Take.swift and the C layer's Operators_Take.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional, TypeVar

from .._callbacks import _c_take_until_callback
from .._core import C
from .._handle import _count_arg
from .._signal_core import _new_signal, _SignalCore

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _TakeOperators(_SignalCore[T_co]):
    """Signal's Take operators (mixed into signalkit.Signal)."""

    def take(self, count: int) -> "Signal[T_co]":
        """The first `count` values, then completes right after the
        count-th (0 <= count < 2**64), as sk_signal_take does.

        take(0) passes no value and does NOT complete at once: it completes
        when this signal completes (or fails with it), the library's rule
        (the original's take(0)); so ``Signal.never().take(0)`` never ends.
        For an empty signal use Signal.complete(). 2**64 - 1 (SIZE_MAX)
        means no limit. TypeError unless `count` is an int (bool is not),
        ValueError when negative, OverflowError past SIZE_MAX."""
        count = _count_arg(count, "take", "count")
        return _new_signal(C.signal_take, self, count)

    def take_until(self, fn: Callable[[T_co], int]) -> "Signal[T_co]":
        """Asks fn(value) about each value: a bitwise OR of TAKE_PASS
        (deliver it) and TAKE_COMPLETE (then complete); 0 drops it. An
        exception in `fn` completes the stream (and is reported); so does
        any other result (a TypeError for one that is not an int, a
        ValueError for an int outside 0..3: never truncated nor wrapped)."""
        return self._with_callback(C.signal_take_until, _c_take_until_callback, fn)

    def last(self) -> "Signal[Optional[T_co]]":
        """Only the last value (None if there was none), when this completes."""
        return _new_signal(C.signal_last, self)

    def first(self) -> "Signal[T_co]":
        """The first value, then completes (take(1)); `await s.first()`."""
        return self.take(1)
