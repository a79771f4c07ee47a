"""The README's Python quick start: a pipe, a map, a filter, a subscription.

Run against the staged libraries: `make test-python` runs it, or
SIGNALKIT_LIB_DIR=../../.build-c/stage/usr/lib python3 quickstart.py
"""
import signalkit as sk

with sk.Pipe() as pipe, pipe.signal() as numbers, \
        numbers.map("i64(i64)", lambda n: n * 10) as tens, \
        tens.filter("bool(i64)", lambda n: n > 10) as big, \
        big.subscribe("void(i64)", print):
    for n in (1, 2, 3):
        pipe.put(n)                          # prints 20, then 30
