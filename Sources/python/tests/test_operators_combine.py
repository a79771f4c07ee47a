"""zip and with_latest_from (the core's Signal_Combine+Zip.swift) in
Python: each against its C operator, by values."""

import pytest

import pysignalkit as sk

S = sk.Signal
pytestmark = pytest.mark.usefixtures("clean")  # each test leaves nothing alive


def values(signal):
    return signal.to_list(timeout=10)


def test_zip_pairs_the_nth_values():
    assert values(S.zip(S.from_iterable([1, 2, 3]), S.from_iterable("ab"))) == [[1, "a"], [2, "b"]]


def test_with_latest_from():
    with sk.Pipe[int]() as source, sk.Pipe[str]() as other:
        seen = []
        with source.signal().with_latest_from(other.signal()).subscribe(seen.append):
            source.put(1)  # dropped: other has not emitted
            other.put("x")
            source.put(2)
            other.put("y")
            source.put(3)
        assert seen == [[2, "x"], [3, "y"]]
