"""what runs a subscription in Python:
the composed chains of map / filter / tap stages, the sinks the extension
delivers each event to, from_iterable's lazy emission, create()'s
Subscriber and generator."""

from __future__ import annotations

import ctypes
import functools
import sys
import threading
from ctypes import byref
from typing import Any, Callable, Dict, Generic, Iterable, List, Optional, Tuple, TypeVar

from . import _core, _speedups
from ._core import (KIND_DOUBLE, C, SignalError, Value, _after_call, _box, _check, _completed_fn, _detach_traceback,
                    _Failures, _generator_fn, _interrupts, _kept, _next_fn, _object_of, _Observer, _put_object,
                    _Recorder, _release_ctx, _release_ctx_function, _release_fn, _report, _retain_callbacks, _state,
                    _trim_traceback, _ValueP, _work_fn, _object_out)
from ._handle import Disposable, _call_with, _draining, _Handle, _thread_trampoline

T = TypeVar("T")

# --------------------------------------------------------------------------
# The Pythonic callbacks: the extension's (_speedups_src/observer.c) call,
# per value, the subscription's composed chain of stages (and on_next, or the
# put into the next subscriber); the other events go to the sink's methods.
# The sink is also in the registry (_core._keep), for the exit hook.
# --------------------------------------------------------------------------

# _REDUCE: a fold composed into a chain (reduce() after Python stages),
# which drops every value as a filter does, named "reduce". _DISTINCT:
# distinct_until_changed, a filter with a memory per subscription: its
# function makes, for each subscription, the filter that keeps it (called
# once as the chain is made), named "filter" as a filter is.
_MAP, _FILTER, _TAP, _REDUCE, _DISTINCT = 0, 1, 2, 3, 4


# Every int a stream carries fits int64 and every str encodes as UTF-8,
# whether or not it crosses the library (the rules of _put_object):
# OverflowError, UnicodeEncodeError otherwise.
_check_value = _speedups.check_value


# A chain of Python stages composed into one function, so that an event
# enters Python once for the whole chain: the code of each shape (the kinds
# of its stages) is made once, and each use binds its functions.
_CHAIN_FILE = "<signalkit chain>"
_chain_makers: Dict[Tuple[int, ...], Callable[..., Callable[[Any], Any]]] = {}
# The stage on each line of each composed chain's code ("map", "filter",
# "tap", "reduce"), so that an exception says which stage raised it (_stage_of).
_STAGE_NAMES = {_MAP: "map", _FILTER: "filter", _TAP: "tap", _REDUCE: "reduce", _DISTINCT: "filter"}
_chain_lines: Dict[Any, Dict[int, str]] = {}


Stages = Tuple[Tuple[int, Callable[..., Any]], ...]
ChainMaker = Callable[[Callable[[Any], Any], List[Any]], Callable[[Any], Any]]


