"""signalkit.py - SignalKit for Python, through ctypes only (no install step).

Wraps libsignalkit (signalkit.h) and libsignalkit-ffi (signalkit_ffi.h):
signals, pipes, host-drained queues, typed callbacks described by signature
strings such as "void(i64)" or "i64(i64)", and trampolines (real C function
pointers that feed a pipe or a subscriber).

The libraries are found through the environment variable SIGNALKIT_LIB_DIR
(the folder holding libsignalkit.so.0 and libsignalkit-ffi.so.0; `make
test-python` sets it to the staged install), else through the system's
library path (an installed copy).

Handles (Signature, Signal, Pipe, Queue, Disposable, Trampoline) release
their reference when closed, when their `with` block ends, or when they are
garbage collected. A failing call raises SignalKitError carrying the
library's status and message.

Python callbacks given to subscribe/map/filter are kept alive by this module
until the library releases them (the `release(ctx)` contract of the C API),
so a lambda is fine. They run on the thread that delivers the event: the
emitting thread, or the thread that drains a host queue (see
Signal.deliver_on and Queue.host).

Exceptions in callbacks. Every Python callable this module hands to the
library (on_next, on_error, on_completed, map and filter functions, the
generator of Signal.from_iterable, release functions) runs inside a wrapper
that catches every exception it raises (BaseException included) and never
lets it reach ctypes, which would print it and return 0 / None to C as if
nothing had happened. Instead:

- A typed callback (next, error, completed, map, filter) calls
  sk_ffi_callback_fail("ExceptionType: message"); the library ignores what
  the callback returned and:
  - map / filter: the stream ends with the error string
    "sk_ffi: map: callback failed: ValueError: bad input" (filter likewise),
    delivered downstream like any other error; the upstream is disposed;
  - next: the subscription is disposed (no later value reaches it) and its
    on_error receives "sk_ffi: next: callback failed: ValueError: ..." (the
    way every abnormal end of a typed subscription is reported), then the
    callbacks are released;
  - error / completed: nothing more (the subscription was ending).
  A result of the wrong type or out of range (a str from "i64(i64)", 2**40
  from "i32(i64)", a str holding NUL from "str(str)") raises inside the
  wrapper (TypeError, OverflowError, ValueError) and fails the call the
  same way, instead of being converted by ctypes.
- The generator of Signal.from_iterable ends its stream with the error
  string "signalkit: generator: TypeError: ..." (it is not a typed
  callback).
- The exception object is kept: `exception` on the object the callback
  belongs to is the first exception raised by its callbacks (None while
  none was): the Disposable returned by subscribe (next / error /
  completed), the Signal returned by map / filter (its function, in any of
  its subscriptions), the Signal returned by from_iterable (its generator).
  It does not keep the frames it went through (they would keep the
  caller's handles and locals alive): once the hook below has seen it, its
  __traceback__ is dropped and its text is kept as a note
  ("Traceback of the signalkit map callback (most recent call last): ..."),
  printed with the exception; so for the exceptions chained to it.
- Every exception is also passed to the module-level hook
  `callback_error_hook(exc, where)`, `where` being "next", "error",
  "completed", "map", "filter", "generator" or "release". The default,
  default_callback_error_hook, reports it as an unraisable exception
  through sys.unraisablehook ("Exception in signalkit map callback:" and
  the traceback, on stderr by default; the built-in hook cannot be called
  from Python with its own argument type, so while it is in place this
  module writes the same thing itself). Assign another
  function to signalkit.callback_error_hook to collect or log them, or None
  to keep quiet (the stream error and `exception` remain). An exception
  raised by the hook itself goes to sys.unraisablehook.

A ctypes function object (a CFUNCTYPE instance) given instead of a Python
callable is handed to the library as it is: an exception in it is ctypes'
business (printed, and 0 / None returned), as in any ctypes program; call
sk_ffi_callback_fail from it (C.ffi_callback_fail) to fail the delivery.

KeyboardInterrupt (Ctrl-C). A KeyboardInterrupt raised in a callback fails
its delivery as above (the stream ends with "...: callback failed:
KeyboardInterrupt", so the emission stops: a value never reaches a callback
while an interrupt is pending, and Signal.from_iterable stops emitting), is
kept as `exception`, is not passed to callback_error_hook, and is raised
again (a copy of it, with its notes) in the caller when the module call
that ran the callbacks returns
(Pipe.put, Signal.subscribe, Disposable.dispose, Queue.drain, close, a
Trampoline.function() call; for callbacks run by other C code, at the next
such call on that thread). A SIGINT can arrive at any point, also while
the library runs between two callbacks, where raising at once would make
ctypes print the exception and hand the library a made-up result (0):
while this module holds Python callbacks, it installs its own SIGINT
handler on the main thread (when the handler in place is Python's default;
it puts the default back once no callback is held). That handler raises
KeyboardInterrupt as the default one does, except at the points where
ctypes would lose it (a callback starting or finishing, this module's code
around the user's function): there the interrupt is kept, the delivery in
progress fails, and the caller receives it as above. With another SIGINT
handler in place (asyncio's, a program's own) that handler runs as usual.

Integers. A Python int converted to a value (Pipe.put, a "value" result,
arrays inside them) must fit int64 and one handed to a native type must fit
it (results, Trampoline.function() arguments): OverflowError otherwise,
never a silently wrapped number. Arrays nested more than MAX_DEPTH levels
deep are refused (ValueError); conversions in both directions are
iterative, safe at any depth from any point of the stack.

Interpreter exit. Library threads (Queue.serial(), deliver_on) must not
call into Python once the interpreter finalizes (a thread that tries is
stopped in a way that crashes the process). An atexit hook of this module
disposes every subscription still running, waits (up to
SHUTDOWN_WAIT_SECONDS) until the callbacks in progress have returned and
every callback set that no Python object holds has been released, and
from then on callbacks do nothing (a typed callback fails its delivery
without calling the user's function); new callbacks are refused
(RuntimeError).
"""

