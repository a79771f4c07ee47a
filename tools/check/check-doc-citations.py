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
      (Swift, C, C++, Python, Rust, make or shell), so a type or function that
      no longer exists anywhere is reported.

Paths under a build folder (`.build-c/...`), installed paths (`share/...`)
and paths with an upper-case placeholder (`examples/c/NAME.expected`) are
not the tree's and are not checked.

Bare file names outside backticks (`Signal_Take.swift` written plainly) are
checked as paths too, with their folders when they have some
(`Signal/Subscriber.swift` in a diagram: beside the document or from the
root, as a backticked path). Tokens inside fenced code blocks are checked as well:
they are the diagrams of the code. Exit status 1 when anything is missing,
with one line per citation naming the document, the line and what is gone.

Usage: check-doc-citations.py DOCUMENT... (run from the repository's root);
check-doc-citations.py --selftest (the check on a made-up tree).
"""
import os
import re
import subprocess
import sys
import tempfile

SOURCE = re.compile(r"\.(swift|c|h|hpp|cpp|py|pyi|mk|sh|in|rs)$|(^|/)Makefile$")
PATH = re.compile(r"[\w.+-]+(/[\w.+-]+)+/?|[\w.+-]+\.(swift|c|h|hpp|cpp|py|pyi|md|mk|sh|json|txt|supp|map)")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\([^()]*\))?")
# Paths the build or an install makes, not the tree: a build folder, an
# installed file, and paths with a placeholder (`examples/c/NAME.expected`).
BUILT = (".build", "share/", "/usr/", "$")
PLACEHOLDER = re.compile(r"(^|[/.-])[A-Z][A-Z0-9_]{2,}([/.-]|$)")
# A plain file name, with its folders when it has some
# (`Signal/SubscriberDisposable.swift` in a diagram is checked as that path,
# not skipped for the '/' before the name); it starts where a word does.
BARE_FILE = re.compile(r"(?<![\w/`.-])(?:[\w.+-]+/)*[\w+-]+\.(swift|c|h|hpp|py|mk)\b(?![`\w/])")


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


def problems_in(documents):
    """One line per citation of DOCUMENTS that names what the tree lacks."""
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
    for document in documents:
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
    return problems


def selftest():
    """The check on a made-up tree (a source tarball's, so no git): a plain
    path with folders is checked as a path, beside its document or from the
    root, and a wrong one is reported (before the fix, a name after a '/'
    was skipped)."""
    document = "Sources/Core/NOTES.md"
    text = ("```\n"
            "  Subscriber     Signal/Subscriber.swift\n"
            "  Disposable     Signal/_Disposable.swift\n"
            "```\n"
            "Also Sources/Core/Signal/Subscriber.swift and Sources/Core/Signal/Gone.swift.\n"
            "A URL's file is not the tree's: https://example.org/a/Gone.swift\n")
    expected = [f"{document}:3: names the file Signal/_Disposable.swift, which the tree does not have",
                f"{document}:5: names the file Sources/Core/Signal/Gone.swift, which the tree does not have"]
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "Sources/Core/Signal"))
        os.makedirs(os.path.join(root, os.path.dirname(SOURCE_TARBALL_FILES)))
        with open(os.path.join(root, SOURCE_TARBALL_FILES), "w", encoding="utf-8") as handle:
            handle.write(f"Sources/Core/Signal/Subscriber.swift\n{document}\n")
        with open(os.path.join(root, "Sources/Core/Signal/Subscriber.swift"), "w", encoding="utf-8") as handle:
            handle.write("final class Subscriber {}\n")
        with open(os.path.join(root, document), "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chdir(root)
        try:
            found = problems_in([document])
        finally:
            os.chdir(here)
    if found != expected:
        print("check-doc-citations.py --selftest: expected\n  " + "\n  ".join(expected)
              + "\nfound\n  " + "\n  ".join(found or ["nothing"]), file=sys.stderr)
        return 1
    print("check-doc-citations.py --selftest: a wrong path with folders is reported, a right one is not")
    return 0


def main():
    if sys.argv[1:] == ["--selftest"]:
        return selftest()
    problems = problems_in(sys.argv[1:])
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{len(sys.argv) - 1} documents: every cited file and name exists")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