def _chain_maker(stages: Stages) -> Optional[ChainMaker]:
    """What makes, for a tail and a list `live`, one function for `stages`
    then tail(value) while live[0] is not None (None for no stages): a
    filtered-out value stops there; a map's int result outside int64
    raises OverflowError, its str that UTF-8 cannot encode
    UnicodeEncodeError (_speedups.check_value). Made once per stage
    signal; each subscription binds its tail and its callback list."""
    if not stages:
        return None
    kinds = tuple(kind for kind, _ in stages)
    make = _chain_makers.get(kinds)
    if make is None:
        # Each stage's function named by its kind (m0, f1, t2, r3): code
        # objects compare equal by their contents, and _chain_lines is
        # looked up by code object, so two shapes whose code would read
        # alike (a filter and a composed reduce, both "if not f(v)") must
        # differ in a name, or one's stage names would be taken for the other's.
        names = [f"{'mftrd'[kind]}{i}" for i, kind in enumerate(kinds)]
        lines = [f"def make(check, {', '.join(names)}, tail, live):"]
        # A distinct_until_changed's filter, made for this subscription.
        lines += [f"    {name} = {name}()" for name, kind in zip(names, kinds) if kind == _DISTINCT]
        lines += ["    def chain(v):"]
        stage_at: Dict[int, str] = {}  # line number (from 1) -> stage
        for index, (name, kind) in enumerate(zip(names, kinds)):
            if index:
                # Each stage after the first only while the subscription
                # lives (live[0], below): the stage before may have let the
                # GIL go, and a dispose() that returned meanwhile promises
                # that no callback of the subscription starts.
                lines += ["        if live[0] is None:", "            return"]
            first = len(lines) + 1
            if kind == _MAP:
                lines += [f"        v = {name}(v)", "        check(v)"]
            elif kind in (_FILTER, _REDUCE, _DISTINCT):
                lines += [f"        if not {name}(v):", "            return"]
            else:
                lines += [f"        {name}(v)"]
            stage_at.update((line, _STAGE_NAMES[kind]) for line in range(first, len(lines) + 1))
        # The tail only while the subscription lives (live[0], the handler
        # slot of its callback list, None once ended: Disposable.dispose), as
        # each stage after the first.
        lines += ["        if live[0] is None:", "            return", "        tail(v)", "    return chain"]
        namespace: Dict[str, Any] = {}
        exec(compile("\n".join(lines), _CHAIN_FILE, "exec"), namespace)
        if len(_chain_makers) >= 256:  # shapes are few; never an unbounded cache
            _chain_makers.clear()
            _chain_lines.clear()
        make = _chain_makers[kinds] = namespace["make"]
        chain_code = next(c for c in make.__code__.co_consts if getattr(c, "co_name", None) == "chain")
        _chain_lines[chain_code] = stage_at
    maker: ChainMaker = functools.partial(make, _check_value, *[fn for _, fn in stages])
    return maker


def _stage_of(exc: BaseException) -> Optional[str]:
    """The stage of a composed chain that `exc` escaped from ("map",
    "filter", "tap" or "reduce": its function, or a map's result check), read from
    the line the chain's frame stopped on; None when it came from the
    chain's tail (on_next, a put) or from no chain."""
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == _CHAIN_FILE and code.co_name == "chain":
            return _chain_lines.get(code, {}).get(tb.tb_lineno)
        tb = tb.tb_next
    return None


def _mark_stage(exc: BaseException, stage: str) -> None:
    """Marks `exc`, which a stage raised and which goes on as the stream's
    error, with that stage: a subscriber with no on_error reports it to
    callback_error_hook under the stage's name (_Sink.error_at), not as
    "error"."""
    try:
        setattr(exc, "_signalkit_stage", stage)
    except BaseException:  # an exception type that takes no attribute: reported as "error"
        pass


def _fail_call(failures: _Failures | _Recorder, exc: BaseException, where: str, into: int = 0) -> None:
    """The failure rule of every Python function the library calls with a
    value (an operator's: predicates, take_until's function, a fold's, a
    signal function, deferred's, group_by's key; a subscription's on_next
    and the stages fused in front of it): `exc`, raised by the function of
    the callback running on this thread, fails that call through
    sk_callback_fail, as a C callback does, so the library ends the stream
    with the exception object itself (the upstream disposed, the call's
    result ignored; a subscription's error after its value calls in flight
    on other threads). It is recorded into `failures` (the `exception` of
    the signal or subscription) and marked with `where` (a subscriber with
    no on_error reports it to callback_error_hook under that name); its
    traceback stays while the library holds the error, so a receiver
    called synchronously sees it, and is detached once the library let go
    of it (_box's `detach`). A KeyboardInterrupt is also deferred to the
    caller, when there is one. `into`: the sk_subscriber to put the error
    into instead, where no callback of the library runs (from_iterable's
    direct run, _IterRun._direct)."""
    _trim_traceback(exc)
    failures.record(exc)
    if isinstance(exc, KeyboardInterrupt):
        _interrupts.defer(exc)
    _mark_stage(exc, where)
    error = Value()
    _box(exc, byref(error), detach=where)
    try:
        status = C.subscriber_put_error(into, byref(error)) if into else C.callback_fail(byref(error))
    finally:
        C.value_release(byref(error))
    if status != 0:  # not inside a callback of the library: never so for the callers
        _report(exc, where)


def _ignore(value: object) -> None:
    """The tail of a chain whose subscription has no on_next."""


