"""pysignalkit: reactive streams for Python over SignalKit's C library.

A Signal is a cold stream: nothing runs until subscribe(), and each
subscription runs it anew. Operators (map, filter, take, debounce, ...)
return new signals; every operator of the C API is here, each a call into
it. Sources: Signal.from_iterable (lazy), Signal.create, Signal.single /
complete / fail / never / deferred / interval / timer / merge /
combine_latest, Pipe (hot), Promise and ValuePromise.

Values. None, bool, int (int64: OverflowError outside), float, str and
bytes cross the library as its own value kinds; any other object (a dict, a
dataclass, a list, an exception) is carried by reference: the very object
arrives. Lists from the library (arrays: combine_latest) arrive as lists.

Threads. Callbacks run on the thread that delivers the event: the thread
that put the value (Pipe.put, a Subscriber's on_next) or started the
signal, or a queue's thread (deliver_on, run_on, the time operators).
Queue.serial() runs in order on the library's shared worker threads,
Queue.concurrent() on the same threads, at once, Queue.host() only when
drained; asyncio_queue()
is a host queue the running asyncio loop drains by itself. The time
operators (debounce, throttle, delay, timeout, retry, retry_count,
buffer_with_time, sample with a period, interval, timer) given no queue
run on a default queue: called on a thread running an asyncio loop, that
loop's asyncio_queue(), so their events arrive on the loop's thread (where
asyncio may be called; started once that loop has closed, such a signal
fails with RuntimeError); elsewhere the library's concurrent queue, whose
threads run no loop. `await signal`
gives its first value (so `await s.first()`, `await s.last()`), `async for
value in signal` its values, both delivered on the loop's thread. `await
pipe.put_async(value)` puts without ever waiting for room: a bounded
consumer with overflow "block" that is full takes the value beyond its
capacity, and the await ends once it has room again, the loop going on.

Fusion. A chain of Python map / filter / tap stages is composed: each event
crosses from C into Python once for the whole chain (and once more into the
subscriber's on_next when the chain ends in a subscribe: none, since the
subscription runs the stages itself).

Errors. An exception raised by a Python function of a stream (a map,
filter or tap function, the predicate of skip_while, take_while or first,
take_until's function, scan, reduce, map_to_signal, merge_map, catch,
deferred, group_by's key, an iterator of from_iterable, a create function)
ends the stream with it, as a C callback's sk_callback_fail does (and
group_by's groups delivered before it): nothing is delivered for that
value nor after it, the upstream is disposed, and on_error receives that
exception object, with its traceback while it is delivered
(afterwards, once the library holds the error no more, the traceback is
dropped and its text kept as a note, so no handle or local is kept alive
through it; group_by's groups that ended with it hold it while they live). An exception in on_next
ends the subscription by the same rule (sk_signal_start_failable): once the
on_next calls in flight on other threads have returned, on_error receives
it, then the upstream is disposed; one in on_error or
on_completed, in a side effect (before_next, after_completed, ...) or a
bounded operator's on_drop goes to the hook
`callback_error_hook(exc, where)` (default: printed through
sys.unraisablehook; assign pysignalkit.callback_error_hook to collect them,
or None). An error value that
is not an exception (a string from the C library) arrives as SignalError.
`exception` on a Disposable or an operator's Signal is the first exception
its callbacks raised. A failing library call raises SignalKitError.

The native forms take a signature string and a ctypes function or a Python
callable: map("i64(i64)", fn), filter("bool(f64)", fn), subscribe(
"void(i64)", on_next, on_error, on_completed) (libsignalkit-ffi's typed
callbacks), Trampoline (a real C function pointer feeding a pipe or a
create() function's Subscriber). There an
exception fails the delivery through sk_ffi_callback_fail: the stream ends
with the error string "sk_ffi: map: callback failed: ValueError: ..." and
the exception is kept as `exception` without its frames (their text is
kept as a note) and passed to callback_error_hook; a result that does not
fit its type raises inside the wrapper (TypeError, OverflowError,
ValueError) and fails the call the same way (an int result of an f32 or f64
fits within +-2^24 or +-2^53, where the type holds every integer, as for
the library's int64 values: it is never rounded).

KeyboardInterrupt (Ctrl-C). A KeyboardInterrupt raised in a callback (or a
SIGINT arriving while the library runs between two callbacks) stops the
emission in progress: no later value reaches a callback while it is
pending, from_iterable stops pulling, and it is raised again in the caller
when the package call that ran the callbacks returns (subscribe, Pipe.put,
Queue.drain, ...), never given to on_error, a catch handler or
callback_error_hook; the subscription whose stream an ordinary exception of
that callback would have failed ends, upstream disposed (the rule in full:
the Python guide, docs/python.md, "Errors", Ctrl-C). While library
objects are alive or Python callbacks are held, the package installs its own SIGINT handler on the main thread (when
Python's default one is in place), which defers the interrupt at the points where ctypes would lose it or where it
would leave an object alive (the package's own code: raised when the package call returns, or a moment later).
A handler of the program's own, or SIGINT ignored (SIG_IGN, which Python
keeps when it inherits it, as in a background job of a non-interactive
shell), is left alone: Ctrl-C then interrupts nothing, as without the
package.
On a library thread (a serial queue's, the concurrent pool's, a timer's)
there is no such caller: a KeyboardInterrupt a callback raises there is an
exception like any other (the stream's error, on_error, or
callback_error_hook; never the main thread's), and later deliveries on that
thread go on; one a package call nested in such a callback left pending
goes to callback_error_hook (where "interrupt") when the callback ends.

Interpreter exit, fork(), and the limits of the library's threads. The
Python guide (docs/python.md) says what happens at interpreter exit (an atexit hook
disposes what runs and waits only for the callbacks running at that
moment, up to SHUTDOWN_WAIT_SECONDS; from then on no callback runs, and a
call that gives the library a Python function raises RuntimeError), in a
forked child (every call raises SignalKitError) and when the system
refuses a thread or a descriptor: its sections "Threads and asyncio" (fork(), threads) and
"Errors" (interpreter exit). The C library's rules beneath them are the
conventions of signalkit.h.

Testing time. The module pysignalkit.testing (import it on its own) tests the
time operators on virtual time with marble diagrams: TestScheduler (a
virtual-time queue with a frame size; cold, hot, record, advance, run),
TestSignal, TestRecorder.

NATS. The module pysignalkit.nats (import it on its own) makes NATS
subjects into signals and signals into NATS messages, JetStream included,
over the C bridge libsignalkit-nats, which the wheel does not carry
(docs/nats.md, "Python").


Loading. The package loads its own copies of libsignalkit.so.0 and
libsignalkit-ffi.so.0 (in pysignalkit/_lib); the environment variable
SIGNALKIT_LIB_DIR, read at import, names another folder, or `system` for
the installed copies the loader finds (library_paths() says which).
"""

