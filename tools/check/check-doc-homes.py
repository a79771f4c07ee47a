#!/usr/bin/env python3
"""Checks that each cross-cutting rule is written once, in its home, and
that the copies of the latest benchmark tables in docs/performance.md (the
interleaved run's and the full run's) are the tables they copy.

The rules (fork, threads and callback threads, exit, refused resources,
durations, ownership) each have one home, listed in docs/concepts.md
("Where each rule lives"); every other document links there instead of
restating the rule. RULES below names, for each rule, its home and a few of
its key sentences. Each key sentence must appear in its home and in no
other document of DOCUMENTS: a copy of the rule pasted elsewhere (a
paragraph moved back into the README, a docstring restating the header)
fails, naming both files. The text is compared with comment markers
(` * `, `///`, `#`), Markdown emphasis and line breaks taken away, case
ignored.

Usage: check-doc-homes.py [--update]   (from the repository's root; run by make
test-docs; --update copies the latest interleaved and full runs' tables into
docs/performance.md)
"""
from __future__ import annotations

import glob
import os
import re
import sys

HEADER = "include/signalkit.h"
PYTHON_GUIDE = "docs/python.md"
CONCEPTS = "docs/concepts.md"

# rule: (home, [key sentences])
RULES = {
    "fork()": (HEADER, [
        "The child of a process that used the library must not call it",
        "the child may use the library fully",
        "a lock that another thread held at the instant of fork()",
    ]),
    "fork() in Python": (PYTHON_GUIDE, [
        "the child of a process that had used the package",
        "even in the C rule's one exception",
    ]),
    "threads and callback threads": (HEADER, [
        "every function may be called from any thread, concurrently, unless its comment says otherwise",
        "Callbacks run on the thread that emits the event",
        "The library never holds a lock while it calls user code",
    ]),
    "exit": (HEADER, [
        "the library registers no exit handler but SIGNALKIT_LIVE_OBJECTS_AT_EXIT's",
    ]),
    "interpreter exit": (PYTHON_GUIDE, [
        "the hook waits for the callbacks in flight, and only for them",
    ]),
    "refused resources": (HEADER, [
        "The serial and concurrent queues share one pool of worker threads per process",
        "A thread the system refuses (RLIMIT_NPROC, memory) is no error",
        "That first call checks that the loop's descriptors can be made and waits for a probing timer",
    ]),
    "durations": (HEADER, [
        "Durations are seconds, as a double, from 0",
        "duration whose deadline lies beyond what the clock can represent (now",
    ]),
    "ownership of handles": (HEADER, [
        "Constructors and operators hand back a new reference (+1) through their first, `out` parameter",
        "`release` runs exactly once, after the last callback of the set has returned",
    ]),
    "ownership along a chain": (CONCEPTS, [
        "A downstream link owns its upstream; whoever started a subscription owns its disposable",
    ]),
}

# Where a rule could be restated: the documents and the comments users read.
DOCUMENTS = ["README.md", "Tests/README.md", "Sources/SwiftSignalKit/INTERNALS.md", "Sources/python/README.md",
             "Sources/python/pysignalkit/__init__.py", "include/signalkit.hpp", "include/signalkit_ffi.h",
             "include/signalkit_test.h", "include/signalkit_test.hpp", HEADER]
DOCUMENTS += sorted(glob.glob("docs/*.md") + glob.glob("docs/*/*.md"))

BENCHMARKS = "Benchmarks/README.md"
PERFORMANCE = "docs/performance.md"


def flatten(text: str) -> str:
    """The text as one line of words: comment markers, Markdown emphasis
    and line breaks gone, lower case."""
    lines: list[str] = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(/\*\*|\*/|\*|///|//|#)\s?", "", line)
        lines.append(line)
    text = " ".join(lines).replace("**", "")
    return re.sub(r"\s+", " ", text).lower()


def latest_table(text: str, after: str) -> list[str] | None:
    """The lines of the first table after the line holding `after`."""
    start = text.find(after)
    if start < 0:
        return None
    table: list[str] = []
    for line in text[start:].split("\n")[1:]:
        if line.startswith("|"):
            table.append(line)
        elif table:
            break
    return table


def update_performance(measured: list[str], heading: str) -> None:
    """Replaces the table under `heading` of PERFORMANCE with `measured`
    (the lines around it stay)."""
    with open(PERFORMANCE, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    start = lines.index(heading)
    first = next(i for i in range(start, len(lines)) if lines[i].startswith("|"))
    end = first
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    lines[first:end] = measured
    with open(PERFORMANCE, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))


def main() -> int:
    problems: list[str] = []
    texts: dict[str, str] = {}
    for path in DOCUMENTS:
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                texts[path] = flatten(handle.read())
    for rule, (home, sentences) in RULES.items():
        for sentence in sentences:
            key = flatten(sentence)
            if home not in texts or key not in texts[home]:
                problems.append(f"{home}: the rule '{rule}' lives here, but its sentence \"{sentence}\" is gone: "
                                f"put it back, or change the key sentence in {sys.argv[0]}")
            for path, text in texts.items():
                if path != home and key in text:
                    problems.append(f"{path} restates the rule '{rule}' (\"{sentence}\"), whose home is {home}: "
                                    f"link to it instead (docs/concepts.md, \"Where each rule lives\")")
    # The benchmark tables docs/performance.md copies: (where the table is
    # in BENCHMARKS, the heading it is copied under in PERFORMANCE, what it is).
    copies = [("## Latest run", "## Against the C++ libraries", "interleaved run"),
              ("The full run", "## The latest full run", "full run")]
    with open(BENCHMARKS, encoding="utf-8") as handle:
        benchmarks = handle.read()
    performance = None
    if os.path.exists(PERFORMANCE):
        with open(PERFORMANCE, encoding="utf-8") as handle:
            performance = handle.read()
    for source, heading, what in copies:
        measured = latest_table(benchmarks, source)
        copied = latest_table(performance, heading) if performance is not None else None
        if not measured:
            problems.append(f"{BENCHMARKS}: no table after '{source}'")
        elif copied != measured:
            if "--update" in sys.argv[1:]:
                update_performance(measured, heading)
                print(f"{PERFORMANCE}: its table under '{heading}' replaced by the latest {what} of {BENCHMARKS}")
            else:
                problems.append(f"{PERFORMANCE}: its table under '{heading}' is not the latest {what} of "
                                f"{BENCHMARKS} (run `python3 {sys.argv[0]} --update` to copy it, then check the "
                                f"date above it)")
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{len(RULES)} rules, each stated in its home only ({len(texts)} documents read); "
              f"{PERFORMANCE} has {BENCHMARKS}'s latest tables")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