import atexit
import ctypes
import itertools
import operator
import os
import signal
import sys
import threading
import time
import traceback
import types
import weakref
from ctypes import (CFUNCTYPE, POINTER, Structure, Union, byref, c_bool, c_char_p, c_double, c_int, c_int32,
                    c_int64, c_long, c_size_t, c_uint, c_uint64, c_void_p)

__all__ = [
    "SignalKitError", "Signature", "Signal", "Pipe", "Queue", "Disposable", "Trampoline",
    "live_objects", "ffi_live_objects", "from_value", "version", "MAX_DEPTH",
    "default_callback_error_hook",  # callback_error_hook: assign signalkit.callback_error_hook itself
]

# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------

ENV_VAR = "SIGNALKIT_LIB_DIR"


def _load():
    directory = os.environ.get(ENV_VAR)
    if directory:
        paths = [os.path.join(directory, name) for name in ("libsignalkit.so.0", "libsignalkit-ffi.so.0")]
        for path in paths:
            if not os.path.exists(path):
                raise ImportError(f"signalkit: {path} not found ({ENV_VAR}={directory!r}); "
                                  f"run `make stage` (or `make test-python`) or point {ENV_VAR} at the folder "
                                  f"holding libsignalkit.so.0 and libsignalkit-ffi.so.0")
    else:
        paths = ["libsignalkit.so.0", "libsignalkit-ffi.so.0"]
    try:
        # The core first, globally: the ffi library's dependency on it is then
        # met by the copy already loaded, wherever it came from.
        core = ctypes.CDLL(paths[0], mode=ctypes.RTLD_GLOBAL)
        ffi = ctypes.CDLL(paths[1])
    except OSError as error:
        raise ImportError(f"signalkit: cannot load the libraries ({error}); set {ENV_VAR} to the folder "
                          f"holding libsignalkit.so.0 and libsignalkit-ffi.so.0 (`make test-python` sets it "
                          f"to the staged install)") from error
    return core, ffi


_core, _ffi = _load()

# --------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------

KIND_NIL, KIND_BOOL, KIND_INT64, KIND_DOUBLE, KIND_STRING, KIND_BYTES, KIND_ARRAY, KIND_POINTER, KIND_SIGNAL = range(9)


class _ValueUnion(Union):
    _fields_ = [("boolean", c_bool), ("int64", c_int64), ("real", c_double), ("object", c_void_p)]


class Value(Structure):
    """The C struct sk_value."""
    _fields_ = [("kind", c_int), ("u", _ValueUnion)]


_ValueP = POINTER(Value)
_release_fn = CFUNCTYPE(None, c_void_p)
_work_fn = CFUNCTYPE(None, c_void_p)
_generator_fn = CFUNCTYPE(c_void_p, c_void_p, c_void_p)
_next_fn = CFUNCTYPE(None, c_void_p, _ValueP)
_completed_fn = CFUNCTYPE(None, c_void_p)


class _Observer(Structure):
    _fields_ = [("next", _next_fn), ("error", _next_fn), ("completed", _completed_fn),
                ("ctx", c_void_p), ("release", _release_fn)]


class _FfiObserver(Structure):
    _fields_ = [("next_signature", c_void_p), ("next", c_void_p),
                ("error_signature", c_void_p), ("error", c_void_p),
                ("completed_signature", c_void_p), ("completed", c_void_p),
                ("ctx", c_void_p), ("release", _release_fn)]


def _proto(lib, name, restype, *argtypes):
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


_P = c_void_p
_PP = POINTER(c_void_p)
_core_api = {
    "sk_last_error_message": (c_char_p,),
    "sk_status_string": (c_char_p, c_int),
    "sk_version_string": (c_char_p,),
    "sk_live_objects": (c_long,),
    "sk_value_set_nil": (None, _ValueP),
    "sk_value_set_bool": (None, _ValueP, c_bool),
    "sk_value_set_int64": (None, _ValueP, c_int64),
    "sk_value_set_double": (None, _ValueP, c_double),
    "sk_value_set_string_n": (c_int, _ValueP, c_char_p, c_size_t),
    "sk_value_set_bytes": (c_int, _ValueP, c_char_p, c_size_t),
    "sk_value_set_array": (c_int, _ValueP, _ValueP, c_size_t),
    "sk_value_set_pointer": (c_int, _ValueP, c_void_p, c_void_p),
    "sk_value_release": (None, _ValueP),
    "sk_value_get_string": (c_int, _ValueP, POINTER(c_char_p), POINTER(c_size_t)),
    "sk_value_get_bytes": (c_int, _ValueP, POINTER(c_void_p), POINTER(c_size_t)),
    "sk_value_get_array_count": (c_int, _ValueP, POINTER(c_size_t)),
    "sk_value_get_array_item": (c_int, _ValueP, c_size_t, POINTER(_ValueP)),
    "sk_value_get_pointer": (c_int, _ValueP, POINTER(c_void_p)),
    "sk_signal_create": (c_int, _PP, _generator_fn, c_void_p, _release_fn),
    "sk_signal_start": (c_int, _PP, _P, POINTER(_Observer)),
    "sk_signal_release": (None, _P),
    "sk_signal_retain": (_P, _P),
    "sk_signal_take": (c_int, _PP, _P, c_size_t),
    "sk_signal_deliver_on": (c_int, _PP, _P, _P),
    "sk_subscriber_put_next": (c_int, _P, _ValueP),
    "sk_subscriber_put_error": (c_int, _P, _ValueP),
    "sk_subscriber_put_completion": (c_int, _P),
    "sk_disposable_dispose": (None, _P),
    "sk_disposable_retain": (_P, _P),
    "sk_disposable_release": (None, _P),
    "sk_pipe_create": (c_int, _PP, c_bool),
    "sk_pipe_put": (c_int, _P, _ValueP),
    "sk_pipe_signal": (c_int, _PP, _P),
    "sk_pipe_release": (None, _P),
    "sk_queue_create": (c_int, _PP, c_char_p),
    "sk_queue_create_host": (c_int, _PP, c_char_p),
    "sk_queue_host_fd": (c_int, _P, POINTER(c_int)),
    "sk_queue_host_drain": (c_int, _P, c_size_t, POINTER(c_size_t)),
    "sk_queue_release": (None, _P),
}
_ffi_api = {
    "sk_ffi_last_error_message": (c_char_p,),
    "sk_ffi_live_objects": (c_long,),
    "sk_ffi_callback_fail": (c_int, c_char_p),
    "sk_ffi_signature_parse": (c_int, _PP, c_char_p),
    "sk_ffi_signature_release": (None, _P),
    "sk_ffi_signal_start": (c_int, _PP, _P, POINTER(_FfiObserver)),
    "sk_ffi_signal_map": (c_int, _PP, _P, _P, c_void_p, c_void_p, _release_fn),
    "sk_ffi_signal_filter": (c_int, _PP, _P, _P, c_void_p, c_void_p, _release_fn),
    "sk_ffi_trampoline_subscriber": (c_int, _PP, _P, _P),
    "sk_ffi_trampoline_pipe": (c_int, _PP, _P, _P),
    "sk_ffi_trampoline_function": (c_void_p, _P),
    "sk_ffi_trampoline_close": (None, _P),
    "sk_ffi_trampoline_calls": (c_uint64, _P),
    "sk_ffi_trampoline_release": (None, _P),
}


