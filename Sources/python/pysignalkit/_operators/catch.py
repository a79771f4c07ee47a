"""The Catch family of Signal's operators: catch, restart, restart_if_error and retry: what follows an error. The same family as
the Swift core's Signal_Catch.swift and the C layer's Operators_Catch.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional, TypeVar, Union, cast

import time

from .._callbacks import _c_signal_callback, _CatchFn
from .._core import C, _interrupts
from .._handle import _count_arg, _seconds_arg
from .._asyncio import _time_queue
from .._queue import Queue
from .._signal_core import _new_signal, _signal_class, _SignalCore, _sync_deadline
from .._standard_operators import _CatchStandard

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


def _checked_restarts(signal: "_SignalCore[T]") -> "Signal[T]":
    """`signal` behind a deferred whose function (one Python call per
    start) gives it, or, once a KeyboardInterrupt is pending on the thread
    or the deadline of the running to_list() has passed, a signal that
    never ends: restart / restart_if_error then stop starting it, and the
    call that started the loop returns (and raises the interrupt, or
    to_list its TimeoutError). Running Python code there also lets the
    SIGINT handler run (the package's, which defers the interrupt)."""
    signal.pointer  # closed: ValueError at the call, not at each start of the loop
    pending, deadline = _interrupts.local, _sync_deadline

    def start() -> "Signal[T]":
        at = deadline.at
        if pending.pending is not None or (at is not None and time.monotonic() >= at):
            return _signal_class().never()
        return cast("Signal[T]", signal)

    return _signal_class().deferred(start)


class _CatchOperators(_CatchStandard[T_co]):
    """Signal's Catch operators (mixed into pysignalkit.Signal)."""

    def catch(self, fn: Callable[[BaseException], Optional["Signal[U]"]]) -> "Signal[Union[T_co, U]]":
        """On error, continues with the signal fn(error) returns (None:
        completes; an exception: fails with it)."""
        return self._with_callback(C.signal_catch, _c_signal_callback, _CatchFn(fn))

    def restart(self) -> "Signal[T_co]":
        """Starts this again each time it completes (never completes).

        Each start runs a check in Python first (once per start, nothing
        per value): a signal that completes as soon as it starts
        (Signal.complete(), an empty from_iterable) would otherwise be
        started again for ever inside the library, where no Python code
        runs. The loop stops (this signal is not started again) once a
        KeyboardInterrupt is pending on the thread (Ctrl-C: the subscribe
        call raises it), or once the timeout of a to_list() whose
        subscribe call runs the loop has passed (it raises TimeoutError)."""
        checked = _checked_restarts(self)  # held until the library holds it
        return _new_signal(C.signal_restart, checked)

    def restart_if_error(self) -> "Signal[T_co]":
        """Starts this again each time it fails; each start runs the check
        restart() describes (Ctrl-C or a to_list() timeout ends the loop
        of a signal that fails as soon as it starts)."""
        checked = _checked_restarts(self)  # held until the library holds it
        return _new_signal(C.signal_restart_if_error, checked)

    def retry(self, delay_increment: float, max_delay: float, queue: Optional["Queue"] = None) -> "Signal[T_co]":
        """Starts this again after each error, for ever, waiting
        delay_increment more each time (at most max_delay), on `queue`:
        time-based, SwiftSignalKit's retry. RxPY's retry(count) is
        retry_count(count) here."""
        delay_increment = _seconds_arg(delay_increment, "retry", "delay_increment")
        max_delay = _seconds_arg(max_delay, "retry", "max_delay")
        on = _time_queue(queue, "retry")  # held through the call: a default queue's only handle
        return _new_signal(C.signal_retry, self, delay_increment, max_delay, on)

    def retry_count(self, count: int, delay: float = 0.0, queue: Optional[Queue] = None) -> "Signal[T_co]":
        """Starts this again after an error, at most `count` times (RxPY's
        retry(count); retry() here is the time-based one): at once, or
        with a `delay`, `delay` seconds after the error on `queue` (by
        default the default queue: package docstring, Threads). The error after the last
        retry passes through (sk_signal_retry_count). 2**64 - 1, or any
        count larger than the failures to come, retries for ever."""
        number = _count_arg(count, "retry_count", "count")
        seconds = _seconds_arg(delay, "retry_count", "delay")
        if seconds == 0 and queue is None:
            return _new_signal(C.signal_retry_count, self, number, 0.0, None)
        on = _time_queue(queue, "retry_count")  # held through the call: a default queue's only handle
        return _new_signal(C.signal_retry_count, self, number, seconds, on)
