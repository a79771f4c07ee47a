"""start_with, concat, merge_map and group_by (the core's Signal_Meta
family) in Python: each against its C operator, by values."""

import pytest

import pysignalkit as sk

S = sk.Signal
pytestmark = pytest.mark.usefixtures("clean")  # each test leaves nothing alive


def values(signal):
    return signal.to_list(timeout=10)


def test_start_with_and_concat():
    assert values(S.from_iterable([3]).start_with(1, 2)) == [1, 2, 3]
    assert values(S.concat(S.from_iterable([1, 2]), S.single(3), S.complete())) == [1, 2, 3]


def test_merge_map_limits_the_inner_signals_running():
    pipes = [sk.Pipe[str]() for _ in range(3)]
    seen = []
    outer = S.from_iterable(range(3)).merge_map(lambda i: pipes[i].signal(), max_concurrent=1)
    with outer.subscribe(seen.append):
        pipes[1].put("lost")  # not started yet: concat-map
        pipes[0].put("a")
        pipes[0].complete()
        pipes[1].put("b")
    assert seen == ["a", "b"]
    with pytest.raises(ValueError):
        S.never().merge_map(lambda v: None, max_concurrent=0)


def test_group_by_delivers_key_and_group():
    groups = {}

    def on_group(pair):
        key, group = pair
        groups[key] = []
        group.subscribe(groups[key].append)

    with S.from_iterable([1, 2, 3, 4, 5]).group_by(lambda v: v % 2).subscribe(on_group):
        pass
    assert groups == {1: [1, 3, 5], 0: [2, 4]}
