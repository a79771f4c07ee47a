#!/usr/bin/env python3
"""The issue's six workloads (and a native-stage one, and issue 41's scan
and zip) on pysignalkit and on RxPY (reactivex), in one run, with the ratio
of each: `make bench-python` runs it in a venv holding both (not part of
`make test`).

Times are wall-clock (time.perf_counter) on a shared machine: compare the
two columns of one run, not runs with each other. Memory is the growth of
the resident set (/proc/self/statm) per live subscription, each side in a
child interpreter of its own.

Usage: bench.py [--scale S] [--only WORDS] [--markdown] [--costs]
(S multiplies every count; WORDS: only the rows whose name contains it;
--costs: only the cost table, every operator's row, which follows the
workloads otherwise)
"""
import argparse
import asyncio
import gc
import os
import subprocess
import sys
import threading
import time

import reactivex as rx
from reactivex import operators as ops
from reactivex.scheduler.eventloop import AsyncIOThreadSafeScheduler
from reactivex.subject import Subject

import pysignalkit as sk


def timed(function):
    gc.collect()
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


# 1. from_iterable -> map(+1) -> filter(even) -> map(*2) -> sum, Python lambdas.

def p1_ours(n):
    total = [0]

    def add(value):
        total[0] += value

    def run():
        sk.Signal.from_iterable(range(n)).map(lambda v: v + 1).filter(lambda v: v % 2 == 0) \
            .map(lambda v: v * 2).subscribe(add)
    seconds = timed(run)
    assert total[0] == sum((v + 1) * 2 for v in range(n) if (v + 1) % 2 == 0)
    return seconds / n


def p1_reduce_ours(n):
    out = []

    def run():
        sk.Signal.from_iterable(range(n)).map(lambda v: v + 1).filter(lambda v: v % 2 == 0) \
            .map(lambda v: v * 2).reduce(lambda a, b: a + b, 0).subscribe(out.append)
    seconds = timed(run)
    assert out == [sum((v + 1) * 2 for v in range(n) if (v + 1) % 2 == 0)]
    return seconds / n


def p1_rx(n):
    out = []

    def run():
        rx.from_iterable(range(n)).pipe(ops.map(lambda v: v + 1), ops.filter(lambda v: v % 2 == 0),
                                        ops.map(lambda v: v * 2), ops.sum()).subscribe(out.append)
    seconds = timed(run)
    assert out == [sum((v + 1) * 2 for v in range(n) if (v + 1) % 2 == 0)]
    return seconds / n


# 2. The same chain on a hot source: a Python loop of puts.

def hot_ours(n):
    total = [0]

    def add(value):
        total[0] += value

    pipe = sk.Pipe()
    subscription = pipe.signal().map(lambda v: v + 1).filter(lambda v: v % 2 == 0).map(lambda v: v * 2) \
        .subscribe(add)
    put = pipe.put

    def run():
        for v in range(n):
            put(v)
    seconds = timed(run)
    subscription.dispose()
    assert total[0] == sum((v + 1) * 2 for v in range(n) if (v + 1) % 2 == 0)
    return seconds / n


def hot_rx(n):
    total = [0]

    def add(value):
        total[0] += value

    subject = Subject()
    subscription = subject.pipe(ops.map(lambda v: v + 1), ops.filter(lambda v: v % 2 == 0),
                                ops.map(lambda v: v * 2)).subscribe(add)
    on_next = subject.on_next

    def run():
        for v in range(n):
            on_next(v)
    seconds = timed(run)
    subscription.dispose()
    assert total[0] == sum((v + 1) * 2 for v in range(n) if (v + 1) % 2 == 0)
    return seconds / n


# 3. 100 subscribers on one subject, puts: time per delivery.

def fanout_ours(puts, subscribers=100):
    count = [0]

    def seen(value):
        count[0] += 1

    pipe = sk.Pipe()
    signal = pipe.signal()
    subscriptions = [signal.subscribe(seen) for _ in range(subscribers)]
    seconds = timed(lambda: [pipe.put(v) for v in range(puts)])
    for subscription in subscriptions:
        subscription.dispose()
    assert count[0] == puts * subscribers
    return seconds / (puts * subscribers)