def _error_object(pointer: Any) -> BaseException:
    """What an error callback receives for an error value: the exception it
    carries, or a SignalError holding the value."""
    return _as_error(_object_of(pointer))


def _as_error(error: object) -> BaseException:
    """The exception an error value's object stands for: itself, or a
    SignalError holding it."""
    if isinstance(error, BaseException):
        return error
    return SignalError(error)


class _Sink:
    """A Python subscription's state: its callbacks, the fused stages in
    front of on_next (map / filter of the signal it subscribed to), its
    disposable once known, whether it ended, and whether it was disposed."""
    __slots__ = ("maker", "on_next", "on_error", "on_completed", "failures", "disposable", "ended", "cancelled",
                 "ctx", "cell", "stage_failures", "__weakref__")

    def __init__(self, maker: Optional[ChainMaker], on_next: Any, on_error: Any, on_completed: Any,
                 failures: _Recorder, stage_failures: Optional[_Recorder] = None) -> None:
        self.maker = maker
        # The stage signal's (map / filter / tap) recorder, when the stages
        # run in this subscription's chain: an exception of a stage is also
        # that signal's `exception`.
        self.stage_failures = stage_failures
        self.on_next = on_next
        self.on_error = on_error
        self.on_completed = on_completed
        self.failures = failures
        self.disposable: Optional[int] = None
        self.ended = False
        # Set by dispose() (cancel): an end event taken before it (ended
        # set) whose callback has not been called yet is dropped. The check
        # comes right before the call, with nothing between that lets
        # another thread run: the taking of the event (its object made
        # through ctypes, which lets the GIL go) is a window in which a
        # dispose() could return before the callback started.
        self.cancelled = False
        self.ctx = 0
        # The extension's callback list (_speedups_src/observer.c):
        # [handler, sink]; the handler None once ended or failed.
        self.cell: Optional[List[Any]] = None

    def end(self) -> None:
        """No later event reaches the callbacks."""
        self.ended = True
        cell = self.cell
        if cell is not None:
            cell[0] = None

    def cancel(self) -> None:
        """dispose(): no callback starts from here on, an end event already
        taken but not yet delivered included (Disposable.dispose)."""
        self.cancelled = True
        self.end()

    def on_release(self) -> None:
        """The library let go of the callbacks: drop the disposable kept."""
        disposable, self.disposable = self.disposable, None
        if disposable:
            C.disposable_release(disposable)

    def handler(self) -> Optional[Callable[[Any], Any]]:
        """What each value goes to: the stages composed with on_next (None:
        nothing to call)."""
        maker = self.maker
        live = self.cell if self.cell is not None else [_ignore]
        if self.on_next is not None:
            return maker(self.on_next, live) if maker is not None else self.on_next
        return maker(_ignore, live) if maker is not None else None

    def failed(self, exc: BaseException, into: int = 0, where: Optional[str] = None) -> None:
        """The chain (its stages, then on_next) raised `exc` for a value:
        no stage nor on_next starts from here on, and the call fails with
        it (_fail_call: the library's one rule, sk_signal_start_failable:
        the error reaches error_at after the value calls in flight on other
        threads, then the upstream is disposed). Named for
        callback_error_hook `where`, by default after the stage that raised
        it, else "next". `into`: see _fail_call. Nothing once the
        subscription ended (a dispose wins)."""
        cell = self.cell
        if self.ended or (cell is not None and cell[0] is None):
            return
        if cell is not None:
            cell[0] = None
        where = where or _stage_of(exc) or "next"
        if self.stage_failures is not None and where in _STAGE_NAMES.values():
            self.stage_failures.record(exc)
        _fail_call(self.failures, exc, where, into)

    def _end_raised(self, exc: BaseException, where: str) -> None:
        """on_error or on_completed (`where`) raised `exc`, after the
        terminal event: to callback_error_hook, never to on_error (a second
        terminal event)."""
        _trim_traceback(exc)
        _kept(exc, where, self.failures)

    def error_at(self, address: int) -> None:
        """on_error: the error value at `address`, to on_error."""
        _sk_user = False
        if self.ended or _state.closing:
            return
        self.end()
        try:
            error = _error_object(ctypes.cast(address, _ValueP))
            if self.cancelled:  # a dispose() returned meanwhile (see `cancelled`)
                return
            if _interrupts.local.pending is not None:
                # A KeyboardInterrupt met by a callback of this emission waits
                # for its caller (_Interrupts.defer): the error it made (the
                # interrupt itself, or a native form's failure naming it) ends
                # the subscription, and goes neither to on_error nor to the
                # hook: the caller gets the interrupt (docs/python.md, Errors).
                return
            if self.on_error is not None:
                _sk_user = True
                self.on_error(error)
                _sk_user = False
            elif not (isinstance(error, KeyboardInterrupt) and _interrupts.was_deferred(error)):
                # (a deferred one is raised in the emission's caller)
                _report(error, getattr(error, "_signalkit_stage", "error"))
        except BaseException as exc:
            _sk_user = False
            self._end_raised(exc, "error")


    def completed(self) -> None:
        """on_completed: the completion, to on_completed."""
        _sk_user = False
        if self.ended or _state.closing:
            return
        self.end()
        try:
            if self.on_completed is not None and not self.cancelled:  # (see `cancelled`)
                _sk_user = True
                self.on_completed()
                _sk_user = False
        except BaseException as exc:
            _sk_user = False
            self._end_raised(exc, "completed")


    def released(self) -> None:
        """on_release: the library let go of the callbacks."""
        cell = self.cell
        _release_ctx_function(self.ctx)
        if cell is not None:  # no cycle left between the sink, its list and its chain
            cell[0] = cell[1] = None


