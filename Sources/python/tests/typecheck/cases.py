# Lines the type checker must reject, and lines it must accept, checked by
# tests/test_typing.py with `mypy --strict`: a line ending in
# `# E: <code>` must get an error of that code (mypy's [code]) on that
# line; every other line must get none. Never run, only checked.
import asyncio
from typing import List, Optional

import pysignalkit as sk

ints = sk.Signal.from_iterable([1, 2])
nested: sk.Signal[sk.Signal[int]] = sk.Signal.from_iterable([sk.Signal.single(1)])

# Signals of signals: switch_to_latest / queue / throttled give the inner type,
# and apply to a signal of signals only.
latest: sk.Signal[int] = nested.switch_to_latest()
queued: sk.Signal[int] = nested.queue()
throttled: sk.Signal[int] = nested.throttled()
wrong_latest: sk.Signal[str] = nested.switch_to_latest()  # E: assignment
flat: sk.Signal[int] = ints.switch_to_latest()  # E: misc
ints.queue()  # E: misc
ints.throttled()  # E: misc

# Values and arguments.
p = sk.Pipe[int]()
p.put("str")  # E: arg-type
a: sk.Signal[str] = sk.Signal.single(1)  # E: arg-type
b: sk.Signal[str] = ints.take(1)  # E: assignment
sk.Signal.single(1).map(lambda v: v.upper())  # E: attr-defined
sk.Signal.fail("not an exception")  # E: arg-type
ints.take("3")  # E: arg-type
ints.debounce("1")  # E: arg-type
ok: List[int] = ints.to_list()
last: Optional[int] = ints.last().to_list()[0]
# The list operators carry the element type.
pairs: sk.Signal[List[int]] = ints.pairwise()
counted: sk.Signal[List[int]] = ints.buffer_with_count(2)
windows: sk.Signal[List[int]] = ints.buffer_with_time(1.0)
wrong_pairs: sk.Signal[List[str]] = ints.pairwise()  # E: assignment
wrong_counted: sk.Signal[List[str]] = ints.buffer_with_count(2)  # E: assignment
wrong_windows: sk.Signal[List[str]] = ints.buffer_with_time(1.0)  # E: assignment


async def iterate() -> None:
    # async for: the iterator's values have the signal's type, and the
    # iterator Signal.__aiter__ returns has aclose().
    it = ints.__aiter__()
    first: int = await it.__anext__()
    await it.aclose()
    wrong: str = await ints.__aiter__().__anext__()  # E: assignment
    async for value in ints:
        total: int = value
    covariant: sk.SignalIterator[object] = ints.__aiter__()
    task = asyncio.ensure_future(sk.Signal.single(1))
    awaited: int = await task
    # put_async: a coroutine taking a value of the pipe's type.
    await p.put_async(1)
    await p.put_async("str")  # E: arg-type
