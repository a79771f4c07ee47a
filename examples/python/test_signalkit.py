"""Tests of signalkit.py and, through it, of libsignalkit-ffi from Python.

Run with `make test-python` (which sets SIGNALKIT_LIB_DIR to the staged
install), or: cd examples/python && SIGNALKIT_LIB_DIR=... python3 -m unittest -v
Every test ends with no live object in either library and no callback set
still held.
"""
import asyncio
import gc
import os
import subprocess
import sys
import threading
import unittest
from ctypes import CFUNCTYPE, c_double, c_int64

import signalkit as sk


class SignalKitTestCase(unittest.TestCase):
    def tearDown(self):
        gc.collect()
        self.assertEqual(sk.live_objects(), 0, "library objects still alive")
        self.assertEqual(sk.ffi_live_objects(), 0, "ffi objects still alive")
        self.assertEqual(sk.pending_callbacks(), 0, "callbacks still held by the library")


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
        on_next = CFUNCTYPE(None, sk.c_void_p, c_double)(lambda ctx, d: seen.append((ctx is not None, d)))
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


class LoadingTests(unittest.TestCase):
    def test_missing_library_is_a_clear_error(self):
        env = dict(os.environ, SIGNALKIT_LIB_DIR="/nonexistent")
        result = subprocess.run([sys.executable, "-c", "import signalkit"], env=env, capture_output=True, text=True,
                                cwd=os.path.dirname(os.path.abspath(__file__)))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("ImportError: signalkit: /nonexistent/libsignalkit.so.0 not found", result.stderr)
        self.assertIn("SIGNALKIT_LIB_DIR", result.stderr)


if __name__ == "__main__":
    unittest.main()