class _Api:
    pass


C = _Api()
for _name, (_restype, *_argtypes) in _core_api.items():
    setattr(C, _name[3:], _proto(_core, _name, _restype, *_argtypes))
for _name, (_restype, *_argtypes) in _ffi_api.items():
    setattr(C, _name[3:], _proto(_ffi, _name, _restype, *_argtypes))


class SignalKitError(Exception):
    """A failing library call: `status` is the negative sk_status, `message`
    the library's message naming the function and the argument."""

    def __init__(self, status, message):
        super().__init__(f"{message} ({C.status_string(status).decode()}, status {status})")
        self.status = status
        self.message = message


def _check(status, ffi=False):
    if status != 0:
        raw = C.ffi_last_error_message() if ffi else C.last_error_message()
        raise SignalKitError(status, raw.decode("utf-8", "replace"))


def live_objects():
    """sk_live_objects(): library objects alive (0 when everything is released)."""
    return C.live_objects()


def ffi_live_objects():
    """sk_ffi_live_objects(): ffi objects alive (signatures, typed callbacks, trampolines)."""
    return C.ffi_live_objects()


def version():
    return C.version_string().decode()


# The deepest nesting of arrays a value may have (SK_VALUE_MAX_DEPTH of
# signalkit.h): an array of no arrays is 1 level deep.
MAX_DEPTH = 128
_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1


def _scalar_value(obj):
    """A new sk_value for an object that is not a list or tuple."""
    value = Value()
    if obj is None:
        C.value_set_nil(byref(value))
    elif isinstance(obj, bool):
        C.value_set_bool(byref(value), obj)
    elif isinstance(obj, int):
        if not _INT64_MIN <= obj <= _INT64_MAX:
            raise OverflowError(f"signalkit: int {obj} out of range of int64")
        C.value_set_int64(byref(value), obj)
    elif isinstance(obj, float):
        C.value_set_double(byref(value), obj)
    elif isinstance(obj, str):
        data = obj.encode()
        _check(C.value_set_string_n(byref(value), data, len(data)))
    elif isinstance(obj, (bytes, bytearray)):
        _check(C.value_set_bytes(byref(value), bytes(obj), len(obj)))
    else:
        raise TypeError(f"signalkit: no value kind for {type(obj).__name__}")
    return value


def _release_items(items, count):
    for i in range(count):
        C.value_release(byref(items[i]))


def to_value(obj):
    """A new sk_value (owned: release it with C.value_release) for a Python
    object: None, bool, int (int64: OverflowError outside), float, str,
    bytes, list/tuple (at most MAX_DEPTH levels deep: ValueError). Nested
    lists are converted without recursion."""
    if not isinstance(obj, (list, tuple)):
        return _scalar_value(obj)
    # One frame per array being built: [sequence, its items so far, count].
    stack = [[obj, (Value * max(len(obj), 1))(), 0]]
    try:
        while True:
            frame = stack[-1]
            sequence, items, index = frame
            if index < len(sequence):
                item = sequence[index]
                if isinstance(item, (list, tuple)):
                    if len(stack) >= MAX_DEPTH:
                        raise ValueError(f"signalkit: arrays nested more than {MAX_DEPTH} levels deep")
                    stack.append([item, (Value * max(len(item), 1))(), 0])
                else:
                    items[index] = _scalar_value(item)
                    frame[2] = index + 1
                continue
            value = Value()
            _check(C.value_set_array(byref(value), items, len(sequence)))
            stack.pop()
            _release_items(items, len(sequence))  # the array holds its own references
            if not stack:
                return value
            parent = stack[-1]
            parent[1][parent[2]] = value
            parent[2] += 1
    except BaseException:
        for _, items, index in stack:
            _release_items(items, index)
        raise


def _scalar_from(pointer, value):
    kind = value.kind
    if kind == KIND_NIL:
        return None
    if kind == KIND_BOOL:
        return bool(value.u.boolean)
    if kind == KIND_INT64:
        return value.u.int64
    if kind == KIND_DOUBLE:
        return value.u.real
    if kind == KIND_STRING:
        text, length = c_char_p(), c_size_t()
        _check(C.value_get_string(pointer, byref(text), byref(length)))
        return ctypes.string_at(text, length.value).decode("utf-8", "replace")
    if kind == KIND_BYTES:
        data, length = c_void_p(), c_size_t()
        _check(C.value_get_bytes(pointer, byref(data), byref(length)))
        return ctypes.string_at(data, length.value) if length.value else b""
    if kind == KIND_POINTER:
        address = c_void_p()
        _check(C.value_get_pointer(pointer, byref(address)))
        return address.value or 0
    return value  # a signal value: left as the raw struct


