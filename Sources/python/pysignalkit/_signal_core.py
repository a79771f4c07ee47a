"""the core of Signal, the class every
operator family's class (pysignalkit._operators) derives from and
pysignalkit._signal composes: the handle, the sources of the C library's own
(from_iterable, create, single, complete, fail, never), the fused Python
stages, subscribe, to_list. Its methods name the composed Signal in their
annotations only (an import under TYPE_CHECKING, never run); at run time
a new signal is made as _core._signal_type, which pysignalkit._signal sets to
the composed class once it is defined."""

from __future__ import annotations

import collections
import inspect
import threading
import time
import weakref
from ctypes import byref
from typing import (TYPE_CHECKING, Any, Callable, Generic, Iterable, List, Optional, Tuple, Type, TypeVar, Union,
                    overload)

from . import _core
from ._core import (C, Value, _after_call, _check, _Failures, _FfiObserver, _interrupts, _put_object, _Recorder,
                    _register_subscription, _release_ctx, _retain_callbacks, _object_out)
from ._callbacks import _Callback, _CatchFn
from ._queue import Queue, _blocking_wait, _running_loop
from ._handle import (Disposable, _call_with, _callable_arg, _draining, _Failing, _Handle, _InFlight,
                      _seconds_arg, _thread_trampoline)
from ._native import Signature, _fn_address, _Gate, _native, _NativeSet, _signature
from ._subscription import (_c_create_generator, _c_iter_generator, _c_stage_generator,
                            _MAP, _Sink, _StageSource, _start_sink, Subscriber)

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from ._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)

Stage = Tuple[int, Callable[..., Any]]  # a _DISTINCT stage's function takes no argument (it makes the filter)
# The most Python stages (map, filter, tap) composed into one function: a
# longer chain is runs of this many, each over the one before (one more
# library crossing per run). Each composition compiles code for its whole
# run, so without a bound a chain of n stages built one by one compiled
# O(n**2) lines (2,000 maps: 54 s to build).
_FUSED_STAGES = 32
NextFn = Callable[[T], object]
ErrorFn = Callable[[BaseException], object]
CompletedFn = Callable[[], object]


def _new_signal(function: Any, *args: Any) -> "Signal[Any]":
    """A signal made by function(&out, *args); handles among `args` are
    passed as their pointers (see _call_with), a list of handles as an
    array of them."""
    out = _object_out()
    _check(_call_with(function, byref(out), *args))
    signal: Signal[Any] = _core._signal_type(out.value)
    for arg in args:
        if isinstance(arg, Queue) and arg._loop is not None:
            return _on_open_loop(signal, arg)
    return signal


def _on_open_loop(signal: "Signal[Any]", queue: Queue) -> "Signal[Any]":
    """`signal`, which delivers on an asyncio loop's queue (a time operator
    made inside the loop without queue=, deliver_on(asyncio_queue())): each
    start after that loop closed fails with RuntimeError, since nothing
    would ever drain the queue (the signal went silent for ever)."""

    def start() -> "Signal[Any]":
        refusal = queue._start_refusal()
        if refusal is not None:
            return _signal_class().fail(refusal)
        return signal

    return _signal_class().deferred(start)


# Arguments: a wrong type is a TypeError at the call (never an
# AttributeError, nor a failure later on a library thread).

def _signal_arg(obj: object, where: str, index: int = 0) -> "_SignalCore[Any]":
    """`obj`, an open Signal (TypeError otherwise; ValueError once closed).
    A C call takes its pointer through _call_with."""
    if not isinstance(obj, _SignalCore):
        which = f"argument {index}" if index else "the argument"
        raise TypeError(f"signalkit: {where}: {which} is {type(obj).__name__}, not a Signal")
    obj.pointer  # closed: ValueError now, before anything is made
    return obj


def _signal_array(signals: Tuple[object, ...], where: str) -> "List[_SignalCore[Any]]":
    """The signals (each checked by _signal_arg), for _call_with to pass as a C array."""
    return [_signal_arg(s, where, i + 1) for i, s in enumerate(signals)]



def _signal_class() -> "Type[Signal[Any]]":
    """The composed Signal class (for an operator family that calls a
    source of another family: set by pysignalkit._signal, above)."""
    cls: Type[Signal[Any]] = _core._signal_type
    return cls


