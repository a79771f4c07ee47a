"""The capacities of zip, merge_map, queue and buffer_with_time
(sk_signal_zip_bounded, sk_signal_merge_map_bounded,
sk_signal_queue_bounded, sk_signal_buffer_time_bounded): a producer far
faster than its consumer holds at most the capacity (live objects), each
policy drops what it says (counted), error loses nothing, and nothing is
left alive (the `clean` fixture)."""
import threading

import pytest

import pysignalkit as sk

pytestmark = pytest.mark.usefixtures("clean")
DROP_POLICIES = ["drop_newest", "drop_oldest", "latest"]


def first_delivered(policy, total, capacity, skipped=0):
    """The first value a consumer gets among those that waited."""
    return total - capacity if policy == "drop_oldest" else skipped


@pytest.mark.parametrize("policy", DROP_POLICIES)
def test_zip_holds_at_most_the_capacity_per_signal(policy):
    """100,000 string values into one signal of a zip before the other
    sends any: at most 1,000 wait (each string value is a live object)."""
    total, capacity = 100_000, 1000
    fast, slow = sk.Pipe(), sk.Pipe()
    arrays, drops = [], {"count": 0, "last": 0}

    def on_drop(value, count):
        drops["count"] += 1
        drops["last"] = count

    signal = sk.Signal.zip(fast.signal(), slow.signal(), capacity=capacity, overflow=policy, on_drop=on_drop)
    base = sk.live_objects()
    most = 0
    with signal.subscribe(arrays.append):
        for value in range(total):
            fast.put(str(value))
            if value % 500 == 0:
                most = max(most, sk.live_objects() - base)
        slow.put("x")
        assert most <= capacity + 2, f"{most} values held at once"
        assert drops["count"] == total - capacity
        assert drops["last"] == total - capacity
        assert arrays == [[str(first_delivered(policy, total, capacity)), "x"]]


def test_zip_error_fails_at_once_and_loses_nothing():
    fast, slow = sk.Pipe(), sk.Pipe()
    arrays, errors, dropped = [], [], []
    signal = sk.Signal.zip(fast.signal(), slow.signal(), capacity=3, overflow="error",
                           on_drop=lambda value, count: dropped.append(value))
    with signal.subscribe(arrays.append, errors.append):
        slow.put(-1)
        for value in range(10):
            fast.put(value)
    assert arrays == [[0, -1]]
    assert len(errors) == 1
    assert "sk_signal_zip_bounded: overflow: a value arrived with 3 values pending (capacity 3" in str(errors[0])
    # 1, 2, 3 waited, 4 overflowed: all dropped; the error ended the rest.
    assert sorted(dropped) == [1, 2, 3, 4]
    assert len(arrays) + len(dropped) == 5


@pytest.mark.parametrize("policy", DROP_POLICIES)
def test_merge_map_holds_at_most_the_capacity_waiting(policy):
    total, capacity = 100_000, 100
    pipe = sk.Pipe()
    started = []

    def never(value):
        started.append(value)
        return sk.Signal.never()

    signal = pipe.signal().merge_map(never, max_concurrent=1, capacity=capacity, overflow=policy)
    base = sk.live_objects()
    most = 0
    with signal.subscribe():
        for value in range(total):
            pipe.put(str(value))
            if value % 500 == 0:
                most = max(most, sk.live_objects() - base)
    # The values waiting, the one being put, the inner signal running.
    assert most <= capacity + 4, f"{most} objects held at once"
    assert started == ["0"]


@pytest.mark.parametrize("policy, dropped", [("drop_newest", ["3", "4", "5"]), ("drop_oldest", ["1", "2", "3"]),
                                              ("latest", ["2", "3", "4"])])
def test_merge_map_reports_the_values_it_drops(policy, dropped):
    """0 runs for ever, two wait: each policy's drops go to on_drop, with
    the count of drops so far."""
    pipe = sk.Pipe()
    started, seen = [], []

    def never(value):
        started.append(value)
        return sk.Signal.never()

    signal = pipe.signal().merge_map(never, max_concurrent=1, capacity=2, overflow=policy,
                                     on_drop=lambda value, count: seen.append((value, count)))
    with signal.subscribe():
        for value in range(6):
            pipe.put(str(value))
    assert started == ["0"]
    assert seen == [(value, count) for count, value in enumerate(dropped, 1)]


def test_queue_reports_the_signals_it_drops():
    signals = sk.Pipe()
    got, dropped = [], []
    signal = signals.signal().queue(capacity=1, overflow="drop_newest", on_drop=lambda value, count: dropped.append(count))
    with signal.subscribe(got.append):
        signals.put(sk.Signal.never())
        for value in range(4):
            signals.put(sk.Signal.single(value))
    assert got == []
    assert dropped == [1, 2, 3]


