"""the native (signature-string) forms:
Signature, and the libffi closures the extension makes for Python
callables under a signature."""

from __future__ import annotations

import ctypes
import math
import operator
import sys
import threading
from ctypes import (CFUNCTYPE, byref, c_bool, c_char_p, c_double, c_float, c_int8, c_int16, c_int32, c_int64,
                    c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)
from typing import Any, Callable, List, Optional, Union

from . import _speedups
from ._core import (C, Value, _callback_failed, _check, _fail_interrupted, _interrupts, _Recorder, _state, from_value,
                    to_value, _object_out)
from ._handle import _callable_arg, _Handle

_ctypes_of = {
    "void": None, "bool": c_bool, "i8": c_int8, "i16": c_int16, "i32": c_int32, "i64": c_int64,
    "u8": c_uint8, "u16": c_uint16, "u32": c_uint32, "u64": c_uint64, "f32": c_float, "f64": c_double,
    "str": c_char_p, "ptr": c_void_p, "value": c_void_p, "ctx": c_void_p,
}


class Signature(_Handle):
    """A prepared native signature parsed from its string form
    ("void(ctx,i64)"; grammar in signalkit_ffi.h). A handle (a reference to
    a library object): copy.copy and copy.deepcopy return it itself;
    pickling raises TypeError."""
    _release = staticmethod(C.ffi_signature_release)

    def __init__(self, text: str) -> None:
        """Parses `text` (TypeError unless a str; SignalKitError when the
        library rejects it)."""
        if not isinstance(text, str):
            raise TypeError(f"signalkit: Signature: the text is {type(text).__name__}, not a str")
        if "\0" in text:
            raise ValueError("signalkit: Signature: the text holds a NUL character")
        pointer = _object_out()
        _check(C.ffi_signature_parse(byref(pointer), text.encode()), ffi=True)
        super().__init__(pointer.value)
        self.text = text
        """The signature as given ("void(ctx,i64)")."""
        result, _, rest = text.replace(" ", "").replace("\t", "").partition("(")
        self.result = result
        """The result's type ("void", "i64"...)."""
        self.args = [a for a in rest.rstrip(")").split(",") if a]
        """The arguments' types, in order ("ctx" for the context pointer)."""

    def cfunctype(self) -> Any:
        """The ctypes CFUNCTYPE for this signature. A "str" result is
        declared c_void_p (ctypes cannot return a char * from a callback)."""
        result: Any = _ctypes_of[self.result]
        if self.result in ("str", "value"):
            result = c_void_p
        arguments: List[Any] = [_ctypes_of[a] for a in self.args]
        return CFUNCTYPE(result, *arguments)

    def __repr__(self) -> str:
        return f"Signature({self.text!r})"


def _signature(spec: Union[str, Signature]) -> Signature:
    return spec if isinstance(spec, Signature) else Signature(spec)


_integer_ranges = {"i8": (-2 ** 7, 2 ** 7 - 1), "i16": (-2 ** 15, 2 ** 15 - 1), "i32": (-2 ** 31, 2 ** 31 - 1),
                   "i64": (-2 ** 63, 2 ** 63 - 1), "u8": (0, 2 ** 8 - 1), "u16": (0, 2 ** 16 - 1),
                   "u32": (0, 2 ** 32 - 1), "u64": (0, 2 ** 64 - 1), "ptr": (0, 2 ** 64 - 1)}
# What a failed call returns to C (ignored by the library).
_fallback_of = {"void": None, "bool": False, "i8": 0, "i16": 0, "i32": 0, "i64": 0, "u8": 0, "u16": 0, "u32": 0,
                "u64": 0, "f32": 0.0, "f64": 0.0, "str": None, "ptr": None, "value": None}


def _native_result(kind: str, out: Any) -> Any:
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
    if kind in ("f32", "f64"):
        if not isinstance(out, (int, float)):
            raise TypeError(f"{kind} result must be int or float, not {type(out).__name__}")
        if isinstance(out, int):
            # As the library converts an int64 value for an f32 or f64
            # argument: only within the range in which the type holds every
            # integer, so that an int is never rounded (2^24 + 1 would
            # become 2^24) and whether a result fits does not depend on
            # which int it is.
            power, holder = _exact_integers[kind]
            if not -(2 ** power) <= out <= 2 ** power:
                raise OverflowError(f"int {out} is outside +-2^{power} (the range in which {holder} holds every integer)")
        real = float(out)
        if kind == "f32" and math.isfinite(real) and abs(real) > _FLOAT_MAX:
            # ctypes would make it infinite; the library refuses such a
            # double for an f32 argument, and so does a result here.
            raise OverflowError(f"{real!r} is outside the range of f32")
        return real
    return out


# The largest finite float (f32).
_FLOAT_MAX = (2 - 2 ** -23) * 2.0 ** 127
# The ranges in which a float (f32) and a double (f64) hold every integer:
# +-2^power, and the type's name for messages.
_exact_integers = {"f32": (24, "a float"), "f64": (53, "a double")}


_CFuncPtr: Any = getattr(ctypes, "_CFuncPtr")
_CLOSING_MESSAGE = b"signalkit: the interpreter is exiting"


