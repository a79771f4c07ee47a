#!/usr/bin/env python3
"""Instructions per put of the package's puts, under callgrind: each shape
runs twice in a child interpreter under `valgrind --tool=callgrind`, with
N and 2N puts, and the difference of the two totals over N is the cost of
one put (the import, the setup and the exit cancel out). Not part of
`make test`; the figures go in docs/python.md ("Bounded queues") and the
commit that changes the puts.

Usage: put_cost.py [--count N] [--only WORDS] [--python PYTHON]
(PYTHON: the interpreter whose installed pysignalkit is measured, by default
this one)

--child SHAPE N runs one shape's N puts (what the parent runs under
callgrind).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def shape_pipe(n, block):
    """Puts of an int into a pipe with no subscriber."""
    import pysignalkit as sk
    pipe = sk.Pipe()
    with block():
        for value in range(n):
            pipe.put(value)
    pipe.close()


def shape_subscriber(n, block):
    """A pipe, one plain subscriber."""
    import pysignalkit as sk
    pipe = sk.Pipe()
    seen = []
    with block(), pipe.signal().subscribe(seen.append):
        for value in range(n):
            pipe.put(value)
            seen.clear()
    pipe.close()


def shape_map(n, block):
    """A pipe, map(+1) (a Python lambda), a plain subscriber."""
    import pysignalkit as sk
    pipe = sk.Pipe()
    total = [0]

    def add(value):
        total[0] += value

    with block(), pipe.signal().map(lambda v: v + 1).subscribe(add):
        for value in range(n):
            pipe.put(value)
    pipe.close()


def shape_fanout(n, block):
    """A pipe with 10 plain subscribers (n puts: 10 n deliveries)."""
    import pysignalkit as sk
    pipe = sk.Pipe()
    seen = []
    subscriptions = [pipe.signal().subscribe(seen.append) for _ in range(10)]
    with block():
        for value in range(n):
            pipe.put(value)
            seen.clear()
    for subscription in subscriptions:
        subscription.dispose()
        subscription.close()
    pipe.close()


def shape_iterable(n, block):
    """from_iterable(range(n)) into take(n), a plain subscriber.

    (take: a library operator, so that the extension's loop puts.)"""
    import pysignalkit as sk
    seen = []
    with block():
        sk.Signal.from_iterable(range(n)).take(n).subscribe(seen.append).close()


SHAPES = {"pipe": shape_pipe, "subscriber": shape_subscriber, "map": shape_map, "fanout": shape_fanout, "iterable": shape_iterable}


def child(shape, n, with_block):
    import contextlib
    import pysignalkit as sk

    @contextlib.contextmanager
    def block():
        # A signal with the block policy alive during the puts (never
        # subscribed): every put of the package lets the GIL go.
        if not with_block:
            yield
            return
        queue = sk.Queue.serial("cost")
        signal = sk.Signal.never().deliver_on(queue, capacity=8, overflow="block")
        try:
            yield
        finally:
            signal.close()
            queue.close()

    if with_block and not hasattr(sk.Pipe, "put_async"):
        sys.exit(3)  # the version before the block policy: nothing to measure
    SHAPES[shape](n, block)


def instructions(python, shape, n, with_block):
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "callgrind.out")
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", python, os.path.abspath(__file__),
                   "--child", shape, str(n)] + (["--block"] if with_block else [])
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode == 3:
            return None
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
        with open(out) as data:
            match = re.search(r"^(?:summary|totals): (\d+)", data.read(), re.M)
        if match is None:
            raise SystemExit(f"no total in {out}")
        return int(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--only", default="")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--child", nargs=2, metavar=("SHAPE", "N"))
    parser.add_argument("--block", action="store_true")
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.block)
        return
    print("| shape | instructions per put | with a block signal alive |")
    print("|---|---:|---:|")
    for shape in SHAPES:
        if args.only and args.only not in shape:
            continue
        row = []
        for with_block in (False, True):
            one = instructions(args.python, shape, args.count, with_block)
            two = instructions(args.python, shape, 2 * args.count, with_block)
            row.append("-" if one is None or two is None else f"{(two - one) / args.count:,.0f}")
        print(f"| {shape}: {SHAPES[shape].__doc__.splitlines()[0]} | {row[0]} | {row[1]} |", flush=True)


if __name__ == "__main__":
    main()
