#!/usr/bin/env python3
"""Runs, as they are written, the shell blocks of the documents that are
marked `<!-- run: NAME -->` (the steps a user copies: install the tarball,
the wheel into a venv, valgrind with the suppressions), so that a test and
the documents cannot say different things. tools/check/check-readme.py knows which
NAMEs exist and which make target runs each.

  run-doc-steps.py NAME --files DIR --scratch DIR [--version VERSION] [--setup SETUP] [--then COMMAND]
                   [DOCUMENT...]

Every block marked `<!-- run: NAME -->` in the DOCUMENTs (by default
README.md, docs/*.md, docs/*/*.md and Sources/python/README.md) runs with
`sh -eu`, `<version>` replaced by VERSION (needed when a block says
`<version>`), each in a folder of its own under --scratch (made anew): the
files of --files copied into it, HOME an empty folder beside it (a new
user's), its standard output and error kept in steps.out and steps.err
there. The blocks marked `<!-- run: SETUP -->` (the steps the document
gives once, before those of NAME) run first in the same folder, with the
same HOME, their output in setup.out and setup.err. COMMAND (sh -eu, same
folder and HOME) then checks what the block did; it may read those files.
No block marked NAME, or SETUP, is an error: the test would check nothing.

Exit status 0 when every block and every COMMAND succeeded; 1 (saying which
block, and its output) at the first that did not. Run from the
repository's root.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys


def marked_blocks(path, name):
    """(line number, text) of each block of `path` marked `run: name`."""
    with open(path) as handle:
        lines = handle.read().split("\n")
    marker = f"<!-- run: {name} -->"
    found = []
    for index, line in enumerate(lines):
        if line.startswith("```") and index > 0 and lines[index - 1] == marker:
            end = lines.index("```", index + 1)
            found.append((index + 1, "\n".join(lines[index + 1:end]) + "\n"))
    return found


def run(script, where, home, log):
    """Runs `script` with sh -eu in `where`; returns its CompletedProcess."""
    env = dict(os.environ, HOME=home)
    with open(log + ".out", "w") as out, open(log + ".err", "w") as err:
        return subprocess.run(["sh", "-eu", "-c", script], cwd=where, env=env, stdout=out, stderr=err)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("name")
    parser.add_argument("--version")
    parser.add_argument("--files", required=True)
    parser.add_argument("--scratch", required=True)
    parser.add_argument("--setup")
    parser.add_argument("--then")
    parser.add_argument("documents", nargs="*")
    args = parser.parse_intermixed_args()
    documents = args.documents or (["README.md"] + sorted(glob.glob("docs/*.md") + glob.glob("docs/*/*.md"))
                                   + ["Sources/python/README.md"])
    blocks = [(path, number, text) for path in documents for number, text in marked_blocks(path, args.name)]
    setup = [text for path in documents for _, text in marked_blocks(path, args.setup)] if args.setup else []
    for name, found in ((args.name, blocks), (args.setup, setup)):
        if name and not found:
            print(f"run-doc-steps.py: no block marked <!-- run: {name} --> in {' '.join(documents)}",
                  file=sys.stderr)
            return 1
    shutil.rmtree(args.scratch, ignore_errors=True)
    for path, number, text in blocks:
        if "<version>" in text + "".join(setup) and args.version is None:
            print(f"run-doc-steps.py: {path}:{number} (or its setup) says <version>: give --version", file=sys.stderr)
            return 1
        script = text.replace("<version>", args.version or "<version>")
        before = "".join(setup).replace("<version>", args.version or "<version>")
        folder = os.path.join(args.scratch, re.sub(r"[^A-Za-z0-9]+", "-", path) + f"-{number}")
        where, home = os.path.join(folder, "work"), os.path.join(folder, "home")
        shutil.copytree(args.files, where, symlinks=True)
        os.makedirs(home)
        if setup:
            print(f"run-doc-steps.py: first the {args.setup} steps, in {where}:\n{before}", end="", flush=True)
        print(f"run-doc-steps.py: {path}:{number}, in {where}:\n{script}", end="", flush=True)
        steps = (("the setup before it", before if setup else None, "setup"), ("the block", script, "steps"),
                 ("the check after it", args.then, "check"))
        for what, command, name in steps:
            if command is None:
                continue
            log = os.path.join(where, name)
            result = run(command, where, home, log)
            if result.returncode != 0:
                for suffix in (".out", ".err"):
                    with open(log + suffix) as handle:
                        sys.stderr.write(handle.read())
                print(f"run-doc-steps.py: {path}:{number}: {what} failed (status {result.returncode});"
                      f" its output above, kept in {log}.out and .err", file=sys.stderr)
                return 1
            if what == "the check after it":
                with open(log + ".out") as handle:
                    sys.stdout.write(handle.read())
    print(f"run-doc-steps.py: {len(blocks)} block(s) marked {args.name} ran as written, each checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
