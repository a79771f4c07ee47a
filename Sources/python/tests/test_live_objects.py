"""live_objects(detail=True) and set_name: the C library's list of live
objects (sk_live_objects_report), each with its kind, the C function that
made it and its name. The list is kept only while handle checking is on,
which is chosen when the library is loaded: the tests run in child
processes with the environment variable set."""
import os
import subprocess
import sys
import textwrap

import pytest

import pysignalkit as sk


def run_child(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, **env)
    for name in ("SIGNALKIT_CHECK_HANDLES", "SIGNALKIT_LIVE_OBJECTS_AT_EXIT"):
        if name not in env:
            environment.pop(name, None)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=environment, capture_output=True,
                          text=True, timeout=120)


def test_detail_lists_each_object_with_its_maker_and_name():
    result = run_child("""
        import pysignalkit as sk
        pipe = sk.Pipe()
        sk.set_name(pipe, "keys")
        before = len(sk.live_objects(detail=True))
        signal = pipe.signal()
        sk.set_name(signal, "numbers")
        objects = sk.live_objects(detail=True)[before - 1:]
        for o in objects:
            print(o.kind, o.made_by, o.name, o.address > 0)
        sk.set_name(pipe, None)
        print([o.name for o in sk.live_objects(detail=True) if o.kind == "pipe"])
        print(sk.live_objects() == len(sk.live_objects(detail=True)))
        signal.close()
        pipe.close()
    """, SIGNALKIT_CHECK_HANDLES="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "pipe sk_pipe_create keys True",
        "signal sk_pipe_signal numbers True",
        "[None]",
        "True",
    ]


def test_the_list_is_printed_at_exit_when_the_variable_is_set():
    result = run_child("""
        import pysignalkit as sk
        pipe = sk.Pipe()
        sk.set_name(pipe, "leaked")
        pipe._free = lambda: None  # leaked: never released
    """, SIGNALKIT_LIVE_OBJECTS_AT_EXIT="1")
    assert result.returncode == 0, result.stderr
    assert "live object" in result.stderr, result.stderr
    assert 'made by sk_pipe_create, named "leaked"' in result.stderr, result.stderr


def test_detail_needs_handle_checking(clean):
    if os.environ.get("SIGNALKIT_CHECK_HANDLES", "0") not in ("", "0"):
        pytest.skip("handle checking is on in this process")
    with pytest.raises(sk.SignalKitError) as caught:
        sk.live_objects(detail=True)
    assert caught.value.status == -6
    assert "handle checking" in caught.value.message
    assert isinstance(sk.live_objects(), int)
    assert isinstance(sk.live_objects(detail=False), int)


def test_set_name_checks_its_handle(clean):
    pipe = sk.Pipe()
    sk.set_name(pipe, "keys")  # checked, kept nowhere with checking off
    with pytest.raises(TypeError, match="the handle must be a Signal.*not int"):
        sk.set_name(5, "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="the name must be a str or None, not int"):
        sk.set_name(pipe, 5)  # type: ignore[arg-type]
    pipe.close()
    with pytest.raises(ValueError):
        sk.set_name(pipe, "closed")
