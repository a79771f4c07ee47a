"""The block overflow policy in Python (issue 44): a producer waits for room
without the GIL, so that the consumer's Python callback makes that room.
Under load nothing is lost (counted end to end) and the values held stay
within the capacity plus a constant (live objects); the library's refusals
where waiting could never end still fail the stream with a clear error;
Pipe.put_async waits for room on a real asyncio loop without holding it;
every handle released in every order while a producer waits leaves nothing
alive; the interpreter exits promptly with a producer waiting.

The scenarios where a producer waits run in a child interpreter with a
deadline: a producer that waited holding the GIL would stop every thread of
the process, this test's too, so a regression fails here instead of
hanging the suite. Each child reports in a JSON line what it counted and
what was left alive (gc, wait_released, the live counts)."""
import asyncio
import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

import pysignalkit as sk
from pysignalkit import _speedups

pytestmark = pytest.mark.usefixtures("clean")

# What every child shares: report() prints the child's counts and what is
# left once everything was released.
PRELUDE = """
import asyncio, gc, itertools, json, sys, threading
import pysignalkit as sk
from pysignalkit import _speedups

# -X dev puts asyncio in debug mode, whose warning that a step of the loop
# took over 0.1 s is a measure of time, not of behaviour: on a loaded
# machine it is ordinary (issue 50), and it would fail the empty-stderr check.
_loop_init = asyncio.base_events.BaseEventLoop.__init__

def _patient_loop_init(self, *args, **kwargs):
    _loop_init(self, *args, **kwargs)
    self.slow_callback_duration = 3600.0

asyncio.base_events.BaseEventLoop.__init__ = _patient_loop_init

def report(**fields):
    gc.collect()
    fields["released"] = sk.wait_released(30)
    fields["left"] = [sk.live_objects(), sk.ffi_live_objects(), sk.pending_callbacks(), sk.boxed_objects(),
                      _speedups.block_places()]
    print(json.dumps(fields), flush=True)
"""