def _array_count(pointer):
    count = c_size_t()
    _check(C.value_get_array_count(pointer, byref(count)))
    return count.value


def from_value(pointer):
    """The Python object for a borrowed `const sk_value *` (a ctypes pointer
    or an address): None, bool, int, float, str, bytes, list, or a pointer
    value's address (int). Nested arrays are converted without recursion."""
    if not pointer:
        return None
    if isinstance(pointer, int):
        pointer = ctypes.cast(pointer, _ValueP)
    value = pointer.contents
    if value.kind != KIND_ARRAY:
        return _scalar_from(pointer, value)
    result = []
    # One frame per array being read: [array, item count, next index, list].
    stack = [[pointer, _array_count(pointer), 0, result]]
    while stack:
        frame = stack[-1]
        array, count, index, items = frame
        if index == count:
            stack.pop()
            continue
        frame[2] = index + 1
        item = _ValueP()
        _check(C.value_get_array_item(array, index, byref(item)))
        contents = item.contents
        if contents.kind == KIND_ARRAY:
            inner = []
            items.append(inner)
            stack.append([item, _array_count(item), 0, inner])
        else:
            items.append(_scalar_from(item, contents))
    return result


# --------------------------------------------------------------------------
# Keeping Python callbacks alive until the library releases them
# --------------------------------------------------------------------------

class _State:
    closing = False  # set by the atexit hook: callbacks do nothing from then on


_state = _State()
_keep = {}  # ctx -> the objects the library's callbacks need
_owners = {}  # ctx -> weak reference to the Python handle whose release releases ctx
_subscriptions = {}  # ctx -> a reference (retained here) to the subscription's disposable
_keep_lock = threading.Lock()
_keep_changed = threading.Condition(_keep_lock)
_ids = itertools.count(1)


def _retain_callbacks(*objects):
    """Keeps `objects` alive; returns the ctx to hand to the library, whose
    release (_release_ctx) drops them."""
    if _state.closing:
        raise RuntimeError("signalkit: the interpreter is exiting: no new callbacks")
    _interrupts.install()
    key = next(_ids)
    with _keep_lock:
        _keep[key] = objects
    return key


def _set_owner(ctx, handle):
    """`handle` (a Signal) releases ctx when it goes, unless a subscription
    still holds it."""
    with _keep_lock:
        if ctx in _keep:
            _owners[ctx] = weakref.ref(handle)


def _register_subscription(ctx, disposable):
    """Keeps a reference to the subscription of ctx, so that the atexit hook
    can dispose it; dropped by its release."""
    retained = C.disposable_retain(disposable)
    with _keep_lock:
        if ctx in _keep:
            _subscriptions[ctx] = retained
            retained = None
    if retained:  # the subscription already ended
        C.disposable_release(retained)


# Releases running Python code, on any thread. The atexit hook waits until
# none does: a library thread that gives the GIL up inside one (a ctypes
# call, a lock, the interpreter's switch interval) and takes it again once
# the interpreter finalizes is stopped in a way that crashes the process.
# Changed with no call after the decrement: a thread switch happens only at
# a call, a loop or a function start.
_releases_running = [0]


def _release_ctx_function(ctx, _is_finalizing=sys.is_finalizing):  # bound now: globals are cleared at exit
    if _is_finalizing():  # touch nothing: the process is ending
        return
    _releases_running[0] += 1
    try:
        with _keep_changed:
            dropped = _keep.pop(ctx, None)
            _owners.pop(ctx, None)
            subscription = _subscriptions.pop(ctx, None)
            _keep_changed.notify_all()
        if subscription:
            C.disposable_release(subscription)
        del dropped  # their destructors run here, inside the guard
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            _interrupts.defer(exc)
        else:
            _report(exc, "release")
    finally:
        _releases_running[0] -= 1


_release_ctx = _release_fn(_release_ctx_function)


def pending_callbacks():
    """How many callback sets the library still holds (0 when every
    subscription ended and every operator signal was released)."""
    with _keep_lock:
        return len(_keep)


# --------------------------------------------------------------------------
# KeyboardInterrupt
# --------------------------------------------------------------------------

class _Interrupts:
    """KeyboardInterrupts that met a callback, and the SIGINT handler that
    keeps them from reaching ctypes (module docstring).

    `pending` (per thread) is the KeyboardInterrupt a callback of this
    thread met, to be raised again in the caller when the module call that
    ran the callbacks returns (raise_pending). The handler looks at the
    stack it interrupts: below the innermost callback of this module (a
    frame of one of the functions ctypes calls, THUNK_CODES), it raises only
    while that callback runs the user's function (its local `_sk_user` is
    True: the callback catches it); anywhere else in a callback it defers
    the interrupt (pending), and the callback fails its delivery at its next
    check. Outside callbacks it is Python's default handler."""

    THUNK_CODES = set()

    class Local(threading.local):
        pending = None  # read as a plain attribute: no Python call, no thread switch

    def __init__(self):
        self.local = self.Local()
        self.installed = False

    @property
    def pending(self):
        return self.local.pending

    def defer(self, exc=None):
        if self.local.pending is None:
            self.local.pending = exc if exc is not None else KeyboardInterrupt()

    def raise_pending(self):
        """Raises the pending KeyboardInterrupt, as a copy (same type, args
        and notes, among them the callback's traceback): the one kept as
        `exception` must not get the caller's frames through a traceback."""
        exc = self.local.pending
        if exc is not None:
            self.local.pending = None
            try:
                copy = type(exc)(*exc.args)
            except BaseException:
                copy = KeyboardInterrupt(*exc.args)
            notes = getattr(exc, "__notes__", None)
            if notes:
                copy.__notes__ = list(notes)
            raise copy

    def handler(self, signum, frame):
        while frame is not None:
            if frame.f_code in self.THUNK_CODES:
                if frame.f_locals.get("_sk_user") is True:
                    break  # in the user's function: the callback catches it
                self.defer()
                return
            frame = frame.f_back
        signal.default_int_handler(signum, frame)

    def install(self):
        """On the main thread, while Python callbacks are held, with Python's
        default SIGINT handler in place: this one instead."""
        if self.installed or threading.current_thread() is not threading.main_thread():
            return
        try:
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                signal.signal(signal.SIGINT, self.handler)
                self.installed = True
        except (ValueError, OSError):  # not the main interpreter, or no signals here
            pass

    def uninstall_if_idle(self):
        """Puts the default handler back once no callback is held."""
        if not self.installed or _keep or self.pending is not None or _state.closing \
                or threading.current_thread() is not threading.main_thread():
            return
        self.installed = False
        try:
            if signal.getsignal(signal.SIGINT) == self.handler:
                signal.signal(signal.SIGINT, signal.default_int_handler)
        except (ValueError, OSError):
            pass


