"""The extension (pysignalkit._speedups: the crossing between the library and
Python) as installed by the wheel, and the build backend's errors."""
import os
import re
import shutil
import subprocess
import sysconfig

import pytest

import pysignalkit as sk
from conftest import load_backend
from pysignalkit import _speedups


def mapped_libraries():
    with open("/proc/self/maps", encoding="utf-8") as maps:
        return {line.split()[-1] for line in maps if "libsignalkit.so" in line}


def test_the_extension_is_in_the_package_and_uses_the_loaded_library():
    assert os.path.dirname(_speedups.__file__) == os.path.dirname(sk.__file__)
    assert _speedups.__file__.endswith(".abi3.so")  # the stable ABI (Py_LIMITED_API)
    # One copy of the C library in the process: the one the package loaded.
    assert mapped_libraries() == {os.path.realpath(sk.library_paths()[0])}


@pytest.mark.usefixtures("clean")
def test_values_of_every_kind_cross_both_ways():
    class Box:
        pass

    box = Box()
    values = [None, True, False, 0, -2 ** 63, 2 ** 63 - 1, 1.5, "", "text é", b"", b"\0raw", box, (1, "x")]
    seen = []
    with sk.Pipe() as pipe, pipe.signal().subscribe(seen.append):
        for value in values:
            pipe.put(value)
    assert seen == values and seen[11] is box
    assert [type(v) for v in seen] == [type(v) for v in values]


@pytest.mark.usefixtures("clean")
def test_arrays_of_every_kind_arrive_as_lists():
    # The extension converts an array itself (zip's pairs, buffers), and the
    # items of its kinds; an object carried by reference and a signal value
    # inside one go through the package's converter: the very object, a
    # Signal.
    class Box:
        pass

    box = Box()
    seen = []
    with sk.Pipe() as pipe, sk.Signal.never() as never, pipe.signal() as piped, \
            piped.buffer_with_count(4) as buffered, buffered.buffer_with_count(2) as nested, \
            nested.subscribe(seen.append):
        for value in (None, True, 7, 2.5, "é", b"\0x", box, never):
            pipe.put(value)
    assert seen[0][0] == [None, True, 7, 2.5] and seen[0][1][:3] == ["é", b"\0x", box]
    assert [type(v) for v in seen[0][0]] == [type(None), bool, int, float]
    assert seen[0][1][2] is box and isinstance(seen[0][1][3], sk.Signal)
    seen[0][1][3].close()
    pairs = []
    with sk.Pipe() as left, sk.Pipe() as right, left.signal() as first, right.signal() as second, \
            sk.Signal.zip(first, second) as zipped, zipped.subscribe(pairs.append):
        left.put(1)
        right.put("one")
        left.put(box)
        right.put([box])  # a list put into a pipe is an object carried by reference, not an array
    assert pairs == [[1, "one"], [box, [box]]] and pairs[1][0] is box


@pytest.mark.usefixtures("clean")
def test_an_array_as_deep_as_the_library_allows_arrives_as_lists():
    value = [7]
    for _ in range(sk.MAX_DEPTH - 1):
        value = [value]
    seen = []
    with sk.Pipe() as pipe, pipe.signal() as piped, piped.map("value(value)", lambda v: value) as deep, \
            deep.subscribe(seen.append):
        pipe.put(0)
    assert seen == [value]


@pytest.mark.usefixtures("clean")
def test_a_put_of_a_subclass_is_carried_by_reference():
    class Number(int):
        pass

    number = Number(2 ** 70)  # not an int of the library's kind: no OverflowError, the very object
    seen = []
    with sk.Pipe() as pipe, pipe.signal().subscribe(seen.append):
        pipe.put(number)
    assert seen[0] is number



@pytest.mark.usefixtures("clean")
def test_numbers_reused_across_a_crossing_keep_their_kind_sign_and_bits():
    """The extension hands back the last int and float that crossed when the
    same one crosses back (values.c, recent_number): numbers that compare
    equal but differ in kind or bits (1, 1.0, True; 0.0, -0.0; NaNs) must
    still arrive as they were put, through a fan-out, a Python stage and a
    library operator."""
    import math

    nan = float("nan")
    values = [1, 1.0, True, 1, 0.0, -0.0, -0.0, 0.0, nan, -nan, 2 ** 62, 2 ** 62, 2 ** 62 + 1, -1, -1.0, 1e300]
    seen = [[], [], []]
    with sk.Pipe() as pipe:
        signal = pipe.signal()
        with signal.subscribe(seen[0].append), signal.map(lambda v: v).subscribe(seen[1].append), \
                signal.take(len(values)).map(lambda v: v).subscribe(seen[2].append):
            for value in values:
                pipe.put(value)

    def shape(value):
        if isinstance(value, float):
            return ("float", math.copysign(1.0, value), value if value == value else "nan")
        return (type(value).__name__, value)

    for arrived in seen:
        assert [shape(v) for v in arrived] == [shape(v) for v in values]

    # The items of a pair cross after the second was put: the first is not
    # the number remembered from that put, though the two may be equal.
    pairs = []
    with sk.Pipe() as first, sk.Pipe() as second:
        with sk.Signal.zip(first.signal(), second.signal()).subscribe(pairs.append):
            for a, b in zip(values, values[1:] + values[:1]):
                first.put(a)
                second.put(b)
    assert [[shape(a), shape(b)] for a, b in pairs] == [
        [shape(a), shape(b)] for a, b in zip(values, values[1:] + values[:1])]


