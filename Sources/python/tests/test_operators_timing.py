"""buffer_with_count, buffer_with_time and sample (the core's
Signal_Timing+Buffer.swift) in Python, by values and on virtual time."""

import pytest

import pysignalkit as sk
from pysignalkit.testing import TestScheduler

S = sk.Signal
pytestmark = pytest.mark.usefixtures("clean")  # each test leaves nothing alive


def values(signal):
    return signal.to_list(timeout=10)


def test_buffers_and_sample():
    assert values(S.from_iterable(range(5)).buffer_with_count(2)) == [[0, 1], [2, 3], [4]]
    with pytest.raises(ValueError):
        S.never().buffer_with_count(0)
    with TestScheduler() as scheduler:
        windows = []
        buffered = scheduler.cold("ab-c--|").buffer_with_time(scheduler.seconds(3), scheduler.queue)
        sampled = scheduler.record(scheduler.cold("ab-c--|").sample(scheduler.seconds(2), scheduler.queue))
        with buffered.subscribe(lambda window: windows.append((scheduler.now, window))):
            scheduler.run()
        assert windows == [(3, ["a", "b"]), (6, ["c"])]
        sampled.assert_diagram("--b-c-|")
    with sk.Pipe[int]() as source, sk.Pipe[str]() as ticks:
        seen = []
        with source.signal().sample(ticks.signal()).subscribe(seen.append):
            source.put(1)
            source.put(2)
            ticks.put("t")
            ticks.put("t")  # nothing new
            source.put(3)
            ticks.put("t")
        assert seen == [2, 3]
