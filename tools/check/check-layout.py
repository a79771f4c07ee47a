#!/usr/bin/env python3
"""Checks that docs/maintainers/layout.md matches the tree.

The layout's code block names the tree's parts, one a line: a path in the
first column (several joined by ", "), and under a folder, indented by two
spaces, what it holds (`  Signal/`, `  tests.mk`), read relative to that
folder; a path written elsewhere in a line (`Tests/cpp/gnu`) counts too.

  every top-level folder, every folder under Tests/ and tools/, and every
  mk/*.mk file must be named (a folder is also named by a first-column
  path inside it: `Sources/python` names Sources);
  every path named must be in the tree (a pattern with '*' is not checked).

The tree is what git tracks (in an unpacked source tarball, which has no
git: mk/dist/files). Exit status 1 when anything is missing or gone, with a
line for each.

Usage: check-layout.py [LAYOUT] (run from the repository's root; LAYOUT is
docs/maintainers/layout.md by default).
"""
import os
import re
import subprocess
import sys

LAYOUT = "docs/maintainers/layout.md"
SOURCE_TARBALL_FILES = "mk/dist/files"
# A path written inside a line's text: a top-level name, then a '/'.
INLINE = re.compile(r"(?<![\w./-])(?:\.ci|mk|tools|docs|include|examples|Benchmarks|Sources|Tests|pkgconfig)/[\w.*/-]*[\w*]")


def tracked_files():
    if os.path.isfile(SOURCE_TARBALL_FILES):
        with open(SOURCE_TARBALL_FILES, encoding="utf-8") as handle:
            listing = handle.read()
    else:
        listing = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout
    return [f for f in listing.split("\n") if f]


def named_paths(text):
    """(line number, path, first column) for each path the code block names."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("```"))
    named = []
    parent = ""
    for number in range(start + 2, len(lines) + 1):
        line = lines[number - 1]
        if line.startswith("```"):
            break
        first = re.match(r"\s*([^\s,]+(?:, [^\s,]+)*)", line)
        column = first.group(1) if first else ""
        if line and not line[0].isspace():
            for path in column.split(", "):
                named.append((number, path.rstrip("/"), True))
            parent = column.split(", ")[0].rstrip("/")
        elif re.match(r"  \S", line) and column and " " not in column:
            named.append((number, f"{parent}/{column.rstrip('/')}", False))
        rest = line.strip()[len(column):] if column and not line[0].isspace() else line
        for match in INLINE.finditer(rest):
            named.append((number, match.group(0).rstrip("/"), False))
    return named


def main():
    layout = sys.argv[1] if len(sys.argv) > 1 else LAYOUT
    files = tracked_files()
    folders = {os.path.dirname(f) for f in files} - {""}
    for folder in list(folders):
        while folder:
            folders.add(folder)
            folder = os.path.dirname(folder)
    with open(layout, encoding="utf-8") as handle:
        named = named_paths(handle.read())
    problems = []
    for number, path, _ in named:
        if "*" not in path and path not in folders and path not in files:
            problems.append(f"{layout}:{number}: names {path}, which the tree does not have")
    names = {path for _, path, _ in named}
    first_column = [path for _, path, first in named if first]
    required = sorted({f for f in folders if f.count("/") == 0}
                      | {f for f in folders if f.count("/") == 1 and f.split("/")[0] in ("Tests", "tools")}
                      | {f for f in files if re.fullmatch(r"mk/[^/]+\.mk", f)})
    for path in required:
        if path not in names and not (path in folders and any(p.startswith(path + "/") for p in first_column)):
            problems.append(f"{layout}: does not name {path}{'/' if path in folders else ''}, which the tree has")
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{layout}: names {len(required)} folders and make files the tree has (of {len(names)} paths), none gone")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