def test_a_delivery_keeps_no_value_and_a_kept_argument_tuple_stays_as_it_was():
    """The extension reuses the argument tuple of handler(value) from one
    delivery to the next (observer.c, call_one): a handler that keeps its
    arguments keeps them as they were; a delivery nested in a handler gets
    its own value; once delivered, a value is not held (its last reference
    dropped, it is gone)."""
    import gc
    import weakref

    class Box:
        def __init__(self, n):
            self.n = n

    kept = []
    nested = []
    with sk.Pipe() as pipe, sk.Pipe() as inner:
        with inner.signal().subscribe(lambda box: nested.append(box.n)):
            def keep(*arguments):
                kept.append(arguments)
                if arguments[0].n == 1:
                    inner.put(Box(100))  # a delivery inside this one
                    nested.append(arguments[0].n)  # this call's value, unchanged by it

            with pipe.signal().subscribe(keep):
                for n in range(3):
                    pipe.put(Box(n))
            assert [arguments[0].n for arguments in kept] == [0, 1, 2]
            assert nested == [100, 1]
            kept.clear()
            gone = Box(7)
            watch = weakref.ref(gone)
            with pipe.signal().subscribe(lambda box: None):
                pipe.put(gone)
            del gone
            gc.collect()
            assert watch() is None, "the delivered value is not held after its delivery"


def test_the_check_of_ints_and_strs():
    _speedups.check_value(2 ** 63 - 1)
    _speedups.check_value(b"\xff not an int")
    with pytest.raises(OverflowError, match="out of range of int64"):
        _speedups.check_value(2 ** 63)
    for text in ("ascii", "caf\u00e9", "\U0001f600", "", type("Text", (str,), {})("sub")):
        _speedups.check_value(text)
    for text in ("\ud800", "caf\u00e9 \udfff", type("Text", (str,), {})("\ud800")):
        with pytest.raises(UnicodeEncodeError):
            _speedups.check_value(text)


def test_hold_takes_only_its_list():
    with pytest.raises(TypeError):
        _speedups.hold([1, 2, 3])
    with pytest.raises(TypeError):
        _speedups.hold("not a list")


def test_the_backend_names_the_missing_python_headers(tmp_path, monkeypatch):
    backend = load_backend()
    monkeypatch.setattr(backend.sysconfig, "get_paths", lambda: {"include": str(tmp_path)})
    with pytest.raises(RuntimeError, match="Python.h is not in .*python3-dev"):
        backend._extension(str(tmp_path))


# What the backend and the Makefile say of the toolchain.
SAID = {"missing": "is not on PATH (or does not run)", "5.10": "is Swift 5.10.1"}


def old_swift(folder):
    """A `swift` in `folder` that says it is 5.10.1."""
    swift = folder / "swift"
    swift.write_text('#!/bin/sh\necho "Swift version 5.10.1 (swift-5.10.1-RELEASE)"\n')
    swift.chmod(0o755)


