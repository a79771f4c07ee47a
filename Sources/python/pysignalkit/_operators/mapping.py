"""The Mapping family of Signal's operators: map and filter (fused Python stages) and distinct_until_changed. The same family as
the Swift core's Signal_Mapping.swift and the C layer's Operators_Mapping.swift.
Its place among the modules: the package docstring, Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Optional, TypeVar, Union, overload

from .._core import C
from .._handle import _callable_arg
from .._native import Signature
from .._signal_core import _new_signal
from .._standard_operators import _MappingStandard
from .._subscription import _DISTINCT, _FILTER, _MAP

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)


class _MappingOperators(_MappingStandard[T_co]):
    """Signal's Mapping operators (mixed into pysignalkit.Signal)."""

    @overload
    def map(self, fn: Callable[[T_co], U]) -> "Signal[U]": ...

    @overload
    def map(self, fn: Union[str, Signature], native: Any) -> "Signal[Any]": ...

    def map(self, fn: Any, native: Any = None) -> "Signal[Any]":
        """Each value transformed by fn(value).

        A chain of Python map / filter / tap stages is composed: each event
        crosses from C into Python once for the whole chain. An exception
        in `fn` ends the stream with it (the upstream is disposed).

        Native form: map(signature, function) with a signature string such
        as "i64(i64)" and a ctypes function or a Python callable
        (sk_ffi_signal_map; package docstring)."""
        if isinstance(fn, (str, Signature)):
            return self._native_operator(C.ffi_signal_map, "map", fn, native)
        _callable_arg(fn, "map")
        return self._stage((_MAP, fn))

    @overload
    def filter(self, fn: Callable[[T_co], object]) -> "Signal[T_co]": ...

    @overload
    def filter(self, fn: Union[str, Signature], native: Any) -> "Signal[Any]": ...

    def filter(self, fn: Any, native: Any = None) -> "Signal[Any]":
        """Only the values for which fn(value) is true (composed with the
        neighbouring Python stages, as map). Native form: filter(signature,
        function), e.g. "bool(f64)"."""
        if isinstance(fn, (str, Signature)):
            return self._native_operator(C.ffi_signal_filter, "filter", fn, native)
        _callable_arg(fn, "filter")
        return self._stage((_FILTER, fn))

    def distinct_until_changed(self, key: Optional[Callable[[T_co], object]] = None,
                               comparer: Optional[Callable[[Any, Any], object]] = None,
                               in_library: bool = False) -> "Signal[T_co]":
        """Drops a value whose key (key(value), or the value itself) equals
        the key of the last value passed: `==` by default, or
        comparer(previous_key, key) (RxPY's distinct_until_changed; its
        key_mapper is `key` here). A Python stage, composed with the
        neighbouring map / filter / tap, with a memory of its own per
        subscription; an exception in `key` or `comparer` ends the stream
        with it.

        in_library=True: the library's sk_signal_distinct_until_changed
        instead, which calls no Python per value (after native stages, a
        value never enters Python) and compares the plain kinds by value
        and objects carried by reference by identity; with key or comparer
        it is a TypeError."""
        if in_library:
            if key is not None or comparer is not None:
                raise TypeError("signalkit: distinct_until_changed: in_library=True takes no key nor comparer")
            return _new_signal(C.signal_distinct_until_changed, self)
        _callable_arg(key, "distinct_until_changed: key", optional=True)
        _callable_arg(comparer, "distinct_until_changed: comparer", optional=True)
        self.pointer  # closed: ValueError at the call, not at each start

        def memory() -> Callable[[Any], bool]:
            """The filter of one subscription, with the key of the last
            value it passed (none yet)."""
            last: List[object] = []

            def changed(value: Any) -> bool:
                current = key(value) if key is not None else value
                if not last:
                    last.append(current)
                    return True
                if comparer(last[0], current) if comparer is not None else last[0] == current:
                    return False
                last[0] = current
                return True

            return changed

        # Composed with the neighbouring Python stages, distinct ones
        # included: a value passing many of them in a row enters Python once
        # per 32 (each library stage a value passes nests the next one's
        # call, and the frames of a long run of them overflowed Python's
        # recursion limit at about 190).
        return self._stage((_DISTINCT, memory))
