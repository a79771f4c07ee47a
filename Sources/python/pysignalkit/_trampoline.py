"""Trampoline, a real C function
pointer that puts into a Pipe or a create() function's Subscriber."""

from __future__ import annotations

from ctypes import byref
from typing import Any, Callable, Optional, Union

from . import _core
from ._core import C, _after_call, _check, _interrupts, _object_out
from ._handle import _call_with, _draining, _Handle
from ._native import Signature, _integer_ranges, _native_result, _signature
from ._subjects import Pipe
from ._subscription import Subscriber

class Trampoline(_Handle):
    """A real C function pointer of a described signature ("void(i64)")
    that puts its arguments into a pipe or a subscriber. A handle (a
    reference to a library object): copy.copy and copy.deepcopy return it
    itself; pickling raises TypeError. Its function is valid while the
    handle lives, and from interpreter exit on until the process ends (the
    exit hook keeps every live trampoline: C threads may still call it)."""
    _release = staticmethod(C.ffi_trampoline_release)

    def __init__(self, target: Union[Pipe[Any], Subscriber[Any], int], signature: Union[str, Signature]) -> None:
        """A trampoline putting into `target` (a Pipe, the Subscriber a
        create() function receives, or an sk_subscriber's address from C)
        with the function type `signature` (void result, no ctx). The
        trampoline holds its target until it is detached or released."""
        if not isinstance(target, (Pipe, Subscriber)) and (isinstance(target, bool) or not isinstance(target, int)):
            raise TypeError(f"signalkit: Trampoline: the target is {type(target).__name__}, not a Pipe, a "
                            "Subscriber or a subscriber's address (int)")
        self.signature: Optional[Signature] = None
        """The function type of the trampoline (None once released)."""
        self.signature = _signature(signature)
        pointer = _object_out()
        if isinstance(target, Pipe):
            _check(_call_with(C.ffi_trampoline_pipe, byref(pointer), target, self.signature), ffi=True)
        else:  # a Subscriber, or a raw sk_subscriber * (int), e.g. from a C generator
            _check(_call_with(C.ffi_trampoline_subscriber, byref(pointer), target, self.signature), ffi=True)
        super().__init__(pointer.value)
        _core._called_by_c.add(self)  # C may call its function until the process ends: kept at exit

    def _keep_for_exit(self) -> int:
        """At interpreter exit (the package's atexit hook): a reference to
        the C trampoline that is never released, so that a C thread may
        call its function until the process ends, also once this handle is
        collected; its address. ValueError once closed."""
        return int(self._call(C.ffi_trampoline_retain))

    @property
    def address(self) -> int:
        """The function's address, to hand to a C API."""
        return int(self._call(C.ffi_trampoline_function))

    def function(self) -> Callable[..., Any]:
        """The function as a Python callable (calls go through C): integer
        arguments are checked against their native types first, and f32 and
        f64 ones as a native callback's result (an int within +-2^24 or
        +-2^53, a finite float within the f32 range: OverflowError, never
        wrapped, rather than rounded or made infinite), and a KeyboardInterrupt met by the
        callbacks a call runs is raised when it returns.

        The callable keeps this Trampoline alive (dropping the Trampoline
        and its Pipe leaves it usable), and each call holds a reference of
        its own to the C trampoline while it runs; once the Trampoline was
        closed, calling it raises ValueError ("Trampoline is closed"),
        never a jump into freed memory."""
        signature = self.signature  # None once closed (_drop)
        if signature is None:
            raise ValueError("Trampoline is closed")
        cfunc = signature.cfunctype()(self.address)
        checks = [(i, kind) + _integer_ranges[kind] for i, kind in enumerate(signature.args)
                  if kind in _integer_ranges]
        # f32 and f64 arguments as the results of native callbacks: ctypes
        # would round an int (2^24 + 1 as an f32) and make a finite float
        # beyond the largest f32 infinite.
        reals = [(i, kind) for i, kind in enumerate(signature.args) if kind in ("f32", "f64")]
        trampoline = self  # kept alive by the callable: its function is valid while it lives

        def call(*args: Any) -> Any:
            for i, kind, low, high in checks:
                if i < len(args) and isinstance(args[i], int) and not low <= args[i] <= high:
                    raise OverflowError(f"signalkit: {args[i]} out of range of {kind} (argument {i})")
            for i, kind in reals:
                if i < len(args) and isinstance(args[i], (int, float)):
                    try:
                        _native_result(kind, args[i])
                    except OverflowError as e:
                        raise OverflowError(f"signalkit: {e} (argument {i})") from None
            # Counted as a call in flight on the trampoline (_Handle._enter)
            # across the whole ffi call, so that a close() meanwhile (on
            # another thread, or by a callback the call runs) releases it
            # only once the call returned: never inside the call, nor between
            # the check and the jump (a close() there used to drop the last
            # reference first: the call jumped into the freed closure, and
            # libffi aborted). The count replaced a lock and a retain and
            # release of the call's own around each call.
            trampoline._enter()  # ValueError ("Trampoline is closed") once closed
            try:
                result = _draining(cfunc, *args)
            finally:
                trampoline._exit()
            _after_call()
            return result

        call.cfunc = cfunc  # type: ignore[attr-defined]
        return call

    @property
    def calls(self) -> int:
        """How many times the function was called."""
        return int(self._call(C.ffi_trampoline_calls))

    def detach(self) -> None:
        """sk_ffi_trampoline_close: later calls do nothing."""
        self._call(C.ffi_trampoline_close)

    def _drop(self) -> None:
        super()._drop()
        signature, self.signature = getattr(self, "signature", None), None
        if signature is not None:
            signature._drop()




_interrupts.CRITICAL_CODES.add(Trampoline._drop.__code__)
