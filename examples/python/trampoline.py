#!/usr/bin/env python3
"""Feeding a signal from a C API that accepts only a bare function pointer.

libc's twalk() walks a search tree and calls `action(node, which, depth)`
for each visit: a plain function pointer, with no user-data argument to say
where the visits should go. A trampoline is a real C function of the type
"void(ptr,i32,i32)", made at run time, that puts its arguments (as an array
value) into a pipe; the pipe's subscribers receive the walk as a stream.

Run it with the package installed (pip install ./Sources/python in a virtual
environment; docs/python.md, Install).
"""
import ctypes
from typing import Any, List, Sequence, Tuple
from ctypes import CFUNCTYPE, POINTER, byref, c_int, c_int64, c_void_p

import pysignalkit as sk

libc = ctypes.CDLL(None)
COMPARE = CFUNCTYPE(c_int, c_void_p, c_void_p)
libc.tsearch.restype = c_void_p
libc.tsearch.argtypes = [c_void_p, POINTER(c_void_p), COMPARE]
libc.twalk.restype = None
libc.twalk.argtypes = [c_void_p, c_void_p]  # the action: any function pointer
libc.tdestroy.restype = None
libc.tdestroy.argtypes = [c_void_p, c_void_p]
POSTORDER, LEAF = 1, 3  # glibc's VISIT: preorder, postorder, endorder, leaf


def _compare(a: int, b: int) -> int:
    x = ctypes.cast(a, POINTER(c_int64))[0]
    y = ctypes.cast(b, POINTER(c_int64))[0]
    return int(x > y) - int(x < y)


compare = COMPARE(_compare)


def run(keys: Sequence[int] = (50, 20, 80, 10, 30, 70, 90)) -> Tuple[List[Tuple[int, int]], int]:
    """Inserts `keys` into a tsearch tree and returns them as a stream
    produced by twalk() through a trampoline: in order, with their depth."""
    storage = (c_int64 * len(keys))(*keys)
    root = c_void_p()
    for i in range(len(keys)):
        libc.tsearch(ctypes.addressof(storage) + i * ctypes.sizeof(c_int64), byref(root), compare)

    received: List[Tuple[int, int]] = []

    def on_visit(visit: Any) -> None:
        node, which, depth = visit
        if which in (POSTORDER, LEAF):  # in-order: between the subtrees, or a leaf
            key = ctypes.cast(node, POINTER(POINTER(c_int64)))[0][0]
            received.append((key, depth))

    with sk.Pipe() as pipe, pipe.signal() as signal, \
            signal.subscribe("void(value)", on_visit, on_completed=None) as subscription, \
            sk.Trampoline(pipe, "void(ptr,i32,i32)") as trampoline:
        libc.twalk(root, trampoline.address)  # the C API calls the trampoline
        calls = trampoline.calls
        subscription.dispose()

    # tdestroy() frees the nodes and calls `free_node(key)` for each key: the
    # keys live in `storage`, so a second trampoline ("void(ptr)") just
    # reports them into another pipe.
    released: List[int] = []
    with sk.Pipe() as pipe, pipe.signal() as signal, \
            signal.subscribe("void(ptr)", released.append) as subscription, \
            sk.Trampoline(pipe, "void(ptr)") as free_node:
        libc.tdestroy(root, free_node.address)
        subscription.dispose()
    base = ctypes.addressof(storage)
    assert sorted(released) == [base + i * ctypes.sizeof(c_int64) for i in range(len(keys))]
    return received, calls


if __name__ == "__main__":
    visits, calls = run()
    print("in order:", [key for key, _ in visits])
    print("depths:", [depth for _, depth in visits])
    print("trampoline calls:", calls)
    print("live objects:", sk.live_objects(), "ffi live objects:", sk.ffi_live_objects())
