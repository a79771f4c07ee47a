"""The Timing family of Signal's operators: interval, timer, delay and timeout. The same family as
the Swift core's Signal_Timing.swift and the C layer's Operators_Timing.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Optional, TypeVar, Union

from ctypes import byref

from .._callbacks import _c_work_callback, _Callback
from .._core import C, _check, _Failures, _release_ctx, _retain_callbacks, _object_out
from .._handle import Disposable, _count_arg, _InFlight, _seconds_arg
from .._asyncio import _time_queue
from .._queue import Queue, _bounded_policy, _drop_arguments
from .._signal_core import _new_signal, _signal_arg, _signal_class, _SignalCore
from .._standard_operators import _TimingStandard
from .._subscription import Subscriber

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _Timer:
    """The create() function of interval / timer: a library timer that
    emits 0, 1, 2, ... (once for timer, then completes)."""

    def __init__(self, seconds: float, queue: Optional["Queue"], repeat: bool) -> None:
        self.seconds = _seconds_arg(seconds, "interval" if repeat else "timer")
        self.queue = _time_queue(queue, "interval" if repeat else "timer")
        self.queue.pointer  # closed: ValueError at the call, as deliver_on's, not at each start
        self.repeat = repeat

    def __call__(self, subscriber: Subscriber[int]) -> Callable[[], None]:
        refusal = self.queue._start_refusal()
        if refusal is not None:
            raise refusal
        count = [0]

        def fire() -> None:
            subscriber.on_next(count[0])
            count[0] += 1
            if not self.repeat:
                subscriber.on_completed()

        with _InFlight(self.queue) as (queue,):  # closed: ValueError before retaining anything
            ctx = _retain_callbacks(_Callback(fire, _Failures()))
            out = _object_out()
            _check(C.timer_start(byref(out), queue, self.seconds, self.repeat, _c_work_callback, ctx, _release_ctx))
            timer = Disposable(out.value)
            return timer.dispose


class _TimingOperators(_TimingStandard[T_co]):
    """Signal's Timing operators (mixed into pysignalkit.Signal)."""

    def buffer_with_time(self, seconds: float, queue: Optional[Queue] = None, capacity: Optional[int] = None,
                         overflow: Union[str, int, None] = None,
                         on_drop: Optional[Callable[[Any, int], object]] = None) -> "Signal[List[T_co]]":
        """The values of each `seconds`-long window as a list, delivered on
        `queue` (RxPY's buffer_with_time; sk_signal_buffer_time).

        Without `capacity` a window holds every value that comes in it.
        With it (sk_signal_buffer_time_bounded), at most `capacity` values
        wait per window and `overflow` decides about the next, as
        `on_backpressure_buffer` says ("error": the values collected, then
        the error).

        The timer stops when the source lets go of its subscriber without
        ending it (with no value left to come): a `create` function that
        keeps no subscriber, `Signal.never()`, a test diagram after its last
        event. The subscription then ends without an event and nothing more
        is delivered; a Pipe, which holds its subscribers, keeps it going."""
        seconds = _seconds_arg(seconds, "buffer_with_time")
        if capacity is None:
            if overflow is not None or on_drop is not None:
                raise TypeError("signalkit: buffer_with_time: overflow and on_drop need a capacity")
            on = _time_queue(queue, "buffer_with_time")  # held through the call: a default queue's only handle
            return _new_signal(C.signal_buffer_time, self, seconds, on)
        size, policy = _bounded_policy("buffer_with_time", capacity, overflow, on_drop)
        on = _time_queue(queue, "buffer_with_time")
        with _InFlight(self) as (pointer,):  # closed: ValueError before retaining anything
            return _new_signal(C.signal_buffer_time_bounded, pointer, seconds, on, size, policy,
                               *_drop_arguments(on_drop, policy))

    @staticmethod
    def interval(seconds: float, queue: Optional["Queue"] = None) -> "Signal[int]":
        """0, 1, 2, ... one every `seconds`, on `queue` (by default
        the default queue: package docstring, Threads); never completes."""
        return _SignalCore.create(_Timer(seconds, queue, True))

    @staticmethod
    def timer(seconds: float, queue: Optional["Queue"] = None) -> "Signal[int]":
        """0 after `seconds`, on `queue` (by default
        the default queue: package docstring, Threads), then completes."""
        return _SignalCore.create(_Timer(seconds, queue, False))

    def timeout(self, seconds: float, alternate: Optional["Signal[U]"] = None,
                queue: Optional["Queue"] = None) -> "Signal[Union[T_co, U]]":
        """This, or `alternate` (by default a signal failing with
        TimeoutError) if this delivers nothing within `seconds`: this starts
        at once, and if its first event (a value, an error or the
        completion) comes first it passes through untouched; otherwise,
        when the timer on `queue` fires, this is disposed and `alternate`
        is started on `queue` instead. Exactly one of them wins; on a
        virtual-time queue an event of this due when the timer is wins
        (sk_signal_timeout)."""
        seconds = _seconds_arg(seconds, "timeout")
        other = _signal_arg(alternate, "timeout", 2) if alternate is not None else None
        on = _time_queue(queue, "timeout")  # held through the call: a default queue's only handle
        on.pointer  # closed: raise before making the alternate
        if other is None:  # a new exception per subscription: the library never holds a raised one
            message = f"signalkit: nothing within {seconds} s"
            other = _signal_class().deferred(lambda: _signal_class().fail(TimeoutError(message)))
        return _new_signal(C.signal_timeout, self, seconds, on, other)

    def buffer_with_count(self, count: int) -> "Signal[List[T_co]]":
        """The values in lists of `count` (the last one shorter, at the
        completion, unless empty; an error drops the values collected and
        passes through) (RxPY's buffer_with_count; the C function is
        sk_signal_buffer_count). A count is a limit, not
        memory reserved: one larger than this signal emits (2**64 - 1,
        2**32) gives every value as one list at the completion.
        ValueError for 0 or a negative count, OverflowError past SIZE_MAX."""
        number = _count_arg(count, "buffer_with_count", "count")
        if number == 0:
            raise ValueError("signalkit: buffer_with_count: count must be at least 1")
        return _new_signal(C.signal_buffer_count, self, number)

    def sample(self, sampler: Union["_SignalCore[Any]", float], queue: Optional[Queue] = None) -> "Signal[T_co]":
        """The latest value (if a new one came) at each value of `sampler`,
        a Signal (sk_signal_sample), or every `sampler` seconds on `queue`
        (sk_signal_sample_period), as RxPY's sample takes either.

        Every `sampler` seconds, the timer stops when the source lets go of
        its subscriber without ending it (with no value left to come): a
        `create` function that keeps no subscriber, `Signal.never()` (so
        `never().start_with(v).sample(s)` samples nothing), a test diagram
        after its last event (its last value is never sampled). The
        subscription then ends without an event; a Pipe, which holds its
        subscribers, keeps it going."""
        if isinstance(sampler, _SignalCore):
            return _new_signal(C.signal_sample, self, _signal_arg(sampler, "sample"))
        seconds = _seconds_arg(sampler, "sample")
        on = _time_queue(queue, "sample")  # held through the call: a default queue's only handle
        return _new_signal(C.signal_sample_period, self, seconds, on)
