"""Every ```python block marked `<!-- python -->` in the Python guide
(docs/python.md) and the package's README.md runs (a new interpreter each),
as a user would paste it (tools/check/check-readme.py requires the marker
on every block and checks that this test names each document that has
such blocks), and passes `mypy --strict`, which the guide says the package
is checked with."""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

import pytest

from conftest import EXAMPLES

ROOT = os.path.join(EXAMPLES, "..", "..")
DOCUMENTS = ["docs/python.md", "Sources/python/README.md"]


def python_blocks(document):
    with open(os.path.join(ROOT, document), encoding="utf-8") as source:
        return re.findall(r"^<!-- python -->\n```python\n(.*?)^```$", source.read(), re.S | re.M)


def test_each_document_has_python_blocks_and_each_runs():
    for document in DOCUMENTS:
        blocks = python_blocks(document)
        assert blocks, document
        for block in blocks:
            result = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=60)
            assert result.returncode == 0, f"{document}:\n{block}\n{result.stderr}"
            assert result.stderr == ""
            if "prints 20, then 30" in block:
                assert result.stdout.startswith("20\n30\n")
            if "async for" in block:
                assert result.stdout.endswith("0\n1\n2\n3\n")


def test_each_python_block_passes_mypy_strict():
    # A program of the guide failed `mypy --strict` (an empty list without
    # its type), which python.md promises the typed API is checked with (an
    # acceptance program found it). One run over every block, each a module.
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed with this interpreter (make test-python installs it)")
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for document in DOCUMENTS:
            for index, block in enumerate(python_blocks(document)):
                name = os.path.join(folder, "%s_%d.py" % (re.sub(r"\W", "_", document), index))
                with open(name, "w", encoding="utf-8") as out:
                    out.write(block)
                files.append(name)
        result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null"]
                                + files, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
