"""share and replay (the core's Signal_Share.swift) in Python."""

import pytest

import pysignalkit as sk

pytestmark = pytest.mark.usefixtures("clean")  # each test leaves nothing alive


def test_share_subscribes_once_and_replay_replays():
    starts = []
    with sk.Pipe[int]() as pipe:
        shared = pipe.signal().before_started(lambda: starts.append(1)).share()
        a, b = [], []
        with shared.subscribe(a.append), shared.subscribe(b.append):
            pipe.put(1)
        assert a == [1] and b == [1] and starts == [1]
        replayed = pipe.signal().replay(1)
        c, d = [], []
        with replayed.subscribe(c.append):
            pipe.put(7)
            with replayed.subscribe(d.append):
                pass
        assert c == [7] and d == [7]
