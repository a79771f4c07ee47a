"""What the package's tests share: where the examples are (SIGNALKIT_EXAMPLES,
set by `make test-python`; else the checkout's examples/python beside this
package), and the check that a test left nothing alive."""
import gc
import importlib.util
import os
import sys

import pytest

import pysignalkit as sk
from pysignalkit import _speedups

EXAMPLES = os.environ.get("SIGNALKIT_EXAMPLES") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "python")
if not os.path.isdir(EXAMPLES):
    raise RuntimeError(f"the examples are not at {EXAMPLES}: set SIGNALKIT_EXAMPLES")
sys.path.insert(0, EXAMPLES)
# The checkout's build backend (beside the examples), for its own tests.
BACKEND = os.path.join(EXAMPLES, "..", "..", "Sources", "python", "_build", "pysignalkit_build.py")


def load_backend():
    """A fresh copy of the build backend module (BACKEND)."""
    spec = importlib.util.spec_from_file_location("pysignalkit_build_under_test", BACKEND)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def clean():
    """Asserts, after the test, that no library object, ffi object,
    callback set or carried Python object is left, nor a signal with the
    block policy counted (while one is, every put lets the GIL go)."""
    yield
    # Collected only when something is still counted (a full collection of
    # the test process's heap costs tens of milliseconds: half of the
    # suite's time, spent on tests that left nothing). A library thread
    # that delivered a subscription's last event releases its callbacks
    # once the callback returned: maybe after the test ended.
    if not sk.wait_released(0):
        gc.collect()
        sk.wait_released(10)
    assert sk.live_objects() == 0, "library objects still alive"
    assert sk.ffi_live_objects() == 0, "ffi objects still alive"
    assert sk.pending_callbacks() == 0, "callbacks still held by the library"
    assert sk.boxed_objects() == 0, "objects still carried by values"
    assert _speedups.block_places() == 0, "signals with the block policy still counted"
