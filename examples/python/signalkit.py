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
  It keeps its traceback, and through it the frames it went through.
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
"""

import ctypes
import itertools
import operator
import os
import sys
import threading
import traceback
import types
from ctypes import (CFUNCTYPE, POINTER, Structure, Union, byref, c_bool, c_char_p, c_double, c_int, c_int32,
                    c_int64, c_long, c_size_t, c_uint, c_uint64, c_void_p)

__all__ = [
    "SignalKitError", "Signature", "Signal", "Pipe", "Queue", "Disposable", "Trampoline",
    "live_objects", "ffi_live_objects", "from_value", "version",
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
    "sk_disposable_release": (None, _P),
    "sk_pipe_create": (c_int, _PP, c_bool),
    "sk_pipe_put": (c_int, _P, _ValueP),
    "sk_pipe_signal": (c_int, _PP, _P),
    "sk_pipe_release": (None, _P),
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


def to_value(obj):
    """A new sk_value (owned: release it with C.value_release) for a Python
    object: None, bool, int, float, str, bytes, list/tuple."""
    value = Value()
    if obj is None:
        C.value_set_nil(byref(value))
    elif isinstance(obj, bool):
        C.value_set_bool(byref(value), obj)
    elif isinstance(obj, int):
        C.value_set_int64(byref(value), obj)
    elif isinstance(obj, float):
        C.value_set_double(byref(value), obj)
    elif isinstance(obj, str):
        data = obj.encode()
        _check(C.value_set_string_n(byref(value), data, len(data)))
    elif isinstance(obj, (bytes, bytearray)):
        _check(C.value_set_bytes(byref(value), bytes(obj), len(obj)))
    elif isinstance(obj, (list, tuple)):
        items = (Value * max(len(obj), 1))()
        made = 0
        try:
            for made, item in enumerate(obj, 1):
                items[made - 1] = to_value(item)
            _check(C.value_set_array(byref(value), items, len(obj)))
        finally:
            for i in range(made):
                C.value_release(byref(items[i]))
    else:
        raise TypeError(f"signalkit: no value kind for {type(obj).__name__}")
    return value


def from_value(pointer):
    """The Python object for a borrowed `const sk_value *` (a ctypes pointer
    or an address): None, bool, int, float, str, bytes, list, or a pointer
    value's address (int)."""
    if not pointer:
        return None
    if isinstance(pointer, int):
        pointer = ctypes.cast(pointer, _ValueP)
    value = pointer.contents
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
    if kind == KIND_ARRAY:
        count = c_size_t()
        _check(C.value_get_array_count(pointer, byref(count)))
        items = []
        for i in range(count.value):
            item = _ValueP()
            _check(C.value_get_array_item(pointer, i, byref(item)))
            items.append(from_value(item))
        return items
    if kind == KIND_POINTER:
        address = c_void_p()
        _check(C.value_get_pointer(pointer, byref(address)))
        return address.value or 0
    return value  # a signal value: left as the raw struct


# --------------------------------------------------------------------------
# Keeping Python callbacks alive until the library releases them
# --------------------------------------------------------------------------

_keep = {}
_keep_lock = threading.Lock()
_ids = itertools.count(1)


def _retain_callbacks(*objects):
    """Keeps `objects` alive; returns the ctx to hand to the library, whose
    release (_release_ctx) drops them."""
    key = next(_ids)
    with _keep_lock:
        _keep[key] = objects
    return key


@_release_fn
def _release_ctx(ctx):
    try:
        with _keep_lock:
            dropped = _keep.pop(ctx, None)
        del dropped  # their destructors run here, inside the guard
    except BaseException as exc:
        _report(exc, "release")


def pending_callbacks():
    """How many callback sets the library still holds (0 when every
    subscription ended and every operator signal was released)."""
    with _keep_lock:
        return len(_keep)


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


def _callback_failed(exc, where, failures):
    """An exception escaped a typed callback: fail the delivery, keep and
    report the exception. Never raises."""
    try:
        C.ffi_callback_fail(_describe(exc).replace("\0", "\\0").encode("utf-8", "replace"))
    except BaseException:
        pass
    if failures is not None:
        failures.record(exc)
    _report(exc, where)


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

    def close(self):
        """Drops the reference this object holds (idempotent)."""
        pointer, self._pointer = self._pointer, None
        if pointer:
            type(self)._release(pointer)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
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


