"""The low level of the pysignalkit package: loading the two libraries, their
C functions (ctypes prototypes), values, the registry that keeps Python
callbacks alive until the library releases them, exceptions raised by
callbacks, KeyboardInterrupt, and interpreter exit.

See the package docstring (pysignalkit/__init__.py) for the rules these
implement; the public names are re-exported there.
"""

from __future__ import annotations

import _thread
import atexit
import ctypes
import importlib
import itertools
import os
import signal
import sys
import threading
import time
import traceback
import types
import weakref
from ctypes import (CFUNCTYPE, POINTER, Structure, Union, byref, c_bool, c_char_p, c_double, c_int, c_int64,
                    c_long, c_size_t, c_uint64, c_void_p)
from typing import Any, Callable, Dict, List, Literal, NamedTuple, Optional, Protocol, Tuple, overload

from . import _prototypes


class _LazyModule:
    """A standard module imported on its first use, then put in place of
    this stand-in in the namespace that named it. `asyncio` (with ssl and
    the event loop machinery) took half of `import pysignalkit`'s 58 ms; a
    program that never awaits a signal needs none of it."""

    def __init__(self, name: str, namespace: Dict[str, Any]) -> None:
        self._name = name
        self._namespace = namespace

    def __getattr__(self, attribute: str) -> Any:
        module = importlib.import_module(self._name)
        self._namespace[self._name] = module
        return getattr(module, attribute)

# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------

ENV_VAR = "SIGNALKIT_LIB_DIR"
"""The environment variable that overrides where the native libraries are
loaded from (a folder, or 'system'): see `library_paths`."""
_LIBRARIES = ("libsignalkit.so.0", "libsignalkit-ffi.so.0")


def library_paths() -> Tuple[str, str]:
    """The two libraries this package loads (read once, at import).

    Its own copies (the folder ``_lib`` beside this module, put there by the
    wheel), unless the environment variable SIGNALKIT_LIB_DIR names a folder
    holding libsignalkit.so.0 and libsignalkit-ffi.so.0, or is ``system``:
    the copies the system's loader finds (an installed SignalKit)."""
    directory = os.environ.get(ENV_VAR, "")
    if directory == "system":
        return _LIBRARIES
    if not directory:
        directory = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib")
    return os.path.join(directory, _LIBRARIES[0]), os.path.join(directory, _LIBRARIES[1])


def _load() -> Tuple[ctypes.CDLL, ctypes.CDLL]:
    paths = library_paths()
    for path in paths:
        if os.path.isabs(path) and not os.path.exists(path):
            raise ImportError(f"signalkit: {path} not found ({ENV_VAR}={os.environ.get(ENV_VAR, '')!r}); "
                              f"reinstall the package (pip install Sources/python), or set {ENV_VAR} to the "
                              f"folder holding {_LIBRARIES[0]} and {_LIBRARIES[1]}, or to 'system' for an "
                              f"installed copy")
    try:
        # The core first, globally: the ffi library's dependency on it is then
        # met by the copy already loaded, wherever it came from.
        core = ctypes.CDLL(paths[0], mode=ctypes.RTLD_GLOBAL)
        ffi = ctypes.CDLL(paths[1])
    except OSError as error:
        raise ImportError(f"signalkit: cannot load the libraries ({error}); set {ENV_VAR} to the folder "
                          f"holding {_LIBRARIES[0]} and {_LIBRARIES[1]}, or to 'system' for an installed "
                          f"copy") from error
    return core, ffi


_core, _ffi = _load()

# The crossing between the library and Python (callbacks of Python
# subscriptions, puts): a CPython extension beside this module, linked to
# the libsignalkit.so.0 already loaded (_speedups_src/module.c says why it
# exists).
from . import _speedups  # noqa: E402  (after the libraries: it needs libsignalkit.so.0 loaded)

# --------------------------------------------------------------------------
# Values and prototypes
# --------------------------------------------------------------------------

KIND_NIL, KIND_BOOL, KIND_INT64, KIND_DOUBLE, KIND_STRING, KIND_BYTES, KIND_ARRAY, KIND_POINTER, KIND_SIGNAL = range(9)
TAKE_PASS = 1
"""A flag of what a `Signal.take_until` function returns: deliver the value
(SK_TAKE_PASS of signalkit.h; 0 drops it and goes on)."""
TAKE_COMPLETE = 2
"""A flag of what a `Signal.take_until` function returns: then complete
(SK_TAKE_COMPLETE of signalkit.h; TAKE_PASS | TAKE_COMPLETE delivers the
value, then completes)."""
OVERFLOW_DROP_NEWEST = 0
"""A bounded buffer's policy (`Signal.on_backpressure_buffer`, `Signal.deliver_on`
with a capacity): the incoming value is dropped (SK_OVERFLOW_DROP_NEWEST; the
string "drop_newest")."""
OVERFLOW_DROP_OLDEST = 1
"""A bounded buffer's policy: the oldest pending value is dropped
(SK_OVERFLOW_DROP_OLDEST; "drop_oldest")."""
OVERFLOW_LATEST = 2
"""A bounded buffer's policy: the newest pending value is replaced by the
incoming one (SK_OVERFLOW_LATEST; "latest")."""
OVERFLOW_ERROR = 3
"""A bounded buffer's policy: the stream fails with an error naming the operator
and the capacity, after the values pending (SK_OVERFLOW_ERROR; "error")."""
OVERFLOW_BLOCK = 4
"""A bounded buffer's policy: the producing thread waits for room
(SK_OVERFLOW_BLOCK; "block"), without the GIL, so that the consumer's Python
callback makes that room; the stream fails instead where waiting could never
end (a value put from inside the delivery, a host-drained queue). An asyncio
producer awaits Pipe.put_async."""


class _ValueUnion(Union):
    _fields_ = [("boolean", c_bool), ("int64", c_int64), ("real", c_double), ("object", c_void_p)]


class Value(Structure):
    """The C struct sk_value (signalkit.h): a kind and its contents.

    Fields (ctypes fields, which carry no docstring of their own):
    `kind` is the value's kind (0 nil, 1 bool, 2 int64, 3 double, 4
    string, 5 bytes, 6 array, 7 pointer, 8 signal: SK_VALUE_*); `u` is the
    union of its contents, whose members are also read in place on the
    value: `boolean` (a bool), `int64` (an int64), `real` (a double) and
    `object` (the address of a string, bytes, array, pointer or signal
    payload, read through the library's sk_value_get_* functions). Make
    one with to_value, read one with from_value, drop it with
    release_value."""
    _fields_ = [("kind", c_int), ("u", _ValueUnion)]
    _anonymous_ = ("u",)  # value.int64, value.real, ... read in place: no union object per access


