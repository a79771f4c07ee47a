"""Runs each example script as a user would, and checks what it prints."""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def run_example(name):
    result = subprocess.run([sys.executable, os.path.join(HERE, name)], cwd=HERE, capture_output=True, text=True,
                            timeout=60)
    return result.returncode, result.stdout, result.stderr


class ExampleTests(unittest.TestCase):
    def check(self, name, *lines):
        code, out, err = run_example(name)
        self.assertEqual(code, 0, f"{name} failed:\n{out}\n{err}")
        for line in lines + ("live objects: 0 ffi live objects: 0",):
            self.assertIn(line + "\n", out, f"{name} printed:\n{out}")

    def test_quickstart(self):
        code, out, err = run_example("quickstart.py")
        self.assertEqual((code, out, err), (0, "20\n30\n", ""))

    def test_pipeline(self):
        self.check("pipeline.py", "odd squares: [1, 9, 25, 49, 'completed']",
                   "conversion error: [1, ('error', 'sk_ffi: next: argument 0 (i32): int64 1099511627776 "
                   "out of range of i32')]")

    def test_trampoline(self):
        self.check("trampoline.py", "in order: [10, 20, 30, 50, 70, 80, 90]", "depths: [2, 1, 2, 0, 2, 1, 2]",
                   "trampoline calls: 13")

    def test_asyncio_host_queue(self):
        self.check("asyncio_host_queue.py", "received: " + str([3 * n for n in range(20)]),
                   "all callbacks on the loop's thread: True")


if __name__ == "__main__":
    unittest.main()