@pytest.mark.parametrize("toolchain", ["missing", "5.10"])
def test_the_backend_names_the_swift_toolchain_it_needs(tmp_path, monkeypatch, toolchain):
    backend = load_backend()
    if toolchain == "5.10":
        old_swift(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("SWIFT", raising=False)
    monkeypatch.delenv("SIGNALKIT_PREBUILT_DIR", raising=False)
    said = re.escape(SAID[toolchain])
    with pytest.raises(RuntimeError, match=f"'swift' {said}: .* needs the Swift toolchain 6.x .*Two commands"):
        backend._native_libraries()


@pytest.mark.parametrize("toolchain", ["missing", "5.10"])
def test_make_names_the_swift_toolchain_it_needs(tmp_path, toolchain):
    # A PATH with what the Makefile runs before it looks at swift, and no
    # swift (or an old one).
    for tool in ("make", "sh", "sed", "head"):
        os.symlink(shutil.which(tool), tmp_path / tool)
    if toolchain == "5.10":
        old_swift(tmp_path)
    tree = load_backend()._tree()
    env = {"PATH": str(tmp_path), "HOME": os.environ.get("HOME", "/")}
    for goal in ([], ["demo"]):
        result = subprocess.run(["make", "-C", tree] + goal, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, check=False)
        assert result.returncode != 0
        assert f"'swift' {SAID[toolchain]}: building SignalKit needs the Swift toolchain 6.x" in result.stderr, result.stderr
        assert 'README.md ("Two commands")' in result.stderr


def test_the_backend_tags_the_wheel_for_the_stable_abi():
    backend = load_backend()
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert backend._wheel_tag() == f"cp39-abi3-{platform}"
    assert backend.EXTENSION == "_speedups.abi3.so"


@pytest.mark.usefixtures("clean")
@pytest.mark.parametrize("shape", ["plain", "stages", "stages under an operator", "ended by an error"])
def test_nothing_of_a_subscription_is_kept_after_it_ends(shape):
    import gc
    import weakref

    class Receiver:
        def __init__(self):
            self.values = []

        def __call__(self, value):
            self.values.append(value)

    def fail(value):
        raise ValueError(value)

    receiver, errors = Receiver(), []
    alive = weakref.ref(receiver)
    with sk.Pipe() as pipe:
        signal = pipe.signal()
        if shape == "stages":
            signal = signal.map(lambda n: n + 1).filter(lambda n: True)
        elif shape == "stages under an operator":
            signal = signal.map(lambda n: n + 1).take(10)
        elif shape == "ended by an error":
            signal = signal.map(fail)
        with signal.subscribe(receiver, errors.append):
            pipe.put(1)
        del signal
    expected = [] if shape == "ended by an error" else [1 if shape == "plain" else 2]
    assert receiver.values == expected
    assert (len(errors) == 1) == (shape == "ended by an error")
    del receiver, errors
    gc.collect()
    assert alive() is None


@pytest.mark.usefixtures("clean")
def test_reduce_through_the_extension_carries_objects_and_fails_with_overflow():
    # An accumulator of any object travels by reference (the very list).
    folded = events_of(sk.Signal.from_iterable([1, 2, 3]).reduce(lambda acc, n: acc + [n], []))
    assert folded == [[1, 2, 3], "done"]
    first = []
    events_of(sk.Signal.from_iterable([1, 2]).reduce(lambda acc, n: first.append(acc) or acc, first))
    assert first[0] is first
    # An int accumulator outside int64 fails the stream with OverflowError;
    # the values after it are not folded.
    calls = []

    def grow(acc, n):
        calls.append(n)
        return acc * 2 ** 40

    seen = events_of(sk.Signal.from_iterable([1, 2, 3, 4]).reduce(grow, 1))
    assert len(seen) == 1 and isinstance(seen[0][1], OverflowError)
    assert calls == [1, 2]


def events_of(signal):
    seen = []
    with signal.subscribe(seen.append, lambda e: seen.append(("error", e)), lambda: seen.append("done")):
        pass
    return seen


@pytest.mark.usefixtures("clean")
def test_deliveries_nested_in_a_callback_through_ctypes_calls():
    # A callback of a put (the GIL held through it) calls what goes through
    # ctypes (the GIL let go): a put of an object carried by reference, a
    # ValuePromise.set. Their deliveries on this thread must take the GIL
    # again (a stale "GIL held" would run Python without it: a crash).
    class Box:
        pass

    seen = []
    with sk.Pipe() as outer, sk.Pipe() as inner, sk.ValuePromise(0) as promise:
        def relay(n):
            inner.put(Box())
            promise.set(n)
            seen.append(("outer", n))

        with outer.signal().subscribe(relay), inner.signal().subscribe(lambda b: seen.append(type(b).__name__)), \
                promise.get().subscribe(lambda n: seen.append(("promise", n))):
            for n in range(1, 4):
                outer.put(n)
    assert seen == [("promise", 0)] + [item for n in range(1, 4)
                                       for item in ("Box", ("promise", n), ("outer", n))]


def test_pipe_put_is_the_extension_s_method():
    # No Python frame between the caller and the C put (_speedups_src/pipe.c,
    # pipe_method_put).
    assert type(sk.Pipe.put).__name__ == "method_descriptor"
    assert "delivers `value` to the current subscribers" in sk.Pipe.put.__doc__


@pytest.mark.usefixtures("clean")
def test_a_put_that_starts_a_source_runs_its_emissions_before_it_returns():
    started = []

    def on_next(value):
        if not started:  # a synchronous source started under the put waits for the put to leave the library
            sk.Signal.from_iterable([1, 2, 3]).subscribe(started.append)
            assert started == []

    with sk.Pipe() as pipe, pipe.signal().subscribe(on_next):
        pipe.put(0)
        assert started == [1, 2, 3]
        assert _speedups.thread_trampoline().active is False
        pipe.put(1)
    assert started == [1, 2, 3]


@pytest.mark.usefixtures("clean")
def test_a_failed_put_leaves_the_thread_idle():
    seen = []
    pipe = sk.Pipe()
    with pipe.signal().subscribe(seen.append):
        with pytest.raises(OverflowError):
            pipe.put(2 ** 63)
        assert _speedups.thread_trampoline().active is False
        pipe.put(5)
        assert sk.Signal.from_iterable([7]).to_list() == [7]  # a draining call after it works
    assert seen == [5]
    pipe.close()
    with pytest.raises(ValueError, match="Pipe is closed"):
        pipe.put(1)
