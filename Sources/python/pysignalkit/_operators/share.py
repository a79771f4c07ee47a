"""The Share family of Signal's operators: share and replay. The same
family as the Swift core's Signal_Share.swift and the C layer's
Operators_Share.swift. Its place among the modules: the package docstring,
Layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from .._core import C
from .._standard_operators import _ShareStandard

if TYPE_CHECKING:  # annotations only: the composed class is above this module
    from .._signal import Signal

T_co = TypeVar("T_co", covariant=True)


class _ShareOperators(_ShareStandard[T_co]):
    """Signal's Share operators (mixed into pysignalkit.Signal)."""