_ValueP = POINTER(Value)
_release_fn = CFUNCTYPE(None, c_void_p)
_work_fn = CFUNCTYPE(None, c_void_p)
_generator_fn = CFUNCTYPE(c_void_p, c_void_p, c_void_p)
_next_fn = CFUNCTYPE(None, c_void_p, _ValueP)
_completed_fn = CFUNCTYPE(None, c_void_p)
_map_fn = CFUNCTYPE(None, c_void_p, _ValueP, _ValueP)
_predicate_fn = CFUNCTYPE(c_bool, c_void_p, _ValueP)
_signal_fn = CFUNCTYPE(c_void_p, c_void_p, _ValueP)
_take_until_fn = CFUNCTYPE(c_int, c_void_p, _ValueP)
_reduce_fn = CFUNCTYPE(None, c_void_p, _ValueP, _ValueP, _ValueP)
_deferred_fn = CFUNCTYPE(c_void_p, c_void_p)
_live_object_fn = CFUNCTYPE(None, c_void_p, c_void_p)
_drop_fn = CFUNCTYPE(None, c_void_p, _ValueP, c_uint64)


class _LiveObject(Structure):
    """The C struct sk_live_object (its fields as of 0.3; the library may
    add some at its end, which this view does not read)."""
    _fields_ = [("address", c_void_p), ("kind", c_char_p), ("made_by", c_char_p), ("name", c_char_p)]


class _Observer(Structure):
    _fields_ = [("next", _next_fn), ("error", _next_fn), ("completed", _completed_fn),
                ("ctx", c_void_p), ("release", _release_fn)]


class _FfiObserver(Structure):
    _fields_ = [("next_signature", c_void_p), ("next", c_void_p),
                ("error_signature", c_void_p), ("error", c_void_p),
                ("completed_signature", c_void_p), ("completed", c_void_p),
                ("ctx", c_void_p), ("release", _release_fn)]


def _proto(lib: ctypes.CDLL, name: str, restype: Any, *argtypes: Any) -> Any:
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


_value_fn = _next_fn  # the same C type (sk_value_fn, sk_next_fn): one CFUNCTYPE, so either's callbacks fit


class _MarbleValue(Structure):
    """The C struct sk_marble_value (signalkit_test.h): a diagram's
    character and the value it stands for."""
    _fields_ = [("symbol", ctypes.c_char), ("value", Value)]


# The C types _prototypes.py writes (generated from the headers), as ctypes
# types; a callback typedef sk_NAME_fn is this module's _NAME_fn.
_CTYPES: Dict[str, Any] = {
    "void": None, "int": c_int, "bool": c_bool, "double": c_double, "size_t": c_size_t, "int64_t": c_int64,
    "uint64_t": c_uint64, "long": c_long, "unsigned": ctypes.c_uint, "char *": c_char_p,
    "char **": POINTER(c_char_p), "void *": c_void_p, "void **": POINTER(c_void_p), "bool *": POINTER(c_bool),
    "int *": POINTER(c_int), "double *": POINTER(c_double), "int64_t *": POINTER(c_int64),
    "size_t *": POINTER(c_size_t), "handle": c_void_p, "handle *": POINTER(c_void_p), "sk_value *": _ValueP,
    "sk_value **": POINTER(_ValueP), "sk_observer *": POINTER(_Observer), "sk_ffi_observer *": POINTER(_FfiObserver),
    "sk_marble_value *": POINTER(_MarbleValue),
}


def _ctype(spelling: str) -> Any:
    """The ctypes type of a C type as _prototypes.py spells it."""
    if spelling in _CTYPES:
        return _CTYPES[spelling]
    return globals()["_" + spelling[len("sk_"):]]  # sk_map_fn: _map_fn


def _bind(lib: ctypes.CDLL, table: Dict[str, Tuple[str, ...]]) -> None:
    for name, (restype, *argtypes) in table.items():
        setattr(C, name[len("sk_"):], _proto(lib, name, _ctype(restype), *map(_ctype, argtypes)))


class _Api:
    """The C functions, by name without their sk_ prefix (C.pipe_put)."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)


C: Any = _Api()
_bind(_core, _prototypes.CORE)
_bind(_ffi, _prototypes.FFI)
# What the native forms' closures (_speedups.native) call for a delivery
# refused at exit.
_speedups.set_callback_fail(ctypes.cast(_ffi.sk_ffi_callback_fail, c_void_p).value or 0)
if all(hasattr(_core, _name) for _name in _prototypes.TEST):
    _bind(_core, _prototypes.TEST)


class SignalKitError(Exception):
    """A failing library call: `status` is the negative sk_status, `message`
    the library's message naming the function and the argument. Also every
    package call in the child of a fork of a process that had used the
    package (status -6, SK_ERR_UNSUPPORTED; the Python guide's "fork()",
    in "Threads and asyncio")."""

    def __init__(self, status: int, message: str) -> None:
        """The error of a library call that returned `status` with `message`."""
        super().__init__(f"{message} ({C.status_string(status).decode()}, status {status})")
        self.status = status
        """The negative sk_status of the failing call."""
        self.message = message
        """The library's message, naming the function and the argument."""

    def __reduce__(self) -> Tuple[Any, Tuple[int, str]]:
        """Pickled as its status and message (a multiprocessing worker's
        error reaches the parent: unpickling one made from the formatted
        text alone would fail, and the pool would wait forever)."""
        return type(self), (self.status, self.message)


class SignalError(Exception):
    """What an error callback receives for an error value that is not a
    Python exception (a string from the C library, such as a typed
    callback's failure, or a value given to Signal.fail): `value` is it."""

    def __init__(self, value: object) -> None:
        """The error standing for the error value `value`."""
        super().__init__(value)
        self.value = value
        """The error value the signal carried."""


def _check(status: int, ffi: bool = False) -> None:
    if status != 0:
        raw = C.ffi_last_error_message() if ffi else C.last_error_message()
        raise SignalKitError(status, raw.decode("utf-8", "replace"))


# The functional form: its field types are objects, not the strings this
# module's annotations are (from __future__ import annotations), which the
# __init__ NamedTuple makes could not resolve for documentation tools.
LiveObject = NamedTuple("LiveObject", [("address", int), ("kind", str), ("made_by", Optional[str]),
                                       ("name", Optional[str])])
