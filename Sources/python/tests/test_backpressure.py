"""Bounded buffers (on_backpressure_buffer, deliver_on with a capacity):
each policy's delivered and dropped values against a plain-Python model,
argument errors, nothing lost under error, the memory a slow
consumer makes its producer hold, and abandonment. Every test leaves
nothing alive (the `clean` fixture)."""
import threading

import pytest
from hypothesis import given, settings, strategies as st

import pysignalkit as sk

pytestmark = pytest.mark.usefixtures("clean")
POLICIES = ["drop_newest", "drop_oldest", "latest", "error"]


def model(items, capacity, policy):
    """What a bounded buffer delivers and drops when `items` all arrive
    before the consumer runs: (delivered, dropped, failed)."""
    pending, dropped, failed = [], [], False
    for item in items:
        if failed:
            dropped.append(item)
        elif len(pending) < capacity:
            pending.append(item)
        elif policy == "drop_newest":
            dropped.append(item)
        elif policy == "drop_oldest":
            dropped.append(pending.pop(0))
            pending.append(item)
        elif policy == "latest":
            dropped.append(pending.pop())
            pending.append(item)
        else:
            failed = True
            dropped.append(item)
    return pending, dropped, failed


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=-1000, max_value=1000), max_size=30), st.integers(min_value=1, max_value=6),
       st.sampled_from(POLICIES))
def test_deliver_on_with_a_capacity_is_the_model(items, capacity, policy):
    queue = sk.Queue.host("bounded")
    got, dropped, counts, errors, done = [], [], [], [], []

    def on_drop(value, count):
        dropped.append(value)
        counts.append(count)

    signal = sk.Signal.from_iterable(items).deliver_on(queue, capacity=capacity, overflow=policy, on_drop=on_drop)
    with signal.subscribe(got.append, errors.append, lambda: done.append(True)):
        while queue.drain():
            pass
    delivered, model_dropped, failed = model(items, capacity, policy)
    assert got == delivered
    assert dropped == model_dropped
    assert counts == list(range(1, len(model_dropped) + 1))
    assert bool(errors) == failed
    if failed:
        assert f"capacity {capacity}" in str(errors[0]) and "sk_signal_deliver_on_bounded" in str(errors[0])
    else:
        assert done == [True]
    queue.close()


def test_on_backpressure_buffer_buffers_values_put_during_a_delivery():
    pipe_subscriber = []
    got, dropped = [], []

    def generator(subscriber):
        pipe_subscriber.append(subscriber)

    signal = sk.Signal.create(generator).on_backpressure_buffer(2, "drop_oldest", lambda v, n: dropped.append(v))

    def on_next(value):
        got.append(value)
        if value == 0:
            for item in range(1, 6):
                pipe_subscriber[0].on_next(item)

    with signal.subscribe(on_next):
        pipe_subscriber[0].on_next(0)
        pipe_subscriber[0].on_next(6)
    assert got == [0, 4, 5, 6]
    assert dropped == [1, 2, 3]


@pytest.mark.parametrize("bad, error", [
    (dict(capacity=0, overflow="latest"), ValueError),
    (dict(capacity=-1, overflow="latest"), ValueError),
    (dict(capacity=2, overflow="sideways"), ValueError),
    (dict(capacity=2, overflow=9), ValueError),
    (dict(capacity=2, overflow=None), TypeError),
    (dict(capacity=2.5, overflow="latest"), TypeError),
    (dict(capacity=2, overflow="latest", on_drop=3), TypeError),
])
def test_bounded_buffers_refuse_bad_arguments(bad, error):
    signal = sk.Signal.single(1)
    with pytest.raises(error):
        signal.on_backpressure_buffer(**bad)
    queue = sk.Queue.host("bad")
    with pytest.raises(error):
        signal.deliver_on(queue, **bad)
    with pytest.raises(TypeError):
        signal.deliver_on(queue, overflow="latest")
    queue.close()


def test_overflow_constants_are_accepted():
    assert [sk.OVERFLOW_DROP_NEWEST, sk.OVERFLOW_DROP_OLDEST, sk.OVERFLOW_LATEST, sk.OVERFLOW_ERROR,
            sk.OVERFLOW_BLOCK] == [0, 1, 2, 3, 4]
    got = []
    with sk.Signal.from_iterable([1, 2]).on_backpressure_buffer(1, sk.OVERFLOW_LATEST).subscribe(got.append):
        pass
    assert got == [1, 2]


@pytest.mark.parametrize("policy", POLICIES)
def test_a_faster_producer_holds_at_most_the_capacity(policy):
    """The issue's load test in Python: 1,000,000 values from a producer
    much faster than its consumer (a Python callback on a serial queue)
    through deliver_on(capacity=1000). The values held (live objects: each
    string value waiting is one) stay within the capacity plus a constant;
    with error the values delivered and dropped are contiguous: none is
    lost unseen. (Block, where every value arrives: test_block.py, in a
    child interpreter.)"""
    total, capacity = 1_000_000, 1000
    queue = sk.Queue.serial("load")
    pipe = sk.Pipe()
    state = {"delivered": 0, "next": 0, "order": 0, "dropped": 0, "first_drop": None, "last_drop": None}
    ended = threading.Event()

    def on_next(value):
        if value < state["next"]:
            state["order"] += 1
        state["next"] = value + 1
        state["delivered"] += 1

    def on_drop(value, count):
        if state["first_drop"] is None:
            state["first_drop"] = value
        state["last_drop"] = value
        state["dropped"] = count

    signal = pipe.signal().deliver_on(queue, capacity=capacity, overflow=policy, on_drop=on_drop)
    base = sk.live_objects()
    most = 0
    sent = 0
    with signal.subscribe(on_next, lambda e: ended.set(), ended.set):
        for value in range(total):
            if ended.is_set():
                break
            pipe.put(value)
            sent += 1
            if value % 500 == 0:
                most = max(most, sk.live_objects() - base)
        pipe.complete()
        assert ended.wait(60)
        flushed = threading.Event()
        queue.run(flushed.set)
        assert flushed.wait(60)
    assert most <= capacity + 2, f"{most} values held at once"
    assert state["order"] == 0
    if policy == "error":
        assert state["next"] == state["delivered"]
        assert state["first_drop"] == state["delivered"]
        assert state["last_drop"] == state["delivered"] + state["dropped"] - 1
        assert state["delivered"] + state["dropped"] <= sent
    else:
        assert state["delivered"] + state["dropped"] == total
    queue.close()
