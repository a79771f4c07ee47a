"""The Meta family of Signal's operators: signals of signals: deferred, map_to_signal, switch_to_latest, queue, throttled, then, ignore_values. The same family as
the Swift core's Signal_Meta.swift and the C layer's Operators_Meta.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Optional, TypeVar, Union

from .._callbacks import (_c_deferred_callback, _c_key_callback, _c_shared_drop_callback, _c_signal_callback, _Callback,
                          _SharedDropCallback)
from .._core import C, _Failures, _release_ctx, _retain_callbacks
from .._handle import _callable_arg, _count_arg, _InFlight
from .._queue import _NO_DROP, _bounded_policy, _drop_arguments, _place_release
from .._signal_core import _new_signal, _signal_array, _SignalCore, _with_value
from .._standard_operators import _MetaStandard

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _MetaOperators(_MetaStandard[T_co]):
    """Signal's Meta operators (mixed into pysignalkit.Signal)."""

    @staticmethod
    def deferred(function: Callable[[], Optional["Signal[U]"]]) -> "Signal[U]":
        """A signal that calls function() at each start and runs the signal
        it returns (None: completes at once; an exception: fails with it)."""
        _callable_arg(function, "deferred")
        failures = _Failures()
        ctx = _retain_callbacks(_Callback(function, failures.recorder()))
        signal: Signal[U] = _new_signal(C.signal_deferred, _c_deferred_callback, ctx, _release_ctx)
        signal._failures = failures
        return signal

    def map_to_signal(self, fn: Callable[[T_co], Optional["Signal[U]"]]) -> "Signal[U]":
        """Each value mapped to a signal by fn(value) (None: an empty one;
        an exception: one failing with it); only the latest inner signal
        runs (the previous one is disposed once the new one has started): a
        switch-map."""
        return self._with_callback(C.signal_map_to_signal, _c_signal_callback, fn)

    def start_with(self, *values: U) -> "Signal[Union[T_co, U]]":
        """`values` first, in order, then the values of this (RxPY's
        start_with) (sk_signal_start_with, once per value)."""
        signal: Signal[Any] = self  # type: ignore[assignment]
        for value in reversed(values):
            signal = _with_value(C.signal_start_with, signal, value)
        return signal

    @staticmethod
    def concat(*signals: "Signal[U]") -> "Signal[U]":
        """Each of `signals` in turn, each started once the one before it
        has completed; the first error ends it (RxPY's concat)
        (sk_signal_concat)."""
        array = _signal_array(signals, "concat")
        return _new_signal(C.signal_concat, array, len(signals))

    def queue(self: "_SignalCore[Signal[U]]", capacity: Optional[int] = None, overflow: Union[str, int, None] = None,
              on_drop: Optional[Callable[[Any, int], object]] = None) -> "Signal[U]":
        """For a signal of signals (a Signal[Signal[U]] for type checkers):
        runs them one after the other, each to its end (sk_signal_queue): a
        concat-map.

        Without `capacity` the signals waiting their turn are not bounded.
        With it (sk_signal_queue_bounded), at most `capacity` wait and
        `overflow` decides about the next, as `on_backpressure_buffer`
        says; a dropped signal (never started) goes to `on_drop`."""
        if capacity is None:
            if overflow is not None or on_drop is not None:
                raise TypeError("signalkit: queue: overflow and on_drop need a capacity")
            return _new_signal(C.signal_queue, self)
        size, policy = _bounded_policy("queue", capacity, overflow, on_drop)
        with _InFlight(self) as (pointer,):  # closed: ValueError before retaining anything
            return _new_signal(C.signal_queue_bounded, pointer, size, policy,
                               *_drop_arguments(on_drop, policy))

    def merge_map(self, fn: Callable[[T_co], Optional["Signal[U]"]], max_concurrent: int = 2 ** 64 - 1,
                  capacity: Optional[int] = None, overflow: Union[str, int, None] = None,
                  on_drop: Optional[Callable[[Any, int], object]] = None) -> "Signal[U]":
        """Each value mapped to a signal by fn(value) (None: an empty one),
        at most `max_concurrent` of them running at once (the rest wait, in
        order): 1 is a concat-map; the default, no limit (2**64 - 1, or
        any count larger than the values to come), is RxPY's flat_map
        (merge_map is RxJS's name) (sk_signal_merge_map). An exception in
        `fn` ends the stream with it.

        Without `capacity` the values waiting for a slot are not bounded.
        With it (sk_signal_merge_map_bounded), at most `capacity` wait and
        `overflow` decides about the next, as `on_backpressure_buffer`
        says; each value dropped (never mapped) goes to
        on_drop(value, dropped), as `on_backpressure_buffer`'s."""
        count = _count_arg(max_concurrent, "merge_map", "max_concurrent")
        if count == 0:
            raise ValueError("signalkit: merge_map: max_concurrent must be at least 1")
        if capacity is None:
            if overflow is not None or on_drop is not None:
                raise TypeError("signalkit: merge_map: overflow and on_drop need a capacity")
            return self._with_callback(C.signal_merge_map, _c_signal_callback, fn, count)
        size, policy = _bounded_policy("merge_map", capacity, overflow, on_drop)
        _callable_arg(fn, "merge_map")
        with _InFlight(self) as (pointer,):  # closed: ValueError before retaining anything
            failures = _Failures()
            # One context for fn and on_drop, as the C function has.
            callback = (_Callback(fn, failures.recorder()) if on_drop is None
                        else _SharedDropCallback(fn, failures.recorder(), on_drop))
            ctx = _retain_callbacks(callback)
            signal = _new_signal(C.signal_merge_map_bounded, pointer, count, size, policy, _c_signal_callback,
                                 _NO_DROP if on_drop is None else _c_shared_drop_callback, ctx,
                                 _place_release(policy, _release_ctx))
            signal._failures = failures
            return signal

    def group_by(self, key: Callable[[T_co], object]) -> "Signal[List[Any]]":
        """Splits the values by key(value): the first value of a new key
        delivers [key, group], group a Signal of every value of that key
        (that first one included). A group is hot: subscribe to it in the
        callback that receives it to miss none, whatever the threads that
        put the values (a subscriber's on_next, which runs during the
        delivery; not a value taken from iterate(), to_list() or async for,
        which come after it, when the group's first values have passed to
        no one); a group subscribed after its end receives that end
        at once (RxPY's group_by gives grouped observables with a .key). Keys compare as the library's
        values do (plain kinds by value). An exception in `key` (or a key
        the library cannot hold) ends the result, and every group delivered
        before it, with that exception, the upstream disposed, as
        sk_callback_fail does (sk_signal_group_by)."""
        return self._with_callback(C.signal_group_by, _c_key_callback, key)
