"""pysignalkit.testing: virtual time and marble tests (signalkit_test.h).

Anything with time in it (debounce, throttle, delay, timeout, retry with a
delay, timer, interval, deliver_on, run_on) can be tested without a real
clock. A TestScheduler is a virtual-time queue with a frame size: give its
`queue` to the operators under test, and their work, timers and deliveries
run only when the test moves the clock (advance, advance_to, run), in
deadline order (ties in the order they were scheduled), on the test's
thread. Test signals play marble diagrams on it (cold, hot), and a recorder
prints what a signal delivered as a diagram:

    from pysignalkit.testing import TestScheduler

    scheduler = TestScheduler()                   # a frame is 1 ms of virtual time
    keys = scheduler.cold("-a-b-------c|")
    results = scheduler.record(keys.debounce(scheduler.seconds(3), scheduler.queue))
    scheduler.run()                               # no real clock: microseconds
    assert results.diagram() == "------b-----(c|)"
    assert keys.subscriptions == "^0 !12"

Diagrams, one character a frame: `-` a frame passes; a letter or digit a
value, then a frame passes; `|` the completion; `#` the error; `(ab)`
several events in one frame; `^` a hot signal's subscription point, taking
no frame; spaces are ignored. Frame 0 is the clock's 0.

Values. Without a table, a letter or digit stands for itself as a
one-character str. A table (a mapping from characters to any Python
objects) gives each character its value, carried as the package carries
values: None, bool, int, float, str and bytes as the library's kinds
(compared by value when a recorder prints them), any other object by
reference (the very object arrives; compared by identity). A float NaN
equals nothing, itself included: a NaN in a table never matches the NaN
recorded (it prints as `?`); give the value as an object carried by
reference (compared by identity), or check it apart.

Everything here is a thin layer over the C functions of signalkit_test.h:
a malformed diagram or table raises SignalKitError with the library's
message (which names the position), or TypeError / ValueError for what
cannot be passed to C at all. Callbacks follow the package's rules (see
help(pysignalkit)): a Python function of a stream that raises ends it with
its exception (the recorder prints `#`), work given to schedule() that
raises goes to callback_error_hook. Handles release their library
reference when closed, at the end of a `with` block, or when garbage
collected; closing a scheduler drops the work still pending on its queue.
"""

from __future__ import annotations

import ctypes
import math
import operator
from ctypes import byref, c_int64, c_size_t
from typing import Any, Callable, Mapping, Optional, TypeVar, overload

from ._core import (C, Value, _after_call, _check, _Failures, _interrupts, _MarbleValue, _put_object, _release_ctx,
                    _retain_callbacks, _object_out)
from ._callbacks import _Callback
from ._handle import _call_with, _callable_arg, _count_arg, _draining, _Handle, _InFlight, _Uncopyable
from ._queue import Queue, _c_work_run
from ._signal import Signal
from ._signal_core import _signal_arg

if not hasattr(C, "test_record"):
    raise ImportError("pysignalkit.testing: the loaded libsignalkit has no virtual time (signalkit_test.h, "
                      "SignalKit 0.2.0 and later)")

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

__all__ = ["TestScheduler", "TestSignal", "TestRecorder"]


# --------------------------------------------------------------------------
# Value tables and texts
# --------------------------------------------------------------------------

