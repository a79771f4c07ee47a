#!/usr/bin/env python3
"""Checks that the maintainers' documents cite only files and names that exist.

Documents that describe the code (INTERNALS.md, Tests/README.md, ...) go
stale when a file is renamed or a type removed. For each document named on
the command line, every `backticked` token is checked:

  a path (has a '/' or ends in a source or document extension)
      must be a file or folder git tracks (relative to the repository's
      root or to the document's folder), or a bare file name that some
      tracked file has (in an unpacked source tarball, which has no git:
      a file it was made from, as listed in mk/dist/files);
  a name (an identifier, optionally dotted, optionally with a call's
  parentheses: `Queue.after`, `_disposeEarly`, `take(until:)`)
      every dotted part must occur as a word in a tracked source file
      (Swift, C, C++, Python, make or shell), so a type or function that
      no longer exists anywhere is reported.

Paths under a build folder (`.build-c/...`), installed paths (`share/...`)
and paths with an upper-case placeholder (`examples/c/NAME.expected`) are
not the tree's and are not checked.

Bare file names outside backticks (`Signal_Take.swift` written plainly) are
checked as paths too. Tokens inside fenced code blocks are checked as well:
they are the diagrams of the code. Exit status 1 when anything is missing,
with one line per citation naming the document, the line and what is gone.

Usage: check-doc-citations.py DOCUMENT... (run from the repository's root).
"""
import os
import re
import subprocess
import sys

SOURCE = re.compile(r"\.(swift|c|h|hpp|cpp|py|pyi|mk|sh|in)$|(^|/)Makefile$")
PATH = re.compile(r"[\w.+-]+(/[\w.+-]+)+/?|[\w.+-]+\.(swift|c|h|hpp|cpp|py|pyi|md|mk|sh|json|txt|supp|map)")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\([^()]*\))?")
# Paths the build or an install makes, not the tree: a build folder, an
# installed file, and paths with a placeholder (`examples/c/NAME.expected`).
BUILT = (".build", "share/", "/usr/", "$")
PLACEHOLDER = re.compile(r"(^|[/.-])[A-Z][A-Z0-9_]{2,}([/.-]|$)")
BARE_FILE = re.compile(r"(?<![\w/`.-])[\w+-]+\.(swift|c|h|hpp|py|mk)\b(?![`\w])")


# In an unpacked source tarball, which has no git, the list of the files it
# was made from (make dist-source writes it; a checkout has no such file).
SOURCE_TARBALL_FILES = "mk/dist/files"


def tracked_files():
    """The files git tracks, or those the source tarball was made from."""
    if os.path.isfile(SOURCE_TARBALL_FILES):
        with open(SOURCE_TARBALL_FILES, encoding="utf-8") as handle:
            listing = handle.read()
    else:
        listing = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout
    return [f for f in listing.split("\n") if f]


def main():
    files = tracked_files()
    tracked = set(files)
    folders = set()
    for path in files:
        folder = os.path.dirname(path)
        while folder:
            folders.add(folder)
            folder = os.path.dirname(folder)
    basenames = {os.path.basename(path) for path in files}
    words = set()
    for path in files:
        if SOURCE.search(path) and os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as handle:
                words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", handle.read()))

    def path_exists(document, path):
        path = path.rstrip("/")
        if path.startswith(BUILT) or PLACEHOLDER.search(path):
            return True
        beside = os.path.normpath(os.path.join(os.path.dirname(document), path))
        return (path in tracked or path in folders or beside in tracked or beside in folders
                or ("/" not in path and path in basenames))

    problems = []
    for document in sys.argv[1:]:
        with open(document, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        for number, line in enumerate(lines, 1):
            for token in re.findall(r"`([^`]+)`", line):
                token = token.strip()
                if PATH.fullmatch(token) and not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", token):
                    if not path_exists(document, token):
                        problems.append(f"{document}:{number}: cites the path `{token}`, which the tree does not have")
                elif NAME.fullmatch(token):
                    name = re.sub(r"\(.*\)$", "", token)
                    missing = [part for part in name.split(".") if part not in words]
                    if missing:
                        problems.append(f"{document}:{number}: cites `{token}`, but no source file has "
                                        f"{', '.join(missing)}")
            for match in BARE_FILE.finditer(line):
                if not path_exists(document, match.group(0)):
                    problems.append(f"{document}:{number}: names the file {match.group(0)}, which the tree does not have")
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{len(sys.argv) - 1} documents: every cited file and name exists")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
