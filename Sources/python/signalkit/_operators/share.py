"""The Share family of Signal's operators: share and replay. The same
family as the Swift core's Signal_Share.swift and the C layer's
Operators_Share.swift. Its place among the modules: the package docstring,
Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from .._core import C
from .._handle import _count_arg
from .._signal_core import _new_signal, _SignalCore

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T_co = TypeVar("T_co", covariant=True)


class _ShareOperators(_SignalCore[T_co]):
    """Signal's Share operators (mixed into signalkit.Signal)."""

    def share(self) -> "Signal[T_co]":
        """One subscription to this shared by all subscribers of the
        result: the first connects it, later ones receive what comes after
        they join, the last one leaving disposes it, and the next connects
        anew (RxPY's share) (sk_signal_share). Keep the result and
        subscribe to it: each call makes a connection of its own."""
        return _new_signal(C.signal_share, self)

    def replay(self, count: int = 1) -> "Signal[T_co]":
        """As share(), and a subscriber joining a running connection first
        receives the latest `count` values (0: share()). A count is a
        limit, not memory reserved: one larger than the connection emits
        (2**64 - 1, 2**32) replays all of them. Unlike RxPY's replay, no
        connect() is needed: reference counted, as share()
        (sk_signal_replay)."""
        return _new_signal(C.signal_replay, self, _count_arg(count, "replay", "count"))
