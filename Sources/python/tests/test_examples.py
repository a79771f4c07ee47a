"""Runs each example script of examples/python as a user would (a new
interpreter importing the installed package), and checks what it prints."""
import os
import subprocess
import sys

from conftest import EXAMPLES

FINAL = "live objects: 0 ffi live objects: 0"


def run_example(name):
    result = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)], cwd=EXAMPLES, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, f"{name} failed:\n{result.stdout}\n{result.stderr}"
    assert result.stderr == ""
    return result.stdout


def check(name, *lines):
    out = run_example(name)
    for line in lines + (FINAL,):
        assert line + "\n" in out, f"{name} printed:\n{out}"


def test_quickstart():
    assert run_example("quickstart.py") == "20\n30\n"


def test_pipeline():
    check("pipeline.py", "odd squares: [1, 9, 25, 49, 'completed']",
          "conversion error: [1, ('error', 'sk_ffi: next: argument 0 (i32): int64 1099511627776 "
          "out of range of i32')]")


def test_trampoline():
    check("trampoline.py", "in order: [10, 20, 30, 50, 70, 80, 90]", "depths: [2, 1, 2, 0, 2, 1, 2]",
          "trampoline calls: 13")


def test_asyncio_host_queue():
    check("asyncio_host_queue.py", "received: " + str([3 * n for n in range(20)]),
          "all callbacks on the loop's thread: True")