class _Table:
    """A value table as the C functions read it: an array of
    sk_marble_value holding a new value for each entry, released by
    release()."""

    def __init__(self, values: Optional[Mapping[str, Any]]) -> None:
        self.count = 0
        self.array: Any = None
        if values is None:
            return
        if not isinstance(values, Mapping):
            raise TypeError(f"pysignalkit.testing: values must be a mapping of characters to values, "
                            f"not {type(values).__name__}")
        items = list(values.items())
        for symbol, _ in items:
            if not isinstance(symbol, str):
                raise TypeError(f"pysignalkit.testing: values: key {symbol!r} is not a str")
            # One ASCII character reaches the library, which says whether it
            # may stand for a value (a letter or a digit) in its message;
            # anything else cannot be passed as a C char at all.
            if len(symbol) != 1 or not symbol.isascii():
                raise ValueError(f"pysignalkit.testing: values: key {symbol!r} is not one ASCII character")
        self.array = (_MarbleValue * max(len(items), 1))()
        try:
            for index, (symbol, obj) in enumerate(items):
                entry = self.array[index]
                entry.symbol = symbol.encode("ascii")
                _put_object(obj, entry.value)
                self.count = index + 1
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        """Drops the values made (idempotent)."""
        for index in range(self.count):
            C.value_release(byref(self.array[index].value))
        self.count = 0

    def __enter__(self) -> "_Table":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_text(function: Any, *args: Any) -> str:
    """The text a C function writes as sk_test_recorder_diagram does (into
    a buffer, with the full length): read whole, however long."""
    size = 128
    length = c_size_t()
    while True:
        buffer = ctypes.create_string_buffer(size)
        _check(function(*args, buffer, size, byref(length)))
        if length.value < size:
            return buffer.raw[:length.value].decode("utf-8", "replace")
        size = length.value + 1


def _diagram_bytes(diagram: str) -> bytes:
    if not isinstance(diagram, str):
        raise TypeError(f"pysignalkit.testing: a diagram is a str, not {type(diagram).__name__}")
    if "\0" in diagram:
        raise ValueError("pysignalkit.testing: a diagram cannot hold a NUL character")
    return diagram.encode("utf-8")


# --------------------------------------------------------------------------
# Test signals and recorders
# --------------------------------------------------------------------------

class TestSignal(Signal[T_co]):
    """A signal played from a marble diagram on a TestScheduler's queue
    (TestScheduler.cold / hot): use it as any Signal; `subscriptions` is
    its subscription log."""
    __test__ = False  # not a pytest test class
    _log: Optional[int] = None  # the subscription log, released with the signal (_free)

    @property
    def subscriptions(self) -> str:
        """When each subscription started and was disposed, in frames, in
        the order they started: "^0 !2 ^4" is one from frame 0 to frame 2,
        then one from frame 4, still subscribed; "" when there was none.
        ValueError once closed."""
        # Read as a call in flight on the signal (_Handle._enter): the log
        # lives as long as the signal's own reference (_free), so a close()
        # on another thread meanwhile releases both once the read returned.
        self._enter()
        try:
            return _read_text(C.test_subscriptions_text, self._log)
        finally:
            self._exit()

    def _free(self) -> None:
        super()._free()
        # Whoever releases (close(), or the last call in flight after it)
        # takes the log too: one dict.pop, atomic under the GIL.
        log = self.__dict__.pop("_log", None)
        if log:
            C.test_subscriptions_release(log)


_interrupts.CRITICAL_CODES.add(TestSignal._free.__code__)


class TestRecorder(_Handle):
    """What a signal delivered, with the virtual time of each event
    (TestScheduler.record): diagram() prints it. Its last reference (close,
    the end of a `with` block, garbage collection) disposes the recorded
    subscription. A handle (a reference to a library object): copy.copy and
    copy.deepcopy return it itself; pickling raises TypeError."""
    __test__ = False  # not a pytest test class
    _release = staticmethod(C.test_recorder_release)

    def diagram(self, values: Optional[Mapping[str, Any]] = None) -> str:
        """What was recorded so far, as a diagram: each event in the frame
        it fell in, several in one frame as a group, every error as `#`. A
        value prints as its character in `values` (compared as the
        library's values: by value for None, bool, int, float, str and
        bytes, by identity for objects carried by reference; a float NaN
        equals no value, not even a NaN), or without a
        table as itself when it is a one-character str of a letter or
        digit; otherwise as `?`, which no diagram contains."""
        self.pointer  # closed: raise before making the table
        with _Table(values) as table:
            text: str = _call_with(_read_text, C.test_recorder_diagram, self, table.array, table.count)
            return text

    def assert_diagram(self, expected: str, values: Optional[Mapping[str, Any]] = None) -> None:
        """Raises AssertionError, with the expected diagram above the
        actual one, unless what was recorded is `expected`'s timeline:
        any diagram of it matches (spaces, a group of one event, dashes
        after the end), as Swift's TestRecorder.mismatch compares.
        SignalKitError (the message names the position) for an expected
        diagram that does not parse, or has a `^` (a recording counts
        from the clock's frame 0)."""
        actual = self.diagram(values)
        if actual == expected.replace(" ", ""):
            return
        if actual != _canonical_diagram(expected, values):
            raise AssertionError(f"the diagrams differ\nexpected: {expected}\nactual:   {actual}")

    def dispose(self) -> None:
        """Disposes the recorded subscription: nothing more is recorded
        (idempotent)."""
        try:
            self._call(C.test_recorder_dispose)
        except ValueError:  # closed: the release disposed it already
            pass
        _after_call()

    def __enter__(self) -> "TestRecorder":
        """The recorder itself; the block's end releases it (which
        disposes the recorded subscription)."""
        return self