@pytest.mark.parametrize("policy", DROP_POLICIES + ["error"])
def test_buffer_with_time_holds_at_most_the_capacity_per_window(policy):
    total, capacity = 100_000, 1000
    queue = sk.Queue.serial("bounded.buffer")
    gate = threading.Event()
    queue.run(lambda: gate.wait(60))  # busy until every value is put
    pipe = sk.Pipe()
    arrays, errors, ended = [], [], threading.Event()
    drops = {"count": 0, "first": None}

    def on_drop(value, count):
        if drops["first"] is None:
            drops["first"] = int(value)
        drops["count"] = count

    def on_error(error):
        errors.append(error)
        ended.set()

    signal = pipe.signal().buffer_with_time(3600, queue, capacity=capacity, overflow=policy, on_drop=on_drop)
    base = sk.live_objects()
    most = 0
    with signal.subscribe(arrays.append, on_error, ended.set):
        for value in range(total):
            pipe.put(str(value))
            if value % 500 == 0:
                most = max(most, sk.live_objects() - base)
        pipe.complete()
        gate.set()
        assert ended.wait(60)
    # The values collected, the one being put; with error also the error
    # value and its delivery, waiting on the queue.
    assert most <= capacity + 4, f"{most} values held at once"
    assert len(arrays) == 1 and len(arrays[0]) == capacity
    # No loss: every value was delivered or dropped.
    assert len(arrays[0]) + drops["count"] == total
    if policy == "error":
        assert len(errors) == 1
        assert drops["first"] == capacity
    else:
        assert errors == []
        assert arrays[0][0] == str(first_delivered(policy, total, capacity))
    queue.close()


@pytest.mark.parametrize("call", [
    lambda s: sk.Signal.zip(s, s, capacity=0, overflow="latest"),
    lambda s: sk.Signal.zip(s, s, overflow="latest"),
    lambda s: s.merge_map(lambda v: s, capacity=2, overflow="blocking"),
    lambda s: s.merge_map(lambda v: s, capacity=2, overflow="latest", on_drop=3),
    lambda s: s.merge_map(lambda v: s, on_drop=print),
    lambda s: s.queue(capacity=2, overflow="sideways"),
    lambda s: s.buffer_with_time(1, capacity=2, overflow="error", on_drop=3),
])
def test_bounded_places_refuse_bad_arguments(call):
    with pytest.raises((ValueError, TypeError)):
        call(sk.Signal.never())


@pytest.mark.parametrize("policy", DROP_POLICIES + ["error", "block"])
def test_a_bounded_pipe_holds_at_most_its_capacity_of_values_put_from_its_callback(policy):
    """A callback that puts 10,000 values into its own pipe: unbounded, they
    all wait in the pipe (and are all delivered); with a capacity of 4, at
    most 4 wait, the drops are reported, and "error" and "block" fail the
    pipe after the values waiting."""
    total, capacity = 10_000, 4
    drops = []
    pipe = sk.Pipe(capacity=capacity, overflow=policy, on_drop=lambda value, count: drops.append((value, count)))
    delivered, errors, most = [], [], [0]
    base = sk.live_objects()

    def on_next(value):
        delivered.append(value)
        most[0] = max(most[0], sk.live_objects() - base)
        if value == "0":
            for n in range(1, total + 1):
                pipe.put(str(n))

    with pipe.signal().subscribe(on_next, on_error=errors.append):
        pipe.put("0")
    assert most[0] < 8 * capacity
    assert [count for _, count in drops] == list(range(1, len(drops) + 1))
    if policy in ("error", "block"):
        assert delivered == ["0", "1", "2", "3", "4"]
        assert drops == [("5", 1)]
        assert len(errors) == 1 and "sk_pipe_create_bounded" in str(errors[0])
    else:
        assert errors == []
        assert len(delivered) == 1 + capacity
        assert len(delivered) + len(drops) == 1 + total
    pipe.close()


def test_a_pipe_without_a_capacity_delivers_every_value_put_from_its_callback():
    total = 10_000
    pipe = sk.Pipe()
    delivered = []

    def on_next(value):
        delivered.append(value)
        if value == 0:
            for n in range(1, total + 1):
                pipe.put(n)

    with pipe.signal().subscribe(on_next):
        pipe.put(0)
    assert delivered == list(range(total + 1))
    pipe.close()


@pytest.mark.parametrize("call", [
    lambda: sk.Pipe(capacity=0, overflow="latest"),
    lambda: sk.Pipe(capacity=2),
    lambda: sk.Pipe(overflow="latest"),
    lambda: sk.Pipe(capacity=2, overflow="sideways"),
    lambda: sk.Pipe(capacity=2, overflow="latest", on_drop=3),
])
def test_a_bounded_pipe_refuses_bad_arguments(call):
    with pytest.raises((ValueError, TypeError)):
        call()


def test_a_bounded_pipe_names_what_is_wrong_with_its_capacity_before_the_missing_policy():
    with pytest.raises(ValueError, match="capacity -1 is negative"):
        sk.Pipe(capacity=-1)
    with pytest.raises(TypeError, match="capacity is str"):
        sk.Pipe(capacity="2")
    with pytest.raises(TypeError, match="a capacity needs an overflow policy .*'drop_newest'.*'block'"):
        sk.Pipe(capacity=2)