_interrupts = _Interrupts()
_interrupts.THUNK_CODES.add(_release_ctx_function.__code__)


def _after_call():
    """After a module call that may have run callbacks on this thread: the
    KeyboardInterrupt they met, raised here."""
    if _interrupts.local.pending is not None:
        _interrupts.raise_pending()
    if _interrupts.installed and not _keep:
        _interrupts.uninstall_if_idle()


# --------------------------------------------------------------------------
# Exceptions raised by callbacks
# --------------------------------------------------------------------------

def _unraisable(exc, err_msg):
    """Reports `exc` as sys.unraisablehook does. The built-in hook accepts
    only its own argument type, which cannot be made from Python: while it
    is in place, its output is written the same way; a hook installed by the
    program receives an object with the same attributes."""
    hook = sys.unraisablehook
    if hook is not sys.__unraisablehook__:
        hook(types.SimpleNamespace(exc_type=type(exc), exc_value=exc, exc_traceback=exc.__traceback__,
                                   err_msg=err_msg, object=None))
        return
    stream = sys.stderr
    if stream is not None:
        stream.write(err_msg + ":\n")
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=stream)
        stream.flush()


def default_callback_error_hook(exc, where):
    """The default callback_error_hook: reports `exc` as an unraisable
    exception (sys.unraisablehook), with the message "Exception in signalkit
    WHERE callback" and its traceback."""
    _unraisable(exc, f"Exception in signalkit {where} callback")


callback_error_hook = default_callback_error_hook


def _report(exc, where):
    """Passes `exc` to callback_error_hook; a failing hook goes to
    sys.unraisablehook. Never raises."""
    try:
        hook = callback_error_hook
        if hook is not None:
            hook(exc, where)
    except BaseException as hook_exc:
        try:
            _unraisable(hook_exc, "Exception in signalkit.callback_error_hook")
        except BaseException:
            pass


def _describe(exc):
    """ "ExceptionType: message" (or "ExceptionType" for an empty message)."""
    name = type(exc).__name__
    try:
        text = str(exc)
    except BaseException:
        text = "(str() of the exception failed)"
    return f"{name}: {text}" if text else name


class _Failures:
    """The first exception raised by the callbacks of one object."""

    def __init__(self):
        self._lock = threading.Lock()
        self.exception = None

    def record(self, exc):
        with self._lock:
            if self.exception is None:
                self.exception = exc


def _add_note(exc, note):
    add_note = getattr(exc, "add_note", None)
    if add_note is not None:
        add_note(note)
    else:  # before Python 3.11: kept, not printed
        exc.__notes__ = getattr(exc, "__notes__", []) + [note]


def _detach_traceback(exc, where):
    """Drops the frames that `exc` and the exceptions chained to it keep
    through their tracebacks (the caller's frames, and through them its
    handles and locals, would live as long as the exception), keeping each
    traceback's text as a note."""
    seen = set()
    chain = [exc]
    while chain:
        current = chain.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        tb = current.__traceback__
        if tb is not None:
            text = "".join(traceback.format_tb(tb)).rstrip("\n")
            current.__traceback__ = None
            _add_note(current, f"Traceback of the signalkit {where} callback (most recent call last):\n{text}")
        chain += [current.__cause__, current.__context__]


def _kept(exc, where, failures):
    """An exception a callback caught: reported (a KeyboardInterrupt is
    deferred to the caller instead), then kept without its frames."""
    if isinstance(exc, KeyboardInterrupt):
        _interrupts.defer(exc)
    else:
        _report(exc, where)
    _detach_traceback(exc, where)
    if failures is not None:
        failures.record(exc)


def _fail_interrupted(failures):
    """Fails the delivery in progress because of the pending interrupt."""
    exc = _interrupts.pending
    C.ffi_callback_fail(_describe(exc).encode("utf-8", "replace"))
    if failures is not None:
        failures.record(exc)


def _callback_failed(exc, where, failures):
    """An exception escaped a typed callback: fail the delivery, keep and
    report the exception. Never raises."""
    try:
        C.ffi_callback_fail(_describe(exc).replace("\0", "\\0").encode("utf-8", "replace"))
    except BaseException:
        pass
    try:
        _kept(exc, where, failures)
    except BaseException:
        pass


# --------------------------------------------------------------------------
# Handles
# --------------------------------------------------------------------------