# Layers. The package's modules, lowest first; a module imports only modules
# of lower layers, at its top (never inside a function), the one exception
# being an import of the composed Signal under `if TYPE_CHECKING:` for
# annotations, which never runs (tests/test_layers.py reads every module's
# imports and fails on any other):
#   0  _speedups, _prototypes: the extension (C) through which every callback crosses; the C functions' prototypes, generated from the headers
#   1  _core: the libraries loaded, the ctypes prototypes, values, the registry of callbacks, errors, exit and fork
#   2  _handle: handles and Disposable, the per-thread trampoline, argument checks
#   3  _native, _subscription: the native forms (Signature); Python stages, sinks, from_iterable, create's Subscriber
#   4  _callbacks: the Python functions the library's operators call
#   5  _queue: Queue
#   6  _signal_core: Signal's core: the handle, the C library's sources, subscribe, to_list
#   7  _asyncio: await, async for, asyncio_queue
#   8  _standard_operators: the operators of a standard shape, generated from the operator table (tools/api/operators.md), a class per family
#   9  _operators: one module per operator family (catch, combine, dispatch, mapping, merge, meta, reduce, share, side_effects, take, throttle, timing), as the Swift core's Signal_<Family>.swift and the C layer's Operators_<Family>.swift, each class extending its family's generated one
#   10 _signal: Signal, composed from the core and the families
#   11 _subjects: Pipe, Promise, ValuePromise
#   12 _trampoline: Trampoline
#   13 testing, nats, and the package itself: what a program imports

from . import _core
from ._asyncio import SignalIterator, asyncio_queue
from ._core import (ENV_VAR, MAX_DEPTH, MAX_WORKERS, OVERFLOW_BLOCK, OVERFLOW_DROP_NEWEST, OVERFLOW_DROP_OLDEST, OVERFLOW_ERROR,
                    OVERFLOW_LATEST, SHUTDOWN_WAIT_SECONDS, TAKE_COMPLETE, TAKE_PASS, SignalError, SignalKitError,
                    LiveObject, Value, boxed_objects, default_callback_error_hook, ffi_live_objects, from_value,
                    library_paths, live_objects, pending_callbacks, release_value, set_name, to_value, version,
                    wait_released)
from ._handle import Disposable
from ._native import Signature
from ._queue import Queue
from ._signal import Signal
from ._subjects import Pipe, Promise, ValuePromise
from ._subscription import Subscriber
from ._trampoline import Trampoline

callback_error_hook = _core.callback_error_hook
"""Called with (exception, where) for an exception a callback raised that
no error callback receives; assign a function, or None to keep quiet.
`where` names the callback that raised ("map", "filter", "tap" for a
Python stage, "scan", "reduce" for a fold's function, "predicate",
"take_until", "signal", "deferred", "group_by", "next", "error",
"completed", "side effect", "on_drop", "work", ...: the Python guide,
Errors)."""

__version__ = version()

__all__ = [
    "Signal", "Subscriber", "Disposable", "Pipe", "Promise", "ValuePromise", "Queue", "Signature", "Trampoline",
    "SignalIterator", "asyncio_queue", "SignalError", "SignalKitError", "Value", "TAKE_PASS", "TAKE_COMPLETE", "OVERFLOW_DROP_NEWEST",
    "OVERFLOW_DROP_OLDEST", "OVERFLOW_LATEST", "OVERFLOW_ERROR", "OVERFLOW_BLOCK",
    "MAX_DEPTH", "MAX_WORKERS", "SHUTDOWN_WAIT_SECONDS", "ENV_VAR", "live_objects", "LiveObject", "set_name", "ffi_live_objects",
    "pending_callbacks",
    "boxed_objects", "wait_released", "from_value", "to_value", "release_value", "version", "library_paths",
    "default_callback_error_hook", "callback_error_hook",
]
