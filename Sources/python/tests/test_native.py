"""Tests of the native (signature-string) forms, trampolines, exceptions in
callbacks, integer ranges, Ctrl-C and interpreter exit; through them, of
libsignalkit-ffi from Python.

Run with `make test-python` (against the installed wheel). Every test ends with no live object in either library and no callback set
still held.
"""
import asyncio
import contextlib
import ctypes
import gc
import io
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
import traceback
import unittest
import weakref
from ctypes import CFUNCTYPE, c_double, c_float, c_int, c_int64, c_void_p

import pysignalkit as sk


class SignalKitTestCase(unittest.TestCase):
    def tearDown(self):
        gc.collect()
        sk.wait_released(10)  # what library threads release once their callbacks returned
        self.assertEqual(sk.live_objects(), 0, "library objects still alive")
        self.assertEqual(sk.ffi_live_objects(), 0, "ffi objects still alive")
        self.assertEqual(sk.pending_callbacks(), 0, "callbacks still held by the library")

    def default_sigint(self):
        """Python's default SIGINT handler for this test, whatever this
        process inherited: a background job of a non-interactive shell (`make
        test &`, nohup, some CI runners) starts with SIGINT ignored, which
        Python keeps, and raising SIGINT would then do nothing. The inherited
        disposition is back after the test."""
        saved = signal.signal(signal.SIGINT, signal.default_int_handler)
        self.addCleanup(signal.signal, signal.SIGINT, saved)


class TypedApiTests(SignalKitTestCase):
    def test_pipeline_values_and_order(self):
        events = []
        with sk.Signal.from_iterable([1, 2, 3, 4, 5, 6]) as source, \
                source.map("i64(i64)", lambda n: n * 10) as tens, \
                tens.filter("bool(i64)", lambda n: n % 20 == 0) as evens, \
                evens.subscribe("void(i64)", events.append, events.append, lambda: events.append("done")):
            pass
        self.assertEqual(events, [20, 40, 60, "done"])

    def test_cfunctype_callbacks_with_ctx(self):
        seen = []
        on_next = CFUNCTYPE(None, c_void_p, c_double)(lambda ctx, d: seen.append((ctx is not None, d)))
        half = CFUNCTYPE(c_double, c_int64)(lambda n: n / 2)
        with sk.Signal.from_iterable([1, 3]) as source, source.map("f64(i64)", half) as halves, \
                halves.subscribe("void(ctx,f64)", on_next):
            pass
        self.assertEqual(seen, [(True, 0.5), (True, 1.5)])

    def test_result_types_round_trip(self):
        cases = [
            ("f64(f64)", [1.5, -2.0], lambda d: d * 2, [3.0, -4.0]),
            ("str(str)", ["ab", "h\u00e9"], lambda s: s.upper() + "!", ["AB!", "H\u00c9!"]),
            ("bool(i64)", [1, 2], lambda n: n == 2, [False, True]),
            ("u64(i64)", [0, 2 ** 62], lambda n: n + 1, [1, 2 ** 62 + 1]),
            ("i32(i64)", [-(2 ** 31), 5], lambda n: n, [-(2 ** 31), 5]),
            ("i8(i64)", [-128, 127], lambda n: n, [-128, 127]),
            ("i16(i16)", [-(2 ** 15), 7], lambda n: n, [-(2 ** 15), 7]),
            ("u8(u8)", [0, 255], lambda n: n, [0, 255]),
            ("u16(i64)", [65535], lambda n: n, [65535]),
            ("u32(u32)", [2 ** 32 - 1], lambda n: n, [2 ** 32 - 1]),
            ("f32(f32)", [0.5, 0.1], lambda d: d, [0.5, float(c_float(0.1).value)]),
            ("f32(i64)", [2 ** 24, -(2 ** 24)], lambda n: n, [float(2 ** 24), -float(2 ** 24)]),
            ("f64(i64)", [2 ** 53, -(2 ** 53)], lambda n: n, [float(2 ** 53), -float(2 ** 53)]),
            ("f32(i64)", [1], lambda n: True, [1.0]),
            ("value(value)", [[1, "x"], None], lambda v: [v, v], [[[1, "x"], [1, "x"]], [None, None]]),
            ("ptr(i64)", [0, 4096], lambda n: n, [0, 4096]),
        ]
        for signature, inputs, fn, expected in cases:
            with self.subTest(signature=signature):
                out = []
                with sk.Signal.from_iterable(inputs) as source, source.map(signature, fn) as mapped, \
                        mapped.subscribe("void(value)", out.append, lambda e: out.append(("error", e))):
                    pass
                self.assertEqual(out, expected)

    def test_conversion_failure_goes_through_the_error_path(self):
        events = []
        with sk.Signal.from_iterable([3, -1, 4]) as source, \
                source.subscribe("void(u64)", events.append, lambda e: events.append(("error", e)),
                                 lambda: events.append("done")):
            pass
        self.assertEqual(events, [3, ("error", "sk_ffi: next: argument 0 (u64): int64 -1 out of range of u64")])

    def test_map_result_that_does_not_convert(self):
        events = []
        with sk.Signal.from_iterable(["a"]) as source, source.map("str(str)", lambda s: None) as mapped, \
                mapped.subscribe("void(str)", events.append, lambda e: events.append(("error", e))):
            pass
        self.assertEqual(events, [("error", "sk_ffi: map: result (str): NULL returned as str")])

    def test_errors_raise_with_the_library_message(self):
        with self.assertRaises(sk.SignalKitError) as caught:
            sk.Signature("void(i64")
        self.assertEqual(caught.exception.status, -3)
        self.assertIn("found the end of the text (offset 8)", caught.exception.message)
        with self.assertRaises(sk.SignalKitError) as caught:
            sk.Signature("void(i64, ctx)")
        self.assertIn("'ctx' must be the first argument (argument 1, offset 10)", caught.exception.message)
        with sk.Signal.from_iterable([1]) as source:
            with self.assertRaises(sk.SignalKitError) as caught:
                source.filter("i64(i64)", lambda n: n)
            self.assertIn("sk_ffi_signal_filter: signature: must return bool, returns i64", caught.exception.message)
            with self.assertRaises(sk.SignalKitError) as caught:
                source.subscribe("i64(i64)", lambda n: n)
            self.assertIn("observer->next_signature: must return void", caught.exception.message)

    def test_dispose_stops_delivery(self):
        events = []
        with sk.Pipe() as pipe, pipe.signal() as signal:
            with signal.subscribe("void(i64)", events.append):
                pipe.put(1)
                pipe.put(2)
            pipe.put(3)  # disposed: not delivered
            self.assertEqual(sk.pending_callbacks(), 0)
        self.assertEqual(events, [1, 2])

    def test_handles_released_on_garbage_collection(self):
        pipe = sk.Pipe()
        signal = pipe.signal()
        signature = sk.Signature("void(i64)")
        mapped = signal.map("i64(i64)", lambda n: n)
        self.assertGreater(sk.live_objects(), 0)
        self.assertGreater(sk.ffi_live_objects(), 0)
        del pipe, signal, signature, mapped
        # tearDown asserts that everything is gone


