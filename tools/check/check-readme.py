#!/usr/bin/env python3
"""Checks that every code block of README.md is true.

Each fenced block must follow a marker comment on the line before it:

  <!-- file: PATH -->       the block is the whole text of PATH, which the
                            tests compile and run with its output checked
                            (examples/c/*.c against *.expected, the Swift
                            example targets against examples/swift/*.expected)
  <!-- swift-dependency --> the lines a Swift package adds to depend on this
                            one: a throw-away package beside a checkout named
                            after the path in the block is made with them and
                            resolved (`swift package describe`), so the
                            product and package names must be right; and the
                            URL line's requirement (from:, branch:, revision:,
                            exact:) is resolved as written against a mirror
                            of this repository's git history (a file:// URL
                            in place of the published one), so a `from:` the
                            tags cannot meet fails (not in a source tarball,
                            which has no history)
  <!-- run: NAME -->        steps a user copies, run as written (`<version>`
                            replaced) against the release artifacts by the
                            make target RUN_STEPS names for NAME, through
                            tools/check/run-doc-steps.py (which fails when no block
                            bears a NAME it is asked for)
  <!-- rust-doctest -->     a Rust block that the crate's doc tests compile and
                            run (make test-rust): the crate must carry a copy
                            of the document (tools/api/generate.py's COPIES,
                            kept fresh by make test-api) that
                            Sources/rust/rsignalkit/src/lib.rs includes as
                            documentation (include_str!), which is checked
  <!-- python -->           a Python block that Sources/python/tests/test_readme.py
                            runs, as a user would paste it, in a new
                            interpreter with the package installed: the
                            document must be one that test names (PYTHON_RUNNER)
  <!-- fragment -->         shell commands or an excerpt, not run

Usage: check-readme.py [DOCUMENT...] (run from the repository's root; the
paths of `file:` markers are relative to it; README.md when none is named).
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "api"))
import generate  # noqa: E402  (tools/api/generate.py: the copies the crate carries)

MARKER = re.compile(r"^<!-- (fragment|python|swift-dependency|rust-doctest|file: (\S+)|run: (\S+)) -->$")
RUST_CRATE_ROOT = "Sources/rust/rsignalkit/src/lib.rs"
PYTHON_RUNNER = "Sources/python/tests/test_readme.py"
# The blocks of each `run:` name, and the target that runs them.
RUN_STEPS = {
    "tarball": "make test-dist-tarball",
    "wheel": "make test-dist-wheel",
    "valgrind": "make test-dist-deb and make test-dist-tarball",
    "rust-crates": "make test-dist-rust (first, in the folder of each rust-deb and rust-tarball block)",
    "rust-deb": "make test-dist-rust",
    "rust-tarball": "make test-dist-rust",
    "rust-checkout": "make test-dist-rust",
}


def blocks(lines):
    """Yields (line number, marker line, block text) for each fenced block."""
    index = 0
    while index < len(lines):
        if lines[index].startswith("```"):
            start = index
            index += 1
            body = []
            while index < len(lines) and lines[index] != "```":
                body.append(lines[index])
                index += 1
            marker = lines[start - 1] if start > 0 else ""
            yield start + 1, marker, "\n".join(body) + "\n"
        index += 1


def check_dependency(text, root):
    paths = re.findall(r'\.package\(path: "([^"]+)"\)', text)
    urls = re.findall(r'\.package\(url: "([^"]+)"', text)
    products = re.findall(r"\.product\([^)]*\)", text)
    if len(paths) != 1 or len(products) != 1:
        return "needs exactly one .package(path:) and one .product(...)"
    identity = os.path.basename(paths[0].rstrip("/"))
    for url in urls:
        name = os.path.basename(url.rstrip("/"))
        name = name[:-4] if name.endswith(".git") else name
        if name.lower() != identity.lower():
            return f"the URL's package ({name}) and the path's ({identity}) differ"
    requirements = re.findall(r'\.package\(url: "[^"]+", (from|branch|revision|exact): "([^"]+)"\)', text)
    if len(urls) != 1 or len(requirements) != 1:
        return "needs exactly one .package(url:, from:/branch:/revision:/exact:) line"
    problem = check_requirement(requirements[0], root, identity)
    if problem:
        return problem
    with tempfile.TemporaryDirectory() as scratch:
        consumer = os.path.join(scratch, "consumer")
        os.makedirs(os.path.join(consumer, "Sources", "App"))
        os.symlink(os.path.abspath(root), os.path.join(scratch, identity))
        with open(os.path.join(consumer, "Package.swift"), "w") as out:
            out.write(
                "// swift-tools-version:6.0\n"
                "import PackageDescription\n"
                "let package = Package(\n"
                '    name: "Consumer",\n'
                f'    dependencies: [.package(path: "../{identity}")],\n'
                f'    targets: [.executableTarget(name: "App", dependencies: [{products[0]}])]\n'
                ")\n"
            )
        with open(os.path.join(consumer, "Sources", "App", "main.swift"), "w") as out:
            out.write("import SwiftSignalKit\n")
        result = subprocess.run(["swift", "package", "describe"], cwd=consumer,
                                capture_output=True, text=True)
        if result.returncode != 0:
            return "does not resolve: " + (result.stderr.strip().splitlines() or ["?"])[0]
    return None


def check_requirement(requirement, root, identity):
    """Resolves `.package(url:, KIND: "VALUE")` against a mirror of root's git."""
    kind, value = requirement
    if os.path.isfile(os.path.join(root, "mk", "dist", "files")):
        # An unpacked source tarball (make dist-source writes that file): no
        # history to resolve against; the checkout it came from was checked.
        print(f'`{kind}: "{value}"` not resolved against the history: this tree is a source tarball, without git')
        return None
    with tempfile.TemporaryDirectory() as scratch:
        mirror = os.path.join(scratch, identity)
        clone = subprocess.run(["git", "clone", "--quiet", "--mirror", os.path.abspath(root), mirror],
                               capture_output=True, text=True)
        if clone.returncode != 0:
            return "cannot mirror this repository's git history: " + clone.stderr.strip()
        consumer = os.path.join(scratch, "consumer")
        os.makedirs(os.path.join(consumer, "Sources", "App"))
        with open(os.path.join(consumer, "Package.swift"), "w") as out:
            out.write(
                "// swift-tools-version:6.0\n"
                "import PackageDescription\n"
                "let package = Package(\n"
                '    name: "Consumer",\n'
                f'    dependencies: [.package(url: "file://{mirror}", {kind}: "{value}")],\n'
                '    targets: [.executableTarget(name: "App")]\n'
                ")\n"
            )
        with open(os.path.join(consumer, "Sources", "App", "main.swift"), "w") as out:
            out.write("\n")
        result = subprocess.run(["swift", "package", "resolve"], cwd=consumer, capture_output=True, text=True)
        if result.returncode != 0:
            lines = (result.stderr + result.stdout).strip().splitlines() or ["?"]
            first = next((line for line in lines if "error:" in line), lines[-1])
            return f'`{kind}: "{value}"` does not resolve against this repository\'s history: {first}'
    return None