def _canonical_diagram(diagram: str, values: Optional[Mapping[str, Any]]) -> str:
    """`diagram` as diagram() prints its timeline: played by a cold test
    signal on a scratch scheduler and recorded (the library has the one
    parser and printer; a malformed diagram raises its SignalKitError)."""
    with TestScheduler() as scratch:
        source = scratch.cold(diagram, values)
        try:
            with scratch.record(source) as recorder:
                scratch.run()
                return recorder.diagram(values)
        finally:
            source.close()


# --------------------------------------------------------------------------
# The scheduler
# --------------------------------------------------------------------------

_MAX_FRAME = 1e9
"""The longest frame, in seconds: the limit of the C test functions
(sk_test_signal_cold, sk_test_record), checked here so that a scheduler
they would refuse is not made."""


class TestScheduler(_Uncopyable):
    """A virtual-time queue with a frame size: the stage of a marble test.

    Give `queue` to the operators under test (debounce(scheduler.seconds(3),
    scheduler.queue)); build sources with cold() and hot(); record what a
    signal delivers with record(); move the clock with advance(), advance_to(),
    advance_by() or run(). The queue's work runs only then, on the thread
    that moves the clock, in deadline order, ties in the order the work was
    scheduled. Moving the clock from work of the queue itself, or from two
    threads at once, raises SignalKitError. A KeyboardInterrupt (Ctrl-C) met
    by a callback ends the stream it ran in (in its frame) and is raised
    when the call that moved the clock returns.

    A frame lasts `frame` seconds (1 ms unless given), rounded to whole
    nanoseconds, so frame arithmetic is exact. close() (or the end of a
    `with` block) releases the queue, dropping the work still pending.
    copy.copy and copy.deepcopy return the scheduler itself (it holds a
    library queue); pickling raises TypeError."""
    __test__ = False  # not a pytest test class

    queue: Queue
    """The virtual-time queue: give it to the operators under test."""
    frame: float
    """How long a frame lasts, in seconds (a whole number of nanoseconds)."""
    frame_nanoseconds: int
    """How long a frame lasts, in nanoseconds."""

    def __init__(self, frame: float = 0.001, name: str = "pysignalkit.testing") -> None:
        """A new virtual-time queue named `name`, at time 0, whose frames
        last `frame` seconds, rounded to whole nanoseconds: TypeError unless
        an int or a float, ValueError unless finite, > 0, at least 1 ns once
        rounded (0.5e-9 s) and at most 1e9 seconds (the range of the C test
        functions, signalkit_test.h)."""
        if isinstance(frame, bool) or not isinstance(frame, (int, float)):
            raise TypeError(f"pysignalkit.testing: frame is {type(frame).__name__}, not a number of seconds")
        if not math.isfinite(frame) or frame <= 0:
            raise ValueError(f"pysignalkit.testing: frame must be > 0 seconds, not {frame!r}")
        if frame > _MAX_FRAME:
            raise ValueError(f"pysignalkit.testing: frame {frame!r} is longer than 1e9 seconds (the limit of the "
                             "test signals and recorders)")
        # Halves away from zero, as the C functions round (Python's round()
        # takes halves to even: 2.5 ns would be 2 here and 3 there).
        nanoseconds = math.floor(frame * 1e9)
        if frame * 1e9 - nanoseconds >= 0.5:
            nanoseconds += 1
        if nanoseconds < 1:
            raise ValueError(f"pysignalkit.testing: frame {frame!r} is shorter than 1 ns once rounded to whole "
                             "nanoseconds")
        self.frame_nanoseconds = nanoseconds
        self.frame = self.frame_nanoseconds / 1e9
        pointer = _object_out()
        _check(C.queue_create_virtual(byref(pointer), name.encode()))
        self.queue = Queue(pointer.value)

    # --- time ------------------------------------------------------------------

    def seconds(self, frames: int) -> float:
        """`frames` frames in seconds, for the durations given to operators.
        TypeError unless an int; ValueError when negative (no duration is)."""
        count = operator.index(frames)
        if count < 0:
            raise ValueError(f"pysignalkit.testing: frames {count} is negative")
        return count * self.frame_nanoseconds / 1e9

    @property
    def now_nanoseconds(self) -> int:
        """The clock, in nanoseconds since the queue was made (inside work:
        the work's deadline)."""
        now = c_int64()
        _check(self.queue._call(C.queue_virtual_now, byref(now)))
        return now.value

    @property
    def now(self) -> int:
        """The frame the clock is in (its time divided by the frame,
        rounded down)."""
        return self.now_nanoseconds // self.frame_nanoseconds

    @property
    def pending(self) -> int:
        """How many tasks are scheduled and have neither run nor been
        cancelled."""
        count = c_size_t()
        _check(self.queue._call(C.queue_virtual_pending, byref(count)))
        return count.value

    def _move(self, function: Any, *args: Any) -> int:
        ran = c_size_t()
        status = _call_with(_draining, function, self.queue, *args, byref(ran))
        _after_call()
        _check(status)
        return ran.value

    def advance(self, frames: int = 1) -> int:
        """Moves the clock `frames` frames forward, running every task due
        by then (those they schedule included); returns how many ran.
        SignalKitError for a negative count, from work of this queue, or
        past 1,000,000 tasks (the clock then stays at the last one's
        deadline)."""
        # By a duration, not to a time: a time past 2^52 ns (about 52 days)
        # has no float of seconds for every nanosecond, and the clock ended
        # a few nanoseconds off the frame (short of it, its work not run). A
        # duration is exact up to 2^52 ns; a count too large for a float is
        # past the clock's end all the same.
        nanoseconds = operator.index(frames) * self.frame_nanoseconds
        try:
            seconds = nanoseconds / 1e9
        except OverflowError:
            seconds = math.inf if nanoseconds > 0 else -math.inf
        return self._move(C.queue_virtual_advance_by, seconds)

    def advance_to(self, frame: int) -> int:
        """Moves the clock to the start of frame `frame`, running what is
        due; returns how many tasks ran. ValueError for a negative frame,
        SignalKitError for a frame before the clock's, and as advance().
        The C function takes the time in seconds, a float: past 2^52 ns
        (about 52 days) it can end a nanosecond or more off the frame's
        start; advance() moves by exact frames there."""
        if operator.index(frame) < 0:
            raise ValueError(f"pysignalkit.testing: frame {frame} is negative")
        return self._move(C.queue_virtual_advance_to, self.seconds(frame))

    def advance_by(self, seconds: float) -> int:
        """Moves the clock `seconds` forward (rounded to whole nanoseconds),
        running what is due; returns how many tasks ran. SignalKitError for
        a negative, NaN or too large duration, and as advance()."""
        return self._move(C.queue_virtual_advance_by, float(seconds))

    def run(self, max_tasks: int = 0) -> int:
        """Runs the queue until no work is left, moving the clock to each
        task's deadline in turn; returns how many tasks ran. SignalKitError
        when it stopped at `max_tasks` (0: 1,000,000) with more due (work
        that always schedules more, such as interval()), and as advance().
        TypeError unless max_tasks is an int, ValueError when negative."""
        return self._move(C.queue_virtual_run, _count_arg(max_tasks, "TestScheduler.run", "max_tasks"))

    def schedule(self, fn: Callable[[], object], at: Optional[int] = None) -> None:
        """Runs fn() as work of the queue at the start of frame `at` (by
        default now: at the next advance); a frame already begun also runs
        at the next advance. The C function takes the delay in seconds, a
        float: a frame more than 2^52 ns (about 52 days) ahead of the clock
        can be a nanosecond or more off. An exception goes to
        callback_error_hook;
        TypeError at the call unless `fn` is callable and `at` None or an
        int, ValueError for a negative `at` (no frame is)."""
        _callable_arg(fn, "TestScheduler.schedule")
        frame = None if at is None else operator.index(at)
        if frame is not None and frame < 0:
            raise ValueError(f"pysignalkit.testing: TestScheduler.schedule: at {frame} is negative")
        delay = 0 if frame is None else max(0, frame * self.frame_nanoseconds - self.now_nanoseconds)
        with _InFlight(self.queue) as (queue,):  # closed: ValueError before retaining anything
            ctx = _retain_callbacks(_Callback(fn, _Failures()))
            _check(C.queue_after(queue, delay / 1e9, _c_work_run, ctx, _release_ctx))

    # --- test signals -------------------------------------------------------------

    def _test_signal(self, function: Any, diagram: str, values: Optional[Mapping[str, Any]],
                     error: object) -> TestSignal[Any]:
        text = _diagram_bytes(diagram)
        failure = Value()
        _put_object(error, failure)
        try:
            with _Table(values) as table:
                out, log = _object_out(), _object_out()
                status = _call_with(function, byref(out), byref(log), self.queue, self.frame, text, table.array,
                                    table.count, byref(failure))
        finally:
            C.value_release(byref(failure))
        _check(status)
        signal: TestSignal[Any] = TestSignal(out.value)
        signal._log = log.value
        return signal

    @overload
    def cold(self, diagram: str, values: None = None, error: object = None) -> TestSignal[str]: ...

    @overload
    def cold(self, diagram: str, values: Mapping[str, T], error: object = None) -> TestSignal[T]: ...

    def cold(self, diagram: str, values: Optional[Mapping[str, Any]] = None, error: object = None) -> TestSignal[Any]:
        """A cold test signal: each subscription plays `diagram` from its
        own start (an event at frame t of the diagram comes at the start of
        the frame t frames after the subscription's, as work of the queue;
        those of frame 0 at once, at the next advance when subscribed from
        outside the queue: on the grid of frames, so less than t frames
        after a subscription made in the middle of a frame). `values`
        maps its characters to values (default: each letter or digit is
        itself as a str); `error` is what `#` fails with (an exception, or
        any value; None by default, which on_error receives as
        SignalError(None)). SignalKitError for a diagram that does not
        parse (the message names the position) or a character the table
        does not have."""
        return self._test_signal(C.test_signal_cold, diagram, values, error)

    @overload
    def hot(self, diagram: str, values: None = None, error: object = None) -> TestSignal[str]: ...

    @overload
    def hot(self, diagram: str, values: Mapping[str, T], error: object = None) -> TestSignal[T]: ...

    def hot(self, diagram: str, values: Optional[Mapping[str, Any]] = None, error: object = None) -> TestSignal[Any]:
        """A hot test signal: `diagram` plays once, from the start of the
        clock's current frame (its `^`, or its start), to whoever is subscribed
        then: events before `^` reach no one, a subscription after the end
        sees nothing; events and a subscription in one frame: in the order
        they were scheduled on the queue, so a subscription that work
        scheduled before this call makes sees that frame's events, one
        scheduled after it does not. `values` and `error` as for cold()."""
        return self._test_signal(C.test_signal_hot, diagram, values, error)

    def record(self, signal: Signal[Any]) -> TestRecorder:
        """Subscribes to `signal` now (on this thread) and records what it
        delivers, with the frame of each event: the recorder's diagram()
        prints it. The subscription lasts until the recorder is disposed or
        released."""
        checked = _signal_arg(signal, "TestScheduler.record")
        out = _object_out()
        status = _call_with(_draining, C.test_record, byref(out), checked, self.queue, self.frame)
        _after_call()
        _check(status)
        return TestRecorder(out.value)

    # --- lifetime ---------------------------------------------------------------

    def close(self) -> None:
        """Releases the queue (idempotent): the work still pending on it is
        dropped, never run."""
        self.queue.close()

    def __enter__(self) -> "TestScheduler":
        """The scheduler itself; the block's end closes it."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Closes the scheduler (close(): the work still pending is dropped)."""
        self.close()
