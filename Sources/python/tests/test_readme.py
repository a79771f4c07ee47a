"""Every ```python block of the package's README.md runs (a new
interpreter each), as a user would paste it."""
import os
import re
import subprocess
import sys

from conftest import EXAMPLES

README = os.path.join(EXAMPLES, "..", "..", "Sources", "python", "README.md")


def python_blocks():
    with open(README, encoding="utf-8") as source:
        return re.findall(r"^```python\n(.*?)^```$", source.read(), re.S | re.M)


def test_the_readme_has_python_blocks_and_each_runs():
    blocks = python_blocks()
    assert blocks
    for block in blocks:
        result = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"{block}\n{result.stderr}"
        assert result.stderr == ""
        if "prints 20, then 30" in block:
            assert result.stdout.startswith("20\n30\n")
        if "async for" in block:
            assert result.stdout.endswith("0\n1\n2\n3\n")
