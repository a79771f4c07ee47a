"""The Take family of Signal's operators: take, take_until, first, last. The same family as
the Swift core's Signal_Take.swift and the C layer's Operators_Take.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar, Union

from .._callbacks import _c_predicate_callback, _c_take_until_callback
from .._core import C
from .._handle import _callable_arg
from .._signal_core import _new_signal, _signal_arg, _SignalCore
from .._standard_operators import _TakeStandard

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _TakeOperators(_TakeStandard[T_co]):
    """Signal's Take operators (mixed into pysignalkit.Signal)."""

    def take_until(self, fn: Union[Callable[[T_co], int], "_SignalCore[Any]"]) -> "Signal[T_co]":
        """Asks fn(value) about each value: a bitwise OR of TAKE_PASS
        (deliver it) and TAKE_COMPLETE (then complete); 0 drops it. An
        exception in `fn` ends the stream with it (sk_callback_fail: that
        value is not delivered), and so does any other result, with a
        TypeError for one that is not an int (a bool among them: True is
        no action) or a ValueError for an int outside 0..3 (never
        truncated nor wrapped).

        Given a Signal instead (RxPY's take_until(other)): the values until
        it emits one, then completes, both disposed; it is started first
        (sk_signal_take_until_signal)."""
        if isinstance(fn, _SignalCore):
            return _new_signal(C.signal_take_until_signal, self, _signal_arg(fn, "take_until"))
        return self._with_callback(C.signal_take_until, _c_take_until_callback, fn)

    def take_while(self, fn: Callable[[T_co], object], inclusive: bool = False) -> "Signal[T_co]":
        """The values while fn(value) is true, then completes; with
        `inclusive`, the first value for which it is false too (RxPY's
        take_while(predicate, inclusive)) (sk_signal_take_while). An
        exception in `fn` ends the stream with it (sk_callback_fail): that
        value is not delivered, and the stream does not complete."""
        _callable_arg(fn, "take_while")
        return self._with_callback(C.signal_take_while, _c_predicate_callback, fn, after=(bool(inclusive),))

    def first(self, predicate: Optional[Callable[[T_co], object]] = None) -> "Signal[T_co]":
        """The first value (for which predicate(value) is true, when
        given), then completes; completes without a value when none comes
        (unlike RxPY's first, which fails then: add default_if_empty);
        `await s.first()` (sk_signal_first, sk_signal_first_where). An
        exception in `predicate` ends the stream with it
        (sk_callback_fail)."""
        if predicate is None:
            return _new_signal(C.signal_first, self)
        return self._with_callback(C.signal_first_where, _c_predicate_callback, predicate)