class _Handle:
    _release = None  # the C release function, set by subclasses

    def __init__(self, pointer):
        self._pointer = pointer

    @property
    def pointer(self):
        if not self._pointer:
            raise ValueError(f"{type(self).__name__} is closed")
        return self._pointer

    def _drop(self):
        pointer, self._pointer = self._pointer, None
        if pointer:
            type(self)._release(pointer)

    def close(self):
        """Drops the reference this object holds (idempotent)."""
        self._drop()
        _after_call()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self._drop()  # an interrupt met here waits for the next call
        except Exception:  # interpreter shutdown: the library may be gone
            pass


_ctypes_of = {
    "void": None, "bool": c_bool, "i32": c_int32, "i64": c_int64, "u64": c_uint64, "f64": c_double,
    "str": c_char_p, "ptr": c_void_p, "value": c_void_p, "ctx": c_void_p,
}


class Signature(_Handle):
    """A prepared signature parsed from its string form ("void(ctx,i64)")."""
    _release = staticmethod(C.ffi_signature_release)

    def __init__(self, text):
        pointer = c_void_p()
        _check(C.ffi_signature_parse(byref(pointer), text.encode()), ffi=True)
        super().__init__(pointer.value)
        self.text = text
        result, _, rest = text.replace(" ", "").replace("\t", "").partition("(")
        self.result = result
        self.args = [a for a in rest.rstrip(")").split(",") if a]

    def cfunctype(self):
        """The ctypes CFUNCTYPE for this signature. A "str" result is
        declared c_void_p (ctypes cannot return a char * from a callback)."""
        result = _ctypes_of[self.result]
        if self.result in ("str", "value"):
            result = c_void_p
        return CFUNCTYPE(result, *[_ctypes_of[a] for a in self.args])

    def __repr__(self):
        return f"Signature({self.text!r})"


def _signature(spec):
    return spec if isinstance(spec, Signature) else Signature(spec)


_integer_ranges = {"i32": (-2 ** 31, 2 ** 31 - 1), "i64": (-2 ** 63, 2 ** 63 - 1), "u64": (0, 2 ** 64 - 1),
                   "ptr": (0, 2 ** 64 - 1)}
# What a failed call returns to C (ignored by the library).
_fallback_of = {"void": None, "bool": False, "i32": 0, "i64": 0, "u64": 0, "f64": 0.0, "str": None,
                "ptr": None, "value": None}


def _native_result(kind, out):
    """`out` checked for the result type `kind`, as ctypes will pass it on:
    raises TypeError / OverflowError / ValueError instead of letting ctypes
    convert (or print and replace) it."""
    if kind == "bool":
        return bool(out)
    if kind in _integer_ranges:
        if kind == "ptr" and out is None:
            return None
        number = operator.index(out)
        low, high = _integer_ranges[kind]
        if not low <= number <= high:
            raise OverflowError(f"{number} out of range of {kind}")
        return number
    if kind == "f64":
        if not isinstance(out, (int, float)):
            raise TypeError(f"f64 result must be int or float, not {type(out).__name__}")
        return float(out)
    return out


_CLOSING_MESSAGE = b"signalkit: the interpreter is exiting"


def _native(signature, fn, where, failures=None):
    """A C function pointer for `fn` under `signature`: `fn` itself when it
    is already a ctypes function, else a CFUNCTYPE wrapping the callable
    (str arguments arrive as Python str, value arguments as Python objects;
    a str or value result is kept alive per thread until the next call).
    An exception escaping `fn`, or a result that does not fit, fails the
    call (see the module docstring), recorded in `failures`. A delivery
    (next, map, filter) that starts or ends with a KeyboardInterrupt pending
    fails too: a value never goes on while the caller is being interrupted."""
    if isinstance(fn, ctypes._CFuncPtr):
        return fn
    return signature.cfunctype()(_thunk(signature.args, signature.result, fn, where, failures))


def _thunk(args, result, fn, where, failures):
    fallback = _fallback_of[result]
    local = threading.local()
    delivery = where in ("next", "map", "filter")
    # What the callback needs once the interpreter exits, bound here: module
    # globals are cleared while the interpreter finalizes.
    state, interrupted, is_finalizing, fail = _state, _interrupts.local, sys.is_finalizing, C.ffi_callback_fail

    def call(*raw):
        # The SIGINT handler reads _sk_user: True only while `fn` runs.
        _sk_user = False
        try:
            if state.closing or is_finalizing():
                if delivery:
                    fail(_CLOSING_MESSAGE)
                return fallback
            if delivery and interrupted.pending is not None:
                _fail_interrupted(failures)
                return fallback
            converted = []
            for kind, arg in zip(args, raw):
                if kind == "str":
                    converted.append(None if arg is None else arg.decode("utf-8", "replace"))
                elif kind == "value":
                    converted.append(from_value(arg))
                else:
                    converted.append(arg)
            _sk_user = True
            out = fn(*converted)
            _sk_user = False
            if result == "str":
                if out is None:
                    native = None  # the library reports a NULL str result
                elif not isinstance(out, str):
                    raise TypeError(f"str result must be str, not {type(out).__name__}")
                elif "\0" in out:
                    raise ValueError("str result holds a NUL character")
                else:
                    local.buffer = ctypes.create_string_buffer(out.encode())
                    native = ctypes.addressof(local.buffer)
            elif result == "value":
                local.value = _OwnedValue(out)  # drops the previous one
                native = ctypes.addressof(local.value.value)
            else:
                native = _native_result(result, out)
            if delivery and interrupted.pending is not None:
                _fail_interrupted(failures)
                return fallback
            return native
        except BaseException as exc:
            _sk_user = False
            _callback_failed(exc, where, failures)
            return fallback

    _interrupts.THUNK_CODES.add(call.__code__)
    return call


class _OwnedValue:
    """An sk_value owned by Python: released when collected."""
    value = None

    def __init__(self, obj):
        self.value = to_value(obj)

    def __del__(self):
        try:
            if self.value is not None:
                C.value_release(byref(self.value))
        except Exception:  # interpreter shutdown
            pass