def fanout_rx(puts, subscribers=100):
    count = [0]

    def seen(value):
        count[0] += 1

    subject = Subject()
    subscriptions = [subject.subscribe(seen) for _ in range(subscribers)]
    seconds = timed(lambda: [subject.on_next(v) for v in range(puts)])
    for subscription in subscriptions:
        subscription.dispose()
    assert count[0] == puts * subscribers
    return seconds / (puts * subscribers)


# 4. subscribe + dispose on subject -> map: time per cycle.

def cycles_ours(n):
    pipe = sk.Pipe()
    mapped = pipe.signal().map(lambda v: v + 1)

    def run():
        for _ in range(n):
            mapped.subscribe(None).dispose()
    return timed(run) / n


def cycles_rx(n):
    subject = Subject()
    mapped = subject.pipe(ops.map(lambda v: v + 1))

    def run():
        for _ in range(n):
            mapped.subscribe(lambda v: None).dispose()
    return timed(run) / n


# 5. Memory per live subscription (subject -> map -> subscribe), in a child.

MEMORY_CHILD = """
import gc, os, sys
side, n = sys.argv[1], int(sys.argv[2])
page = os.sysconf("SC_PAGE_SIZE")
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page
if side == "ours":
    import pysignalkit as sk
    source = sk.Pipe()
    mapped = source.signal().map(lambda v: v + 1)
    subscribe = lambda: mapped.subscribe(lambda v: None)
else:
    import reactivex as rx
    from reactivex import operators as ops
    from reactivex.subject import Subject
    source = Subject()
    mapped = source.pipe(ops.map(lambda v: v + 1))
    subscribe = lambda: mapped.subscribe(lambda v: None)
held = [subscribe() for _ in range(100)]
gc.collect()
before = rss()
held += [subscribe() for _ in range(n)]
gc.collect()
print((rss() - before) / n)
"""


def memory(side, n):
    result = subprocess.run([sys.executable, "-c", MEMORY_CHILD, side, str(n)], capture_output=True, text=True,
                            check=True, timeout=600)
    return float(result.stdout)


# 6. asyncio: values put by a worker thread, delivered on the loop.

def asyncio_ours(n):
    async def main():
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        count = [0]

        def seen(value):
            count[0] += 1
            if count[0] == n:
                done.set_result(None)

        pipe = sk.Pipe()
        subscription = pipe.signal().deliver_on(sk.asyncio_queue()).subscribe(seen)
        start = time.perf_counter()
        worker = threading.Thread(target=lambda: [pipe.put(v) for v in range(n)])
        worker.start()
        await done
        seconds = time.perf_counter() - start
        worker.join()
        subscription.dispose()
        return seconds / n
    return asyncio.run(main())


def asyncio_rx(n):
    async def main():
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        count = [0]

        def seen(value):
            count[0] += 1
            if count[0] == n:
                done.set_result(None)

        subject = Subject()
        subscription = subject.pipe(ops.observe_on(AsyncIOThreadSafeScheduler(loop))).subscribe(seen)
        start = time.perf_counter()
        worker = threading.Thread(target=lambda: [subject.on_next(v) for v in range(n)])
        worker.start()
        await done
        seconds = time.perf_counter() - start
        worker.join()
        subscription.dispose()
        return seconds / n
    return asyncio.run(main())


# 7. put_async where nothing waits (issue 54): a plain subscriber; against
# an asyncio.Queue's put and get (RxPY has no awaitable put).

def put_async_ours(n):
    async def main():
        pipe = sk.Pipe()
        count = [0]

        def seen(value):
            count[0] += 1

        subscription = pipe.signal().subscribe(seen)
        start = time.perf_counter()
        for value in range(n):
            await pipe.put_async(value)
        seconds = time.perf_counter() - start
        assert count[0] == n
        subscription.dispose()
        pipe.close()
        return seconds / n
    return asyncio.run(main())


