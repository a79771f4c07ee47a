"""The package's types as a program sees them: tests/typecheck/cases.py checked
with `mypy --strict` (the pinned mypy of the test tools) against the
installed package. Each line marked `# E: <code>` must get that error, and
no other line any error: the types reject wrong programs, and accept right
ones."""
import os
import re

import pytest

mypy_api = pytest.importorskip("mypy.api")

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "typecheck", "cases.py")


def expected_errors():
    expected = set()
    with open(CASES, encoding="utf-8") as cases:
        for number, line in enumerate(cases, 1):
            match = re.search(r"#\s*E:\s*([\w-]+)\s*$", line)
            if match:
                expected.add((number, match.group(1)))
    return expected


def test_mypy_rejects_the_marked_lines_and_accepts_the_others():
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", "--cache-dir", os.devnull,
                                           "--show-error-codes", "--no-error-summary", CASES])
    assert stderr == ""
    found = set()
    for line in stdout.splitlines():
        match = re.match(r".*cases\.py:(\d+): error: .*\[([\w-]+)\]$", line)
        assert match or ": note:" in line, line
        if match:
            found.add((int(match.group(1)), match.group(2)))
    expected = expected_errors()
    assert expected, "no line is marked"
    missing = sorted(expected - found)
    unexpected = sorted(found - expected)
    assert (missing, unexpected) == ([], []), stdout
