"""Bounded concurrent queues (sk_queue_create_concurrent): at most
max_workers jobs at once, every job run, the counts refused, the queue
closed with jobs pending. Jobs block on an Event; nothing sleeps."""
import threading

import pytest

import pysignalkit as sk

pytestmark = pytest.mark.usefixtures("clean")


def bounded(max_workers, name="bounded"):
    return sk.Queue.concurrent(max_workers=max_workers, name=name)


class Crowd:
    """Jobs that count how many run at once, and block until `gate` is set."""

    def __init__(self, total):
        self.lock = threading.Lock()
        self.running = self.most = self.finished = 0
        self.total = total
        self.entered = threading.Semaphore(0)
        self.gate = threading.Event()
        self.all_done = threading.Event()

    def job(self):
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        self.entered.release()
        self.gate.wait(10)
        with self.lock:
            self.running -= 1
            self.finished += 1
            if self.finished == self.total:
                self.all_done.set()


def test_never_more_than_max_workers_jobs_at_once():
    queue = bounded(3)
    crowd = Crowd(12)
    for _ in range(12):
        queue.run(crowd.job)
    for _ in range(3):
        assert crowd.entered.acquire(timeout=10), "3 jobs did not start"
    # Every worker is blocked in a job: no fourth can have started.
    assert not crowd.entered.acquire(blocking=False)
    with crowd.lock:
        assert crowd.running == 3
    crowd.gate.set()
    assert crowd.all_done.wait(10)
    assert crowd.finished == 12
    assert crowd.most == 3
    queue.close()


def test_every_job_runs_once_from_several_threads():
    queue = bounded(2)
    seen, lock, done = [], threading.Lock(), threading.Event()
    total = 400

    def job(n):
        with lock:
            seen.append(n)
            if len(seen) == total:
                done.set()

    def submit(part):
        for n in range(part, total, 4):
            queue.run(lambda n=n: job(n))

    threads = [threading.Thread(target=submit, args=(part,)) for part in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert done.wait(10)
    assert sorted(seen) == list(range(total))
    queue.close()


@pytest.mark.parametrize("count, error", [(0, ValueError), (-1, ValueError), (1025, ValueError),
                                          (2 ** 64, ValueError), (True, TypeError), (2.0, TypeError)])
def test_worker_counts_outside_the_range_are_refused(count, error):
    with pytest.raises(error, match="max_workers"):
        bounded(count)
    with pytest.raises(ValueError, match="NUL"):
        bounded(1, "a\0b")


def test_closed_with_jobs_pending_runs_them():
    queue = bounded(1)
    crowd = Crowd(5)
    for _ in range(5):
        queue.run(crowd.job)
    assert crowd.entered.acquire(timeout=10)
    queue.close()  # the last handle: returns while the worker is blocked
    assert crowd.finished == 0
    crowd.gate.set()
    assert crowd.all_done.wait(10)
    assert crowd.finished == 5 and crowd.most == 1


def test_background_and_max_workers_are_not_combined():
    with pytest.raises(TypeError, match="background and max_workers"):
        sk.Queue.concurrent(True, max_workers=2)


def test_a_bounded_queue_delivers_an_operator():
    queue = bounded(2)
    got, done = [], threading.Event()
    sk.Signal.single(7).deliver_on(queue).subscribe(got.append, on_completed=done.set)
    assert done.wait(10)
    assert got == [7]
    queue.close()