def put_async_asyncio_queue(n):
    async def main():
        queue = asyncio.Queue()
        start = time.perf_counter()
        for value in range(n):
            await queue.put(value)
            await queue.get()
        return (time.perf_counter() - start) / n
    return asyncio.run(main())


# 8. scan (issue 41): a running sum from 0 into a plain subscriber, over
#    from_iterable (the "scan over 1M values") and over a pipe (the
#    issue's shape: a pipe, one operator, a plain subscriber).

def scan_ours(n):
    last = [0]

    def seen(value):
        last[0] = value

    def run():
        sk.Signal.from_iterable(range(n)).scan(lambda total, v: total + v, 0).subscribe(seen)
    seconds = timed(run)
    assert last[0] == n * (n - 1) // 2
    return seconds / n


def scan_rx(n):
    last = [0]

    def seen(value):
        last[0] = value

    def run():
        rx.from_iterable(range(n)).pipe(ops.scan(lambda total, v: total + v, 0)).subscribe(seen)
    seconds = timed(run)
    assert last[0] == n * (n - 1) // 2
    return seconds / n


def hot_scan_ours(n):
    last = [0]

    def seen(value):
        last[0] = value

    pipe = sk.Pipe()
    subscription = pipe.signal().scan(lambda total, v: total + v, 0).subscribe(seen)
    put = pipe.put
    seconds = timed(lambda: [put(v) for v in range(n)])
    subscription.dispose()
    assert last[0] == n * (n - 1) // 2
    return seconds / n


def hot_scan_rx(n):
    last = [0]

    def seen(value):
        last[0] = value

    subject = Subject()
    subscription = subject.pipe(ops.scan(lambda total, v: total + v, 0)).subscribe(seen)
    on_next = subject.on_next
    seconds = timed(lambda: [on_next(v) for v in range(n)])
    subscription.dispose()
    assert last[0] == n * (n - 1) // 2
    return seconds / n


# 9. zip of two subjects (issue 41): a value into each in turn, each pair
#    into a plain subscriber; time per pair.

def zip_ours(n):
    last = [None]

    def seen(value):
        last[0] = value

    left, right = sk.Pipe(), sk.Pipe()
    subscription = sk.Signal.zip(left.signal(), right.signal()).subscribe(seen)
    put_left, put_right = left.put, right.put

    def run():
        for v in range(n):
            put_left(v)
            put_right(-v)
    seconds = timed(run)
    subscription.dispose()
    assert list(last[0]) == [n - 1, 1 - n]
    return seconds / n


def zip_rx(n):
    last = [None]

    def seen(value):
        last[0] = value

    left, right = Subject(), Subject()
    subscription = rx.zip(left, right).subscribe(seen)
    put_left, put_right = left.on_next, right.on_next

    def run():
        for v in range(n):
            put_left(v)
            put_right(-v)
    seconds = timed(run)
    subscription.dispose()
    assert list(last[0]) == [n - 1, 1 - n]
    return seconds / n


# 7. Native stages: hot puts -> a C function (labs, "i64(i64)") -> the
#    library's distinct_until_changed -> last; RxPY with the same operators.

