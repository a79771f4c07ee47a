"""Threads: serial and concurrent queues, puts from many threads."""
import threading

import pytest

import signalkit as sk

pytestmark = pytest.mark.usefixtures("clean")


def barrier(queue):
    done = threading.Event()
    queue.run(done.set)
    assert done.wait(10)


def test_deliver_on_a_serial_queue_keeps_order_on_one_thread():
    queue = sk.Queue.serial("order")
    threads, seen = set(), []
    done = threading.Event()

    def on_next(value):
        threads.add(threading.get_ident())
        seen.append(value)

    with sk.Signal.from_iterable(range(500)).map(lambda n: [n]).deliver_on(queue).subscribe(
            on_next, None, done.set):
        assert done.wait(10)
    assert seen == [[n] for n in range(500)]
    assert len(threads) == 1 and threading.get_ident() not in threads
    barrier(queue)


def test_run_on_starts_on_the_queue():
    queue = sk.Queue.serial("start")
    started_on = []
    signal = sk.Signal.create(lambda s: (started_on.append(queue.is_current()), s.on_next(1), s.on_completed())[-1])
    assert signal.run_on(queue).to_list(timeout=10) == [1]
    assert started_on == [True]
    barrier(queue)


def test_puts_from_many_threads_all_arrive_on_the_concurrent_queue():
    queue = sk.Queue.concurrent()
    lock = threading.Lock()
    total = [0, 0]

    def on_next(n):
        with lock:
            total[0] += n
            total[1] += 1

    with sk.Pipe() as pipe, pipe.signal().map(lambda n: n * 2).subscribe(on_next):
        workers = [threading.Thread(target=lambda k=k: [pipe.put(k * 1000 + i) for i in range(250)])
                   for k in range(4)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    assert total == [2 * sum(k * 1000 + i for k in range(4) for i in range(250)), 1000]
    del queue
