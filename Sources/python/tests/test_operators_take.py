"""skip, skip_while, take_while, first, element_at, default_if_empty and
take_until (the core's Signal_Take family) in Python: each against its C
operator, by values."""

import pytest

import pysignalkit as sk

S = sk.Signal
pytestmark = pytest.mark.usefixtures("clean")  # each test leaves nothing alive


def values(signal):
    return signal.to_list(timeout=10)


def test_skip_and_skip_while():
    assert values(S.from_iterable(range(5)).skip(3)) == [3, 4]
    assert values(S.from_iterable([1, 2, 5, 1]).skip_while(lambda v: v < 3)) == [5, 1]
    with pytest.raises(ValueError):
        S.never().skip(-1)


def test_take_while_exclusive_and_inclusive():
    assert values(S.from_iterable([1, 2, 5, 1]).take_while(lambda v: v < 3)) == [1, 2]
    assert values(S.from_iterable([1, 2, 5, 1]).take_while(lambda v: v < 3, inclusive=True)) == [1, 2, 5]


def test_first_element_at_default_if_empty():
    assert values(S.from_iterable([4, 5]).first()) == [4]
    assert values(S.from_iterable([4, 5, 6]).first(lambda v: v > 4)) == [5]
    assert values(S.complete().first()) == []
    assert values(S.from_iterable("abc").element_at(1)) == ["b"]
    assert values(S.from_iterable("abc").element_at(5)) == []
    assert values(S.complete().default_if_empty("none")) == ["none"]
    assert values(S.single(1).default_if_empty("none")) == [1]


def test_take_until_a_signal():
    with sk.Pipe[int]() as source, sk.Pipe[str]() as stop:
        seen, ended = [], []
        with source.signal().take_until(stop.signal()).subscribe(seen.append, on_completed=lambda: ended.append(1)):
            source.put(1)
            stop.put("now")
            source.put(2)
        assert seen == [1] and ended == [1]


def test_a_predicate_that_raises_ends_the_stream_with_its_exception():
    # Before: it counted as false (take_while completed with []) and was
    # reported (callback_error_hook, where "predicate"). Each predicate
    # operator in detail: test_callback_failures.py.
    reported = []
    hook, sk.callback_error_hook = sk.callback_error_hook, lambda exc, where: reported.append(where)
    try:
        def fn(v):
            raise KeyError(v)
        with pytest.raises(KeyError):
            values(S.from_iterable([1, 2]).take_while(fn))
    finally:
        sk.callback_error_hook = hook
    assert reported == []