def native_ours(n):
    import ctypes
    libc = ctypes.CDLL(None)
    labs = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(("labs", libc))
    out = []
    pipe = sk.Pipe()
    subscription = pipe.signal().map("i64(i64)", labs).distinct_until_changed(in_library=True).take(2 ** 64 - 1).last() \
        .subscribe(out.append)
    put = pipe.put

    def run():
        for v in range(n):
            put(-(v // 2))
    seconds = timed(run)
    subscription.dispose()
    return seconds / n


def native_rx(n):
    out = []
    subject = Subject()
    subscription = subject.pipe(ops.map(abs), ops.distinct_until_changed(), ops.last()).subscribe(out.append)
    on_next = subject.on_next

    def run():
        for v in range(n):
            on_next(-(v // 2))
    seconds = timed(run)
    subscription.dispose()
    return seconds / n


# The cost table's Python rows (issue 41): one operator between a pipe (a
# Subject) and a plain subscriber, for every operator of cost_operators.py
# (written by `make api-update` from the operator table), with the arguments
# of the C, C++ and Swift rows (Benchmarks/Sources/CostRows/include/CostRows.h):
# a count of 1 (take and element_at: 2**40), a predicate that holds
# (skip_while, first_where: one that does not), +1 as a map (group_by: a
# constant key), 0 as a value or initial value, the running sum as a fold,
# a second pipe that never emits (with_latest_from: one holding a value),
# the same pipe twice for zip, merge and concat. Time per put, as a ratio to
# our map's and to RxPY's same operator.

COUNT_NEVER = 2 ** 40


def cost_arguments(row, shape, side):
    def holds(v):
        return True

    def fails(v):
        return False

    if shape == "count":
        return (COUNT_NEVER if row in ("take", "element_at") else 1,)
    if shape == "predicate":
        return (fails if row in ("skip_while", "first_where") else holds,)
    if shape == "map":
        return ((lambda v: 0) if row == "group_by" else (lambda v: v + 1),)
    if shape == "value":
        return (0,)
    if shape == "reduce":
        return (lambda total, v: total + v, 0)
    if shape == "tap":
        return (lambda v: None,)
    if shape == "work":
        return (lambda: None,)
    if shape == "signal":
        replaying = row == "with_latest_from"
        if side == "ours":
            other = sk.Pipe(replay=replaying)
            if replaying:
                other.put(0)
            return (other.signal(),)
        from reactivex.subject import BehaviorSubject
        return (BehaviorSubject(0) if replaying else Subject(),)
    return ()


def cost_ours(row, shape, method, n):
    pipe = sk.Pipe()
    source = pipe.signal()
    if shape == "signals":
        made = getattr(sk.Signal, method)(source, source)
    else:
        made = getattr(source, method)(*cost_arguments(row, shape, "ours"))
    seen = [0]

    def next_value(value):
        seen[0] += 1
    subscription = made.subscribe(next_value)
    put = pipe.put
    seconds = timed(lambda: [put(v) for v in range(n)])
    subscription.dispose()
    return seconds / n


def cost_rx(row, shape, name, n):
    subject = Subject()
    if shape == "signals":
        made = getattr(rx, name)(subject, subject)
    elif name == "replay":
        made = subject.pipe(ops.replay(buffer_size=1), ops.ref_count())
    elif shape == "work" and name == "do_action":
        made = subject.pipe(ops.do_action(on_completed=lambda: None))
    else:
        made = subject.pipe(getattr(ops, name)(*cost_arguments(row, shape, "rx")))
    seen = [0]

    def next_value(value):
        seen[0] += 1
    subscription = made.subscribe(next_value)
    on_next = subject.on_next
    seconds = timed(lambda: [on_next(v) for v in range(n)])
    subscription.dispose()
    return seconds / n


def median_of(runs, measure):
    values = sorted(measure() for _ in range(runs))
    return values[len(values) // 2]


def cost_table(n, only, runs=3):
    """Each figure the median of `runs` runs, ours and RxPY's in turn."""
    from cost_operators import COST_OPERATORS
    print()
    print(f"Cost table (issue 41): one operator between a pipe / Subject and a plain subscriber, {n:,} puts, "
          f"time per put, median of {runs} runs; load {os.getloadavg()[0]:.1f}")
    print("| operator | ours us/put | ours / our map | RxPY us/put | RxPY / RxPY's map | ours / RxPY |")
    print("|---|---:|---:|---:|---:|---:|")
    cost_ours("map", "map", "map", n)  # warm-up
    cost_rx("map", "map", "map", n)
    our_map = median_of(runs, lambda: cost_ours("map", "map", "map", n))
    rx_map = median_of(runs, lambda: cost_rx("map", "map", "map", n))
    for row, shape, method, name in COST_OPERATORS:
        if only not in row:
            continue
        ours = our_map if row == "map" else median_of(runs, lambda: cost_ours(row, shape, method, n))
        theirs = None
        if name is not None:
            theirs = rx_map if row == "map" else median_of(runs, lambda: cost_rx(row, shape, name, n))
        cells = [f"{ours * 1e6:.3f}", f"{ours / our_map:.2f}"]
        if theirs is None:
            cells += ["– (RxPY has none)", "–", "–"]
        else:
            cells += [f"{theirs * 1e6:.3f}", f"{theirs / rx_map:.2f}", f"{ours / theirs:.2f}"]
        print(f"| {row} | " + " | ".join(cells) + " |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--only", default="", help="only the rows whose name contains this")
    parser.add_argument("--costs", action="store_true", help="only the cost table (every operator's row)")
    args = parser.parse_args()

    def count(base):
        return max(1, int(base * args.scale))

    rows = [
        ("ints: from_iterable, map(+1), filter(even), map(*2), sum (Python lambdas; ours: the sum in on_next)", "us/event",
         lambda: p1_ours(count(1_000_000)), lambda: p1_rx(count(1_000_000))),
        ("same, ours with reduce() as the sum (a library operator)", "us/event",
         lambda: p1_reduce_ours(count(200_000)), lambda: p1_rx(count(200_000))),
        ("same chain, hot source (a Python loop of puts)", "us/event",
         lambda: hot_ours(count(200_000)), lambda: hot_rx(count(200_000))),
        ("100 subscribers on one subject, puts", "us/delivery",
         lambda: fanout_ours(count(10_000)), lambda: fanout_rx(count(10_000))),
        ("subscribe + dispose on subject -> map", "us/cycle",
         lambda: cycles_ours(count(100_000)), lambda: cycles_rx(count(100_000))),
        ("memory per live subscription (RSS)", "bytes",
         lambda: memory("ours", count(20_000)), lambda: memory("rx", count(20_000))),
        ("asyncio: values from a worker thread onto the loop", "us/value",
         lambda: asyncio_ours(count(10_000)), lambda: asyncio_rx(count(10_000))),
        ("put_async, nothing waits, a plain subscriber (other column: an asyncio.Queue put and get)", "us/value",
         lambda: put_async_ours(count(20_000)), lambda: put_async_asyncio_queue(count(20_000))),
        ("native stages: hot puts, labs (C), distinct, last", "us/event",
         lambda: native_ours(count(200_000)), lambda: native_rx(count(200_000))),
        ("scan: from_iterable, a running sum, a plain subscriber", "us/value",
         lambda: scan_ours(count(1_000_000)), lambda: scan_rx(count(1_000_000))),
        ("scan: hot puts into a pipe, a running sum, a plain subscriber", "us/value",
         lambda: hot_scan_ours(count(1_000_000)), lambda: hot_scan_rx(count(1_000_000))),
        ("zip of two subjects, a value into each in turn", "us/pair",
         lambda: zip_ours(count(500_000)), lambda: zip_rx(count(500_000))),
    ]
    print(f"pysignalkit {sk.__version__} (C library {sk.version()}), reactivex {rx.__version__}, "
          f"Python {sys.version.split()[0]}, scale {args.scale}, load {os.getloadavg()[0]:.1f}")
    if args.costs:
        cost_table(count(100_000), args.only)
        return
    print("| workload | unit | ours | RxPY | ours / RxPY |")
    print("|---|---|---:|---:|---:|")
    for name, unit, ours, theirs in rows:
        if args.only not in name:
            continue
        a, b = ours(), theirs()
        if unit != "bytes":
            a, b = a * 1e6, b * 1e6
            shown = f"{a:.2f} | {b:.2f}"
        else:
            shown = f"{a:.0f} | {b:.0f}"
        print(f"| {name} | {unit} | {shown} | {a / b:.2f} |", flush=True)
    cost_table(count(100_000), args.only)


if __name__ == "__main__":
    main()
