"""Regression tests of defects found by writing applications with the
package as a new user would (asyncio, threads, processes, garbage); each
test failed, hung or crashed before its fix.

Run with `make test-python` (against the installed wheel)."""
import gc
import os
import subprocess
import sys
import textwrap

import pytest

import pysignalkit as sk


def run_child(code, timeout=60):
    """Runs `code` in a child interpreter (-X dev); returns the CompletedProcess."""
    return subprocess.run([sys.executable, "-X", "dev", "-c", textwrap.dedent(code)], env=dict(os.environ),
                          capture_output=True, text=True, timeout=timeout)


# --- a closed map / filter / tap signal ---------------------------------------

@pytest.mark.parametrize("stage", ["map", "filter", "tap"])
def test_closed_stage_signal_is_closed(stage, clean):
    # Before: a Python stage signal kept its upstream's handle after
    # close(), so closing every handle one had named left a library object
    # alive (wait_released() False) until the closed object was collected,
    # and the closed signal still subscribed, composed and ran to_list()
    # through that upstream, where every other closed handle raises.
    pipe = sk.Pipe()
    signal = getattr(pipe.signal(), stage)(lambda value: value)
    signal.close()
    pipe.close()
    assert sk.live_objects() == 0
    for use in (lambda: signal.subscribe(print), lambda: signal.to_list(timeout=1),
                lambda: signal.map(lambda value: value), lambda: signal.filter(bool),
                lambda: signal.reduce(lambda total, value: total, 0)):
        with pytest.raises(ValueError, match="Signal is closed"):
            use()
    del signal
    gc.collect()


OPERATORS_OF_A_CLOSED_SIGNAL = {
    "map": lambda s: s.map(abs), "filter": lambda s: s.filter(bool), "tap": lambda s: s.tap(print),
    "reduce": lambda s: s.reduce(max, 0), "restart": lambda s: s.restart(),
    "restart_if_error": lambda s: s.restart_if_error(), "subscribe": lambda s: s.subscribe(print),
    "native map": lambda s: s.map("i64(i64)", abs),
}


@pytest.mark.parametrize("use", OPERATORS_OF_A_CLOSED_SIGNAL.values(), ids=OPERATORS_OF_A_CLOSED_SIGNAL.keys())
def test_closed_signal_operator_raises_and_retains_nothing(use, clean):
    # Before: map / filter / tap kept their function's callback set when
    # the signal was closed (retained before the closed handle raised: a
    # leak per call, pending_callbacks() never 0 again), and restart() /
    # restart_if_error() returned a signal (a deferred over the closed
    # handle) that failed only when started.
    signal = sk.Signal.single(1)
    signal.close()
    with pytest.raises(ValueError, match="Signal is closed"):
        use(signal)
    assert sk.pending_callbacks() == 0
    assert sk.live_objects() == 0


@pytest.mark.parametrize("make", [lambda q: sk.Signal.timer(0.01, q), lambda q: sk.Signal.interval(0.01, q)],
                         ids=["timer", "interval"])
def test_timer_on_a_closed_queue_raises_at_the_call(make, clean):
    # Before: timer(seconds, queue) and interval() took a closed queue and
    # failed only when started (to_list() raised the ValueError), leaving
    # the timer's callback set and its subscriber alive for good.
    queue = sk.Queue.serial("closed")
    queue.close()
    with pytest.raises(ValueError, match="Queue is closed"):
        make(queue)
    assert sk.pending_callbacks() == 0
    assert sk.live_objects() == 0


# --- an exit handler registered before the import -------------------------------

def test_exit_handler_registered_before_the_import_meets_the_closed_package():
    # What the README's Errors section says (undocumented before): the
    # package's atexit hook runs before handlers registered earlier, and
    # from then on a call that gives the library a callback raises
    # RuntimeError, while one that does not (a put) still works.
    result = run_child("""
        import atexit

        def goodbye():
            pipe.put(1)
            try:
                sk.Signal.single(1).to_list(timeout=5)
            except RuntimeError as exc:
                print(exc)

        atexit.register(goodbye)
        import pysignalkit as sk
        pipe = sk.Pipe()
        assert sk.Signal.single(1).to_list(timeout=5) == [1]
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "signalkit: the interpreter is exiting: no new callbacks"


# --- the loop's queue closed by its user ----------------------------------------

def test_closing_the_loop_queue_leaves_the_loop_its_queue(clean):
    # Before: `with sk.asyncio_queue() as queue:` (or queue.close()) released
    # the loop's own queue: every later `await signal`, `async for` and
    # deliver_on(asyncio_queue()) of that loop raised ValueError ("Queue is
    # closed"), and the loop's reader stayed registered on a descriptor the
    # library had closed (its number free for the next file opened).
    import asyncio

    async def main():
        with sk.asyncio_queue() as queue:
            pass
        queue.close()
        assert sk.asyncio_queue() is queue
        assert await sk.Signal.single(1) == 1
        return [value async for value in sk.Signal.from_iterable([2, 3]).deliver_on(queue)]

    assert asyncio.run(main()) == [2, 3]
    gc.collect()


# --- a stage signal outliving its upstream's handle -----------------------------

@pytest.mark.parametrize("stage", ["map", "filter", "tap"])
def test_stage_signal_outlives_its_upstream_handle(stage, clean):
    # Before: a Python stage signal started its upstream through the
    # upstream's Python handle, so closing that handle (the end of a
    # `with pipe.signal() as numbers:` block that made numbers.map(f))
    # broke it: its subscribe and to_list() raised ValueError ("Signal is
    # closed"), while a library operator's signal (take) went on, holding
    # a library reference of its own.
    with sk.Signal.from_iterable([1, 2]) as numbers:
        staged = getattr(numbers, stage)(lambda value: value)
    assert staged.to_list(timeout=5) == [1, 2]
    assert staged.map(str).to_list(timeout=5) == ["1", "2"]
    assert staged.reduce(lambda total, value: total + value, 0).to_list(timeout=5) == [3]
    staged.close()
    assert sk.live_objects() == 0