class TrampolineTests(SignalKitTestCase):
    def test_called_from_many_threads(self):
        total = []
        lock = threading.Lock()

        def on_next(n):
            with lock:
                total.append(n)

        with sk.Pipe() as pipe, pipe.signal() as signal, signal.subscribe("void(i64)", on_next), \
                sk.Trampoline(pipe, "void(i64)") as trampoline:
            function = trampoline.function()

            def call(k):
                for _ in range(300):
                    function(k)

            threads = [threading.Thread(target=call, args=(k,)) for k in range(1, 5)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            self.assertEqual(trampoline.calls, 1200)
        self.assertEqual(len(total), 1200)
        self.assertEqual(sum(total), 300 * (1 + 2 + 3 + 4))

    def test_function_of_a_closed_trampoline_raises_value_error(self):
        # Before: AssertionError with no message (close() had dropped the
        # signature that function() asserted), an AttributeError under -O;
        # every other use of a closed handle raises ValueError.
        with sk.Pipe() as pipe:
            trampoline = sk.Trampoline(pipe, "void(i64)")
            trampoline.close()
            with self.assertRaisesRegex(ValueError, "Trampoline is closed"):
                trampoline.function()

    def test_trampoline_puts_into_a_create_subscriber(self):
        # Before: TypeError ("the target is Subscriber, not a Pipe or a
        # subscriber's address (int)"): a Python program had no address of
        # a create() function's subscriber to give. A Subscriber is a
        # target now, as a Pipe is.
        def start(subscriber):
            with sk.Trampoline(subscriber, "void(i64)") as trampoline:
                function = trampoline.function()
                function(5)
                function(6)
            subscriber.on_completed()

        self.assertEqual(sk.Signal.create(start).to_list(timeout=10), [5, 6])

    def test_detached_trampoline_is_a_no_op(self):
        events = []
        with sk.Pipe() as pipe, pipe.signal() as signal, signal.subscribe("void(value)", events.append), \
                sk.Trampoline(pipe, "void(i64,str)") as trampoline:
            function = trampoline.function()
            function(1, b"one")
            trampoline.detach()
            function(2, b"two")
            self.assertEqual(trampoline.calls, 1)
        self.assertEqual(events, [[1, "one"]])

    def test_feeds_a_signal_from_a_bare_function_pointer_api(self):
        import trampoline as example
        visits, calls = example.run((5, 3, 8))
        self.assertEqual([key for key, _ in visits], [3, 5, 8])
        self.assertEqual(calls, 5)  # the root three times, each leaf once


class AsyncioTests(SignalKitTestCase):
    def test_callbacks_on_the_loop_thread(self):
        import asyncio_host_queue as example
        values, on_loop_thread = asyncio.run(example.run(count=50))
        self.assertEqual(values, [3 * n for n in range(50)])
        self.assertTrue(on_loop_thread)


class CallbackExceptionTests(SignalKitTestCase):
    """Exceptions raised by Python callbacks fail the delivery explicitly
    (sk_ffi_callback_fail), are kept and reported, and never reach ctypes
    (which would print them on stderr and return 0 to C)."""

    def setUp(self):
        self.reported = []
        self.stderr = io.StringIO()
        self.saved_hook = sk.callback_error_hook
        sk.callback_error_hook = lambda exc, where: self.reported.append((exc, where))
        redirect = contextlib.redirect_stderr(self.stderr)
        redirect.__enter__()
        self.addCleanup(redirect.__exit__, None, None, None)

    def tearDown(self):
        sk.callback_error_hook = self.saved_hook
        self.reported = None  # the exceptions hold frames that hold handles
        super().tearDown()

    def assert_quiet(self):
        self.assertEqual(self.stderr.getvalue(), "", "something was printed on stderr")

    def run_pipeline(self, items, build):
        """Subscribes to build(source) and returns (events, the built
        signal's exception)."""
        events = []
        with sk.Signal.from_iterable(items) as source, build(source) as built, \
                built.subscribe("void(value)", events.append, lambda e: events.append(("error", e)),
                                lambda: events.append("done")):
            exception = built.exception
        return events, exception

    def test_exception_in_map_ends_the_stream_with_its_message(self):
        def tens(n):
            if n == 2:
                raise ValueError("no 2 allowed")
            return n * 10

        events, exception = self.run_pipeline([1, 2, 3], lambda s: s.map("i64(i64)", tens))
        self.assertEqual(events, [10, ("error", "sk_ffi: map: callback failed: ValueError: no 2 allowed")])
        self.assertIsInstance(exception, ValueError)
        self.assertEqual(str(exception), "no 2 allowed")
        self.assertEqual([(type(e), where) for e, where in self.reported], [(ValueError, "map")])
        self.assertIs(self.reported[0][0], exception)
        self.assert_quiet()

    def test_exception_in_filter_ends_the_stream_with_its_message(self):
        events, exception = self.run_pipeline([1, 2, 0, 4], lambda s: s.filter("bool(i64)", lambda n: 4 // n > 1))
        self.assertEqual(events, [1, 2, ("error", "sk_ffi: filter: callback failed: "
                                              "ZeroDivisionError: integer division or modulo by zero")])
        self.assertIsInstance(exception, ZeroDivisionError)
        self.assertEqual([where for _, where in self.reported], ["filter"])
        self.assert_quiet()

    def test_exception_in_next_disposes_the_subscription(self):
        events = []

        def on_next(n):
            events.append(n)
            if n == 2:
                raise RuntimeError("stop here")

        with sk.Pipe() as pipe, pipe.signal() as signal:
            with signal.subscribe("void(i64)", on_next, lambda e: events.append(("error", e)),
                                  lambda: events.append("done")) as disposable:
                pipe.put(1)
                pipe.put(2)
                self.assertEqual(sk.pending_callbacks(), 0, "the subscription was not ended")
                pipe.put(3)  # no longer subscribed
                exception = disposable.exception
        self.assertEqual(events, [1, 2, ("error", "sk_ffi: next: callback failed: RuntimeError: stop here")])
        self.assertIsInstance(exception, RuntimeError)
        self.assertEqual(str(exception), "stop here")
        self.assertEqual([where for _, where in self.reported], ["next"])
        self.assert_quiet()

    def test_exceptions_in_error_and_completed_are_kept_and_reported(self):
        def on_error(e):
            raise KeyError(e)

        def on_completed():
            raise SystemExit(3)  # a BaseException is caught too

        with sk.Signal.from_iterable([1]) as source, source.map("i64(i64)", lambda n: 1 / 0) as failing:
            with failing.subscribe("void(i64)", lambda n: None, on_error) as disposable:
                error_exception = disposable.exception
            with source.subscribe("void(i64)", lambda n: None, None, on_completed) as disposable:
                completed_exception = disposable.exception
        self.assertIsInstance(error_exception, KeyError)
        self.assertEqual(error_exception.args, ("sk_ffi: map: callback failed: ZeroDivisionError: division by zero",))
        self.assertIsInstance(completed_exception, SystemExit)
        self.assertEqual([where for _, where in self.reported], ["map", "error", "completed"])
        self.assert_quiet()

    def test_first_exception_is_kept(self):
        def on_next(n):
            raise ValueError("first")

        def on_error(e):
            raise ValueError("second")

        with sk.Signal.from_iterable([1]) as source, source.subscribe("void(i64)", on_next, on_error) as disposable:
            self.assertEqual(str(disposable.exception), "first")
        self.assertEqual([str(e) for e, _ in self.reported], ["first", "second"])
        self.assert_quiet()

    def test_results_that_do_not_fit_fail_the_call(self):
        cases = [
            ("i64(i64)", lambda n: "x", "TypeError: 'str' object cannot be interpreted as an integer"),
            ("i32(i64)", lambda n: 2 ** 40, "OverflowError: 1099511627776 out of range of i32"),
            ("u64(i64)", lambda n: -1, "OverflowError: -1 out of range of u64"),
            ("u8(i64)", lambda n: 256, "OverflowError: 256 out of range of u8"),
            ("i16(i64)", lambda n: -(2 ** 15) - 1, "OverflowError: -32769 out of range of i16"),
            ("f32(i64)", lambda n: 1e300, "OverflowError: 1e+300 is outside the range of f32"),
            # An int result converts as an int64 value does for an f32 or
            # f64 argument: within the range in which the type holds every
            # integer, never rounded (2^24 + 1 became 2^24 before).
            ("f32(i64)", lambda n: 2 ** 24 + 1,
             "OverflowError: int 16777217 is outside +-2^24 (the range in which a float holds every integer)"),
            ("f32(i64)", lambda n: -(2 ** 24) - 1,
             "OverflowError: int -16777217 is outside +-2^24 (the range in which a float holds every integer)"),
            ("f64(i64)", lambda n: 2 ** 53 + 1,
             "OverflowError: int 9007199254740993 is outside +-2^53 (the range in which a double holds every integer)"),
            ("f64(i64)", lambda n: "1.5", "TypeError: f64 result must be int or float, not str"),
            ("str(i64)", lambda n: b"bytes", "TypeError: str result must be str, not bytes"),
            ("str(i64)", lambda n: "a\0b", "ValueError: str result holds a NUL character"),
            ("value(i64)", lambda n: object(), "TypeError: signalkit: no value kind for object"),
        ]
        for signature, fn, message in cases:
            with self.subTest(signature=signature, message=message):
                events, exception = self.run_pipeline([1], lambda s: s.map(signature, fn))
                self.assertEqual(events, [("error", "sk_ffi: map: callback failed: " + message)])
                self.assertIsNotNone(exception)
        self.assert_quiet()

    def test_nested_failure_stays_with_its_own_subscription(self):
        inner_events = []

        def inner_next(n):
            if n == 2:
                raise ValueError("inner")
            inner_events.append(n)

        with sk.Pipe() as pipe, pipe.signal() as piped, \
                piped.subscribe("void(i64)", inner_next, lambda e: inner_events.append(("error", e))) as inner:
            def outer(n):
                pipe.put(n)  # delivered to inner_next, nested in this call
                return n

            events, exception = self.run_pipeline([1, 2, 3], lambda s: s.map("i64(i64)", outer))
            self.assertEqual(events, [1, 2, 3, "done"])
            self.assertIsNone(exception)
            self.assertEqual(str(inner.exception), "inner")
        self.assertEqual(inner_events, [1, ("error", "sk_ffi: next: callback failed: ValueError: inner")])
        self.assert_quiet()

    def test_generator_exception_ends_the_stream(self):
        def items():
            yield 1
            raise TypeError("no second item")

        events = []
        with sk.Signal.from_iterable(items()) as source, \
                source.subscribe("void(i64)", events.append, lambda e: events.append(("error", e))), \
                source.subscribe(events.append, lambda e: events.append(("error", e))):
            exception = source.exception
        # The native error callback cannot take an exception object as str:
        # its conversion failure is what it gets. The first subscription
        # consumed the generator: the second sees it exhausted.
        self.assertEqual(events, [1, ("error", "sk_ffi: error of kind pointer")])
        self.assertIsInstance(exception, TypeError)
        self.assert_quiet()

    def test_default_hook_reports_through_sys_unraisablehook(self):
        sk.callback_error_hook = sk.default_callback_error_hook
        seen = []
        saved, sys.unraisablehook = sys.unraisablehook, seen.append
        try:
            events, exception = self.run_pipeline([1], lambda s: s.map("i64(i64)", lambda n: 1 / 0))
        finally:
            sys.unraisablehook = saved
        self.assertEqual(len(seen), 1)
        self.assertEqual(seen[0].err_msg, "Exception in signalkit map callback")
        self.assertIs(seen[0].exc_value, exception)
        # The hook saw the traceback; the kept exception holds its text only.
        self.assertIsNotNone(seen[0].exc_traceback)
        self.assertIsNone(exception.__traceback__)
        seen = None
        self.assert_quiet()

    def test_default_hook_prints_a_signalkit_traceback_not_a_ctypes_one(self):
        sk.callback_error_hook = sk.default_callback_error_hook
        saved, sys.unraisablehook = sys.unraisablehook, sys.__unraisablehook__  # pytest installs its own
        self.addCleanup(setattr, sys, "unraisablehook", saved)
        self.run_pipeline([1], lambda s: s.map("i64(i64)", lambda n: 1 / 0))
        printed = self.stderr.getvalue()
        self.assertIn("Exception in signalkit map callback", printed)
        self.assertIn("ZeroDivisionError: division by zero", printed)
        self.assertNotIn("ctypes", printed)

    def test_failing_hook_goes_to_sys_unraisablehook(self):
        def hook(exc, where):
            raise RuntimeError("hook failed")

        sk.callback_error_hook = hook
        seen = []
        saved, sys.unraisablehook = sys.unraisablehook, seen.append
        try:
            events, _ = self.run_pipeline([1], lambda s: s.map("i64(i64)", lambda n: 1 / 0))
        finally:
            sys.unraisablehook = saved
        self.assertEqual(events, [("error", "sk_ffi: map: callback failed: ZeroDivisionError: division by zero")])
        self.assertEqual([(u.err_msg, str(u.exc_value)) for u in seen],
                         [("Exception in pysignalkit.callback_error_hook", "hook failed")])
        seen = None
        self.assert_quiet()


HERE = os.path.dirname(os.path.abspath(__file__))


def run_child(code, timeout=120):
    """Runs `code` in a child interpreter (this folder, this environment);
    returns the CompletedProcess."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=dict(os.environ), cwd=HERE,
                          capture_output=True, text=True, timeout=timeout)


class QuietTestCase(SignalKitTestCase):
    """Collects what the callback hook, sys.unraisablehook (where ctypes
    reports an exception that escaped a callback) and stderr receive."""

    def setUp(self):
        self.reported = []
        self.unraisable = []
        self.stderr = io.StringIO()
        saved_hook, saved_unraisable = sk.callback_error_hook, sys.unraisablehook
        sk.callback_error_hook = lambda exc, where: self.reported.append((type(exc), where))
        sys.unraisablehook = lambda u: self.unraisable.append(f"{u.err_msg}: {u.exc_type.__name__}")
        redirect = contextlib.redirect_stderr(self.stderr)
        redirect.__enter__()

        def restore():
            redirect.__exit__(None, None, None)
            sk.callback_error_hook, sys.unraisablehook = saved_hook, saved_unraisable
        self.addCleanup(restore)

    def assert_quiet(self):
        self.assertEqual(self.unraisable, [], "an exception escaped a callback into ctypes")
        self.assertEqual(self.stderr.getvalue(), "", "something was printed on stderr")


class ReleaseAfterExceptionTests(QuietTestCase):
    """(a) An exception raised by a callback, kept as `exception`, must not
    keep the caller's frames, and through them its handles, alive."""

    def test_exception_in_next_does_not_keep_the_callers_handles(self):
        def run():
            pipe = sk.Pipe()
            piped = pipe.signal()

            def on_next(n):
                raise ValueError(f"bad {n}")

            disposable = piped.subscribe("void(i64)", on_next)
            pipe.put(1)
            return [weakref.ref(pipe), weakref.ref(piped), weakref.ref(disposable)], disposable.exception

        refs, exception = run()
        gc.collect()
        self.assertEqual([ref() for ref in refs], [None, None, None], "handles kept alive by the exception")
        self.assertEqual(sk.live_objects(), 0)
        # Still a useful exception: its type, message and where it came from.
        self.assertIsInstance(exception, ValueError)
        self.assertEqual(str(exception), "bad 1")
        text = "".join(traceback.format_exception(exception))
        self.assertIn("in on_next", text)
        self.assertIn('raise ValueError(f"bad {n}")', text)
        self.assertEqual(self.reported, [(ValueError, "next")])

    def test_exception_in_map_releases_everything_after_gc(self):
        def run():
            source = sk.Signal.from_iterable([1, 2])
            mapped = source.map("i64(i64)", lambda n: n // 0)
            subscription = mapped.subscribe("void(i64)", lambda n: None)
            return [weakref.ref(source), weakref.ref(mapped), weakref.ref(subscription)]

        refs = run()
        gc.collect()
        self.assertEqual([ref() for ref in refs], [None, None, None], "handles kept alive by the exception")
        self.assertEqual(sk.pending_callbacks(), 0)
        self.assertEqual(sk.live_objects(), 0)
        self.assertEqual(sk.ffi_live_objects(), 0)

    def test_interrupt_raised_to_the_caller_keeps_nothing_alive(self):
        self.default_sigint()

        def plus_one(n):
            if n == 2:
                signal.raise_signal(signal.SIGINT)
            return n + 1

        def run():
            source = sk.Signal.from_iterable(range(10))
            mapped = source.map("i64(i64)", plus_one)
            refs = [weakref.ref(source), weakref.ref(mapped)]
            try:
                mapped.subscribe("void(i64)", lambda n: None)
            except KeyboardInterrupt as exc:
                return refs, exc, mapped.exception, source.exception
            self.fail("no KeyboardInterrupt")

        refs, raised, kept, generator_kept = run()
        text = "".join(traceback.format_exception(raised))
        self.assertIn("in plus_one", text)  # the callback's part
        self.assertIn("mapped.subscribe(", text)  # the caller's part
        del raised  # the caller's own exception holds the caller's frames
        gc.collect()
        self.assertEqual([ref() for ref in refs], [None, None], "handles kept alive by the interrupt")
        self.assertIsInstance(kept, KeyboardInterrupt)
        self.assertIs(generator_kept, kept)


class IntegerRangeTests(QuietTestCase):
    """(b) A Python int outside int64 never wraps: OverflowError."""

    def test_put_outside_int64_raises_and_delivers_nothing(self):
        events = []
        with sk.Pipe() as pipe, pipe.signal() as piped, piped.subscribe("void(value)", events.append):
            for number in (2 ** 64 + 5, 2 ** 63, -2 ** 63 - 1):
                with self.subTest(number=number), self.assertRaises(OverflowError):
                    pipe.put(number)
            for array in ([1, [2, -2 ** 70]], (2 ** 100,)):  # arrays of the native forms (to_value)
                with self.subTest(array=array), self.assertRaises(OverflowError):
                    sk.to_value(array)
            pipe.put(2 ** 63 - 1)
            pipe.put(-2 ** 63)
            pipe.put([1, [2 ** 63 - 1]])
        self.assertEqual(events, [2 ** 63 - 1, -2 ** 63, [1, [2 ** 63 - 1]]])

    def test_results_outside_int64_fail_the_call(self):
        cases = [("value(i64)", lambda n: 2 ** 64 + 7), ("value(i64)", lambda n: [0, [2 ** 63]]),
                 ("i64(i64)", lambda n: 2 ** 63), ("u64(i64)", lambda n: 2 ** 64)]
        for signature, fn in cases:
            with self.subTest(signature=signature):
                events = []
                with sk.Signal.from_iterable([1]) as source, source.map(signature, fn) as mapped, \
                        mapped.subscribe("void(value)", events.append, lambda e: events.append(("error", e))):
                    pass
                self.assertEqual(len(events), 1, events)
                self.assertEqual(events[0][0], "error")
                self.assertIn("sk_ffi: map: callback failed: OverflowError", events[0][1])

    def test_trampoline_arguments_outside_their_type_raise(self):
        events = []
        with sk.Pipe() as pipe, pipe.signal() as piped, piped.subscribe("void(value)", events.append), \
                sk.Trampoline(pipe, "void(i64,i32,u64)") as trampoline:
            function = trampoline.function()
            for args in ((2 ** 64 + 5, 0, 0), (0, 2 ** 31, 0), (0, 0, -1), (0, 0, 2 ** 64)):
                with self.subTest(args=args), self.assertRaises(OverflowError):
                    function(*args)
            function(-2 ** 63, -2 ** 31, 2 ** 63 - 1)
            self.assertEqual(trampoline.calls, 1)
        self.assertEqual(events, [[-2 ** 63, -2 ** 31, 2 ** 63 - 1]])

    def test_trampoline_narrow_arguments_outside_their_type_raise(self):
        # Every narrow type at its bounds converts; one past them raises,
        # as does an int an f32 or f64 would round and a finite float
        # beyond the largest f32 (which ctypes made infinite before).
        events = []
        with sk.Pipe() as pipe, pipe.signal() as piped, piped.subscribe("void(value)", events.append), \
                sk.Trampoline(pipe, "void(i8,u8,i16,u16,u32,f32,f64)") as trampoline:
            function = trampoline.function()
            low = (-128, 0, -2 ** 15, 0, 0, -2 ** 24, -2 ** 53)
            high = (127, 255, 2 ** 15 - 1, 2 ** 16 - 1, 2 ** 32 - 1, 2 ** 24, 2 ** 53)
            for i in range(len(low)):
                for bad in (low[i] - 1, high[i] + 1):
                    args = list(low)
                    args[i] = bad
                    with self.subTest(args=args), self.assertRaises(OverflowError):
                        function(*args)
            with self.assertRaisesRegex(OverflowError, r"1e\+300 is outside the range of f32 \(argument 5\)"):
                function(*low[:5], 1e300, 0.0)
            function(*low)
            function(*high)
            function(0, 0, 0, 0, 0, math.inf, math.nan)
            self.assertEqual(trampoline.calls, 3)
        self.assertEqual(events[:2], [list(low), list(high)])
        self.assertEqual(events[2][5], math.inf)
        self.assertTrue(math.isnan(events[2][6]))

    def test_take_count_outside_size_t_raises(self):
        with sk.Signal.from_iterable([1]) as source:
            with self.assertRaisesRegex(ValueError, r"^signalkit: take: count -1 is negative$"):
                source.take(-1)
            with self.assertRaisesRegex(OverflowError, r"^signalkit: take: count 18446744073709551616 out of range"):
                source.take(2 ** 64)
            with self.assertRaisesRegex(TypeError, r"^signalkit: take: count is float, not an int$"):
                source.take(1.5)
            with self.assertRaisesRegex(TypeError, r"^signalkit: take: count is bool, not an int$"):
                source.take(True)


class DeepValueTests(QuietTestCase):
    """Arrays nested as deep as the core allows (SK_VALUE_MAX_DEPTH, 128)
    convert both ways even from deep in the Python stack."""
    DEPTH = 128

    def nested(self, depth):
        value = [7]
        for _ in range(depth - 1):
            value = [value]
        return value

    def at_the_recursion_limit(self, fn, headroom=40):
        """Calls fn() with about `headroom` frames left below the recursion
        limit."""
        frames, frame = 0, sys._getframe()
        while frame is not None:
            frames, frame = frames + 1, frame.f_back

        def descend(remaining):
            return fn() if remaining <= 0 else descend(remaining - 1)
        return descend(sys.getrecursionlimit() - frames - headroom)

    def test_round_trip_at_the_depth_limit_from_deep_in_the_stack(self):
        value = self.nested(self.DEPTH)
        events = []
        with sk.Pipe() as pipe, pipe.signal() as piped, \
                piped.map("value(value)", lambda v: v) as same, \
                same.subscribe("void(value)", events.append, lambda e: events.append(("error", e))):
            self.at_the_recursion_limit(lambda: pipe.put(value))
        self.assertEqual(events, [value])

    def test_deeper_arrays_and_cycles_are_refused(self):
        with self.assertRaises(ValueError):
            sk.to_value(self.nested(sk.MAX_DEPTH + 1))
        cycle = [1, "two"]
        cycle.append(cycle)
        with self.assertRaises(ValueError):
            sk.to_value(cycle)
        # tearDown: the arrays built before the refusal were released


class FromValueTests(QuietTestCase):
    """from_value takes what to_value gives, a pointer to it or its
    address; anything else is a TypeError at the call (docs/python.md: a
    wrong argument type is a TypeError), not an AttributeError."""

    def test_a_value_a_pointer_and_an_address_read_alike(self):
        value = sk.to_value([1, "two", [3.5, None]])
        try:
            for form in (value, ctypes.pointer(value), ctypes.addressof(value)):
                self.assertEqual(sk.from_value(form), [1, "two", [3.5, None]])
        finally:
            sk.release_value(value)
        self.assertIsNone(sk.from_value(None))
        self.assertIsNone(sk.from_value(0))

    def test_anything_else_is_a_type_error(self):
        for wrong in ("text", 1.5, True, b"\x00", [1]):
            with self.assertRaisesRegex(TypeError, r"^signalkit: from_value takes a pointer to a Value"):
                sk.from_value(wrong)


class InterruptTests(QuietTestCase):
    """(c) Ctrl-C during a long synchronous emission stops it and reaches
    the caller as KeyboardInterrupt; no made-up value is delivered."""
    COUNT = 1_000_000

    def setUp(self):
        super().setUp()
        self.default_sigint()

    def test_sigint_raised_in_a_callback_stops_the_emission(self):
        seen, errors = [], []

        def plus_one(n):
            if n == 1000:
                signal.raise_signal(signal.SIGINT)
            return n + 1

        with self.assertRaises(KeyboardInterrupt) as caught:
            with sk.Signal.from_iterable(range(self.COUNT)) as source, source.map("i64(i64)", plus_one) as mapped, \
                    mapped.subscribe("void(i64)", seen.append, errors.append):
                pass
        self.assertEqual(seen, list(range(1, 1001)))
        self.assertEqual(errors, [])  # the caller gets it, not on_error (InterruptInCallbacksTests)
        text = "".join(traceback.format_exception(caught.exception))
        self.assertIn("in plus_one", text)
        self.assertIn("signal.raise_signal(signal.SIGINT)", text)
        self.assertEqual(self.reported, [])  # it reached the caller: not reported as lost
        self.assert_quiet()

    def test_sigint_arriving_between_callbacks_is_not_a_made_up_value(self):
        # libc's raise(), called by the library as a native "i32(i32)" map
        # function: SIGINT arrives while no Python code runs, and Python
        # handles it as the next Python callback starts.
        libc = ctypes.CDLL(None)
        native_raise = CFUNCTYPE(c_int, c_int)(("raise", libc))
        values = [0] * 1000 + [int(signal.SIGINT)] + [0] * (self.COUNT - 1001)
        seen, errors = [], []
        with self.assertRaises(KeyboardInterrupt):
            with sk.Signal.from_iterable(values) as source, source.map("i32(i32)", native_raise) as raised, \
                    raised.map("i64(i64)", lambda n: n + 1) as mapped, \
                    mapped.subscribe("void(i64)", seen.append, errors.append):
                pass
        self.assertEqual(seen, [1] * 1000)
        self.assertEqual(errors, [])  # the caller gets it, not on_error
        self.assert_quiet()

    def test_sigint_in_next_reaches_the_putting_caller(self):
        seen = []

        def on_next(n):
            seen.append(n)
            if n == 3:
                os.kill(os.getpid(), signal.SIGINT)

        with sk.Pipe() as pipe, pipe.signal() as piped, piped.subscribe("void(i64)", on_next) as subscription:
            pipe.put(1)
            with self.assertRaises(KeyboardInterrupt):
                for n in range(2, self.COUNT):
                    pipe.put(n)
            pipe.put(99)  # the subscription ended with the interrupt
            self.assertIsInstance(subscription.exception, KeyboardInterrupt)
        self.assertEqual(seen, [1, 2, 3])
        self.assert_quiet()

    def test_default_handler_is_back_once_no_callback_is_held(self):
        with sk.Pipe() as pipe, pipe.signal() as piped, piped.subscribe("void(i64)", lambda n: None):
            self.assertIsNot(signal.getsignal(signal.SIGINT), signal.default_int_handler)
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)
        # Another handler in place is left alone.
        def own(signum, frame):
            pass
        saved = signal.signal(signal.SIGINT, own)
        try:
            with sk.Pipe() as pipe, pipe.signal() as piped, piped.subscribe("void(i64)", lambda n: None):
                self.assertIs(signal.getsignal(signal.SIGINT), own)
            self.assertIs(signal.getsignal(signal.SIGINT), own)
        finally:
            signal.signal(signal.SIGINT, saved)

    def test_an_ignored_sigint_stays_ignored(self):
        # A program started with SIGINT ignored (a background job, nohup)
        # or that ignores it itself: the package installs no handler over
        # SIG_IGN, so Ctrl-C interrupts nothing, as without the package.
        saved = signal.signal(signal.SIGINT, signal.SIG_IGN)
        self.addCleanup(signal.signal, signal.SIGINT, saved)
        seen, errors, handlers = [], [], []

        def plus_one(n):
            if n == 1000:
                handlers.append(signal.getsignal(signal.SIGINT))
                signal.raise_signal(signal.SIGINT)
            return n + 1

        with sk.Signal.from_iterable(range(2000)) as source, source.map("i64(i64)", plus_one) as mapped, \
                mapped.subscribe("void(i64)", seen.append, errors.append):
            pass
        self.assertEqual(seen, list(range(1, 2001)))
        self.assertEqual(errors, [])
        self.assertEqual(handlers, [signal.SIG_IGN])
        self.assertIs(signal.getsignal(signal.SIGINT), signal.SIG_IGN)
        self.assert_quiet()

    def test_sigint_at_any_moment_from_another_thread(self):
        # SIGINT sent by another thread lands anywhere: in a callback, in the
        # library between callbacks, in the generator. Each run must end with
        # KeyboardInterrupt in the caller, the values delivered must be exactly
        # 1..k, and the emission must have stopped. A child interpreter, so
        # that a stray interrupt cannot stop this test run.
        result = run_child("""
            import json, os, signal, sys, threading
            signal.signal(signal.SIGINT, signal.default_int_handler)  # not inherited (SIG_IGN in a background job)
            import pysignalkit as sk
            sk.callback_error_hook = None
            escaped = []
            sys.unraisablehook = lambda u: escaped.append(u.exc_type.__name__)
            runs = []
            for attempt in range(8):
                seen, errors = [], []
                started = threading.Event()
                def plus_one(n):
                    if n == 2000 + 500 * attempt:
                        started.set()
                    return n + 1
                killer = threading.Thread(target=lambda: started.wait(60) and os.kill(os.getpid(), signal.SIGINT))
                killer.start()
                outcome = "returned"
                try:
                    with sk.Signal.from_iterable(range(1_000_000)) as source, \\
                            source.map("i64(i64)", plus_one) as mapped, \\
                            mapped.subscribe("void(i64)", seen.append, errors.append):
                        pass
                except KeyboardInterrupt:
                    outcome = "interrupted"
                killer.join()
                runs.append([outcome, seen == list(range(1, len(seen) + 1)), len(seen), errors])
            print(json.dumps({"runs": runs, "escaped": escaped, "live": sk.live_objects(),
                              "pending": sk.pending_callbacks()}))
        """)
        self.assertEqual(result.returncode, 0, result.stderr)
        report = json.loads(result.stdout)
        for outcome, contiguous, count, errors in report["runs"]:
            self.assertEqual(outcome, "interrupted", report)
            self.assertTrue(contiguous, report)
            self.assertLess(count, 1_000_000, report)
            self.assertLessEqual(len(errors), 1, report)
        self.assertEqual(report["escaped"], [])
        self.assertEqual((report["live"], report["pending"]), (0, 0))
        self.assertEqual(result.stderr, "")


class InterruptInCallbacksTests(QuietTestCase):
    """The rule of a KeyboardInterrupt raised by a callback on a thread with
    a caller (docs/python.md, Errors, "KeyboardInterrupt"), one row per kind
    of callback, each raising it on this thread inside pipe.put(2): put
    raises it; neither on_error nor callback_error_hook receives it (nor a
    catch below); the value goes no further. Where an ordinary exception of
    that callback fails the stream, the stream ends (its upstream disposed:
    a later put delivers nothing); where it would only go to the hook (a
    side effect, on_drop), nothing more ends (a later put is delivered).

    Before: a library operator's callback (scan, take_while, group_by's
    key, map_to_signal's function, create, a fused map followed by a
    library operator) also gave the interrupt to on_error; a native form
    gave on_error its failure ("sk_ffi: map: callback failed:
    KeyboardInterrupt: K"); catch's handler received it and could continue
    with a fallback; on_drop's went to callback_error_hook and never
    reached the caller."""

    def test_each_kind_of_callback(self):
        def ki(x):
            if x == 2:
                raise KeyboardInterrupt("K")
            return x

        def create_inner(x):
            def function(subscriber):
                subscriber.on_next(ki(x))
                subscriber.on_completed()
            return sk.Signal.create(function)

        # name: (the signal between the pipe's and the subscriber, or the
        # subscription made, from (upstream, on_next, on_error); whether the
        # stream ends)
        ends, goes_on = True, False
        rows = {
            "fused map": (lambda up, nx, er: up.map(ki), ends),
            "on_next": (lambda up, nx, er: up.subscribe(lambda x: nx(ki(x)), er), ends),
            "library scan": (lambda up, nx, er: up.scan(lambda acc, x: ki(x), 0), ends),
            "take_while": (lambda up, nx, er: up.take_while(lambda x: ki(x) > 0), ends),
            "map then scan": (lambda up, nx, er: up.map(ki).scan(lambda acc, x: x, 0), ends),
            "group_by key": (lambda up, nx, er: up.group_by(ki).merge_map(lambda key_group: key_group[1]), ends),
            "map_to_signal": (lambda up, nx, er: up.map_to_signal(lambda x: sk.Signal.single(ki(x))), ends),
            "create": (lambda up, nx, er: up.map_to_signal(create_inner), ends),
            "native map": (lambda up, nx, er: up.map("i64(i64)", ki), ends),
            "native subscribe": (lambda up, nx, er: up.subscribe("void(i64)", lambda x: nx(ki(x)), er), ends),
            "catch below scan": (lambda up, nx, er: up.scan(lambda acc, x: ki(x), 0).catch(
                lambda e: (er(("catch", e)), sk.Signal.single(-1))[1]), ends),
            "side effect": (lambda up, nx, er: up.before_next(ki), goes_on),
            "on_drop": (lambda up, nx, er: up.deliver_on(self.queue, capacity=1, overflow="drop_newest",
                                                         on_drop=lambda v, n: ki(v)), goes_on),
        }
        for name, (make, stream_ends) in rows.items():
            with self.subTest(name):
                self.reported.clear()
                seen, errors, disposed = [], [], []
                with contextlib.ExitStack() as stack:  # closed last first, also when an assertion fails
                    self.queue = queue = stack.enter_context(sk.Queue.host("h"))
                    pipe = stack.enter_context(sk.Pipe())
                    upstream = stack.enter_context(stack.enter_context(pipe.signal()).after_disposed(
                        lambda: disposed.append("upstream")))
                    made = stack.enter_context(make(upstream, seen.append, errors.append))
                    if not isinstance(made, sk.Disposable):
                        stack.enter_context(made.subscribe(seen.append, errors.append))
                    pipe.put(1)  # (on_drop: waits in the place, which is full)
                    with self.assertRaises(KeyboardInterrupt):
                        pipe.put(2)
                    self.assertEqual(disposed, ["upstream"] if stream_ends else [])
                    queue.drain()
                    pipe.put(3)
                    queue.drain()
                    self.assertEqual(seen, [1] if stream_ends else [1, 3])
                    self.assertEqual(errors, [])
                    self.assertEqual(self.reported, [])
                del stack, made, upstream, pipe, queue, self.queue
                gc.collect()
                self.assertTrue(sk.wait_released(10), "something is still alive")
        self.assert_quiet()


class ExitTests(unittest.TestCase):
    """(d) The interpreter exits cleanly while a library (dispatch) queue is
    delivering to Python callbacks."""
    RUNS = 6

    def check_runs(self, code):
        for run in range(self.RUNS):
            result = run_child(code)
            self.assertEqual(result.returncode, 0, f"run {run}: status {result.returncode}\n{result.stderr}")
            self.assertEqual(result.stderr, "", f"run {run}")
            self.assertIn("exiting mid-stream", result.stdout)

    def test_exit_while_a_dispatch_queue_delivers(self):
        self.check_runs("""
            import threading
            import pysignalkit as sk
            queue = sk.Queue.serial("exit-test")
            pipe = sk.Pipe()
            delivered = pipe.signal().deliver_on(queue)
            started = threading.Event()
            def on_next(n):
                started.set()
            subscription = delivered.subscribe("void(i64)", on_next)
            for n in range(20000):
                pipe.put(n)
            started.wait(30)
            print("exiting mid-stream", flush=True)
        """)

    def test_exit_with_only_the_library_holding_the_pipeline(self):
        # No Python reference to the operators or the subscription: their
        # callbacks and releases run on the queue's thread.
        self.check_runs("""
            import threading
            import pysignalkit as sk
            started = threading.Event()
            def on_next(n):
                started.set()
            pipe = sk.Pipe()
            pipe.signal().map("i64(i64)", lambda n: n * 2).deliver_on(sk.Queue.serial()) \\
                .subscribe("void(i64)", on_next)
            for n in range(20000):
                pipe.put(n)
            started.wait(30)
            print("exiting mid-stream", flush=True)
        """)


class ExitWhileCCallsTests(unittest.TestCase):
    """The interpreter exits while a C thread (a timer of the library on a
    serial queue, calling a function pointer it was given: no Python on
    that thread) keeps calling into what the package handed to C, with
    only module globals holding the handles (collected while the
    interpreter finalizes). Each kind runs RUNS times in a child process:
    status 0 and nothing on stderr every time.

    Before: a Trampoline was released when collected at exit while C still
    called its function (SIGABRT inside libffi, or SIGSEGV: every run); a
    native form's Python callable, a ctypes closure, was entered by a
    library thread once the interpreter finalized, in a subscription the
    exit hook cannot dispose (started by C code), and CPython ended that
    thread under libdispatch (SIGILL: every run). Five runs a kind: each
    failed every time, and a child busy with a C thread calling in every
    0.1 ms is the costliest process of the suite (120 of them were half its
    children and a tenth of its time)."""
    RUNS = 5
    PRELUDE = """
        import ctypes, sys, threading
        from ctypes import POINTER, Structure, byref, c_bool, c_char_p, c_double, c_int, c_void_p
        import pysignalkit as sk
        core = ctypes.CDLL(sk.library_paths()[0])
        core.sk_queue_create.argtypes = [POINTER(c_void_p), c_char_p]
        core.sk_timer_start.argtypes = [POINTER(c_void_p), c_void_p, c_double, c_bool, c_void_p, c_void_p, c_void_p]
        class Observer(Structure):
            _fields_ = [("next", c_void_p), ("error", c_void_p), ("completed", c_void_p), ("ctx", c_void_p),
                        ("release", c_void_p)]
        core.sk_signal_start.argtypes = [POINTER(c_void_p), c_void_p, POINTER(Observer)]
        reached = threading.Event()
        def touch(*args):
            reached.set()
            return 1
        def start_in_c(signal):  # a subscription of C code's, which the exit hook does not know
            disposable, observer = c_void_p(), Observer()
            assert core.sk_signal_start(byref(disposable), signal.pointer, byref(observer)) == 0
        def call_from_c(address):  # a C thread calling `address(NULL)` every 0.1 ms until the process ends
            queue, timer = c_void_p(), c_void_p()
            assert core.sk_queue_create(byref(queue), b"c-caller") == 0
            assert core.sk_timer_start(byref(timer), queue, 0.0001, True, address, None, None) == 0
    """
    KINDS = {
        "trampoline into a pipe": """
            pipe = sk.Pipe()
            subscription = pipe.signal().subscribe(touch)
            trampoline = sk.Trampoline(pipe, "void(ptr)")
            call_from_c(trampoline.address)
        """,
        "trampoline into a create() subscriber": """
            kept = []
            def start(subscriber):
                trampoline = sk.Trampoline(subscriber, "void(ptr)")
                kept.append(trampoline)
                call_from_c(trampoline.address)
            subscription = sk.Signal.create(start).subscribe(touch)
        """,
        "native map in a subscription of C's": """
            pipe = sk.Pipe()
            trampoline = sk.Trampoline(pipe, "void(ptr)")
            mapped = pipe.signal().map("i64(ptr)", touch)
            start_in_c(mapped)
            call_from_c(trampoline.address)
        """,
        "native filter in a subscription of C's": """
            pipe = sk.Pipe()
            trampoline = sk.Trampoline(pipe, "void(ptr)")
            filtered = pipe.signal().filter("bool(ptr)", touch)
            start_in_c(filtered)
            call_from_c(trampoline.address)
        """,
        "native subscribe": """
            pipe = sk.Pipe()
            trampoline = sk.Trampoline(pipe, "void(ptr)")
            subscription = pipe.signal().subscribe("void(ptr)", touch)
            call_from_c(trampoline.address)
        """,
        "Python map in a subscription of C's": """
            pipe = sk.Pipe()
            trampoline = sk.Trampoline(pipe, "void(ptr)")
            mapped = pipe.signal().map(touch)
            start_in_c(mapped)
            call_from_c(trampoline.address)
        """,
    }

    def test_exit_while_a_c_thread_calls_in(self):
        import concurrent.futures
        jobs = [(kind, run) for kind in self.KINDS for run in range(self.RUNS)]

        def child(job):
            kind, run = job
            code = textwrap.dedent(self.PRELUDE) + textwrap.dedent(self.KINDS[kind]) + textwrap.dedent("""
                assert reached.wait(30), "nothing reached Python"
                print("exiting while C calls in", flush=True)
            """)
            return kind, run, run_child(code, timeout=60)

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            results = list(pool.map(child, jobs))
        failed: dict = {}
        for kind, run, result in results:
            if result.returncode != 0 or result.stderr or "exiting while C calls in" not in result.stdout:
                failed.setdefault(kind, []).append(f"status {result.returncode}, stderr {result.stderr[-200:]!r}")
        summary = "; ".join(f"{kind}: {len(runs)} of {self.RUNS} failed (first: {runs[0]})"
                            for kind, runs in failed.items())
        self.assertEqual(failed, {}, summary)


class LoadingTests(unittest.TestCase):
    def test_missing_library_is_a_clear_error(self):
        env = dict(os.environ, SIGNALKIT_LIB_DIR="/nonexistent")
        result = subprocess.run([sys.executable, "-c", "import pysignalkit"], env=env, capture_output=True, text=True,
                                cwd=os.path.dirname(os.path.abspath(__file__)))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("ImportError: signalkit: /nonexistent/libsignalkit.so.0 not found", result.stderr)
        self.assertIn("SIGNALKIT_LIB_DIR", result.stderr)


if __name__ == "__main__":
    unittest.main()
