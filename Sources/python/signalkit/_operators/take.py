"""The Take family of Signal's operators: take, take_until, first, last. The same family as
the Swift core's Signal_Take.swift and the C layer's Operators_Take.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar, Union, overload

from .._callbacks import _c_predicate_callback, _c_take_until_callback
from .._core import C
from .._handle import _callable_arg, _count_arg
from .._signal_core import _new_signal, _signal_arg, _SignalCore, _with_value

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

    def take_until(self, fn: Union[Callable[[T_co], int], "_SignalCore[Any]"]) -> "Signal[T_co]":
        """Asks fn(value) about each value: a bitwise OR of TAKE_PASS
        (deliver it) and TAKE_COMPLETE (then complete); 0 drops it. An
        exception in `fn` completes the stream (and is reported); so does
        any other result (a TypeError for one that is not an int, a
        ValueError for an int outside 0..3: never truncated nor wrapped).

        Given a Signal instead (RxPY's take_until(other)): the values until
        it emits one, then completes, both disposed; it is started first
        (sk_signal_take_until_signal)."""
        if isinstance(fn, _SignalCore):
            return _new_signal(C.signal_take_until_signal, self, _signal_arg(fn, "take_until"))
        return self._with_callback(C.signal_take_until, _c_take_until_callback, fn)

    def last(self) -> "Signal[Optional[T_co]]":
        """Only the last value (None if there was none), when this completes."""
        return _new_signal(C.signal_last, self)

    def skip(self, count: int) -> "Signal[T_co]":
        """Drops the first `count` values (sk_signal_skip): a count larger
        than this signal emits (2**64 - 1, 2**32) drops them all, and
        reserves no memory. TypeError unless an int, ValueError when
        negative, OverflowError past SIZE_MAX."""
        return _new_signal(C.signal_skip, self, _count_arg(count, "skip", "count"))

    def skip_while(self, fn: Callable[[T_co], object]) -> "Signal[T_co]":
        """Drops values while fn(value) is true, then passes every value
        (sk_signal_skip_while). An exception in `fn` counts as false and is
        reported (callback_error_hook, where "predicate")."""
        return self._with_callback(C.signal_skip_while, _c_predicate_callback, fn)

    def take_while(self, fn: Callable[[T_co], object], inclusive: bool = False) -> "Signal[T_co]":
        """The values while fn(value) is true, then completes; with
        `inclusive`, the first value for which it is false too (RxPY's
        take_while(predicate, inclusive)) (sk_signal_take_while). An
        exception in `fn` counts as false and is reported."""
        _callable_arg(fn, "take_while")
        return self._with_callback(C.signal_take_while, _c_predicate_callback, fn, after=(bool(inclusive),))

    def first(self, predicate: Optional[Callable[[T_co], object]] = None) -> "Signal[T_co]":
        """The first value (for which predicate(value) is true, when
        given), then completes; completes without a value when none comes
        (unlike RxPY's first, which fails then: add default_if_empty);
        `await s.first()` (sk_signal_first, sk_signal_first_where)."""
        if predicate is None:
            return _new_signal(C.signal_first, self)
        return self._with_callback(C.signal_first_where, _c_predicate_callback, predicate)

    def element_at(self, index: int) -> "Signal[T_co]":
        """Only the value at `index` (0 for the first), then completes;
        completes without a value when fewer come, also for an index past
        any count (2**64 - 1) (RxPY's element_at fails then)
        (sk_signal_element_at)."""
        return _new_signal(C.signal_element_at, self, _count_arg(index, "element_at", "index"))

    def default_if_empty(self, value: U) -> "Signal[Union[T_co, U]]":
        """Every value; `value` before the completion when none came
        (sk_signal_default_if_empty)."""
        return _with_value(C.signal_default_if_empty, self, value)