# The extension's callbacks, as the observer's function pointers.
_sp_next = _next_fn(_speedups.NEXT)
_sp_error = _next_fn(_speedups.ERROR)
_sp_completed = _completed_fn(_speedups.COMPLETED)
_sp_release = _release_fn(_speedups.RELEASE)


def _start_sink(signal: int, sink: _Sink) -> Optional[int]:
    """Starts `signal` for a Python subscription, through the extension:
    each value goes to the composed chain of its stages and on_next, whose
    exception fails the call (_Sink.failed)."""
    ctx = sink.ctx = _retain_callbacks(sink)
    cell = sink.cell = [_ignore, sink]  # the chain reads cell[0] (handler): not None while it lives
    cell[0] = sink.handler()
    if sink.ended:
        cell[0] = None
    observer = _Observer(_sp_next, _sp_error, _sp_completed, _speedups.hold(cell), _sp_release)
    return _started(signal, sink, ctx, observer)


class _StageRun(_Sink):
    """One subscription of a fused Python stage signal: the stages applied
    to each value of the upstream, the results put into the subscriber; a
    stage's exception fails the call as on_next's does (_Sink.failed), and
    the library's error (error_at) goes on to the subscriber."""
    __slots__ = ("subscriber", "failure")

    def __init__(self, maker: Optional[ChainMaker], subscriber: int, failures: _Recorder) -> None:
        super().__init__(maker, None, None, None, failures)
        self.subscriber = subscriber
        # The exception a stage raised, until error_at passed it on.
        self.failure: Optional[BaseException] = None

    def on_release(self) -> None:
        subscriber, self.subscriber = self.subscriber, 0
        self.failure = None
        if subscriber:
            C.subscriber_release(subscriber)
        super().on_release()

    def failed(self, exc: BaseException, into: int = 0, where: Optional[str] = None) -> None:
        cell = self.cell
        if not self.ended and cell is not None and cell[0] is not None:  # (_Sink.failed fails the call)
            self.failure = exc
        super().failed(exc, into, where)

    def handler(self) -> Optional[Callable[[Any], Any]]:
        """The stages, then the put of the result into the subscriber."""
        tail = functools.partial(_subscriber_put_next, self.subscriber)
        live = self.cell if self.cell is not None else [_ignore]
        return self.maker(tail, live) if self.maker is not None else tail

    def error_at(self, address: int) -> None:
        """on_error: the upstream's error, or a stage's, passed on. A
        stage's exception keeps its frames while the put delivers it
        synchronously, and no longer: whatever holds the error downstream
        (a recorder, a replay) would keep them, and through them the
        callers' handles, for good."""
        if not self.ended:
            self.end()
            C.subscriber_put_error(self.subscriber, ctypes.cast(address, _ValueP))
            failure, self.failure = self.failure, None
            if failure is not None:
                _detach_traceback(failure, getattr(failure, "_signalkit_stage", "next"))

    def completed(self) -> None:
        """on_completed: the upstream's completion, passed on."""
        if not self.ended:
            self.end()
            C.subscriber_put_completion(self.subscriber)


