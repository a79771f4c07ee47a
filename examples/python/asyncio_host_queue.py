#!/usr/bin/env python3
"""Receiving callbacks on the asyncio loop's thread.

A worker thread puts values into a pipe. The pipeline is delivered on the
loop's own host-drained queue (sk.asyncio_queue()): its work runs only when
the queue is drained, and the package has the loop drain it whenever its
descriptor is readable (loop.add_reader), so every callback runs on the
loop's thread, where it may touch loop state freely. `async for` reads the
same way.

Run it with the package installed (pip install ./Sources/python in a virtual
environment; docs/python.md, Install).
"""
import asyncio
import threading
from typing import List, Set, Tuple

import pysignalkit as sk


async def run(count: int = 20) -> Tuple[List[int], bool]:
    """Returns (values received, whether every callback ran on the loop's
    thread)."""
    loop = asyncio.get_running_loop()
    loop_thread = threading.get_ident()
    done = loop.create_future()
    received: List[int] = []
    threads: Set[int] = set()

    def on_next(n: int) -> None:
        threads.add(threading.get_ident())
        received.append(n)

    def on_completed() -> None:
        threads.add(threading.get_ident())
        done.set_result(True)  # safe: we are on the loop's thread

    pipe: sk.Pipe[int] = sk.Pipe()
    tripled = pipe.signal().map(lambda n: n * 3).take(count).deliver_on(sk.asyncio_queue())
    with tripled.subscribe(on_next, on_completed=on_completed):
        def produce() -> None:
            for n in range(count):
                pipe.put(n)

        worker = threading.Thread(target=produce)
        worker.start()
        await asyncio.wait_for(done, timeout=10)
        worker.join()

    # The same values, read with `async for` (the loop ends at the completion).
    again = [n async for n in sk.Signal.from_iterable(range(count)).map(lambda n: n * 3)]
    return received if again == received else [], threads == {loop_thread}


if __name__ == "__main__":
    values, on_loop_thread = asyncio.run(run())
    print("received:", values)
    print("all callbacks on the loop's thread:", on_loop_thread)
    print("live objects:", sk.live_objects(), "ffi live objects:", sk.ffi_live_objects())
