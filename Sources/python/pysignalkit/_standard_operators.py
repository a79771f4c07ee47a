"""GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py (tools/api/bindings.py)
from tools/api/operators.md and the C headers (`make api-update`). The
operators of a standard shape, one class per operator family, which the
family's class in pysignalkit._operators extends. Its place among the
modules: the Layers comment of the package's __init__.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Optional, TypeVar, Union

from ._callbacks import _c_predicate_callback, _c_value_callback, _c_work_callback
from ._core import C
from ._handle import _InFlight, _count_arg, _seconds_arg
from ._asyncio import _time_queue
from ._queue import Queue, _bounded_policy, _drop_arguments, _queue_arg
from ._signal_core import _new_signal, _signal_arg, _SignalCore, _with_value

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from ._signal import Signal

T_co = TypeVar("T_co", covariant=True)
U = TypeVar("U")


class _CatchStandard(_SignalCore[T_co]):
    """The Catch family's operators of a standard shape (extended by
    _operators.catch._CatchOperators)."""


class _CombineStandard(_SignalCore[T_co]):
    """The Combine family's operators of a standard shape (extended by
    _operators.combine._CombineOperators)."""

    def with_latest_from(self, other: "Signal[U]") -> "Signal[List[Any]]":
        """Each value of this as [value, latest value of `other`]; values
        before `other` has emitted are dropped; `other` is started first
        (RxPY's with_latest_from, which gives tuples)
        (sk_signal_with_latest_from)."""
        return _new_signal(C.signal_with_latest_from, self, _signal_arg(other, "with_latest_from"))


class _DispatchStandard(_SignalCore[T_co]):
    """The Dispatch family's operators of a standard shape (extended by
    _operators.dispatch._DispatchOperators)."""

    def on_backpressure_buffer(self, capacity: int, overflow: Union[str, int],
                               on_drop: Optional[Callable[[Any, int], object]] = None) -> "Signal[T_co]":
        """The values one at a time, at most `capacity` of them waiting while
        one is delivered (RxJava's onBackpressureBuffer,
        sk_signal_on_backpressure_buffer). A value arriving while none is
        being delivered is delivered at once, on its thread; one arriving
        meanwhile (another thread, or from inside the delivery) waits, and
        the delivering thread delivers it before it returns.

        When `capacity` values wait, `overflow` decides: "drop_newest" (the
        incoming value is dropped), "drop_oldest" (the oldest waiting one
        is), "latest" (the newest waiting one is replaced: the consumer ends
        with the latest), "error" (the stream fails with a SignalError
        naming the operator and the capacity, after the values waiting),
        "block" (the producing thread waits for room: nothing is dropped).
        The OVERFLOW_* constants are accepted too. Each dropped value goes to
        on_drop(value, dropped), `dropped` being the subscription's count of
        drops so far, on the thread that dropped it; an exception in it is
        reported, not raised. ValueError for a capacity of 0 or an unknown
        policy.

        "block" waits without the GIL (while a signal made with "block"
        exists, every put of the package lets the GIL go around the
        library's put), so the consumer's Python callbacks run meanwhile.
        Where waiting could never end, the stream fails instead with a
        SignalError saying "cannot block" (after the values waiting, the
        value dropped): a value put from inside the delivery (the consumer's
        own thread), or a deliver_on whose queue is host-drained (such as
        asyncio_queue()). Not detected: a producer holding a lock that the
        consumer's callback needs. An asyncio producer awaits
        Pipe.put_async, which never waits: the loop goes on until there
        is room."""
        size, policy = _bounded_policy("on_backpressure_buffer", capacity, overflow, on_drop)
        with _InFlight(self) as (pointer,):  # closed: ValueError before retaining anything
            return _new_signal(C.signal_on_backpressure_buffer, pointer, size, policy, *_drop_arguments(on_drop, policy))

    def run_on(self, queue: "Queue") -> "Signal[T_co]":
        """Starts this (runs its generator) on `queue`."""
        return _new_signal(C.signal_run_on, self, _queue_arg(queue, "run_on"))


class _MappingStandard(_SignalCore[T_co]):
    """The Mapping family's operators of a standard shape (extended by
    _operators.mapping._MappingOperators)."""


class _MergeStandard(_SignalCore[T_co]):
    """The Merge family's operators of a standard shape (extended by
    _operators.merge._MergeOperators)."""


class _MetaStandard(_SignalCore[T_co]):
    """The Meta family's operators of a standard shape (extended by
    _operators.meta._MetaOperators)."""

    def then(self, next_signal: "Signal[U]") -> "Signal[Union[T_co, U]]":
        """This, then `next_signal` once this completes."""
        return _new_signal(C.signal_then, self, _signal_arg(next_signal, "then"))

    def switch_to_latest(self: "_SignalCore[Signal[U]]") -> "Signal[U]":
        """For a signal of signals (Signal objects as values): the values
        of the latest inner signal. Type checkers accept it only on a
        Signal[Signal[U]]; at run time a value that is not a Signal fails
        the stream."""
        return _new_signal(C.signal_switch_to_latest, self)

    def throttled(self: "_SignalCore[Signal[U]]") -> "Signal[U]":
        """For a signal of signals (a Signal[Signal[U]] for type checkers):
        runs the first, then only the latest arrived meanwhile
        (sk_signal_throttled)."""
        return _new_signal(C.signal_throttled, self)

    def ignore_values(self) -> "Signal[Any]":
        """Only the end: no value, then the completion or the error."""
        return _new_signal(C.signal_ignore_values, self)


class _ReduceStandard(_SignalCore[T_co]):
    """The Reduce family's operators of a standard shape (extended by
    _operators.reduce._ReduceOperators)."""

    def pairwise(self) -> "Signal[List[T_co]]":
        """From the second value on, [previous, current] at each value
        (RxPY's pairwise, which gives tuples: here lists, as every array
        of the library arrives) (sk_signal_pairwise)."""
        return _new_signal(C.signal_pairwise, self)


class _ShareStandard(_SignalCore[T_co]):
    """The Share family's operators of a standard shape (extended by
    _operators.share._ShareOperators)."""

    def share(self) -> "Signal[T_co]":
        """One subscription to this shared by all subscribers of the
        result: the first connects it, later ones receive what comes after
        they join, the last one leaving disposes it, and the next connects
        anew (RxPY's share) (sk_signal_share). Keep the result and
        subscribe to it: each call makes a connection of its own."""
        return _new_signal(C.signal_share, self)

    def replay(self, count: int = 1) -> "Signal[T_co]":
        """As share(), and a subscriber joining a running connection first
        receives the latest `count` values (0: share()). A count is a
        limit, not memory reserved: one larger than the connection emits
        (2**64 - 1, 2**32) replays all of them. Unlike RxPY's replay, no
        connect() is needed: reference counted, as share()
        (sk_signal_replay)."""
        return _new_signal(C.signal_replay, self, _count_arg(count, "replay", "count"))


class _SideEffectsStandard(_SignalCore[T_co]):
    """The SideEffects family's operators of a standard shape (extended by
    _operators.side_effects._SideEffectsOperators)."""

    def before_next(self, fn: Callable[[T_co], object]) -> "Signal[T_co]":
        """Calls fn(value) before each value goes on (an exception is reported, not delivered)."""
        return self._with_callback(C.signal_before_next, _c_value_callback, fn)

    def after_next(self, fn: Callable[[T_co], object]) -> "Signal[T_co]":
        """Calls fn(value) after each value went on."""
        return self._with_callback(C.signal_after_next, _c_value_callback, fn)

    def before_started(self, fn: Callable[[], object]) -> "Signal[T_co]":
        """Calls fn() at each start, before this starts."""
        return self._with_callback(C.signal_before_started, _c_work_callback, fn)

    def before_completed(self, fn: Callable[[], object]) -> "Signal[T_co]":
        """Calls fn() before the completion goes on."""
        return self._with_callback(C.signal_before_completed, _c_work_callback, fn)

    def after_completed(self, fn: Callable[[], object]) -> "Signal[T_co]":
        """Calls fn() after the completion went on."""
        return self._with_callback(C.signal_after_completed, _c_work_callback, fn)

    def after_disposed(self, fn: Callable[[], object]) -> "Signal[T_co]":
        """Calls fn() once a subscription is disposed (or ended)."""
        return self._with_callback(C.signal_after_disposed, _c_work_callback, fn)


class _TakeStandard(_SignalCore[T_co]):
    """The Take family's operators of a standard shape (extended by
    _operators.take._TakeOperators)."""

    def take(self, count: int) -> "Signal[T_co]":
        """The first `count` values, then completes right after the
        count-th (0 <= count < 2**64), as sk_signal_take does.

        take(0) passes no value and does NOT complete at once: it completes
        when this signal completes (or fails with it), the library's rule
        (the original's take(0)); so ``Signal.never().take(0)`` never ends.
        For an empty signal use Signal.complete(). 2**64 - 1 (SIZE_MAX)
        means no limit. TypeError unless `count` is an int (bool is not),
        ValueError when negative, OverflowError past SIZE_MAX."""
        return _new_signal(C.signal_take, self, _count_arg(count, "take", "count"))

    def skip(self, count: int) -> "Signal[T_co]":
        """Drops the first `count` values (sk_signal_skip): a count larger
        than this signal emits (2**64 - 1, 2**32) drops them all, and
        reserves no memory. TypeError unless an int, ValueError when
        negative, OverflowError past SIZE_MAX."""
        return _new_signal(C.signal_skip, self, _count_arg(count, "skip", "count"))

    def skip_while(self, fn: Callable[[T_co], object]) -> "Signal[T_co]":
        """Drops values while fn(value) is true, then passes every value
        (sk_signal_skip_while). An exception in `fn` ends the stream with it
        (sk_callback_fail): that value and the later ones are not delivered."""
        return self._with_callback(C.signal_skip_while, _c_predicate_callback, fn)

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

    def last(self) -> "Signal[Optional[T_co]]":
        """Only the last value (None if there was none), when this completes."""
        return _new_signal(C.signal_last, self)


class _ThrottleStandard(_SignalCore[T_co]):
    """The Throttle family's operators of a standard shape (extended by
    _operators.throttle._ThrottleOperators)."""

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
        the window's end (RxJS's auditTime; throttleTime only with leading: false,
        trailing: true)."""
        seconds = _seconds_arg(seconds, "throttle")
        on = _time_queue(queue, "throttle")  # held through the call: a default queue's only handle
        return _new_signal(C.signal_throttle, self, seconds, on)


class _TimingStandard(_SignalCore[T_co]):
    """The Timing family's operators of a standard shape (extended by
    _operators.timing._TimingOperators)."""

    def delay(self, seconds: float, queue: Optional["Queue"] = None) -> "Signal[T_co]":
        """Delays the SUBSCRIPTION, not the values: this signal is started
        `seconds` after each subscription, from a timer on `queue` (by
        default the default queue: package docstring, Threads), and its values then pass
        through undelayed, on whatever thread it emits them. A hot source
        (a Pipe, values from an asyncio task or another thread) loses what
        is put before the timer fires; a cold one just starts later.
        Disposing before the timer fires means this is never started. This
        is SwiftSignalKit's delay (sk_signal_delay).

        To delay each value instead, delay a signal per value and play them
        in turn::

            signal.map(lambda v: Signal.single(v).delay(seconds, queue)).queue()

        (each value comes `seconds` after it arrived, or after the value
        before it was delivered when that is later; in an asyncio program
        add ``.deliver_on(asyncio_queue())`` to receive them on the loop's
        thread)."""
        seconds = _seconds_arg(seconds, "delay")
        on = _time_queue(queue, "delay")  # held through the call: a default queue's only handle
        return _new_signal(C.signal_delay, self, seconds, on)