class _StageSource:
    """A fused Python stage signal: its upstream and stages, and the maker
    of their composed function."""
    __slots__ = ("upstream", "stages", "maker", "failures")

    def __init__(self, upstream: Any, stages: Stages, failures: _Recorder) -> None:
        self.upstream = upstream
        self.stages = stages
        self.maker = _chain_maker(stages)
        self.failures = failures


def _stage_generator(ctx: int, subscriber: int) -> Optional[int]:
    source = _core._keep.get(ctx)
    if source is None or _state.closing or sys.is_finalizing():
        return None
    try:
        run = _StageRun(source.maker, C.subscriber_retain(subscriber), source.failures)
        upstream: Optional[int] = _call_with(_start_sink, source.upstream, run)
    except BaseException as exc:
        if not _state.closing:  # else the exit began meanwhile: nothing to report
            _report(exc, "generator")
        return None
    cell = run.cell
    if cell is None:
        return upstream
    # The disposable the library gets ends the run's callback list (its
    # handler None: the composed chain starts no further stage) before it
    # disposes the upstream's: the library disposes it on the disposing
    # thread when the downstream subscription is disposed (through skip,
    # take, share, deliver_on, the next run...), so that no stage of this
    # run starts once that dispose() has returned, as for a run that feeds
    # its subscriber directly (Disposable.dispose ends its list). The run's
    # own list is otherwise ended only when the library releases it.
    try:
        return _speedups.ending_disposable(cell, upstream or 0)
    except BaseException as exc:  # (MemoryError): the upstream's, as it is
        if not _state.closing:
            _report(exc, "generator")
        return upstream


def _started(signal: int, sink: _Sink, ctx: int, observer: _Observer) -> Optional[int]:
    out = _object_out()
    # Failable: on_next fails through sk_callback_fail (_Sink.failed), and
    # the library ends the subscription by its one rule.
    status = C.signal_start_failable(byref(out), signal, byref(observer), 0)
    _check(status)
    if out.value:
        retained = C.disposable_retain(out.value)
        with _core._keep_lock:
            if ctx in _core._keep:  # not released yet: the release (on_release) drops it
                sink.disposable, retained = retained, None
        if retained:  # it ended while it started
            C.disposable_release(retained)
        if sink.ended:  # it failed while it started
            C.disposable_dispose(out.value)
    return out.value


# The library's callbacks of this module are the extension's
# (_speedups_src/operators.c, operator): each calls its Python function with
# the registry key (and the value as an object, or the subscriber's
# address), under the exit rules.
_c_stage_generator = _generator_fn(_speedups.operator("stage", _stage_generator))
for _function in (_fail_call, _Sink.failed, _Sink._end_raised, _Sink.error_at, _Sink.completed, _Sink.released,
                  _StageRun.failed, _StageRun.error_at, _StageRun.completed, _stage_generator):
    _interrupts.THUNK_CODES.add(_function.__code__)


# --- from_iterable: lazy, stopped by disposal ---------------------------------

