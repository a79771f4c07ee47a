"""Every count, limit and capacity of the package at 1, 2, 3, 2**32,
PTRDIFF_MAX + 1 and SIZE_MAX (issue 40): a count is a limit, not a
reservation. A huge one means "no limit", or is refused where the
documented range ends (Queue.concurrent's max_workers: ValueError);
none asks for memory up front (buffer_with_count(2**32) ended the
interpreter: "Fatal error: failed to allocate 103079215136 bytes")."""

import threading

import pytest

import pysignalkit as sk

S = sk.Signal
pytestmark = pytest.mark.usefixtures("clean")  # each test leaves nothing alive

COUNTS = [1, 2, 3, 2 ** 32, 2 ** 63, 2 ** 64 - 1]  # 2**63: PTRDIFF_MAX + 1
THREE = [1, 2, 3]


def values(signal):
    return signal.to_list(timeout=10)


@pytest.mark.parametrize("count", COUNTS)
def test_take_skip_and_element_at(count):
    kept = min(count, 3)
    assert values(S.from_iterable(THREE).take(count)) == THREE[:kept]
    assert values(S.from_iterable(THREE).skip(count)) == THREE[kept:]
    assert values(S.from_iterable(THREE).element_at(count)) == THREE[count:count + 1]


@pytest.mark.parametrize("count", COUNTS)
def test_buffer_with_count(count):
    expected = {1: [[1], [2], [3]], 2: [[1, 2], [3]]}.get(count, [THREE])
    assert values(S.from_iterable(THREE).buffer_with_count(count)) == expected


def test_buffer_with_count_of_2_to_the_32_is_one_final_buffer():
    """The issue's case: three values, then the completion, make one list."""
    assert values(S.from_iterable(THREE).buffer_with_count(2 ** 32)) == [THREE]


@pytest.mark.parametrize("count", COUNTS)
def test_replay(count):
    with sk.Pipe[int]() as pipe:
        replayed = pipe.signal().replay(count)
        late = []
        with replayed.subscribe():
            for value in THREE:
                pipe.put(value)
            with replayed.subscribe(late.append):
                pass
        assert late == THREE[3 - min(count, 3):]


@pytest.mark.parametrize("count", COUNTS)
def test_retry_count(count):
    """Fails on its first five starts (after one value each), then
    completes: 1 to 3 retries end with the error; a huge count retries
    until the sixth start completes."""
    starts = []

    def start(subscriber):
        starts.append(1)
        subscriber.on_next(len(starts))
        if len(starts) <= 5:
            subscriber.on_error(ValueError(f"start {len(starts)}"))
        else:
            subscriber.on_completed()

    if count < 5:
        with pytest.raises(ValueError, match=f"start {count + 1}"):
            values(S.create(start).retry_count(count))
        assert len(starts) == count + 1
    else:
        assert values(S.create(start).retry_count(count)) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("count", COUNTS)
def test_merge_map_max_concurrent(count):
    """Each of three values maps to a subscription to a pipe that never
    ends: min(max_concurrent, 3) of them run."""
    seen = []
    with sk.Pipe[int]() as inner:
        merged = S.from_iterable(THREE).merge_map(lambda _: inner.signal(), max_concurrent=count)
        with merged.subscribe(seen.append):
            inner.put(7)
    assert seen == [7] * min(count, 3)


@pytest.mark.parametrize("count", COUNTS)
def test_concurrent_queue_max_workers(count):
    assert sk.MAX_WORKERS == 1024  # public: Queue.concurrent's docstring names it
    if count > sk.MAX_WORKERS:
        with pytest.raises(ValueError, match=f"max_workers is {count}: a bounded concurrent queue has 1 to 1024 workers"):
            sk.Queue.concurrent(max_workers=count)
        return
    ran = threading.Event()
    with sk.Queue.concurrent(max_workers=count) as queue:
        queue.run(ran.set)
        assert ran.wait(10)


@pytest.mark.parametrize("count", COUNTS)
def test_host_queue_drain_max_tasks(count):
    ran = []
    with sk.Queue.host() as queue:
        for k in range(5):
            queue.run(lambda k=k: ran.append(k))
        assert queue.drain(count) == min(count, 5)
    assert ran == list(range(min(count, 5)))
