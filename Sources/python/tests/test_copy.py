"""copy.copy, copy.deepcopy and pickle of the objects holding library
references. A copy that shares the library pointer without a reference of
its own releases it twice (a crash), so each class runs in a child process:
a failure there is a failed test, never a crashed pytest."""
import os
import subprocess
import sys
import textwrap

import pytest

import pysignalkit as sk
import pysignalkit.testing as skt

# name -> code making `obj` (and whatever keeps it usable) in the child
FACTORIES = {
    "Signal": "obj = sk.Signal.from_iterable([1, 2, 3]).map(lambda v: v + 1)",
    "Pipe": "obj = sk.Pipe()",
    "Queue": "obj = sk.Queue.serial()",
    "Queue.host": "obj = sk.Queue.host()",
    "Promise": "obj = sk.Promise()",
    "ValuePromise": "obj = sk.ValuePromise(1)",
    "Signature": "obj = sk.Signature('i64(i64)')",
    "Disposable": "pipe = sk.Pipe(); obj = pipe.signal().subscribe(lambda v: None)",
    "Trampoline": "pipe = sk.Pipe(); obj = sk.Trampoline(pipe, 'void(i64)')",
    "Subscriber": ("held = []; signal = sk.Signal.create(held.append); "
                   "disposable = signal.subscribe(lambda v: None); obj = held.pop()"),
    "SignalIterator": "obj = sk.Signal.single(1).__aiter__()",
    "TestScheduler": "obj = skt.TestScheduler()",
    "TestSignal": "scheduler = skt.TestScheduler(); obj = scheduler.cold('a|')",
    "TestRecorder": "scheduler = skt.TestScheduler(); obj = scheduler.record(scheduler.cold('a|'))",
}

CHILD = """
import copy, gc, pickle
import pysignalkit as sk
import pysignalkit.testing as skt

def check(operation):
    {factory}
    if operation == "pickle":
        try:
            pickle.dumps(obj)
        except TypeError as error:
            expected = f"cannot pickle {{type(obj).__name__!r}} objects: a library handle is valid only in its process"
            assert str(error) == expected, str(error)
        else:
            raise AssertionError("pickled")
    else:
        duplicate = copy.copy(obj) if operation == "copy" else copy.deepcopy([obj])[0]
        assert duplicate is obj, operation + ": a new object"

for operation in ("copy", "deepcopy", "pickle"):
    check(operation)
    gc.collect()
    assert sk.live_objects() == 0, (operation, sk.live_objects())
    assert sk.ffi_live_objects() == 0, (operation, sk.ffi_live_objects())
print("ok")
"""


# One child process per class (its three operations in turn): a child
# costs a Python start and an import of the package, and 42 of them were a
# tenth of the suite's time.
@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_copy_returns_the_handle_and_pickle_raises(name: str) -> None:
    code = CHILD.format(factory=FACTORIES[name])
    result = subprocess.run([sys.executable, "-c", code], env=dict(os.environ), capture_output=True, text=True,
                            timeout=60)
    assert (result.returncode, result.stdout) == (0, "ok\n"), result.stderr


def test_a_copy_outlives_the_dropped_original() -> None:
    """The new-user crash: copy a Pipe, drop the original, put on the copy;
    copy a Disposable and dispose both."""
    code = textwrap.dedent("""
        import copy, gc
        import pysignalkit as sk
        for i in range(60):
            pipe = sk.Pipe(); duplicate = copy.copy(pipe); del pipe; gc.collect()
            others = [sk.Pipe() for _ in range(3)]
            duplicate.put(i); del duplicate, others
            pipe = sk.Pipe(); got = []
            disposable = pipe.signal().subscribe(got.append); duplicate = copy.deepcopy(disposable)
            disposable.dispose(); del disposable; gc.collect()
            duplicate.dispose(); pipe.put(1); del duplicate, pipe; gc.collect()
            assert got == [], got
        assert sk.live_objects() == 0, sk.live_objects()
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", code], env=dict(os.environ), capture_output=True, text=True,
                            timeout=120)
    assert (result.returncode, result.stdout) == (0, "ok\n"), result.stderr


def test_every_public_class_holding_a_handle_is_checked() -> None:
    """A new public class holding library references must join FACTORIES."""
    public = {name: getattr(module, name) for module in (sk, skt) for name in module.__all__}
    holding = {name for name, value in public.items()
               if isinstance(value, type) and any(hasattr(value, n) for n in ("pointer", "close", "aclose"))}
    assert holding == {name for name in FACTORIES if "." not in name}
