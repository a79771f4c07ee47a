#!/usr/bin/env python3
"""A pipeline built and subscribed with Python's own callback type.

Every callback is a ctypes CFUNCTYPE object, the FFI's native callback type;
the library calls each through its signature string ("i64(i64)",
"bool(i64)", "void(ctx,i64)", ...) and converts values, checking every
conversion. Run it with the package installed (pip install ./Sources/python in
a virtual environment; docs/python.md, Install).
"""
import ctypes
from typing import Any, Iterable, List
from ctypes import CFUNCTYPE, c_bool, c_char_p, c_int64, c_void_p

import pysignalkit as sk

# Native callback types, as any ctypes program declares them.
SQUARE = CFUNCTYPE(c_int64, c_int64)                 # "i64(i64)"
IS_ODD = CFUNCTYPE(c_bool, c_int64)                  # "bool(i64)"
ON_NEXT = CFUNCTYPE(None, c_void_p, c_int64)         # "void(ctx,i64)"
ON_ERROR = CFUNCTYPE(None, c_char_p)                 # "void(str)"
ON_COMPLETED = CFUNCTYPE(None)                       # "void()"


def run(values: Iterable[int] = range(1, 8)) -> List[Any]:
    """Squares the odd values and collects them; returns the event log."""
    events: List[Any] = []

    def square(n: int) -> int:
        return n * n

    def is_odd(n: int) -> bool:
        return n % 2 == 1

    def on_next(ctx: Any, n: int) -> None:
        events.append(n)

    def on_error(message: bytes) -> None:
        events.append(("error", message.decode()))

    def on_completed() -> None:
        events.append("completed")

    with sk.Signal.from_iterable(values) as source, \
            source.filter("bool(i64)", IS_ODD(is_odd)) as odd, \
            odd.map("i64(i64)", SQUARE(square)) as squares, \
            squares.subscribe("void(ctx,i64)", ON_NEXT(on_next), ON_ERROR(on_error), ON_COMPLETED(on_completed)):
        pass
    return events


def run_with_conversion_error() -> List[Any]:
    """A value that does not fit the native type ends the subscription
    through the error callback, never truncated: 2**40 into an i32."""
    events: List[Any] = []
    on_next = CFUNCTYPE(None, ctypes.c_int32)(lambda n: events.append(n))
    on_error = ON_ERROR(lambda message: events.append(("error", message.decode())))
    with sk.Signal.from_iterable([1, 2 ** 40, 3]) as source, \
            source.subscribe("void(i32)", on_next, on_error):
        pass
    return events


if __name__ == "__main__":
    print("odd squares:", run())
    print("conversion error:", run_with_conversion_error())
    print("live objects:", sk.live_objects(), "ffi live objects:", sk.ffi_live_objects())