LiveObject.__doc__ = """One live object of the C library, as live_objects(detail=True) lists
it (sk_live_objects_report): its address, its kind ("signal", "pipe",
"callback", "string value", ...), the C function that made it
("sk_signal_map"; None for an object the library made itself) and the
name given it with set_name (or None)."""


@overload
def live_objects(detail: Literal[False] = False) -> int: ...


@overload
def live_objects(detail: Literal[True]) -> List[LiveObject]: ...


def live_objects(detail: bool = False) -> int | List[LiveObject]:
    """sk_live_objects(): library objects alive (0 when everything is released).

    With detail=True, the objects themselves, oldest first, as LiveObject
    tuples (sk_live_objects_report): a leak's kind, maker and name. The
    list is kept only while the C library's handle checking is on (the
    environment variable SIGNALKIT_CHECK_HANDLES=1 or
    SIGNALKIT_LIVE_OBJECTS_AT_EXIT=1 when the library is loaded; the latter
    also prints the list on stderr when the process exits): otherwise
    SignalKitError (status -6, SK_ERR_UNSUPPORTED)."""
    if not detail:
        return int(C.live_objects())
    objects: List[LiveObject] = []

    def add(ctx: Optional[int], info: int) -> None:
        fields = ctypes.cast(info, POINTER(_LiveObject)).contents
        objects.append(LiveObject(
            fields.address or 0, (fields.kind or b"").decode("utf-8", "replace"),
            None if fields.made_by is None else fields.made_by.decode("utf-8", "replace"),
            None if fields.name is None else fields.name.decode("utf-8", "replace")))

    _check(C.live_objects_report(_live_object_fn(add), None, _release_fn()))  # _release_fn(): NULL
    return objects


class _Named(Protocol):
    def _enter(self) -> int: ...

    def _exit(self) -> None: ...


