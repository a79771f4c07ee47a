"""Signal, composed from the core
(_signal_core) and one class per operator family (pysignalkit._operators,
the families of the Swift core's Signal_<Family>.swift and the C layer's
Operators_<Family>.swift), and the asyncio protocols (_asyncio)."""

from __future__ import annotations

from typing import TypeVar

from . import _core
from ._asyncio import _AsyncOperators
from ._operators.catch import _CatchOperators
from ._operators.combine import _CombineOperators
from ._operators.dispatch import _DispatchOperators
from ._operators.mapping import _MappingOperators
from ._operators.merge import _MergeOperators
from ._operators.meta import _MetaOperators
from ._operators.reduce import _ReduceOperators
from ._operators.share import _ShareOperators
from ._operators.side_effects import _SideEffectsOperators
from ._operators.take import _TakeOperators
from ._operators.throttle import _ThrottleOperators
from ._operators.timing import _TimingOperators

T_co = TypeVar("T_co", covariant=True)


class Signal(_CatchOperators[T_co], _CombineOperators[T_co], _DispatchOperators[T_co], _MappingOperators[T_co],
             _MergeOperators[T_co], _MetaOperators[T_co], _ReduceOperators[T_co], _ShareOperators[T_co],
             _SideEffectsOperators[T_co],
             _TakeOperators[T_co], _ThrottleOperators[T_co], _TimingOperators[T_co], _AsyncOperators[T_co]):
    """A cold stream of values of type T: nothing runs until subscribe(),
    and each subscription runs the stream anew.

    Operators return new signals (the receiver is unchanged). Values are
    Python objects: None, bool, int (int64), float, str and bytes cross the
    C library as its own value kinds; any other object is carried by
    reference (the same object arrives). `exception` is the first exception
    raised by this signal's own Python function (map, filter, tap, create, a
    from_iterable iterator, reduce, ...), if any, in any of its
    subscriptions; map / filter / tap stages compose, so the signal
    subscribed to records an exception of any stage of its chain (an
    exception of on_next is the Disposable's only). A handle (a reference to
    a library object): copy.copy and copy.deepcopy return it itself;
    pickling raises TypeError."""


# Every signal the package makes, and every signal value that arrives, is
# of this class (the layers below make them through _core._signal_type).
_core._signal_type = Signal

__all__ = ["Signal"]