def _fn_address(cfunc):
    return ctypes.cast(cfunc, c_void_p).value


class _Failing:
    """`exception`: the first exception raised by this object's callbacks."""
    _failures = None

    @property
    def exception(self):
        """The first exception raised by this object's Python callbacks
        (None while none was); see the module docstring."""
        return self._failures.exception if self._failures is not None else None


class Disposable(_Failing, _Handle):
    """A subscription's disposable: dispose() cancels; `with` disposes and
    releases at the end of the block; close() only releases. `exception`:
    the first exception raised by the subscription's callbacks."""
    _release = staticmethod(C.disposable_release)

    def dispose(self):
        if self._pointer:
            C.disposable_dispose(self._pointer)
        _after_call()

    def __exit__(self, *exc):
        try:
            self.dispose()
        finally:
            self.close()


class Signal(_Failing, _Handle):
    """A cold stream of values. For a signal made by map, filter or
    from_iterable, `exception` is the first exception raised by its
    function (or generator)."""
    _release = staticmethod(C.signal_release)

    @classmethod
    def from_iterable(cls, items):
        """A signal that emits each item of `items` (converted to values) on
        the starting thread, then completes. A KeyboardInterrupt met while
        it emits stops it (module docstring)."""
        items = list(items)
        failures = _Failures()
        state, interrupted, is_finalizing = _state, _interrupts.local, sys.is_finalizing
        put_next, put_error, put_completion = C.subscriber_put_next, C.subscriber_put_error, C.subscriber_put_completion
        value_release = C.value_release

        def fail(subscriber, exc):
            failures.record(exc)
            try:
                error = to_value("signalkit: generator: " + _describe(exc))
                put_error(subscriber, byref(error))
                value_release(byref(error))
            except BaseException:
                pass

        def generate(ctx, subscriber):
            # No user code runs here (_sk_user stays False): an interrupt is
            # deferred, and checked after each value.
            _sk_user = False
            try:
                if state.closing or is_finalizing():
                    return None
                for item in items:
                    value = to_value(item)
                    try:
                        put_next(subscriber, byref(value))
                    finally:
                        value_release(byref(value))
                    if interrupted.pending is not None:
                        fail(subscriber, interrupted.pending)  # stops here
                        return None
                put_completion(subscriber)
            except BaseException as exc:
                _sk_user = False
                try:
                    _kept(exc, "generator", None)
                except BaseException:
                    pass
                fail(subscriber, exc)
            return None

        _interrupts.THUNK_CODES.add(generate.__code__)
        generator = _generator_fn(generate)
        pointer = c_void_p()
        ctx = _retain_callbacks(generator)
        _check(C.signal_create(byref(pointer), generator, ctx, _release_ctx))
        signal = cls(pointer.value)
        signal._failures = failures
        _set_owner(ctx, signal)
        return signal

    def map(self, signature, fn):
        """Values transformed by the native or Python function `fn`, described
        by `signature` ("i64(i64)", "str(str)", ...): sk_ffi_signal_map.
        An exception in `fn` ends the stream with an error (module
        docstring)."""
        return self._operator(C.ffi_signal_map, "map", signature, fn)

    def filter(self, signature, fn):
        """Only the values for which `fn` returns true ("bool(f64)", ...)."""
        return self._operator(C.ffi_signal_filter, "filter", signature, fn)

    def _operator(self, function, where, signature, fn):
        signature = _signature(signature)
        pointer, signature_pointer = self.pointer, signature.pointer  # closed: raise before retaining
        failures = _Failures()
        native = _native(signature, fn, where, failures)
        ctx = _retain_callbacks(native, signature)
        out = c_void_p()
        status = function(byref(out), pointer, signature_pointer, _fn_address(native), ctx, _release_ctx)
        _check(status, ffi=True)
        signal = Signal(out.value)
        signal._failures = failures
        _set_owner(ctx, signal)
        return signal

    def take(self, count):
        """The first `count` values (0 <= count < 2**64; 2**64 - 1: all)."""
        count = operator.index(count)
        if count < 0:
            raise ValueError(f"signalkit: take count {count} is negative")
        if count > 2 ** 64 - 1:
            raise OverflowError(f"signalkit: take count {count} out of range of size_t")
        out = c_void_p()
        _check(C.signal_take(byref(out), self.pointer, count))
        return Signal(out.value)

    def deliver_on(self, queue):
        """Every event delivered on `queue` (e.g. a host queue drained by an
        event loop)."""
        out = c_void_p()
        _check(C.signal_deliver_on(byref(out), self.pointer, queue.pointer))
        return Signal(out.value)

    def subscribe(self, next_signature=None, on_next=None, on_error=None, on_completed=None,
                  error_signature="void(str)", completed_signature="void()"):
        """Starts the signal with typed callbacks (sk_ffi_signal_start):
        `on_next` described by `next_signature` ("void(i64)", ...), `on_error`
        by `error_signature` (a str receives the error or a description of a
        conversion failure), `on_completed` by `completed_signature`. Each may
        be a Python callable or a ctypes CFUNCTYPE object. Returns the
        Disposable; its `exception` is the first exception raised by these
        callbacks (an exception in on_next ends the subscription: module
        docstring)."""
        pointer = self.pointer  # closed: raise before retaining anything
        keep = []
        failures = _Failures()
        observer = _FfiObserver()
        for slot, spec, fn in (("next", next_signature, on_next), ("error", error_signature, on_error),
                               ("completed", completed_signature, on_completed)):
            if fn is None:
                continue
            signature = _signature(spec)
            native = _native(signature, fn, slot, failures)
            keep += [signature, native]
            setattr(observer, slot + "_signature", signature.pointer)
            setattr(observer, slot, _fn_address(native))
        ctx = _retain_callbacks(*keep)
        observer.ctx = ctx
        observer.release = _release_ctx
        out = c_void_p()
        status = C.ffi_signal_start(byref(out), pointer, byref(observer))
        disposable = None
        if status == 0:
            _register_subscription(ctx, out.value)
            disposable = Disposable(out.value)
            disposable._failures = failures
        if _interrupts.local.pending is not None:
            # Interrupted while it started: the call fails, leaving nothing running.
            if disposable is not None:
                C.disposable_dispose(disposable.pointer)
                disposable._drop()
            _interrupts.raise_pending()
        _check(status, ffi=True)
        return disposable