def set_name(handle: _Named, name: Optional[str]) -> None:
    """Names a handle (a Signal, Pipe, Disposable, Queue, Promise,
    ValuePromise or Subscriber) in live_objects(detail=True)
    (sk_handle_set_name); None removes the name. Kept only while handle
    checking is on (see live_objects); otherwise the handle is checked and
    the name dropped. SignalKitError for a handle of the ffi library
    (Signature, Trampoline); ValueError for a closed handle; TypeError for
    anything else as the handle, or a name that is not a str."""
    if not callable(getattr(handle, "_enter", None)):
        raise TypeError(f"signalkit: set_name: the handle must be a Signal, Pipe, Disposable, Queue, Promise, "
                        f"ValuePromise or Subscriber, not {type(handle).__name__}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"signalkit: set_name: the name must be a str or None, not {type(name).__name__}")
    pointer = handle._enter()
    try:
        _check(C.handle_set_name(pointer, None if name is None else name.encode("utf-8")))
    finally:
        handle._exit()


def ffi_live_objects() -> int:
    """sk_ffi_live_objects(): ffi objects alive (signatures, typed callbacks, trampolines)."""
    return int(C.ffi_live_objects())


def version() -> str:
    """The C library's version string (sk_version_string)."""
    return str(C.version_string().decode())


MAX_WORKERS = 1024
"""The most worker threads a bounded concurrent queue may have
(SK_QUEUE_MAX_WORKERS of signalkit.h)."""


def _concurrent_queue_pointer(max_workers: int, name: str, where: str) -> int:
    """A new bounded concurrent queue (sk_queue_create_concurrent), +1, for
    a Queue to own: its work runs on at most `max_workers` threads of its
    own, all started here, in no promised order. `where` names the caller
    in messages. TypeError unless max_workers is an int (not a bool) and
    name a str; ValueError for max_workers outside 1 to MAX_WORKERS (never
    wrapped into a size_t) or a name with a NUL character; SignalKitError
    (SK_ERR_RESOURCE) when the system refuses a thread (those started exit).

    Queue.concurrent(max_workers=n) is its public form."""
    if isinstance(max_workers, bool) or not isinstance(max_workers, int):
        raise TypeError(f"{where}: max_workers must be an int, not {type(max_workers).__name__}")
    if not 1 <= max_workers <= MAX_WORKERS:
        raise ValueError(f"{where}: max_workers is {max_workers}: a bounded concurrent queue has 1 to "
                         f"{MAX_WORKERS} workers")
    if not isinstance(name, str):
        raise TypeError(f"{where}: name must be a str, not {type(name).__name__}")
    encoded = name.encode("utf-8")
    if b"\0" in encoded:
        raise ValueError(f"{where}: name contains a NUL character")
    pointer = _object_out()
    _check(C.queue_create_concurrent(byref(pointer), max_workers, encoded))
    if not pointer.value:
        raise SignalKitError(-1, f"{where}: sk_queue_create_concurrent returned SK_OK with no queue")
    return int(pointer.value)


MAX_DEPTH = 128
"""The deepest nesting of arrays a value may have (SK_VALUE_MAX_DEPTH of
signalkit.h): an array of no arrays is 1 level deep."""
_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1

# --------------------------------------------------------------------------
# Python objects as values (by reference)
# --------------------------------------------------------------------------

# Objects carried by reference in pointer values: id -> [object, copies]
# (and, for an exception a callback raised, the name of that callback:
# _box's `detach`). The pointer is the object's id; each value made holds
# one count, dropped by its release (_box_release), which may run on any
# thread.
_boxes: Dict[int, List[Any]] = {}


def _box_release_function(key: Optional[int], _is_finalizing: Callable[[], bool] = sys.is_finalizing) -> None:
    # A callback of the package, as _release_ctx_function (THUNK_CODES): a
    # Ctrl-C that lands in it, or in the standard library's code it runs
    # (the traceback's formatting), waits for the end of the package call
    # that released the value instead of being lost as unraisable.
    if _is_finalizing() or key is None:
        return
    try:
        entry = _boxes.get(key)
        if entry is not None:
            entry[1] -= 1
            if entry[1] == 0:
                del _boxes[key]
                if len(entry) > 2:  # delivered: the library let go of the exception's last copy
                    _detach_traceback(entry[0], entry[2])
                del entry  # the object's destructor runs here, while the extension counts the release in flight
    except BaseException as exc:
        if not (isinstance(exc, KeyboardInterrupt) and _interrupts.defer(exc)):
            _report(exc, "release")


# Through the extension (BOX_RELEASE): a library thread that runs it once the
# interpreter finalizes touches no Python (a ctypes callback would take the
# GIL, and a thread taking it then is ended under libdispatch's feet).
_box_release = _release_fn(_speedups.BOX_RELEASE)


def _box(obj: object, out: Any, detach: Optional[str] = None) -> None:
    """Writes a pointer value carrying `obj` into `out` (a byref). With
    `detach` (the name of the callback that raised `obj`, an exception):
    its traceback stays while the library holds a copy of the value, so
    that whoever the library delivers it to sees it, and is detached
    (_detach_traceback, the text kept as a note) once the last copy is
    released, so that it keeps no frame alive afterwards."""
    key = id(obj)
    entry = _boxes.get(key)
    if entry is None:
        entry = _boxes[key] = [obj, 1]
    else:
        entry[1] += 1
    if detach is not None and len(entry) == 2:
        entry.append(detach)
    C.value_set_pointer(out, key, _box_release)


def _put_object(obj: object, out: Any) -> None:
    """Writes a new value (owned by the caller) for `obj` into the Value
    `out`: None, bool, int (int64: OverflowError outside), float, str and
    bytes as values of their kinds, a Signal as a signal value; any other
    object by reference (a pointer value holding it)."""
    kind = type(obj)
    if kind is int:
        if not _INT64_MIN <= obj <= _INT64_MAX:  # type: ignore[operator]
            raise OverflowError(f"signalkit: int {obj} out of range of int64")
        out.kind = KIND_INT64
        out.int64 = obj
    elif kind is float:
        out.kind = KIND_DOUBLE
        out.real = obj
    elif obj is None:
        out.kind = KIND_NIL
    elif kind is bool:
        out.kind = KIND_BOOL
        out.boolean = obj
    elif kind is str:
        data = obj.encode()  # type: ignore[attr-defined]
        _check(C.value_set_string_n(byref(out), data, len(data)))
    elif kind is bytes:
        _check(C.value_set_bytes(byref(out), obj, len(obj)))  # type: ignore[arg-type]
    elif getattr(kind, "_signal_value", False):  # a Signal: a signal value, for switch_to_latest / queue
        # Counted as a call on the signal's handle (_signal._Handle._call):
        # a close() on another thread meanwhile waits for the retain.
        _check(obj._call(lambda pointer: C.value_set_signal(byref(out), pointer)))  # type: ignore[attr-defined]
    elif isinstance(obj, Value):
        raise TypeError("signalkit: a raw Value cannot be carried")
    else:
        _box(obj, byref(out))


def _object_of(pointer: Any) -> Any:
    """The Python object for a borrowed `const sk_value *` (a ctypes
    pointer): the object itself for a value carried by reference, None,
    bool, int, float, str, bytes, a list for an array, a Signal for a signal
    value (imported lazily), the address (int) of a foreign pointer value."""
    value = pointer.contents
    kind = value.kind
    if kind == KIND_INT64:
        return value.int64
    if kind == KIND_POINTER:
        address = c_void_p()
        C.value_get_pointer(pointer, byref(address))
        key = address.value or 0
        entry = _boxes.get(key)
        return entry[0] if entry is not None else key
    if kind == KIND_DOUBLE:
        return value.real
    if kind == KIND_NIL:
        return None
    if kind == KIND_BOOL:
        return bool(value.boolean)
    return from_value(pointer)


def _object_at(address: int) -> Any:
    """_object_of for the address of a borrowed `const sk_value *` (the
    extension's converter of the kinds it does not convert itself)."""
    return _object_of(ctypes.cast(address, _ValueP))


_speedups.set_converter(_object_at)
_speedups.set_error_type(SignalKitError)


def _scalar_value(obj: object) -> Value:
    """A new sk_value of the library's own kind for an object that is not a
    list or tuple (subclasses such as IntEnum as their base type)."""
    value = Value()
    if obj is None or isinstance(obj, bool):
        _put_object(obj, value)
    elif isinstance(obj, int):
        _put_object(int(obj), value)
    elif isinstance(obj, float):
        _put_object(float(obj), value)
    elif isinstance(obj, str):
        _put_object(str(obj), value)
    elif isinstance(obj, (bytes, bytearray)):
        _put_object(bytes(obj), value)
    else:
        raise TypeError(f"signalkit: no value kind for {type(obj).__name__}")
    return value


def _release_items(items: Any, count: int) -> None:
    for i in range(count):
        C.value_release(byref(items[i]))


def to_value(obj: object) -> Value:
    """A new sk_value (owned: release it with release_value) converted from
    a Python object: None, bool, int (int64: OverflowError outside), float,
    str, bytes, and a list or tuple as an array (at most MAX_DEPTH levels
    deep: ValueError). Nested lists are converted without recursion. This is
    the conversion of the native (signature-string) forms; the Pythonic
    forms carry other objects by reference instead."""
    if not isinstance(obj, (list, tuple)):
        return _scalar_value(obj)
    # One frame per array being built: [sequence, its items so far, count].
    stack: List[List[Any]] = [[obj, (Value * max(len(obj), 1))(), 0]]
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


def release_value(value: Value) -> None:
    """Drops a value made by to_value (sk_value_release)."""
    C.value_release(byref(value))


def _scalar_from(pointer: Any, value: Any) -> Any:
    kind = value.kind
    if kind == KIND_NIL:
        return None
    if kind == KIND_BOOL:
        return bool(value.boolean)
    if kind == KIND_INT64:
        return value.int64
    if kind == KIND_DOUBLE:
        return value.real
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
        key = address.value or 0
        entry = _boxes.get(key)
        return entry[0] if entry is not None else key
    if kind == KIND_SIGNAL:
        out = c_void_p()
        _check(C.value_get_signal(pointer, byref(out)))
        return _signal_type(C.signal_retain(out.value))
    return value


# The class a signal value arrives as: pysignalkit.Signal, which is above this
# module (package docstring, Layers) and sets this once it is defined.
_signal_type: Any = None


def _array_count(pointer: Any) -> int:
    count = c_size_t()
    _check(C.value_get_array_count(pointer, byref(count)))
    return count.value


def from_value(pointer: Any) -> Any:
    """The Python object for a borrowed `const sk_value *` (a ctypes pointer
    to a Value, a Value itself, as to_value() gives, or an address): None,
    bool, int, float, str, bytes, list (an array), the object a pointer value
    carries by reference (or, for a foreign pointer, its address), a Signal
    for a signal value. Nested arrays are converted without recursion.
    TypeError for anything else."""
    if pointer is None:
        return None
    if isinstance(pointer, Value):
        pointer = ctypes.pointer(pointer)
    elif isinstance(pointer, int) and not isinstance(pointer, bool):
        pointer = ctypes.cast(pointer, _ValueP)  # 0: a NULL pointer, None below
    elif not isinstance(pointer, _ValueP):
        raise TypeError(f"signalkit: from_value takes a pointer to a Value, a Value or an address, "
                        f"not {type(pointer).__name__}")
    if not pointer:
        return None
    value = pointer.contents
    if value.kind != KIND_ARRAY:
        return _scalar_from(pointer, value)
    result: List[Any] = []
    # One frame per array being read: [array, item count, next index, list].
    stack: List[List[Any]] = [[pointer, _array_count(pointer), 0, result]]
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
            inner: List[Any] = []
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
    used = False  # a handle was made or callbacks given to the library (a fork's child then refuses it)
    forked = False  # this process is a fork's child of a process that had used the library (_after_fork)


_state = _State()
_keep: Dict[int, Any] = {}  # ctx -> the objects the library's callbacks need
_subscriptions: Dict[int, int] = {}  # ctx -> a reference (retained here) to the subscription's disposable
_keep_lock = threading.Lock()
_ids = itertools.count(1)


def _retain_callbacks(state: Any) -> int:
    """Keeps `state` alive; returns the ctx to hand to the library, whose
    release (_release_ctx) drops it."""
    if _state.forked:  # before _keep_lock, which another thread of the parent may have held at the fork
        raise _forked_error()
    if _state.closing:
        raise RuntimeError("signalkit: the interpreter is exiting: no new callbacks")
    _state.used = True
    _interrupts.install()
    key = next(_ids)
    with _keep_lock:
        _keep[key] = state
    return key


def _register_subscription(ctx: int, disposable: int) -> None:
    """Keeps a reference to the subscription of ctx, so that the atexit hook
    can dispose it; dropped by its release."""
    retained = C.disposable_retain(disposable)
    with _keep_lock:
        if ctx in _keep:
            _subscriptions[ctx] = retained
            retained = None
    if retained:  # the subscription already ended
        C.disposable_release(retained)


def _release_ctx_function(ctx: Optional[int], _is_finalizing: Callable[[], bool] = sys.is_finalizing) -> None:
    if _is_finalizing() or ctx is None:  # touch nothing: the process is ending
        return
    try:
        with _keep_lock:
            dropped = _keep.pop(ctx, None)
            subscription = _subscriptions.pop(ctx, None)
        if subscription:
            C.disposable_release(subscription)
        release = getattr(dropped, "on_release", None)
        if release is not None:
            release()
        del dropped  # their destructors run here, while the extension counts the release in flight
    except BaseException as exc:
        if not (isinstance(exc, KeyboardInterrupt) and _interrupts.defer(exc)):
            _report(exc, "release")


_release_ctx = _release_fn(_speedups.CTX_RELEASE)  # as _box_release
_speedups.set_releases(_box_release_function, _release_ctx_function)


def pending_callbacks() -> int:
    """How many callback sets the library still holds (0 when every
    subscription ended and every operator signal was released)."""
    with _keep_lock:
        return len(_keep)


def boxed_objects() -> int:
    """How many Python objects values carry by reference now (0 when every
    value holding one was released)."""
    return len(_boxes)


def wait_released(timeout: float = 5.0) -> bool:
    """Waits until live_objects(), ffi_live_objects(), pending_callbacks()
    and boxed_objects() are all 0, and every signal made with the block
    policy has been released (its release may follow its count out of
    live_objects() by a moment), or `timeout` seconds have passed; returns
    whether they are. For leak checks: a subscription whose last event came
    from a library thread (a time operator's timer, deliver_on, a serial or
    concurrent queue) is released by that thread once its callback has
    returned, so the counts may stay above 0 for a moment after to_list()
    returned or dispose() was called. Handles still held (and cycles not yet
    collected: call gc.collect() first) keep them above 0 until the timeout.
    Waits without the GIL; called inside a library thread's callback, it
    cannot see that callback's own release (False at the timeout).
    TypeError unless `timeout` is an int or a float, ValueError when it is
    negative or NaN."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"signalkit: wait_released: timeout is {type(timeout).__name__}, not a number")
    if not timeout >= 0:  # negative, or NaN
        raise ValueError(f"signalkit: wait_released: timeout {timeout} is negative or NaN")
    deadline = time.monotonic() + timeout
    # The C library's count is waited for in the library, woken by the
    # releases themselves (sk_live_objects_wait; ctypes lets the GIL go for
    # the call); the package's own counters (the ffi layer's, the callbacks
    # in flight, the boxes, the block signals), which follow it by a
    # moment, are polled, at first often (a release in progress takes
    # microseconds), then every 10 ms.
    pause = 0.0005
    while True:
        remaining = deadline - time.monotonic()
        if live_objects():
            if remaining <= 0 or C.live_objects_wait(0, remaining) != 0:
                return False
            continue
        if not (ffi_live_objects() or pending_callbacks() or boxed_objects() or _speedups.block_places()):
            return True
        if remaining <= 0:
            return False
        time.sleep(min(pause, remaining))
        pause = min(pause * 2, 0.01)


# --------------------------------------------------------------------------
# KeyboardInterrupt
# --------------------------------------------------------------------------

class _Interrupts:
    """KeyboardInterrupts that met a callback, and the SIGINT handler that
    keeps them from reaching ctypes (package docstring).

    `pending` (per thread) is the KeyboardInterrupt a callback of this
    thread met, to be raised again in the caller when the package call that
    ran the callbacks returns (raise_pending). The handler looks at the
    stack it interrupts: below the innermost callback of this package (a
    frame of one of the functions ctypes calls, THUNK_CODES), it raises only
    while that callback runs the user's function (its local `_sk_user` is
    True: the callback catches it); anywhere else in a callback it defers
    the interrupt (pending), and the callback fails its delivery at its next
    check. Outside callbacks it is Python's default handler."""

    THUNK_CODES: "set[types.CodeType]" = set()
    # The bookkeeping of a handle's calls in flight and of its release
    # (_signal._Handle._enter, _exit, _free, _drop and the like): an
    # exception raised in the middle of one leaves a call counted for good
    # or a reference never released. An interrupt that finds one of them
    # running (the innermost frame) comes at the next check instead.
    CRITICAL_CODES: "set[types.CodeType]" = set()

    class Local(threading.local):
        pending: Optional[BaseException] = None  # a plain attribute: no Python call, no thread switch

    def __init__(self) -> None:
        self.local = self.Local()
        self.installed = False
        self.again_lock = threading.Lock()
        self.again_scheduled = False
        self.again_expected = False  # the next SIGINT is deliver_again's

    @property
    def pending(self) -> Optional[BaseException]:
        return self.local.pending

    def defer(self, exc: Optional[BaseException] = None, caller: Optional[bool] = None) -> bool:
        """Keeps `exc` (a KeyboardInterrupt) pending on this thread, to be
        raised in the caller of the package call that ran the callback:
        True. False, keeping nothing, when there is no such caller (`caller`
        False, or, when None, no frame of the program's own code below:
        a callback of a library thread, _has_caller): the exception is then
        one like any other, which the callback passes where the rules send
        it (the stream's error, on_error, callback_error_hook)."""
        if caller is None:
            caller = _has_caller()
        if not caller:
            return False
        if exc is not None:
            try:
                setattr(exc, "_signalkit_deferred", True)  # raised in a caller (was_deferred)
            except BaseException:
                pass
        if self.local.pending is None:
            self.local.pending = exc if exc is not None else KeyboardInterrupt()
            _speedups.set_pending(True)  # the extension's deliveries on this thread fail from now on
        return True

    @staticmethod
    def was_deferred(exc: BaseException) -> bool:
        """Whether `exc` was deferred to a caller (raised there already, or
        soon), rather than passed on as an ordinary exception."""
        return getattr(exc, "_signalkit_deferred", False) is True

    def orphaned(self) -> None:
        """The end of a callback with no caller (on a library thread) that
        left an interrupt pending (a package call nested in it deferred one
        and did not raise it): reported to callback_error_hook (where
        "interrupt") and cleared, so that later deliveries on this thread
        are not dropped."""
        exc = self.local.pending
        self.local.pending = None
        _speedups.set_pending(False)
        if exc is not None and not _state.closing:
            _report(exc, "interrupt")

    def raise_pending(self) -> None:
        """Raises the pending KeyboardInterrupt, as a copy (same type, args
        and notes, among them the callback's traceback): the one kept as
        `exception` must not get the caller's frames through a traceback."""
        exc = self.local.pending
        if exc is not None:
            self.local.pending = None
            _speedups.set_pending(False)
            try:
                copy = type(exc)(*exc.args)
            except BaseException:
                copy = KeyboardInterrupt(*exc.args)
            notes = getattr(exc, "__notes__", None)
            if notes:
                copy.__notes__ = list(notes)
            raise copy

    def handler(self, signum: int, frame: Optional[types.FrameType]) -> None:
        landed = frame
        in_package = frame is not None and (frame.f_code in self.CRITICAL_CODES or _is_package_code(frame))
        if self.again_expected:
            # This package's own SIGINT again (deliver_again): the interrupt
            # still pending, unless the end of a package call raised it.
            self.again_expected = False
            if self.local.pending is None:
                return
            if in_package:
                self.deliver_again()
                return
            self.raise_pending()
        if frame is not None and frame.f_code in self.CRITICAL_CODES:
            # Deferred to the end of the package call (_after_call raises
            # it), as in a callback. Not tripped again: Python would run
            # this handler again at its next check, inside this handler.
            self.defer(caller=True)
            if not self.in_callback(frame):
                self.deliver_again()  # no package call may end soon
            return
        while frame is not None:
            if frame.f_code in self.THUNK_CODES:
                if frame.f_locals.get("_sk_user") is True:
                    break  # in the user's function: the callback catches it
                self.defer(caller=True)  # the main thread: its own code is below
                return
            frame = frame.f_back
        if in_package:
            # In this package's own bookkeeping (a handle made and not yet
            # wrapped, a subscription started and not yet registered, a
            # release under way): raised here, it left them alive for good.
            # Raised at the end of the package call instead, or, outside
            # callbacks, where the program's own code runs a moment later.
            self.defer(caller=True)
            if frame is None:
                self.deliver_again()
            return
        signal.default_int_handler(signum, landed)

    def in_callback(self, frame: Optional[types.FrameType]) -> bool:
        """Whether a callback of this package is below `frame`."""
        while frame is not None:
            if frame.f_code in self.THUNK_CODES:
                return True
            frame = frame.f_back
        return False

    def deliver_again(self) -> None:
        """Sends SIGINT to the main thread again, shortly, from a thread of
        its own (once at a time): a real signal, so that a wait it finds
        the main thread in ends as Ctrl-C's would. The handler then raises
        the interrupt still pending where it lands, unless that is this
        package's own code again (then once more, later)."""
        with self.again_lock:
            if self.again_scheduled:
                return
            self.again_scheduled = True

        def again() -> None:
            time.sleep(0.002)
            with self.again_lock:
                self.again_scheduled = False
            main = threading.main_thread()
            if main.is_alive() and main.ident is not None:
                self.again_expected = True
                signal.pthread_kill(main.ident, signal.SIGINT)

        # A thread started without waiting for it (threading's start waits
        # in Python code, where this handler could run again, nested).
        _thread.start_new_thread(again, ())

    def install(self) -> None:
        """On the main thread, while Python callbacks are held or library
        objects are alive, with Python's default SIGINT handler in place:
        this one instead."""
        if self.installed or threading.current_thread() is not threading.main_thread():
            return
        try:
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                signal.signal(signal.SIGINT, self.handler)
                self.installed = True
        except (ValueError, OSError):  # not the main interpreter, or no signals here
            pass

    def uninstall_if_idle(self) -> None:
        """Puts the default handler back once no callback is held and no
        library object is alive (a handle's making and its wrapping, or a
        release under way, is bookkeeping the handler protects too)."""
        if not self.installed or _keep or self.pending is not None or _state.closing \
                or threading.current_thread() is not threading.main_thread() or C.live_objects():
            return
        self.installed = False
        try:
            if signal.getsignal(signal.SIGINT) == self.handler:
                signal.signal(signal.SIGINT, signal.default_int_handler)
        except (ValueError, OSError):
            pass