class _Gate:
    """Whether a native subscription's Python callables may still be
    called: ended by its Disposable's dispose(), under the GIL, which the
    callables check under the GIL before calling the user's function."""
    __slots__ = ("ended", "__weakref__")

    def __init__(self) -> None:
        self.ended = False

    def end(self) -> None:
        """No callable of the subscription starts from now on."""
        self.ended = True

    def cancel(self) -> None:
        """dispose() (Disposable.dispose): as end."""
        self.end()


def _native(signature: Signature, fn: Any, where: str, failures: Optional[_Recorder] = None,
            gate: Optional[_Gate] = None) -> Any:
    """A C function pointer for `fn` under `signature`: `fn` itself when it
    is already a ctypes function, else a CFUNCTYPE wrapping the callable
    (str arguments arrive as Python str, value arguments as Python objects;
    a str or value result is kept alive per thread until the next call).
    An exception escaping `fn`, or a result that does not fit, fails the
    call (package docstring), recorded in `failures`. A delivery (next,
    map, filter) that starts or ends with a KeyboardInterrupt pending fails
    too: a value never goes on while the caller is being interrupted."""
    if isinstance(fn, _CFuncPtr):
        return fn
    _callable_arg(fn, where)  # TypeError at the call, as the Pythonic forms
    # The closure is the extension's, not ctypes': it enters Python under
    # the exit rules (no library thread touches Python once the
    # interpreter finalizes), as the Pythonic forms' callbacks do.
    codes = bytes(_NATIVE_CODES[kind] for kind in signature.args)
    return _speedups.native(_thunk(signature.args, signature.result, fn, where, failures, gate),
                            _NATIVE_CODES[signature.result], codes, where in ("next", "map", "filter"))


# The extension's type codes of the native closures (_speedups_src/native.c, NC_*).
_NATIVE_CODES = {"void": 0, "bool": 1, "i8": 2, "i16": 3, "i32": 4, "i64": 5, "u8": 6, "u16": 7, "u32": 8, "u64": 9,
                 "f32": 10, "f64": 11, "str": 12, "ptr": 13, "value": 13, "ctx": 13}


def _thunk(args: List[str], result: str, fn: Any, where: str, failures: Optional[_Recorder],
           gate: Optional[_Gate] = None) -> Callable[..., Any]:
    fallback = _fallback_of[result]
    local = threading.local()
    delivery = where in ("next", "map", "filter")
    # What the callback needs once the interpreter exits, bound here: module
    # globals are cleared while the interpreter finalizes.
    state, interrupted, is_finalizing, fail = _state, _interrupts.local, sys.is_finalizing, C.ffi_callback_fail
    getframe, orphaned = sys._getframe, _interrupts.orphaned

    def call(*raw: Any) -> Any:
        # The SIGINT handler reads _sk_user: True only while `fn` runs.
        _sk_user = False
        try:
            if state.closing or is_finalizing():
                if delivery:
                    fail(_CLOSING_MESSAGE)
                return fallback
            if gate is not None and gate.ended:  # its subscription was disposed (Disposable.dispose)
                return fallback
            if interrupted.pending is not None:
                if delivery:
                    _fail_interrupted(failures)
                    return fallback
                if where == "error":
                    # The error of an emission a KeyboardInterrupt stopped (a
                    # failure naming it): the subscription ends, and the
                    # caller gets the interrupt, not this callback
                    # (docs/python.md, Errors).
                    return fallback
            converted = []
            for kind, arg in zip(args, raw):
                if kind == "str":
                    converted.append(None if arg is None else arg.decode("utf-8", "replace"))
                elif kind == "value":
                    converted.append(from_value(arg))
                else:
                    converted.append(arg)
            if gate is not None and gate.ended:  # disposed while a conversion let the GIL go
                return fallback
            _sk_user = True
            out = fn(*converted)
            _sk_user = False
            native: Any
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
        finally:
            # No Python frame below: a library thread's callback, whose
            # interrupt no package call will raise (the extension's
            # callbacks do the same in _speedups_src/exit.c, leave()).
            if interrupted.pending is not None and getframe().f_back is None:
                orphaned()  # left by a package call nested in `fn`: reported, cleared

    _interrupts.THUNK_CODES.add(call.__code__)
    return call


class _OwnedValue:
    """An sk_value owned by Python: released when collected."""
    value: Optional[Value] = None

    def __init__(self, obj: object) -> None:
        self.value = to_value(obj)

    def __del__(self) -> None:
        try:
            if self.value is not None:
                C.value_release(byref(self.value))
        except Exception:  # interpreter shutdown
            pass


def _fn_address(cfunc: Any) -> Optional[int]:
    """The C function's address: a native closure's (_speedups.native), or
    a ctypes function's."""
    if isinstance(cfunc, _speedups.Native):
        return cfunc.address
    address: Optional[int] = ctypes.cast(cfunc, c_void_p).value
    return address


class _NativeSet:
    """The objects a native-form callback set needs while the library holds it."""
    __slots__ = ("objects",)

    def __init__(self, *objects: Any) -> None:
        self.objects = objects

