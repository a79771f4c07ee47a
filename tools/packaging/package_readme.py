"""A README as a package ships it: its links lead only to what the package
holds or to an absolute address.

    python3 tools/packaging/package_readme.py render SRC DEST ROOT
    python3 tools/packaging/package_readme.py check FILE ROOT [--as PATH]

The repository's README.md links to the guides (`docs/c.md`), the
maintainers' pages and source files, which a binary package does not hold:
in the .debs and the binary tarball those links would lead nowhere (issue
53). `render` writes SRC to DEST with every relative link whose file is not
in the package turned into its text followed by its path in code ("the C
guide (`docs/c.md`)", with a line after the title saying that such a path
is a file of the source tarball); a link to a file the package holds, an anchor
(`#two-commands`) and an absolute `https://` address stay. ROOT is the
package's tree as installed (DEST's folder inside it is where the links are
resolved from); SRC's links are read relative to SRC's folder in the
checkout. Links inside code blocks and inline code are not links.

`check` fails, naming each, on a link of FILE (read as if it were at PATH
below ROOT, default FILE itself) that is relative and leads to nothing
below ROOT, or that names an address that is not `https://`: the check of
each package's README (make test-dist-deb, test-dist-tarball,
test-dist-wheel). Standard library only.
"""

import os
import re
import sys

# An inline link or image: [text](target) or ![alt](target), the target
# without spaces (an optional "title" after it is kept as it is).
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]*)((?:\s+\"[^\"]*\")?)\)")
NOTE = ("*This README comes from the source tree: a path in code after a name, as in \"the C guide\n"
        "(`docs/c.md`)\", is a file of the source tarball, `signalkit-%s.tar.gz`.*")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`\n]*`")


def code_spans(text):
    """(start, end) of each fenced code block and each inline code span of
    `text`: what is not prose."""
    spans, position, in_fence, fence_start = [], 0, False, 0
    for line in text.splitlines(keepends=True):
        if FENCE.match(line):
            if in_fence:
                spans.append((fence_start, position + len(line)))
            else:
                fence_start = position
            in_fence = not in_fence
        elif not in_fence:
            for code in INLINE_CODE.finditer(line):
                spans.append((position + code.start(), position + code.end()))
        position += len(line)
    return spans


def links(text):
    """Every link of `text`'s prose (its words may run over a line break)."""
    code = code_spans(text)
    for match in LINK.finditer(text):
        if not any(start <= match.start() < end for start, end in code):  # its words may hold code
            yield match


def is_relative(target):
    return target != "" and not target.startswith("#") and not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target)


def render(source, dest, root):
    text = open(source, encoding="utf-8").read()
    source_dir = os.path.dirname(os.path.abspath(source))
    checkout = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    dest_dir = os.path.dirname(os.path.abspath(dest))
    out, cursor, dropped = [], 0, 0
    for match in links(text):
        bang, label, target, title = match.groups()
        if not is_relative(target):
            continue
        path = target.split("#", 1)[0]
        resolved = os.path.realpath(os.path.join(dest_dir, path))
        if os.path.commonpath([resolved, os.path.realpath(root)]) == os.path.realpath(root) and os.path.exists(resolved):
            continue
        where = os.path.relpath(os.path.normpath(os.path.join(source_dir, path)), checkout)
        if bang:
            raise SystemExit("package_readme: %s shows the image %s, which the package does not hold" % (source, target))
        out.append(text[cursor:match.start()])
        if label.strip("`") in (where, path, os.path.basename(path)):
            out.append("`%s`" % where)
        else:
            out.append("%s (`%s`)" % (label, where))
        cursor = match.end()
        dropped += 1
    out.append(text[cursor:])
    text = "".join(out)
    if dropped:
        # After the title: what the paths in code are.
        version = open(os.path.join(checkout, "VERSION"), encoding="utf-8").read().strip()
        title, sep, rest = text.partition("\n\n")
        text = title + sep + NOTE % version + "\n\n" + rest
    os.makedirs(dest_dir, exist_ok=True)
    with open(dest, "w", encoding="utf-8") as f:
        f.write(text)
    print("package_readme: %s -> %s, %d links to files the package does not hold written as text" % (source, dest, dropped))


def check(path, root, placed=None):
    """The problems of the README at `path` (read as if at `placed` below
    `root`): a list of sentences."""
    text = open(path, encoding="utf-8").read()
    where = os.path.dirname(os.path.join(root, placed if placed else os.path.relpath(path, root)))
    problems = []
    for match in links(text):
        target = match.group(3)
        if target == "" or target.startswith("#"):
            if target == "":
                problems.append("%s: the link [%s]() leads nowhere" % (path, match.group(2)))
            continue
        if not is_relative(target):
            if not target.startswith("https://"):
                problems.append("%s: %s is not an https:// address" % (path, target))
            continue
        resolved = os.path.realpath(os.path.join(where, target.split("#", 1)[0]))
        inside = os.path.commonpath([resolved, os.path.realpath(root)]) == os.path.realpath(root)
        if not inside or not os.path.exists(resolved):
            problems.append("%s: the link to %s leads to nothing the package holds" % (path, target))
    return problems


def main(argv):
    if len(argv) == 5 and argv[1] == "render":
        render(argv[2], argv[3], argv[4])
        return 0
    if len(argv) in (4, 6) and argv[1] == "check" and (len(argv) == 4 or argv[4] == "--as"):
        problems = check(argv[2], argv[3], argv[5] if len(argv) == 6 else None)
        for problem in problems:
            print("package_readme: " + problem, file=sys.stderr)
        if not problems:
            print("package_readme: every link of %s leads to what the package holds or to an https:// address" % argv[2])
        return 1 if problems else 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