def _is_package_code(frame: types.FrameType) -> bool:
    """Whether `frame` runs this package's own code (a composed chain of
    stages included), not the program's nor the standard library's."""
    module = frame.f_globals.get("__name__")
    return (isinstance(module, str) and (module == "pysignalkit" or module.startswith("pysignalkit."))) \
        or frame.f_code.co_filename == "<signalkit chain>"


def _has_caller() -> bool:
    """Whether a frame of the program's own code (not of this package, nor
    a composed chain of stages) is below the running callback on this
    thread: the caller of the package call that ran it, which raises a
    pending KeyboardInterrupt again. None on a library thread (a queue's,
    the pool's, a timer's), where only the library, then this package's
    callback, run; the package's own code in between (a timer's fire, a
    from_iterable run, a chain of stages) raises nothing in anyone's
    caller. Walks the stack: called only for a KeyboardInterrupt."""
    frame: Optional[types.FrameType] = sys._getframe(1)
    while frame is not None:
        if not _is_package_code(frame):
            return True
        frame = frame.f_back
    return False


_interrupts = _Interrupts()
_interrupts.THUNK_CODES.add(_release_ctx_function.__code__)
_interrupts.THUNK_CODES.add(_box_release_function.__code__)
_speedups.set_orphan(_interrupts.orphaned)


