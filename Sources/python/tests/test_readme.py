"""Every ```python block marked `<!-- python -->` in the Python guide
(docs/python.md) and the package's README.md runs (a new interpreter each),
as a user would paste it (tools/check/check-readme.py requires the marker
on every block and checks that this test names each document that has
such blocks)."""
import os
import re
import subprocess
import sys

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
