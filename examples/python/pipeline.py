#!/usr/bin/env python3
"""A pipeline built and subscribed with Python's own callback type.

Every callback is a ctypes CFUNCTYPE object, the FFI's native callback type;
the library calls each through its signature string ("i64(i64)",
"bool(i64)", "void(ctx,i64)", ...) and converts values, checking every
conversion. Run with SIGNALKIT_LIB_DIR pointing at the libraries (`make
test-python` does), or with them installed.
"""
import ctypes
from ctypes import CFUNCTYPE, c_bool, c_char_p, c_int64, c_void_p

import signalkit as sk

# Native callback types, as any ctypes program declares them.
SQUARE = CFUNCTYPE(c_int64, c_int64)                 # "i64(i64)"
IS_ODD = CFUNCTYPE(c_bool, c_int64)                  # "bool(i64)"
ON_NEXT = CFUNCTYPE(None, c_void_p, c_int64)         # "void(ctx,i64)"
ON_ERROR = CFUNCTYPE(None, c_char_p)                 # "void(str)"
ON_COMPLETED = CFUNCTYPE(None)                       # "void()"


def run(values=range(1, 8)):
    """Squares the odd values and collects them; returns the event log."""
    events = []

    @SQUARE
    def square(n):
        return n * n

    @IS_ODD
    def is_odd(n):
        return n % 2 == 1

    @ON_NEXT
    def on_next(ctx, n):
        events.append(n)

    @ON_ERROR
    def on_error(message):
        events.append(("error", message.decode()))

    @ON_COMPLETED
    def on_completed():
        events.append("completed")

    with sk.Signal.from_iterable(values) as source, \
            source.filter("bool(i64)", is_odd) as odd, \
            odd.map("i64(i64)", square) as squares, \
            squares.subscribe("void(ctx,i64)", on_next, on_error, on_completed):
        pass
    return events


def run_with_conversion_error():
    """A value that does not fit the native type ends the subscription
    through the error callback, never truncated: 2**40 into an i32."""
    events = []
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