def _object_out() -> c_void_p:
    """The out pointer of a call that makes a library object. The SIGINT
    handler is put in place first (_Interrupts.install): a Ctrl-C that
    lands between the making and the wrapping in a handle then waits for
    the program's own code, rather than leaving the object alive for
    good."""
    if not _interrupts.installed:
        _interrupts.install()
    return c_void_p()


def _after_call() -> None:
    """After a package call that may have run callbacks on this thread: the
    KeyboardInterrupt they met, raised here."""
    if _interrupts.local.pending is not None:
        _interrupts.raise_pending()
    if _interrupts.installed and not _keep:
        _interrupts.uninstall_if_idle()


# --------------------------------------------------------------------------
# Exceptions raised by callbacks
# --------------------------------------------------------------------------

def _unraisable(exc: BaseException, err_msg: str) -> None:
    """Reports `exc` as sys.unraisablehook does. The built-in hook accepts
    only its own argument type, which cannot be made from Python: while it
    is in place, its output is written the same way; a hook installed by the
    program receives an object with the same attributes."""
    hook = sys.unraisablehook
    if hook is not sys.__unraisablehook__:
        hook(types.SimpleNamespace(exc_type=type(exc), exc_value=exc,
                                   exc_traceback=exc.__traceback__, err_msg=err_msg, object=None))
        return
    stream = sys.stderr
    if stream is not None:
        stream.write(err_msg + ":\n")
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=stream)
        stream.flush()


