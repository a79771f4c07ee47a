"""The README's Python quick start: a pipe, a map, a filter, a subscription.

Install the package first (pip, in a venv: docs/python.md, Install).
"""
import pysignalkit as sk

with sk.Pipe[int]() as pipe, pipe.signal() as numbers, \
        numbers.map(lambda n: n * 10).filter(lambda n: n > 10).subscribe(print):
    for n in (1, 2, 3):
        pipe.put(n)                          # prints 20, then 30