def child(code, timeout=240):
    """Runs PRELUDE and `code` in a child interpreter; the JSON it reported
    (its last line), after checking that it exited cleanly and left nothing
    alive."""
    result = subprocess.run([sys.executable, "-X", "dev", "-c", PRELUDE + textwrap.dedent(code)],
                            env=dict(os.environ), capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr
    fields = json.loads(result.stdout.splitlines()[-1])
    assert fields.pop("released") is True, fields
    assert fields.pop("left") == [0, 0, 0, 0, 0], fields
    return fields


# The load test's count. Each value the consumer takes while the producer
# runs crosses the GIL twice (the producer's put lets it go, the consumer's
# callback takes it), so a blocked pipeline moves tens of thousands of
# values a second on the project's shared 2-core machine, not millions:
# 100,000 values (a hundred times the capacity) keep this test within
# seconds there. The same scenario with
# 1,000,000 (run by hand, 2026-11-25, load average 4): 20 s, every value
# delivered in order, none dropped, at most capacity + 1 live objects, the
# ring full in 918 of 2,000 samples.
TOTAL = 100_000
CAPACITY = 1000


@pytest.mark.parametrize("values, total", [("str", TOTAL), ("object", TOTAL // 4)])
def test_block_under_load_loses_nothing_and_holds_at_most_the_capacity(values, total):
    """A producer far faster than its consumer (a Python callback on a
    serial queue that does some work per value) puts `total` values
    through deliver_on(capacity=1000, overflow="block"): every value
    arrives, in order, none is dropped, and the live objects (each value
    waiting is one: a string, or an object carried by reference, put
    through ctypes, whose calls let the GIL go, at about three times a
    string's cost) stay within the capacity plus a constant. The consumer
    holds its first value until the producer, in a map stage before the
    bounded place (a Python stage's put, inside the pipe's), finds the
    ring full: the producer waits at least there, whatever the
    scheduling (and, the samples show, often after)."""
    fields = child(f"""
        total, capacity = {total}, {CAPACITY}
        make = str if {values!r} == "str" else (lambda value: [value])
        read = int if {values!r} == "str" else (lambda value: value[0])
        queue = sk.Queue.serial("load")
        pipe = sk.Pipe()
        state = {{"delivered": 0, "next": 0, "disorder": 0, "at_full": None}}
        dropped, errors, ended, full = [], [], threading.Event(), threading.Event()

        def entering(value):
            if read(value) == capacity + 1:  # the consumer holds 0, 1 to capacity wait: this put waits
                state["at_full"] = sk.live_objects() - base
                full.set()
            return value

        def on_next(value):
            if state["delivered"] == 0:
                full.wait(60)
            number = read(value)
            if number != state["next"]:
                state["disorder"] += 1
            state["next"] = number + 1
            state["delivered"] += 1
            for _ in range(20):  # slower than the producer's loop
                pass

        def on_error(error):
            errors.append(str(error))
            ended.set()

        signal = pipe.signal().map(entering).deliver_on(queue, capacity=capacity, overflow="block",
                                                        on_drop=lambda value, count: dropped.append(count))
        samples = []
        with signal.subscribe(on_next, on_error, ended.set):
            base = sk.live_objects()  # the subscription's own objects included
            for value in range(total):
                pipe.put(make(value))
                if value % 500 == 0:
                    samples.append(sk.live_objects() - base)
            pipe.complete()
            finished = ended.wait(120)
        signal.close()
        queue.close()
        pipe.close()
        report(finished=finished, errors=errors, dropped=len(dropped), most=max(samples),
               full=sum(sample >= capacity for sample in samples), **state)
    """)
    assert fields["finished"] and fields["errors"] == []
    assert fields["delivered"] == total and fields["dropped"] == 0 and fields["disorder"] == 0
    # The ring full, the value the consumer holds, the one waiting to go in
    # (made by the pipe's put, and again by the map stage's).
    assert fields["at_full"] >= CAPACITY, fields
    assert fields["most"] <= CAPACITY + 4, fields


def test_block_makes_producers_of_several_threads_wait_and_loses_nothing():
    """Four threads put into one on_backpressure_buffer(8, "block"): the
    thread delivering is the consumer; the others wait for room. Every
    value of every thread arrives once, each thread's in its order."""
    fields = child("""
        threads, each = 4, 20000
        pipe = sk.Pipe()
        last = {}
        state = {"delivered": 0, "disorder": 0}
        dropped = []

        def on_next(value):
            thread, number = divmod(value, 1_000_000)
            if number != last.get(thread, -1) + 1:
                state["disorder"] += 1
            last[thread] = number
            state["delivered"] += 1

        signal = pipe.signal().on_backpressure_buffer(8, "block", lambda value, count: dropped.append(value))
        start = threading.Barrier(threads)

        def produce(thread):
            start.wait()
            for number in range(each):
                pipe.put(thread * 1_000_000 + number)

        with signal.subscribe(on_next):
            producers = [threading.Thread(target=produce, args=(t,)) for t in range(threads)]
            for producer in producers:
                producer.start()
            for producer in producers:
                producer.join(120)
            alive = sum(producer.is_alive() for producer in producers)
        signal.close()
        pipe.close()
        report(alive=alive, dropped=len(dropped), total=threads * each, **state)
    """)
    assert fields["alive"] == 0
    assert fields["delivered"] == fields["total"] and fields["dropped"] == 0 and fields["disorder"] == 0


def test_zip_block_makes_the_producer_ahead_wait():
    """zip(capacity=4, overflow="block"): a thread far ahead on one input
    waits for the other input's thread; every pair arrives."""
    fields = child("""
        total = 20000
        fast, slow = sk.Pipe(), sk.Pipe()
        pairs = []
        signal = sk.Signal.zip(fast.signal(), slow.signal(), capacity=4, overflow="block")

        def produce(pipe):
            for value in range(total):
                pipe.put(value)

        with signal.subscribe(pairs.append):
            ahead = threading.Thread(target=produce, args=(fast,))
            ahead.start()
            produce(slow)
            ahead.join(120)
        signal.close()
        fast.close()
        slow.close()
        report(alive=ahead.is_alive(), pairs=len(pairs), right=pairs == [[v, v] for v in range(total)])
    """)
    assert fields == {"alive": False, "pairs": 20000, "right": True}


# --- the refusals: where waiting could never end, the stream fails --------


def test_block_refuses_a_put_from_inside_the_delivery():
    """on_backpressure_buffer: the consumer's own thread putting into its
    full buffer would wait for itself: the stream fails with an error that
    says so, after the values waiting; the value refused goes to on_drop."""
    subscribers, got, errors, dropped = [], [], [], []
    signal = sk.Signal.create(subscribers.append).on_backpressure_buffer(2, "block",
                                                                         lambda value, count: dropped.append(value))

    def on_next(value):
        got.append(value)
        if value == 0:
            for item in range(1, 5):  # 1 and 2 wait; 3 finds the buffer full
                subscribers[0].on_next(item)

    with signal.subscribe(on_next, errors.append):
        subscribers[0].on_next(0)
    assert got == [0, 1, 2]
    assert len(errors) == 1 and isinstance(errors[0], sk.SignalError)
    message = str(errors[0])
    assert "cannot block" in message and "capacity 2" in message and "wait for itself" in message, message
    assert dropped == [3, 4]
    assert _speedups.block_places() == 1  # the signal itself
    signal.close()


def test_block_refuses_a_host_queue():
    """deliver_on a host-drained queue: its draining thread may be the
    producer, so a full ring fails the stream instead of waiting."""
    queue = sk.Queue.host("host")
    pipe = sk.Pipe()
    got, errors, dropped = [], [], []
    signal = pipe.signal().deliver_on(queue, capacity=2, overflow="block",
                                      on_drop=lambda value, count: dropped.append(value))
    with signal.subscribe(got.append, errors.append):
        for value in range(5):
            pipe.put(value)
        while queue.drain():
            pass
    assert got == [0, 1]
    assert len(errors) == 1 and "cannot block" in str(errors[0]) and "host-drained" in str(errors[0])
    assert dropped == [2, 3, 4]
    signal.close()
    pipe.close()
    queue.close()


def test_block_refuses_the_asyncio_queue():
    """deliver_on(asyncio_queue()) on a running loop: a host queue too."""
    async def main():
        pipe = sk.Pipe()
        errors, got, done = [], [], asyncio.get_running_loop().create_future()

        def on_error(error):
            errors.append(error)
            done.set_result(None)

        signal = pipe.signal().deliver_on(sk.asyncio_queue(), capacity=1, overflow="block")
        with signal.subscribe(got.append, on_error):
            for value in range(3):
                pipe.put(value)
            await asyncio.wait_for(done, 60)
        signal.close()
        pipe.close()
        return got, errors

    got, errors = asyncio.run(main())
    assert got == [0]
    assert "cannot block" in str(errors[0]) and "host-drained" in str(errors[0])


def test_zip_block_refuses_a_thread_that_feeds_both_inputs():
    first, second = sk.Pipe(), sk.Pipe()
    errors, pairs = [], []
    signal = sk.Signal.zip(first.signal(), second.signal(), capacity=1, overflow="block")
    with signal.subscribe(pairs.append, errors.append):
        second.put(-1)
        first.put(0)  # the pair [0, -1]
        first.put(1)  # waits for second's next value
        first.put(2)  # first's input is full, and this thread feeds second too: it would wait for itself
    assert pairs == [[0, -1]]
    assert len(errors) == 1 and "cannot block" in str(errors[0]) and "wait for itself" in str(errors[0])
    signal.close()
    first.close()
    second.close()


def test_a_producer_on_the_consumers_own_queue_is_delivered_inline():
    """deliver_on delivers a value emitted on its queue at once: a producer
    that is a job of the consumer's queue never waits (nor fails)."""
    queue = sk.Queue.serial("own")
    pipe = sk.Pipe()
    got, done = [], threading.Event()
    signal = pipe.signal().deliver_on(queue, capacity=1, overflow="block")

    def produce():
        for value in range(100):
            pipe.put(value)
        done.set()

    with signal.subscribe(got.append):
        queue.run(produce)
        assert done.wait(60)
        flushed = threading.Event()
        queue.run(flushed.set)
        assert flushed.wait(60)
    assert got == list(range(100))
    signal.close()
    pipe.close()
    queue.close()


def test_iterate_refuses_block_with_a_clear_error():
    with pytest.raises(ValueError, match="put_async"):
        sk.Signal.never().iterate(capacity=2, overflow="block")


def test_block_signals_are_counted_until_released():
    """The extension's puts let the GIL go while a block signal exists:
    counted from its making to the library's release of it (its
    subscriptions included), also when making it fails; the other policies
    are not counted."""
    assert _speedups.block_places() == 0
    queue = sk.Queue.serial("count")
    latest = sk.Signal.never().deliver_on(queue, capacity=1, overflow="latest")
    assert _speedups.block_places() == 0
    latest.close()
    deep = sk.Signal.never()
    for _ in range(511):  # SK_SIGNAL_MAX_DEPTH (512) deep
        deep = deep.ignore_values()
    with pytest.raises(sk.SignalKitError, match="deep"):  # the library refuses, and releases at once
        deep.on_backpressure_buffer(1, "block")
    assert _speedups.block_places() == 0
    deep.close()
    signals = [sk.Signal.never().deliver_on(queue, capacity=1, overflow="block"),
               sk.Signal.never().on_backpressure_buffer(1, sk.OVERFLOW_BLOCK, lambda value, count: None),
               sk.Signal.zip(sk.Signal.never(), sk.Signal.never(), capacity=1, overflow="block"),
               sk.Signal.never().merge_map(lambda value: None, 1, capacity=1, overflow="block"),
               sk.Signal.never().queue(capacity=1, overflow="block"),
               sk.Signal.never().buffer_with_time(3600, queue, capacity=1, overflow="block")]
    assert _speedups.block_places() == len(signals)
    for signal in signals:
        signal.close()
    pipe = sk.Pipe()
    signal = pipe.signal().deliver_on(queue, capacity=1, overflow="block")
    subscription = signal.subscribe()
    signal.close()
    queue.close()
    assert sk.wait_released(0) is False  # the subscription holds the rest
    assert _speedups.block_places() == 1  # its subscription holds it: a pipe's may still receive values
    subscription.dispose()
    subscription.close()
    pipe.close()
    # (the clean fixture: back to 0 once everything was released)


# --- put_async: asynchronous backpressure ---------------------------------


def test_put_async_waits_for_room_without_holding_the_loop():
    """An async producer awaits put_async of each value into
    deliver_on(capacity=8, overflow="block") whose consumer (a serial
    queue) is held until a coroutine of the same loop lets it go, once the
    producer waits (its put of 9 left the value beyond the capacity):
    that coroutine runs, so the loop was not held. Then every value
    arrives in order and at most the capacity and one more waited."""
    fields = child("""
        total, capacity = 5000, 8
        queue = sk.Queue.serial("consumer")
        pipe = sk.Pipe()
        gate = threading.Event()
        got, ended = [], threading.Event()

        holding = threading.Event()

        def on_next(value):
            holding.set()
            gate.wait()
            got.append(int(value))

        async def main():
            signal = pipe.signal().deliver_on(queue, capacity=capacity, overflow="block")
            base = sk.live_objects()
            most = [0]
            started = asyncio.Event()

            async def produce():
                for value in range(total):
                    if value == capacity + 1:
                        started.set()  # the consumer holds 0, 1 to 8 wait: this put waits
                    await pipe.put_async(str(value))
                    most[0] = max(most[0], sk.live_objects() - base)
                    if value == 0:
                        await asyncio.get_running_loop().run_in_executor(None, holding.wait, 60)
                pipe.complete()

            with signal.subscribe(on_next, None, ended.set):
                producer = asyncio.ensure_future(produce())
                await started.wait()
                ticks = 0
                while not producer.done() and ticks < 3:  # the loop runs while the producer waits
                    ticks += 1
                    await asyncio.sleep(0)
                waiting = not producer.done()
                gate.set()
                await asyncio.wait_for(producer, 120)
                finished = await asyncio.get_running_loop().run_in_executor(None, ended.wait, 120)
            signal.close()
            return waiting, ticks, finished, most[0]

        waiting, ticks, finished, most = asyncio.run(main())
        queue.close()
        pipe.close()
        report(waiting=waiting, ticks=ticks, finished=finished, most=most, right=got == list(range(total)))
    """)
    assert fields["waiting"] and fields["ticks"] == 3, fields
    assert fields["finished"] and fields["right"], fields
    # The capacity, the value beyond it, and 4: the value delivered, the
    # subscription, the room signal's subscription and one being made.
    assert fields["most"] <= 8 + 1 + 4, fields


def test_put_async_keeps_the_order_of_its_calls_and_raises_the_puts_errors():
    async def main():
        pipe = sk.Pipe()
        got = []
        with pipe.signal().subscribe(got.append):
            await asyncio.gather(*(pipe.put_async(value) for value in range(200)))
            with pytest.raises(OverflowError):
                await pipe.put_async(2 ** 70)
            await pipe.put_async("after")
        pipe.close()
        with pytest.raises(ValueError, match="closed"):
            await pipe.put_async(1)
        return got

    assert asyncio.run(main()) == list(range(200)) + ["after"]


def test_put_async_calls_of_one_loop_keep_their_order_through_a_full_place():
    """1,000 put_async calls made at once into deliver_on(capacity=5,
    overflow="block") whose consumer is held: each woken call looked only
    at the room, and one woken late from an older room found a newer one
    there and put before the calls waiting for it (8 runs in 10 out of
    order). They wait in line now: every value arrives in call order."""
    fields = child("""
        total = 1000
        queue = sk.Queue.serial("consumer")
        pipe = sk.Pipe()
        gate, holding, ended = threading.Event(), threading.Event(), threading.Event()
        got = []

        def on_next(value):
            got.append(int(value))
            if len(got) == 1:
                holding.set()
                gate.wait(120)

        async def main():
            loop = asyncio.get_running_loop()
            signal = pipe.signal().deliver_on(queue, capacity=5, overflow="block")
            with signal.subscribe(on_next, None, ended.set):
                calls = [asyncio.ensure_future(pipe.put_async(str(n))) for n in range(total)]
                await loop.run_in_executor(None, holding.wait, 60)
                for _ in range(3):
                    await asyncio.sleep(0)  # the calls begin: most wait
                waiting = sum(not call.done() for call in calls)
                gate.set()
                await asyncio.wait_for(asyncio.gather(*calls), 120)
                pipe.complete()
                finished = await loop.run_in_executor(None, ended.wait, 120)
            signal.close()
            return waiting, finished

        waiting, finished = asyncio.run(main())
        queue.close()
        pipe.close()
        report(waiting=waiting, finished=finished, right=got == list(range(total)),
               first_wrong=[(i, n) for i, n in enumerate(got) if n != i][:3])
    """)
    assert fields["waiting"] > 900 and fields["finished"], fields
    assert fields["right"], fields


def test_put_async_cancelled_before_its_put_leaves_the_value_out():
    """A put waits for room; a second put_async is cancelled meanwhile: its
    value is never put. Closing everything with the first still waiting
    leaves nothing alive."""
    fields = child("""
        queue = sk.Queue.serial("consumer")
        pipe = sk.Pipe()
        gate, holding = threading.Event(), threading.Event()
        got = []

        def on_next(value):
            holding.set()
            gate.wait()
            got.append(value)

        async def main():
            signal = pipe.signal().deliver_on(queue, capacity=1, overflow="block")
            with signal.subscribe(on_next):
                await pipe.put_async(0)  # delivered: the consumer holds it
                await asyncio.get_running_loop().run_in_executor(None, holding.wait, 60)
                await pipe.put_async(1)  # waits in the ring
                waiting = asyncio.ensure_future(pipe.put_async(2))  # finds the ring full: waits
                cancelled = asyncio.ensure_future(pipe.put_async(3))  # behind it: not begun
                await asyncio.sleep(0)  # both submitted: 2 is being put, 3 waits its turn
                cancelled.cancel()
                try:
                    await cancelled  # ended: its future's cancellation reached put_async's thread
                    outcome = "put"
                except asyncio.CancelledError:
                    outcome = "cancelled"
                gate.set()
                await asyncio.wait_for(waiting, 60)
                await pipe.put_async(4)
                flushed = threading.Event()
                queue.run(flushed.set)
                await asyncio.get_running_loop().run_in_executor(None, flushed.wait, 60)
            signal.close()
            return outcome

        outcome = asyncio.run(main())
        queue.close()
        pipe.close()
        report(outcome=outcome, got=got)
    """)
    assert fields == {"outcome": "cancelled", "got": [0, 1, 2, 4]}


# --- releases while a producer waits, and the interpreter's exit -----------

HANDLES = ["pipe", "subscription", "signal", "queue"]


def test_every_handle_released_in_every_order_while_a_producer_waits():
    """A producer thread waits for room (the consumer's callback held);
    the pipe, the subscription, the signal and the queue are then released
    in each of their 24 orders, the consumer let go: the producer's put
    returns, and nothing is left alive (the values waiting included)."""
    fields = child("""
        outcomes = []
        for order in itertools.permutations(%r):
            queue = sk.Queue.serial("release")
            pipe = sk.Pipe()
            gate, holding, waiting, returned = threading.Event(), threading.Event(), threading.Event(), []

            def on_next(value):
                holding.set()
                gate.wait()

            def entering(value):
                # Runs inside the put, before the value reaches the full
                # ring: from here the producer is in the library's put.
                if value == "three":
                    waiting.set()
                return value

            signal = pipe.signal().map(entering).deliver_on(queue, capacity=2, overflow="block")
            subscription = signal.subscribe(on_next)

            def produce():
                pipe.put("held")
                holding.wait(60)
                pipe.put("one")
                pipe.put("two")
                try:
                    pipe.put("three")  # waits for room
                    returned.append("put")
                except ValueError as error:
                    returned.append(str(error))

            producer = threading.Thread(target=produce)
            producer.start()
            waiting.wait(60)
            handles = {"pipe": pipe, "subscription": subscription, "signal": signal, "queue": queue}
            for name in order:
                if name == "subscription":
                    subscription.dispose()
                handles[name].close()
            gate.set()
            producer.join(60)
            del handles, pipe, subscription, signal, queue
            gc.collect()
            outcomes.append([list(order), producer.is_alive(), returned, sk.wait_released(30)])
        report(outcomes=outcomes)
    """ % (HANDLES,))
    assert len(fields["outcomes"]) == 24
    for order, alive, returned, released in fields["outcomes"]:
        assert not alive and returned == ["put"] and released, order


@pytest.mark.parametrize("producer", ["thread", "put_async"])
def test_the_interpreter_exits_promptly_with_a_producer_waiting(producer):
    """The main thread ends while a daemon producer (a thread's put, or
    put_async's thread under a loop that has ended) waits for room, its
    consumer's callback held until the interpreter's exit begins (an
    atexit function, registered after the package's, runs before it): the
    process exits, with status 0 and nothing on stderr, well before the
    deadline."""
    code = """
        import atexit, sys, threading
        import pysignalkit as sk
        queue = sk.Queue.serial("consumer")
        pipe = sk.Pipe()
        gate, waiting = threading.Event(), threading.Event()
        atexit.register(gate.set)
        holding = threading.Event()

        def on_next(value):
            holding.set()
            gate.wait()

        def entering(value):
            if value == 3:
                waiting.set()  # inside the put of 3: the consumer holds 0, 1 and 2 wait, so it waits
            return value

        subscription = pipe.signal().map(entering).deliver_on(queue, capacity=2, overflow="block").subscribe(
            on_next)

        def produce():
            for value in range(10):
                pipe.put(value)

        if sys.argv[1] == "thread":
            threading.Thread(target=produce, daemon=True).start()
            waiting.wait(60)
        else:
            import asyncio

            async def main():
                # The consumer holds 0; 1 and 2 wait; put_async's thread
                # waits to put 3; the loop ends (its tasks cancelled).
                tasks = [asyncio.ensure_future(pipe.put_async(value)) for value in range(10)]
                await asyncio.get_running_loop().run_in_executor(None, holding.wait, 60)
                return sum(not task.done() for task in tasks)

            print("pending", asyncio.run(main()))
        print("leaving", flush=True)
    """
    result = subprocess.run([sys.executable, "-X", "dev", "-c", textwrap.dedent(code), producer],
                            env=dict(os.environ), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.splitlines()[-1] == "leaving"


def test_put_async_needs_a_running_loop_each_time_also_after_one_ran_on_the_thread():
    # put_async remembers the loop it found running on a thread (asyncio's
    # own look asks the system for the process id on every call): a loop
    # that ran here and stopped, or a coroutine driven by hand, must still
    # be told apart from a running loop.
    pipe = sk.Pipe()
    seen = []
    subscription = pipe.signal().subscribe(seen.append)

    def by_hand(value):
        coroutine = pipe.put_async(value)
        try:
            coroutine.send(None)
        except StopIteration:
            return "put"
        except RuntimeError as error:
            return str(error)
        finally:
            coroutine.close()
        return "suspended"

    assert by_hand(0) == "no running event loop"

    async def puts(values):
        for value in values:
            await pipe.put_async(value)

    asyncio.run(puts([1, 2]))
    assert by_hand(3) == "no running event loop"  # the loop that ran here is gone
    asyncio.run(puts([4]))
    other = []
    thread = threading.Thread(target=lambda: other.append(by_hand(5)))
    thread.start()
    thread.join()
    assert other == ["no running event loop"]
    assert seen == [1, 2, 4]
    subscription.dispose()
    pipe.close()
