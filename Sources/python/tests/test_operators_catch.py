"""retry_count (the core's Signal_Catch+Count.swift) in Python, by values
and on virtual time."""

import pytest

import pysignalkit as sk
from pysignalkit.testing import TestScheduler

S = sk.Signal
pytestmark = pytest.mark.usefixtures("clean")  # each test leaves nothing alive


def values(signal):
    return signal.to_list(timeout=10)


def test_retry_count_retries_count_times():
    attempts = []

    def start(subscriber):
        attempts.append(1)
        subscriber.on_error(ValueError("no"))

    with pytest.raises(ValueError):
        values(S.create(start).retry_count(2))
    assert len(attempts) == 3


def test_retry_count_with_a_delay_on_virtual_time():
    with TestScheduler() as scheduler:
        source = scheduler.cold("a#")
        results = scheduler.record(source.retry_count(1, scheduler.seconds(2), scheduler.queue))
        scheduler.run()
        results.assert_diagram("a--a#")