def _native(signature, fn, where, failures=None):
    """A C function pointer for `fn` under `signature`: `fn` itself when it
    is already a ctypes function, else a CFUNCTYPE wrapping the callable
    (str arguments arrive as Python str, value arguments as Python objects;
    a str or value result is kept alive per thread until the next call).
    An exception escaping `fn`, or a result that does not fit, fails the
    call (see the module docstring), recorded in `failures`."""
    if isinstance(fn, ctypes._CFuncPtr):
        return fn
    args = signature.args
    result = signature.result
    fallback = _fallback_of[result]
    local = threading.local()

    def call(*raw):
        try:
            converted = []
            for kind, arg in zip(args, raw):
                if kind == "str":
                    converted.append(None if arg is None else arg.decode("utf-8", "replace"))
                elif kind == "value":
                    converted.append(from_value(arg))
                else:
                    converted.append(arg)
            out = fn(*converted)
            if result == "str":
                if out is None:
                    return None  # the library reports a NULL str result
                if not isinstance(out, str):
                    raise TypeError(f"str result must be str, not {type(out).__name__}")
                if "\0" in out:
                    raise ValueError("str result holds a NUL character")
                local.buffer = ctypes.create_string_buffer(out.encode())
                return ctypes.addressof(local.buffer)
            if result == "value":
                local.value = _OwnedValue(out)  # drops the previous one
                return ctypes.addressof(local.value.value)
            return _native_result(result, out)
        except BaseException as exc:
            _callback_failed(exc, where, failures)
            return fallback

    return signature.cfunctype()(call)


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

    def __exit__(self, *exc):
        self.dispose()
        self.close()


class Signal(_Failing, _Handle):
    """A cold stream of values. For a signal made by map, filter or
    from_iterable, `exception` is the first exception raised by its
    function (or generator)."""
    _release = staticmethod(C.signal_release)

    @classmethod
    def from_iterable(cls, items):
        """A signal that emits each item of `items` (converted to values) on
        the starting thread, then completes."""
        items = list(items)
        failures = _Failures()

        @_generator_fn
        def generator(ctx, subscriber):
            try:
                for item in items:
                    value = to_value(item)
                    C.subscriber_put_next(subscriber, byref(value))
                    C.value_release(byref(value))
                C.subscriber_put_completion(subscriber)
            except BaseException as exc:
                failures.record(exc)
                _report(exc, "generator")
                try:
                    error = to_value("signalkit: generator: " + _describe(exc))
                    C.subscriber_put_error(subscriber, byref(error))
                    C.value_release(byref(error))
                except BaseException:
                    pass
            return None

        pointer = c_void_p()
        ctx = _retain_callbacks(generator)
        _check(C.signal_create(byref(pointer), generator, ctx, _release_ctx))
        signal = cls(pointer.value)
        signal._failures = failures
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
        failures = _Failures()
        native = _native(signature, fn, where, failures)
        ctx = _retain_callbacks(native, signature)
        out = c_void_p()
        _check(function(byref(out), self.pointer, signature.pointer, _fn_address(native), ctx, _release_ctx), ffi=True)
        signal = Signal(out.value)
        signal._failures = failures
        return signal

    def take(self, count):
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
        observer.ctx = _retain_callbacks(*keep)
        observer.release = _release_ctx
        out = c_void_p()
        _check(C.ffi_signal_start(byref(out), self.pointer, byref(observer)), ffi=True)
        disposable = Disposable(out.value)
        disposable._failures = failures
        return disposable


class Pipe(_Handle):
    """A hot source: put() reaches the current subscribers of signal()."""
    _release = staticmethod(C.pipe_release)

    def __init__(self, replay=False):
        pointer = c_void_p()
        _check(C.pipe_create(byref(pointer), replay))
        super().__init__(pointer.value)

    def put(self, obj):
        value = to_value(obj)
        try:
            _check(C.pipe_put(self.pointer, byref(value)))
        finally:
            C.value_release(byref(value))

    def signal(self):
        out = c_void_p()
        _check(C.pipe_signal(byref(out), self.pointer))
        return Signal(out.value)


class Queue(_Handle):
    """A queue; Queue.host() makes a host-drained one for an event loop."""
    _release = staticmethod(C.queue_release)

    @classmethod
    def host(cls, name="python"):
        pointer = c_void_p()
        _check(C.queue_create_host(byref(pointer), name.encode()))
        return cls(pointer.value)

    def fileno(self):
        """The descriptor that is readable while work is pending."""
        fd = c_int()
        _check(C.queue_host_fd(self.pointer, byref(fd)))
        return fd.value

    def drain(self, max_tasks=0):
        """Runs the pending work on the calling thread; returns how many ran."""
        ran = c_size_t()
        _check(C.queue_host_drain(self.pointer, max_tasks, byref(ran)))
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
        """The function as a callable ctypes object (calls go through C)."""
        return self.signature.cfunctype()(self.address)

    @property
    def calls(self):
        return C.ffi_trampoline_calls(self.pointer)

    def detach(self):
        """sk_ffi_trampoline_close: later calls do nothing."""
        C.ffi_trampoline_close(self.pointer)

    def close(self):
        pointer, self._pointer = self._pointer, None
        if pointer:
            C.ffi_trampoline_release(pointer)
        signature, self.signature = getattr(self, "signature", None), None
        if signature is not None:
            signature.close()