def default_callback_error_hook(exc: BaseException, where: str) -> None:
    """The default callback_error_hook: reports `exc` as an unraisable
    exception (sys.unraisablehook), with the message "Exception in signalkit
    WHERE callback" and its traceback."""
    _unraisable(exc, f"Exception in signalkit {where} callback")


callback_error_hook: Optional[Callable[[BaseException, str], None]] = default_callback_error_hook


def _report(exc: BaseException, where: str) -> None:
    """Passes `exc` to callback_error_hook (read from the package, where a
    program assigns it); a failing hook goes to sys.unraisablehook. Never
    raises."""
    try:
        package = sys.modules.get("pysignalkit")
        hook = getattr(package, "callback_error_hook", callback_error_hook)
        if hook is not None:
            hook(exc, where)
    except BaseException as hook_exc:
        # The error the hook was given stays in the report, chained as
        # Python chains an exception raised while one is handled (it is
        # not, when the report is made outside the `except` that caught
        # `exc`: a failing on_next's error, delivered later).
        if hook_exc is not exc and hook_exc.__context__ is None:
            hook_exc.__context__ = exc
        try:
            _unraisable(hook_exc, "Exception in pysignalkit.callback_error_hook")
        except BaseException:
            pass


def _describe(exc: BaseException) -> str:
    """ "ExceptionType: message" (or "ExceptionType" for an empty message)."""
    name = type(exc).__name__
    try:
        text = str(exc)
    except BaseException:
        text = "(str() of the exception failed)"
    return f"{name}: {text}" if text else name


class _Failures:
    """The first exception raised by the callbacks of one object."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.exception: Optional[BaseException] = None

    def record(self, exc: BaseException) -> None:
        with self._lock:
            if self.exception is None:
                self.exception = exc

    def recorder(self) -> "_Recorder":
        """What the callbacks (held by the library, through the registry)
        record into: a weak reference, so that an exception kept here, whose
        traceback may come to hold the frames of the code that raised it
        again (and their handles), makes no cycle through the library."""
        return _Recorder(self)


class _Recorder:
    """Records into a _Failures while its owner (a Python handle) lives."""
    __slots__ = ("_ref",)

    def __init__(self, failures: _Failures) -> None:
        self._ref = weakref.ref(failures)

    def record(self, exc: BaseException) -> None:
        failures = self._ref()
        if failures is not None:
            failures.record(exc)


def _add_note(exc: BaseException, note: str) -> None:
    add_note = getattr(exc, "add_note", None)
    if add_note is not None:
        add_note(note)
    else:  # before Python 3.11: kept, not printed
        exc.__notes__ = getattr(exc, "__notes__", []) + [note]


def _detach_traceback(exc: BaseException, where: str) -> None:
    """Drops the frames that `exc` and the exceptions chained to it keep
    through their tracebacks (the caller's frames, and through them its
    handles and locals, would live as long as the exception), keeping each
    traceback's text as a note."""
    seen = set()
    chain: List[Optional[BaseException]] = [exc]
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


def _trim_traceback(exc: BaseException) -> None:
    """Drops this package's own frames (the callback that caught `exc`)
    from the front of its traceback: the receiver sees where it was raised.
    The traceback is detached (_detach_traceback) once it was delivered."""
    tb = exc.__traceback__
    while tb is not None and (tb.tb_frame.f_code in _interrupts.THUNK_CODES
                              or tb.tb_frame.f_code.co_filename == "<signalkit chain>"):
        tb = tb.tb_next
    exc.__traceback__ = tb


def _kept(exc: BaseException, where: str, failures: Optional[_Failures | _Recorder]) -> None:
    """An exception a native-form callback caught: reported (a
    KeyboardInterrupt is deferred to the caller instead, when there is one:
    _Interrupts.defer), then kept without its frames."""
    if not (isinstance(exc, KeyboardInterrupt) and _interrupts.defer(exc)):
        _report(exc, where)
    _detach_traceback(exc, where)
    if failures is not None:
        failures.record(exc)