class _IterRun:
    """One subscription of from_iterable: the iterator, pulled one item at
    a time, and the flag its disposable sets. With `sink` (the subscription
    was started right on this signal from Python: no library operator
    between), the values go to the sink's stages and on_next in Python;
    the end still goes through the library's subscriber."""
    __slots__ = ("iterable", "subscriber", "stopped", "failures", "sink", "__weakref__")

    def __init__(self, iterable: Iterable[Any], subscriber: int, failures: _Recorder,
                 sink: Optional[_Sink] = None) -> None:
        self.iterable = iterable
        self.subscriber = subscriber
        self.stopped = False
        self.failures = failures
        self.sink = sink

    def on_release(self) -> None:
        self.stopped = True

    def cancel(self) -> None:
        """Never runs (the call that scheduled it failed): lets go."""
        self.stopped = True
        self._release_subscriber()

    def _release_subscriber(self) -> None:
        subscriber, self.subscriber = self.subscriber, 0
        if subscriber:
            C.subscriber_release(subscriber)

    def __call__(self) -> None:
        _sk_user = False
        subscriber = self.subscriber
        interrupted = _interrupts.local
        try:
            iterator = iter(self.iterable)
            if self.sink is not None:
                self._direct(iterator)
                return
            # The loop is the extension's: before each pull, self.stopped
            # and the exit; after each put, a pending interrupt.
            if _speedups.put_each(subscriber, iterator, self, _subscriber_put_next):
                C.subscriber_put_completion(subscriber)
            elif interrupted.pending is not None:
                raise interrupted.pending
        except BaseException as exc:
            _sk_user = False
            _trim_traceback(exc)
            self.failures.record(exc)
            if isinstance(exc, KeyboardInterrupt):
                _interrupts.defer(exc)
            if not self.stopped:
                try:
                    error = Value()
                    _put_object(exc, error)
                    C.subscriber_put_error(subscriber, byref(error))
                    C.value_release(byref(error))
                except BaseException:
                    pass
            _detach_traceback(exc, "generator")
        finally:
            self._release_subscriber()


    def _direct(self, iterator: Any) -> None:
        """The values straight to the sink (stages, then on_next): what
        _sink_next would do with each, without the round trip through C."""
        sink = self.sink
        assert sink is not None
        handler = sink.handler()
        interrupted, check, pending = _interrupts.local, _check_value, _speedups.interrupt_pending
        _sk_user = False
        # `while True` and a test: the loop runs once per subscription, and
        # CPython 3.11 specializes the code of a loop whose end is an
        # unconditional jump back, not that of a `while <test>` loop.
        while True:
            if self.stopped or sink.ended or _state.closing:
                return
            try:
                item = next(iterator)
            except StopIteration:
                C.subscriber_put_completion(self.subscriber)
                return
            # A failure ends the stream as a failing on_next does, its error
            # put into the subscriber (no callback of the library runs here
            # to fail): on_error, then the run stopped (its disposable).
            try:
                check(item)
            except (OverflowError, UnicodeEncodeError) as exc:
                self.failures.record(exc)
                sink.failed(exc, self.subscriber, "generator")
                return
            try:
                _sk_user = True
                if handler is not None:
                    handler(item)
                _sk_user = False
            except BaseException as exc:
                _sk_user = False
                sink.failed(exc, self.subscriber)
                return
            if pending():  # interrupted.pending is not None, read in C
                sink.failed(interrupted.pending or KeyboardInterrupt(), self.subscriber)
                return


def _stop_run(ctx: int) -> None:
    run = _core._keep.get(ctx)
    if run is not None:
        run.stopped = True


_c_stop_run = _work_fn(_speedups.operator("stop", _stop_run))


def _iter_generator(ctx: int, subscriber: int) -> Optional[int]:
    source = _core._keep.get(ctx)
    if source is None or _state.closing or sys.is_finalizing():
        return None
    iterable, failures = source
    local = _thread_trampoline()
    direct, local.direct = local.direct, None
    run = _IterRun(iterable, C.subscriber_retain(subscriber), failures, direct)
    out = _object_out()
    try:
        _check(C.disposable_action(byref(out), _c_stop_run, _retain_callbacks(run), _release_ctx))
    except BaseException as exc:
        run.cancel()
        if not _state.closing:  # else the exit began meanwhile: nothing to report
            _report(exc, "generator")
        return None
    if local.active:
        local.jobs.append(run)  # runs once this start has returned
    else:
        run()  # started by the library itself (another thread): emits now
    return out.value


_c_iter_generator = _generator_fn(_speedups.operator("iter", _iter_generator))
_interrupts.THUNK_CODES.add(_IterRun.__call__.__code__)
_interrupts.THUNK_CODES.add(_IterRun._direct.__code__)


# --- create(fn) ---------------------------------------------------------------