def check_document(readme, root):
    """The problems of one document's code blocks, and how many blocks."""
    with open(readme) as handle:
        lines = handle.read().split("\n")
    problems = []
    count = 0
    for number, marker, text in blocks(lines):
        count += 1
        match = MARKER.match(marker)
        if not match:
            problems.append(f"{readme}:{number}: a code block without a marker"
                            " (file:, run:, python, swift-dependency, rust-doctest or fragment)")
            continue
        kind, path, steps = match.group(1), match.group(2), match.group(3)
        if steps is not None:
            if steps not in RUN_STEPS:
                problems.append(f"{readme}:{number}: `run: {steps}`: no test runs such blocks"
                                f" (the names are {', '.join(sorted(RUN_STEPS))}: RUN_STEPS)")
        elif path is not None:
            try:
                with open(os.path.join(root, path)) as handle:
                    expected = handle.read()
            except OSError as error:
                problems.append(f"{readme}:{number}: {path}: {error.strerror}")
                continue
            if text != expected:
                problems.append(f"{readme}:{number}: the block differs from {path}")
        elif kind == "rust-doctest":
            with open(os.path.join(root, RUST_CRATE_ROOT)) as handle:
                crate = handle.read()
            copies = [copy for copy, original in generate.COPIES.items()
                      if original == os.path.normpath(readme) and copy.startswith(os.path.dirname(RUST_CRATE_ROOT))]
            names = [os.path.relpath(copy, os.path.dirname(RUST_CRATE_ROOT)) for copy in copies]
            if not any(f'include_str!("{name}")' in crate for name in names):
                problems.append(f"{readme}:{number}: a rust-doctest block, but the crate has no copy of the document "
                                f"that {RUST_CRATE_ROOT} includes (tools/api/generate.py's COPIES, then "
                                f'#[doc = include_str!("COPY")]): its doc tests would not run it')
        elif kind == "python":
            with open(os.path.join(root, PYTHON_RUNNER)) as handle:
                runner = handle.read()
            if f'"{readme}"' not in runner:
                problems.append(f"{readme}:{number}: a python block, but {PYTHON_RUNNER} does not run this "
                                f'document\'s blocks (its DOCUMENTS lack "{readme}")')
        elif kind == "swift-dependency":
            problem = check_dependency(text, root)
            if problem:
                problems.append(f"{readme}:{number}: the Swift dependency block: {problem}")
    return problems, count


def main():
    documents = sys.argv[1:] or ["README.md"]
    root = os.getcwd()
    problems = []
    for readme in documents:
        found, count = check_document(readme, root)
        problems += found
        if not found:
            print(f"{readme}: {count} code blocks, each run by the tests or marked as a fragment")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