def _with_value(function: Any, signal: "_SignalCore[Any]", obj: object, *rest: Any) -> "Signal[Any]":
    """function(&out, signal, &value, *rest) with `obj` as a value the
    call borrows (copied by the library)."""
    value = Value()
    _put_object(obj, value)
    try:
        return _new_signal(function, signal, byref(value), *rest)
    finally:
        C.value_release(byref(value))


class _SignalCore(Generic[T_co], _Failing, _Handle):
    """The layer of Signal below its operators: the handle, subscribing,
    the sources. What a signal is and does: Signal's docstring (_signal.py),
    the one place it is written."""
    _release = staticmethod(C.signal_release)
    _stage_source: Optional[_StageSource] = None
    _signal_value = True  # carried as a signal value (switch_to_latest, queue)
    _iterable_source = False  # made by from_iterable

    def _drop(self) -> None:
        # A Python stage signal holds a handle of its upstream (its subscribe
        # and the stages composed onto it start the upstream directly):
        # closed, it lets it go too, so that closing every handle one named
        # releases everything, and a closed stage signal raises at its use
        # as every closed handle does (self.pointer) instead of running on.
        self._stage_source = None
        super()._drop()

    @staticmethod
    def from_iterable(items: Iterable[U]) -> "Signal[U]":
        """A signal that emits the items of `items`, pulled one at a time on
        the starting thread, then completes. Lazy: nothing is read before a
        subscription starts, each subscription iterates `items` again (an
        iterator is consumed by the first), and the emission stops as soon
        as the subscription is disposed (take, take_until, a dispose from a
        callback): an infinite generator with take(1) returns at once. An
        exception raised by the iterator ends the stream with it; Ctrl-C
        stops it (KeyboardInterrupt in the caller). TypeError at the call
        when `items` is not iterable."""
        kind = type(items)
        if not (hasattr(kind, "__iter__") or hasattr(kind, "__getitem__")):
            raise TypeError(f"signalkit: from_iterable: {kind.__name__} is not iterable")
        failures = _Failures()
        ctx = _retain_callbacks((items, failures.recorder()))
        signal: Signal[U] = _new_signal(C.signal_create, _c_iter_generator, ctx, _release_ctx)
        signal._failures = failures
        signal._iterable_source = True
        return signal

    @staticmethod
    def create(function: Callable[[Subscriber[U]], Any]) -> "Signal[U]":
        """A signal whose every start calls function(subscriber): it emits
        through subscriber.on_next / on_error / on_completed, now or later
        from any thread, and returns None, a Disposable, or a callable run
        when the subscription is disposed. An exception it raises ends the
        stream with it; so does a TypeError when it returns anything else
        (the signal's `exception` is that TypeError). A start nested inside
        other create() functions on the thread (a function subscribing to
        a create() signal, recursively) fails with a RecursionError once
        half of the thread's stack, or a third of Python's recursion limit,
        is used (docs/python.md, Errors), never running the function."""
        _callable_arg(function, "create")
        failures = _Failures()
        ctx = _retain_callbacks((function, failures.recorder()))
        signal: Signal[U] = _new_signal(C.signal_create, _c_create_generator, ctx, _release_ctx)
        signal._failures = failures
        return signal

    @staticmethod
    def single(value: U) -> "Signal[U]":
        """A signal that emits `value`, then completes."""
        out = Value()
        _put_object(value, out)
        try:
            return _new_signal(C.signal_single, byref(out))
        finally:
            C.value_release(byref(out))

    @staticmethod
    def from_callable(function: Callable[[], U]) -> "Signal[U]":
        """A signal whose every start calls function() and emits its result,
        then completes; an exception it raises ends the stream with it
        (RxPY's from_callable / start). TypeError unless callable."""
        _callable_arg(function, "from_callable")

        def run(subscriber: Subscriber[U]) -> None:
            subscriber.on_next(function())
            subscriber.on_completed()

        return _SignalCore.create(run)

    @staticmethod
    def complete() -> "Signal[Any]":
        """A signal that completes at once."""
        return _new_signal(C.signal_complete)

    @staticmethod
    def fail(error: BaseException) -> "Signal[Any]":
        """A signal that fails at once with `error` (an exception, carried
        by reference). TypeError at the call unless `error` is an exception
        instance (a class, such as ValueError, is not: ValueError())."""
        if not isinstance(error, BaseException):
            what = f"the class {error.__name__}" if isinstance(error, type) else type(error).__name__
            raise TypeError(f"signalkit: Signal.fail: the error is {what}, not an exception instance")
        out = Value()
        _put_object(error, out)
        try:
            return _new_signal(C.signal_fail, byref(out))
        finally:
            C.value_release(byref(out))

    @staticmethod
    def never() -> "Signal[Any]":
        """A signal that never emits nor ends."""
        return _new_signal(C.signal_never)

    def _stage(self, stage: Stage, failures: Union[_Failures, _Recorder, None] = None) -> "Signal[Any]":
        """This signal with `stage` added to its Python stages (`failures`:
        where their exceptions are recorded; the new signal's own by
        default; a _Recorder: recorded there, weakly, and the new signal
        has no `exception` of its own)."""
        base = self._stage_source
        if base is not None and len(base.stages) < _FUSED_STAGES:
            # compose: each event enters Python once for the whole chain
            upstream, stages = base.upstream, base.stages + (stage,)
        else:
            # A handle of the stage's own (never given out, so never closed
            # but by its collection), as a library operator holds its
            # upstream: closing `self` must not stop the stage signal, which
            # starts the upstream directly (its subscribe, its generator).
            upstream, stages = _core._signal_type(self._call(C.signal_retain)), (stage,)  # closed: raises first
            upstream._iterable_source = self._iterable_source
        owned = failures if not isinstance(failures, _Recorder) else None
        if failures is None:
            owned = _Failures()
        recorder = owned.recorder() if owned is not None else failures
        assert isinstance(recorder, _Recorder)
        with _InFlight(upstream) as (pointer,):  # closed: ValueError before retaining anything
            source = _StageSource(upstream, stages, recorder)
            ctx = _retain_callbacks(source)
            signal: Signal[Any] = _new_signal(C.signal_create_over, pointer, _c_stage_generator, ctx, _release_ctx)
            signal._failures = owned
            signal._stage_source = source
            return signal

    def _native_operator(self, function: Any, where: str, spec: Union[str, Signature], fn: Any) -> "Signal[Any]":
        signature = _signature(spec)
        with _InFlight(self, signature) as (pointer, signature_pointer):  # closed: ValueError before retaining
            failures = _Failures()
            native = _native(signature, fn, where, failures.recorder())
            ctx = _retain_callbacks(_NativeSet(native, signature))
            out = _object_out()
            status = function(byref(out), pointer, signature_pointer, _fn_address(native), ctx, _release_ctx)
            _check(status, ffi=True)
            signal: Signal[Any] = _core._signal_type(out.value)
            signal._failures = failures
            return signal

    def _with_callback(self, function: Any, cfn: Any, fn: Callable[..., Any], *before: Any,
                       after: Tuple[Any, ...] = ()) -> "Signal[Any]":
        _callable_arg(fn.fn if isinstance(fn, _CatchFn) else fn, function.__name__[len("sk_signal_"):])
        with _InFlight(self) as (pointer,):  # closed: ValueError before retaining anything
            failures = _Failures()
            ctx = _retain_callbacks(_Callback(fn, failures.recorder()))
            signal = _new_signal(function, pointer, *before, cfn, ctx, _release_ctx, *after)
            signal._failures = failures
            return signal

    @overload
    def subscribe(self, on_next: Optional[Callable[[T_co], object]] = None,
                  on_error: Optional[Callable[[BaseException], object]] = None,
                  on_completed: Optional[Callable[[], object]] = None) -> Disposable: ...

    @overload
    def subscribe(self, on_next: Union[str, Signature], next_fn: Any = None, on_error: Any = None,
                  on_completed: Any = None, error_signature: Union[str, Signature] = "void(str)",
                  completed_signature: Union[str, Signature] = "void()") -> Disposable: ...

    def subscribe(self, on_next: Any = None, *args: Any, **kwargs: Any) -> Disposable:
        """Starts this signal: on_next(value) for each value, then
        on_error(exception) or on_completed(). Returns the subscription (a
        Disposable; a `with` block disposes it at its end).

        Callbacks run on the thread that delivers the event (the one that
        emitted, or a queue's: see deliver_on). An exception in on_next ends
        the subscription: it goes to on_error once the on_next calls in
        flight on other threads have returned, then the upstream is
        disposed; one in on_error or
        on_completed goes to callback_error_hook. An error value that is not
        an exception arrives as SignalError. Ctrl-C in a callback stops the
        emission and reaches the caller as KeyboardInterrupt.

        Native form: subscribe(next_signature, on_next, on_error,
        on_completed, error_signature="void(str)", completed_signature=
        "void()") with typed callbacks (sk_ffi_signal_start)."""
        if isinstance(on_next, (str, Signature)):
            return self._native_subscribe(on_next, *args, **kwargs)
        if len(args) > 2:
            raise TypeError("subscribe() takes on_next, on_error, on_completed")
        on_error = args[0] if len(args) > 0 else kwargs.pop("on_error", None)
        on_completed = args[1] if len(args) > 1 else kwargs.pop("on_completed", None)
        if kwargs:
            raise TypeError(f"subscribe() got unexpected arguments {sorted(kwargs)}")
        _callable_arg(on_next, "subscribe: on_next", optional=True)
        _callable_arg(on_error, "subscribe: on_error", optional=True)
        _callable_arg(on_completed, "subscribe: on_completed", optional=True)
        return self._subscribe(on_next, on_error, on_completed)

    def _subscribe(self, on_next: Any, on_error: Any, on_completed: Any) -> Disposable:
        base = self._stage_source
        maker = base.maker if base is not None else None  # the stages run in this subscription's own callback
        source = base.upstream if base is not None else self
        source.pointer  # closed: raise before making anything
        failures = _Failures()
        sink = _Sink(maker, on_next, on_error, on_completed, failures.recorder(),
                     base.failures if base is not None else None)
        pointer = None
        try:
            local = _thread_trampoline()
            if source._iterable_source and not local.active:
                local.direct = sink  # taken by its generator, called by this start
            signal = source._enter()  # a call in flight until the start returned: see _Handle
            try:
                pointer = _draining(_start_sink, signal, sink)
            finally:
                source._exit()
        finally:
            _thread_trampoline().direct = None
            disposable = Disposable(pointer)
            disposable._failures = failures
            disposable._callbacks = weakref.ref(sink)
            if pointer:
                _register_subscription(sink.ctx, int(pointer))
            if _interrupts.local.pending is not None:
                # Interrupted while it started: the call fails, leaving nothing running.
                disposable.dispose()
        _after_call()
        return disposable

    def _native_subscribe(self, next_signature: Union[str, Signature], on_next: Any = None, on_error: Any = None,
                          on_completed: Any = None, error_signature: Union[str, Signature] = "void(str)",
                          completed_signature: Union[str, Signature] = "void()") -> Disposable:
        with _InFlight(self) as (pointer,):  # closed: ValueError before retaining anything
            gate = _Gate()  # closed by dispose(): the Python callables below are called no more
            keep: List[Any] = [gate]
            failures = _Failures()
            observer = _FfiObserver()
            for slot, spec, fn in (("next", next_signature, on_next), ("error", error_signature, on_error),
                                   ("completed", completed_signature, on_completed)):
                if fn is None:
                    continue
                signature = _signature(spec)
                native = _native(signature, fn, slot, failures.recorder(), gate)
                keep += [signature, native]
                setattr(observer, slot + "_signature", signature.pointer)
                setattr(observer, slot, _fn_address(native))
            ctx = _retain_callbacks(_NativeSet(*keep))
            observer.ctx = ctx
            observer.release = _release_ctx
            out = _object_out()
            # The signatures' pointers are in the observer: each is counted in
            # flight too (a Signature the caller gave may be closed meanwhile).
            with _InFlight(*[item for item in keep if isinstance(item, Signature)]):
                status = _draining(C.ffi_signal_start, byref(out), pointer, byref(observer))
            disposable = None
            if status == 0:
                _register_subscription(ctx, int(out.value or 0))
                disposable = Disposable(out.value)
                disposable._failures = failures
                disposable._callbacks = weakref.ref(gate)
            if _interrupts.local.pending is not None:
                # Interrupted while it started: the call fails, leaving nothing running.
                if disposable is not None:
                    disposable._call(C.disposable_dispose)
                    disposable._drop()
                _interrupts.raise_pending()
            _check(status, ffi=True)
            assert disposable is not None
            return disposable

    def to_list(self, timeout: Optional[float] = None) -> List[T_co]:
        """Subscribes and blocks until the end: the values as a list, or the
        error raised. TimeoutError (and the subscription disposed) once
        `timeout` seconds have passed since the call, when given. Not on a
        thread whose queue delivers it (a host queue this thread drains
        would never run): on the thread of a running asyncio loop, a signal
        made to deliver on that loop (deliver_on(asyncio_queue()), a time
        operator made in the loop without queue=) fails with RuntimeError
        when this call starts it, rather than wait for ever.

        The timeout applies to the wait for the end, after the subscribe
        call returned: a synchronous emission that the subscribe call runs
        (a from_iterable of an endless iterator with no take, a library
        operator looping inside its start) is not cut short by it, as no
        waiting happens until it returns; Ctrl-C stops those. The one
        exception is restart() / restart_if_error(), whose loop checks the
        deadline at each start and stops, so that the TimeoutError is
        raised in time.

        Inside a callback of a synchronous emission (on_next of a
        from_iterable, a Pipe.put, another to_list...), the synchronous
        sources this call starts run right here, inside the callback (this
        thread's trampoline, which otherwise runs them after the current
        emission returns, is set aside while it waits): nested to_list
        calls return their lists. It still blocks for good if the signal
        waits for something only this thread would do after the callback
        returns (a later put of the outer emission): give a timeout."""
        wait: Optional[float] = None
        if timeout is not None:
            wait = _seconds_arg(timeout, "to_list", "timeout")
            if wait == float("inf"):
                wait = None
        deadline = None if wait is None else time.monotonic() + wait
        values: List[T_co] = []
        errors: List[BaseException] = []
        done = threading.Event()

        def on_error(error: BaseException) -> None:
            errors.append(error)
            done.set()

        # Inside a draining call of this thread (a callback of a synchronous
        # emission), the emissions this subscription schedules would wait in
        # the trampoline's jobs until that call returns, and this wait would
        # never end: the subscription drains a trampoline of its own.
        local = _thread_trampoline()
        outer_jobs = local.jobs if local.active else None
        if outer_jobs is not None:
            local.jobs, local.active = collections.deque(), False
        # The deadline also stops a restart() loop that its subscribe call
        # runs (a signal completing at once, started again for ever).
        sync = _sync_deadline
        outer_deadline = sync.at
        if deadline is not None and (outer_deadline is None or deadline < outer_deadline):
            sync.at = deadline
        # A signal delivering on the asyncio loop of this thread, started
        # by the subscribe call, fails at once (Queue._start_refusal): this
        # wait would keep the loop from running its deliveries.
        outer_loop = _blocking_wait.loop
        _blocking_wait.loop = _running_loop()
        try:
            try:
                subscription = self.subscribe(values.append, on_error, done.set)
            finally:
                sync.at = outer_deadline
                _blocking_wait.loop = outer_loop
            with subscription:
                if not done.wait(None if deadline is None else max(deadline - time.monotonic(), 0.0)):
                    raise TimeoutError(f"signalkit: to_list: no end within {timeout} s")
        finally:
            if outer_jobs is not None:
                local.jobs, local.active = outer_jobs, True
        del self  # an error the library holds (Signal.fail's) is raised: its frames must not hold the signal
        if errors:
            error = errors.pop()  # no cycle: this frame, in its traceback, no longer holds it
            try:
                raise error
            finally:
                del error
        return values


class _SyncDeadline(threading.local):
    """The deadline (time.monotonic()) of the to_list() whose subscribe
    call runs on this thread (None: none), read by restart()'s check."""
    at: Optional[float] = None


_sync_deadline = _SyncDeadline()


def _subscribe_signature(self: Any, on_next: Optional[Callable[[Any], object]] = None,
                         on_error: Optional[Callable[[BaseException], object]] = None,
                         on_completed: Optional[Callable[[], object]] = None, *native_args: Any,
                         **native_options: Any) -> Disposable:
    """What inspect.signature and help() show for _SignalCore.subscribe (its
    overloads are what type checkers see)."""
    raise NotImplementedError


# _SignalCore.subscribe takes *args (the native form maps its positions
# otherwise): inspect.signature / help() show the Pythonic parameters.
setattr(_SignalCore.subscribe, "__signature__", inspect.signature(_subscribe_signature))


_interrupts.CRITICAL_CODES.add(_SignalCore._drop.__code__)
