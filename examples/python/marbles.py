"""The marble test of docs/testing.md in Python: debounce on virtual time. Run it with
pytest (python -m pytest marbles.py), or as a script.

Install the package first (pip install ./Sources/python in a virtual
environment; docs/python.md, Install).
"""
from pysignalkit.testing import TestScheduler


def test_debounce_waits_for_three_quiet_frames() -> None:
    scheduler = TestScheduler()                   # a frame is 1 ms of virtual time
    keys = scheduler.cold("-a-b-------c|")
    results = scheduler.record(keys.debounce(scheduler.seconds(3), scheduler.queue))
    scheduler.run()                               # no real clock: microseconds
    assert results.diagram() == "------b-----(c|)"
    assert keys.subscriptions == "^0 !12"


if __name__ == "__main__":
    test_debounce_waits_for_three_quiet_frames()
    print("passed")