class Subscriber(Generic[T], _Handle):
    """The receiving end a create() function emits into, from any thread:
    on_next(value), on_error(exception), on_completed(). After the end of
    the subscription (a completion or an error put, or a dispose: not the
    caller's doing, e.g. when a producer thread emits after it) they do
    nothing. The handle is the function's to keep: close() (or the end of
    a `with` block, or garbage collection) releases it, and a call after
    close() raises ValueError ("Subscriber is closed"), as every closed
    handle's use does; a close() while other threads are inside its calls
    releases when the last returns (see the package docstring). A handle:
    copy.copy and copy.deepcopy return it itself; pickling raises
    TypeError."""
    _release = staticmethod(C.subscriber_release)

    def __init__(self, pointer: int) -> None:
        """A handle (a reference of its own) to the sk_subscriber at `pointer`."""
        super().__init__(C.subscriber_retain(pointer))

    def _put(self, function: Any, obj: object) -> None:
        pointer = self._enter()  # a call in flight until the put returned: see _Handle
        try:
            out = Value()
            _put_object(obj, out)
            try:
                _draining(function, pointer, byref(out))
            finally:
                C.value_release(byref(out))
        finally:
            self._exit()
        _after_call()

    def on_next(self, value: T) -> None:
        """Emits a value (carried by reference unless a plain kind)."""
        # _enter and _exit written out (the loop of a create() function
        # calls this per value: two Python calls less, about 0.5 us of 2):
        # a call in flight until the put returned, see _Handle.
        calls = self._calls
        assert calls is not None  # made by __init__
        calls.append(None)
        try:
            pointer = self._pointer
            if not pointer:
                raise ValueError("Subscriber is closed")
            _draining(_subscriber_put_next, pointer, value)
        finally:
            calls.pop()
            if not self._pointer and not calls:  # in this order: see _Handle._enter
                self._free()
        _after_call()

    def on_error(self, error: BaseException) -> None:
        """Ends the subscription with an error (an exception, by reference)."""
        self._put(C.subscriber_put_error, error)

    def on_completed(self) -> None:
        """Ends the subscription with a completion."""
        pointer = self._enter()  # a call in flight until the put returned: see _Handle
        try:
            _draining(C.subscriber_put_completion, pointer)
        finally:
            self._exit()
        _after_call()

    def close(self) -> None:
        """Drops this handle (idempotent; also done when it is garbage
        collected): the subscription goes on, and later calls raise
        ValueError."""
        super().close()


def _put_by_reference(function: Any, pointer: int, value: object) -> int:
    """function(pointer, value) through ctypes, for an object the extension
    does not convert (carried by reference, or a Signal)."""
    out = Value()
    _put_object(value, out)
    try:
        status: int = function(pointer, byref(out))
    finally:
        if out.kind > KIND_DOUBLE:  # nil, bool, int64 and double hold nothing to release
            C.value_release(byref(out))
    return status



def _subscriber_put_next(pointer: int, value: object) -> int:
    """sk_subscriber_put_next: through the extension for a value of the
    library's kinds, else by reference."""
    status: int = _speedups.subscriber_put_next(pointer, value)
    if status is NotImplemented:
        status = _put_by_reference(C.subscriber_put_next, pointer, value)
    return status


def _cancel_action(ctx: int) -> None:
    _sk_user = False
    holder = _core._keep.get(ctx)
    if holder is None or sys.is_finalizing():  # runs while closing too: a cancel stops library threads
        return
    try:
        action = holder[0]
        holder[0] = None
        if action is not None:
            _sk_user = True
            action()
    except BaseException as exc:
        _report(exc, "dispose")


_c_cancel_action = _work_fn(_speedups.operator("cancel", _cancel_action))
_interrupts.THUNK_CODES.add(_cancel_action.__code__)


class _Nesting(threading.local):
    """The create() functions running on this thread, outermost first: for
    each, its start's frame (_create_generator's) and how many Python
    frames deep that is (None until a deeper level needed it)."""

    def __init__(self) -> None:
        self.levels: List[List[Any]] = []


_nesting = _Nesting()

# How many create() functions must run nested on a thread before a start
# measures how deep Python's stack is: fewer cannot come near the limit by
# nesting alone, and they cost no walk of the frames.
_MEASURED_FROM = 8