class Pipe(_Handle):
    """A hot source: put() reaches the current subscribers of signal()."""
    _release = staticmethod(C.pipe_release)

    def __init__(self, replay=False):
        pointer = c_void_p()
        _check(C.pipe_create(byref(pointer), replay))
        super().__init__(pointer.value)

    def put(self, obj):
        """Delivers `obj` (converted to a value: to_value) to the current
        subscribers, on this thread."""
        pointer = self.pointer
        value = to_value(obj)
        try:
            status = C.pipe_put(pointer, byref(value))
        finally:
            C.value_release(byref(value))
        _after_call()
        _check(status)

    def signal(self):
        out = c_void_p()
        _check(C.pipe_signal(byref(out), self.pointer))
        return Signal(out.value)


class Queue(_Handle):
    """A queue; Queue.host() makes a host-drained one for an event loop,
    Queue.serial() a serial queue on a library-managed thread."""
    _release = staticmethod(C.queue_release)

    @classmethod
    def host(cls, name="python"):
        pointer = c_void_p()
        _check(C.queue_create_host(byref(pointer), name.encode()))
        return cls(pointer.value)

    @classmethod
    def serial(cls, name="python"):
        """A serial queue whose work runs on a library-managed (dispatch)
        thread: callbacks delivered there (Signal.deliver_on) run on that
        thread."""
        pointer = c_void_p()
        _check(C.queue_create(byref(pointer), name.encode()))
        return cls(pointer.value)

    def fileno(self):
        """The descriptor that is readable while work is pending."""
        fd = c_int()
        _check(C.queue_host_fd(self.pointer, byref(fd)))
        return fd.value

    def drain(self, max_tasks=0):
        """Runs the pending work on the calling thread; returns how many ran."""
        ran = c_size_t()
        status = C.queue_host_drain(self.pointer, max_tasks, byref(ran))
        _after_call()
        _check(status)
        return ran.value


class Trampoline(_Handle):
    """A real C function pointer of a described signature ("void(i64)")
    that puts its arguments into a pipe or a subscriber."""
    _release = staticmethod(C.ffi_trampoline_release)

    def __init__(self, target, signature):
        signature = _signature(signature)
        pointer = c_void_p()
        if isinstance(target, Pipe):
            _check(C.ffi_trampoline_pipe(byref(pointer), target.pointer, signature.pointer), ffi=True)
        else:  # a raw sk_subscriber * (int), e.g. from a generator
            _check(C.ffi_trampoline_subscriber(byref(pointer), target, signature.pointer), ffi=True)
        super().__init__(pointer.value)
        self.signature = signature

    @property
    def address(self):
        """The function's address, to hand to a C API."""
        return C.ffi_trampoline_function(self.pointer)

    def function(self):
        """The function as a Python callable (calls go through C): integer
        arguments are checked against their native types first
        (OverflowError, never wrapped), and a KeyboardInterrupt met by the
        callbacks a call runs is raised when it returns."""
        cfunc = self.signature.cfunctype()(self.address)
        checks = [(i, kind) + _integer_ranges[kind] for i, kind in enumerate(self.signature.args)
                  if kind in _integer_ranges]

        def call(*args):
            for i, kind, low, high in checks:
                if i < len(args) and isinstance(args[i], int) and not low <= args[i] <= high:
                    raise OverflowError(f"signalkit: {args[i]} out of range of {kind} (argument {i})")
            result = cfunc(*args)
            _after_call()
            return result

        call.cfunc = cfunc
        return call

    @property
    def calls(self):
        return C.ffi_trampoline_calls(self.pointer)

    def detach(self):
        """sk_ffi_trampoline_close: later calls do nothing."""
        C.ffi_trampoline_close(self.pointer)

    def _drop(self):
        pointer, self._pointer = self._pointer, None
        if pointer:
            C.ffi_trampoline_release(pointer)
        signature, self.signature = getattr(self, "signature", None), None
        if signature is not None:
            signature._drop()


# --------------------------------------------------------------------------
# Interpreter exit
# --------------------------------------------------------------------------

SHUTDOWN_WAIT_SECONDS = 5.0
_immortal = []


def _unfinished(ctx):
    """A callback set that a library thread may still call or release: a
    subscription, or one no Python handle holds any more."""
    if ctx in _subscriptions:
        return True
    owner = _owners.get(ctx)
    return owner is None or owner() is None


def _shutdown():
    """atexit: no library thread may call into Python once the interpreter
    finalizes (module docstring)."""
    try:
        _state.closing = True  # callbacks do nothing from now on
        with _keep_lock:
            subscriptions = list(_subscriptions.values())
        for disposable in subscriptions:
            C.disposable_dispose(disposable)
        deadline = time.monotonic() + SHUTDOWN_WAIT_SECONDS
        with _keep_changed:  # waits without the GIL: callbacks in progress finish
            # A release notifies before it has left Python: the count of
            # releases running is polled (at exit only, briefly).
            while any(_unfinished(ctx) for ctx in _keep) or _releases_running[0]:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                _keep_changed.wait(min(remaining, 0.01))
            held = list(_keep.values())
        # What the library may still call stays callable until the process
        # ends: the module's globals are cleared while the interpreter
        # finalizes, and a freed ctypes callback would be a jump into freed
        # memory.
        _immortal.extend([held, _release_ctx])
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(_immortal))
    except BaseException:
        pass


atexit.register(_shutdown)
