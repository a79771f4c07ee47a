#!/usr/bin/env python3
"""Receiving callbacks on the asyncio loop's thread.

A worker thread puts values into a pipe. The pipeline is delivered on a
host-drained queue: its work runs only when someone drains it, and its file
descriptor is readable while work is pending. The asyncio loop watches that
descriptor (loop.add_reader) and drains the queue when it fires, so every
callback runs on the loop's thread, where it may touch loop state freely.

Run with SIGNALKIT_LIB_DIR pointing at the libraries (`make test-python`
does), or with them installed.
"""
import asyncio
import threading

import signalkit as sk


async def run(count=20):
    """Returns (values received, whether every callback ran on the loop's
    thread)."""
    loop = asyncio.get_running_loop()
    loop_thread = threading.get_ident()
    done = loop.create_future()
    received = []
    threads = set()

    def on_next(n):
        threads.add(threading.get_ident())
        received.append(n)

    def on_completed():
        threads.add(threading.get_ident())
        done.set_result(True)  # safe: we are on the loop's thread

    with sk.Queue.host("asyncio") as queue, sk.Pipe() as pipe, pipe.signal() as source, \
            source.map("i64(i64)", lambda n: n * 3) as tripled, tripled.take(count) as taken, \
            taken.deliver_on(queue) as delivered:
        loop.add_reader(queue.fileno(), queue.drain)
        try:
            with delivered.subscribe("void(i64)", on_next, on_completed=on_completed):
                def produce():
                    for n in range(count):
                        pipe.put(n)

                worker = threading.Thread(target=produce)
                worker.start()
                await asyncio.wait_for(done, timeout=10)
                worker.join()
        finally:
            loop.remove_reader(queue.fileno())
            queue.drain()  # whatever the disposal left (releases run there too)
    return received, threads == {loop_thread}


if __name__ == "__main__":
    values, on_loop_thread = asyncio.run(run())
    print("received:", values)
    print("all callbacks on the loop's thread:", on_loop_thread)
    print("live objects:", sk.live_objects(), "ffi live objects:", sk.ffi_live_objects())