def _fail_interrupted(failures: Optional[_Failures | _Recorder]) -> None:
    """Fails the delivery in progress because of the pending interrupt."""
    exc = _interrupts.pending
    assert exc is not None
    C.ffi_callback_fail(_describe(exc).encode("utf-8", "replace"))
    if failures is not None:
        failures.record(exc)


def _callback_failed(exc: BaseException, where: str, failures: Optional[_Failures | _Recorder]) -> None:
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
# Interpreter exit
# --------------------------------------------------------------------------

SHUTDOWN_WAIT_SECONDS = 5.0
"""How long, at most, in seconds, the interpreter's exit waits for the
Python callbacks running on the library's threads at that moment (none
running: no wait; the Python guide, docs/python.md, "Errors")."""
_immortal: List[Any] = []
# Handles whose C object C code may call with no subscription the exit hook
# could dispose (a Trampoline: its function's address, handed to any C API):
# at exit each takes a library reference that is never dropped
# (_keep_for_exit()), so that collecting the handle while the interpreter
# finalizes does not free what a C thread still calls.
_called_by_c: "weakref.WeakSet[Any]" = weakref.WeakSet()


def _shutdown() -> None:
    """atexit: no library thread may call into Python once the interpreter
    finalizes (package docstring)."""
    if _state.forked:  # a fork's child: the library's threads are not here (_after_fork)
        return
    try:
        for holder in list(_called_by_c):
            try:
                _immortal.append(holder._keep_for_exit())
            except BaseException:  # closed meanwhile: nothing of it is left to call
                pass
        _state.closing = True  # callbacks do nothing from now on
        _speedups.set_closing()  # nor do the extension's deliveries
        # A reference of its own to each: a subscription that ends on a
        # library thread meanwhile releases the one _subscriptions holds
        # (_release_ctx_function), which may be the last.
        with _keep_lock:
            subscriptions = [C.disposable_retain(d) for d in _subscriptions.values()]
        for disposable in subscriptions:
            C.disposable_dispose(disposable)
            C.disposable_release(disposable)
        # Only the Python callbacks running on a library thread at this
        # moment are waited for (a delivery, a release, a timer's or a
        # queue's job: the extension counts each from its entry to its end),
        # not the callback sets that merely exist: from here on none enters
        # Python, and finalize() waits, without the GIL, for those inside,
        # up to SHUTDOWN_WAIT_SECONDS (at least 0.5 s: one still running
        # when the interpreter finalizes is stopped in a way that crashes
        # the process). With none running, nothing is waited for. A release
        # the library makes later (a subscription just disposed, a signal
        # only the library holds) does nothing: what the library may still
        # call, and the objects values still carry, stay callable and alive
        # until the process ends, since the module's globals are cleared
        # while the interpreter finalizes and a freed ctypes callback would
        # be a jump into freed memory.
        _speedups.finalize(max(SHUTDOWN_WAIT_SECONDS, 0.5))
        with _keep_lock:
            held = list(_keep.values())
        _immortal.extend([held, _release_ctx, _box_release, dict(_boxes)])
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(_immortal))
    except BaseException:
        pass


atexit.register(_shutdown)

# --------------------------------------------------------------------------
# fork()
# --------------------------------------------------------------------------

FORKED_MESSAGE = ("signalkit cannot be used in a process forked after it was used; use exec, the 'spawn' or "
                  "'forkserver' start method of multiprocessing, or import pysignalkit only in the child")
_SK_ERR_UNSUPPORTED = -6
_SK_ERR_RESOURCE = -8
# The C functions that release or dispose: nothing, in a fork's child.
_RELEASES = ("disposable_dispose", "ffi_trampoline_close", "test_recorder_dispose")


def _forked_error() -> SignalKitError:
    """The error of every package call in a fork's child of a process that
    had used the library (_after_fork)."""
    return SignalKitError(_SK_ERR_UNSUPPORTED, FORKED_MESSAGE)


def _refuse(*args: Any) -> Any:
    raise _forked_error()


def _nothing(*args: Any) -> None:
    return None


def _status_string(status: int) -> bytes:
    return b"unsupported" if status == _SK_ERR_UNSUPPORTED else b"error"


def _after_fork() -> None:
    """os.register_at_fork(after_in_child): in the child of a process that
    had used the library, no package code calls the library again.

    Such a child must not call the C library (signalkit.h's conventions,
    "fork()"), whose one exception (a single-threaded parent whose library
    started no thread) cannot be told apart from here, so the package
    refuses always: every C function
    it calls becomes one raising SignalKitError (FORKED_MESSAGE), but those
    that release or dispose, which do nothing (the finalizers of inherited
    handles, a `with` block's end), wherever the package's modules keep
    one (the table C, module globals, class attributes, and the
    extension's puts); the atexit hook does nothing. A parent that made
    no handle and gave the library no callback (one that only imported
    the package, such as a forkserver process) started nothing in it: its
    children use the package as any process does."""
    global _keep_lock
    if not _state.used:
        return
    _state.forked = True
    _state.closing = True
    # The extension's loops too (put_each: a from_iterable emission that
    # forked from a callback goes on in the child, in C, once it returns).
    _speedups.set_closing()
    # Another thread of the parent may have held it at the fork, never to
    # release it here (pending_callbacks() takes it).
    _keep_lock = threading.Lock()
    originals = list(vars(C).items())  # kept alive while their ids are looked up below
    stubs: Dict[int, Any] = {}
    for name, function in originals:
        stub = _nothing if name.endswith("_release") or name in _RELEASES else _refuse
        stubs[id(function)] = stub
        setattr(C, name, stub)
    C.status_string = _status_string
    C.last_error_message = C.ffi_last_error_message = lambda: FORKED_MESSAGE.encode()
    extension = [_speedups.pipe_put, _speedups.subscriber_put_next, _speedups.put_each]
    for function in extension:
        stubs[id(function)] = _refuse
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "pysignalkit" or module_name.startswith("pysignalkit.")):
            continue
        namespace = vars(module)
        for name, obj in list(namespace.items()):
            if id(obj) in stubs:
                namespace[name] = stubs[id(obj)]
            elif isinstance(obj, type) and obj.__module__ == module_name:
                for attribute, member in list(vars(obj).items()):
                    target = member.__func__ if isinstance(member, staticmethod) else member
                    if id(target) in stubs:
                        setattr(obj, attribute, staticmethod(stubs[id(target)]))
                    elif isinstance(member, types.MethodDescriptorType):  # the extension's Pipe.put
                        setattr(obj, attribute, _refuse)
    del originals, extension


os.register_at_fork(after_in_child=_after_fork)
