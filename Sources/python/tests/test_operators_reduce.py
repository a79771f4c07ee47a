"""scan and pairwise (the core's Signal_Reduce+Scan.swift) in Python:
each against its C operator, by values."""

import pytest

import pysignalkit as sk

S = sk.Signal
pytestmark = pytest.mark.usefixtures("clean")  # each test leaves nothing alive


def values(signal):
    return signal.to_list(timeout=10)


def test_scan_emits_each_accumulator():
    assert values(S.from_iterable([1, 2, 3]).scan(lambda acc, v: acc + v, 10)) == [11, 13, 16]
    assert values(S.from_iterable(["a", "b"]).scan(lambda acc, v: acc + [v], [])) == [["a"], ["a", "b"]]


def test_scan_fails_with_the_functions_exception():
    def fold(acc, v):
        if v == 2:
            raise ValueError("two")
        return acc + v
    with pytest.raises(ValueError, match="two"):
        values(S.from_iterable([1, 2, 3]).scan(fold, 0))


def test_pairwise():
    assert values(S.from_iterable([1, 2, 3]).pairwise()) == [[1, 2], [2, 3]]
    assert values(S.single(1).pairwise()) == []