def _frames_below(frame: Any, stop: Any = None) -> int:
    """How many frames from `frame` (counted) down to `stop` (not counted)
    or the thread's first."""
    count = 0
    while frame is not None and frame is not stop:
        count += 1
        frame = frame.f_back
    return count


def _create_refusal(frame: Any, levels: List[List[Any]]) -> Tuple[Optional[RecursionError], Optional[int]]:
    """Whether a create() start at `frame`, inside the create() functions
    `levels` running on this thread, is refused, and how deep in Python's
    frames it is (None: not measured). A create() function that subscribes
    to a create() signal nests the next start inside itself, and nothing in
    the C library bounds that (its stack check covers the run-time
    operators alone). Such a start is refused with a RecursionError once
    half of the thread's stack, or a third of Python's recursion limit, is
    used, so that the error still has room to travel back through every
    level, forwarded by each level's on_error: measured, that took about
    three quarters of the way in with on_error forwarded directly (5 frames
    and 2.1 KB a level back, 7 and 2.7 KB in), and more than the way in in
    Python frames through a lambda or two (past half of the limit, it was
    lost). A start outside any create() function is never refused."""
    if not levels:
        return None, None
    left, size = _speedups.stack_left()
    if size and left < size // 2:
        return RecursionError(
            f"signalkit: create: not started: {left} bytes left of the thread's {size}-byte stack, less than "
            "half (create() functions that subscribe to create() signals nest too deep; see the Python "
            "guide, docs/python.md, Errors)"), None
    if len(levels) < _MEASURED_FROM:
        return None, None
    top = levels[-1]
    if top[1] is None:  # once: the deeper levels count from there
        top[1] = _frames_below(top[0])
    depth = _frames_below(frame, top[0]) + top[1]
    limit = sys.getrecursionlimit()
    if depth > limit // 3:
        return RecursionError(
            f"signalkit: create: not started: {depth} frames deep, past a third of Python's recursion limit "
            f"({limit}) (create() functions that subscribe to create() signals nest too deep; see the Python "
            "guide, docs/python.md, Errors)"), depth
    return None, depth


def _create_generator(ctx: int, subscriber: int) -> Optional[int]:
    _sk_user = False
    source = _core._keep.get(ctx)
    if source is None or _state.closing or sys.is_finalizing():
        return None
    function, failures = source
    handle: Subscriber[Any] = Subscriber(subscriber)
    frame, levels = sys._getframe(), _nesting.levels
    refusal, depth = _create_refusal(frame, levels)
    if refusal is not None:
        handle.on_error(refusal)
        return None
    levels.append([frame, depth])
    try:
        _sk_user = True
        cancel = function(handle)
        _sk_user = False
    except BaseException as exc:
        _sk_user = False
        _trim_traceback(exc)
        failures.record(exc)
        if isinstance(exc, KeyboardInterrupt):
            _interrupts.defer(exc)
        try:
            handle.on_error(exc)
        except KeyboardInterrupt as again:  # the put raised the interrupt deferred above: still the caller's
            _interrupts.defer(again)
        _detach_traceback(exc, "create")
        return None
    finally:
        levels.pop()
        del frame  # no reference cycle through this frame
    if cancel is None:
        return None
    if isinstance(cancel, Disposable):
        action: Callable[[], None] = cancel.dispose
    elif callable(cancel):
        action = cancel
    else:  # the stream fails with it, as deferred's does for a result that is not a Signal
        error = TypeError(f"signalkit: create: the function returned {type(cancel).__name__}, "
                          "not None, a Disposable or a callable")
        failures.record(error)
        handle.on_error(error)
        return None
    out = _object_out()
    try:
        ctx = _retain_callbacks([action])
    except RuntimeError:  # the exit began while the function ran: nothing will dispose it later
        try:
            action()
        except BaseException as exc:
            _report(exc, "dispose")
        return None
    _check(C.disposable_action(byref(out), _c_cancel_action, ctx, _release_ctx))
    return out.value


_c_create_generator = _generator_fn(_speedups.operator("create", _create_generator))
_interrupts.THUNK_CODES.add(_create_generator.__code__)


_interrupts.CRITICAL_CODES.add(Subscriber.on_next.__code__)
