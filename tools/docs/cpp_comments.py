#!/usr/bin/env python3
"""Doxygen's INPUT_FILTER for the C++ headers (tools/docs/Doxyfile-cpp).

signalkit.hpp and signalkit_test.hpp write their comments as plain
``/* ... */``, which Doxygen does not read as documentation. This filter
turns into ``/** ... */`` each comment block that is directly followed by a
declaration (the next line is code, not blank, not a comment, not a
preprocessor line), so that Doxygen sees the header's own words without the
header changing; the first comment of the file becomes the file's
documentation (``@file``; signalkit.hpp's, the C++ layer's contract, is
also the reference's front page, ``@mainpage``); a ``#word`` in their text is escaped, not a
link for Doxygen to resolve, except in an indented code block, shown as written. Section banners (``/* ---- */``) and comments
followed by a blank line stay plain. The line count never changes, so
Doxygen's warnings point at the header's real lines.

Usage: cpp_comments.py FILE (prints the filtered text).
"""

import re
import sys


def is_code(line: str) -> bool:
    """Whether a line is a declaration's first line."""
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith(("/*", "//", "#", "*", "}"))


def filter_text(text: str, main_page: bool = False) -> str:
    lines = text.split("\n")
    out = list(lines)
    index = 0
    first = True
    while index < len(lines):
        line = lines[index]
        match = re.match(r"^(\s*)/\*(?!\*)(.*)$", line)
        if not match:
            index += 1
            continue
        end = index
        while "*/" not in lines[end][lines[end].find("/*") + 2 if end == index else 0:]:
            end += 1
            if end >= len(lines):
                return "\n".join(out)
        banner = re.match(r"^\s*/\* ?-+ ?\*/\s*$", line) is not None
        following = lines[end + 1] if end + 1 < len(lines) else ""
        indent, rest = match.group(1), match.group(2)
        documented = False
        if first and index == 0:
            # The file's own comment: its documentation; signalkit.hpp's,
            # the C++ layer's contract, is also the reference's front page.
            lead = "/** @mainpage The C++ interface: signalkit.hpp" if main_page else "/** @file"
            out[index] = indent + lead + (" " + rest.strip() if rest.strip() else "")
            documented = True
        elif not banner and is_code(following) and lines[end].rstrip().endswith("*/"):
            out[index] = indent + "/**" + rest
            documented = True
        if documented:
            # "#error" in the text is not a link for Doxygen to resolve;
            # a line of an indented code block (" *     #include ...") is
            # shown as written, so it keeps its "#".
            for n in range(index, end + 1):
                if not re.match(r"^\s*\*? {5,}\S", out[n]):
                    out[n] = re.sub(r"(?<=\s)#(?=[A-Za-z_])", r"\\#", out[n])
        first = False
        index = end + 1
    return "\n".join(out)


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        sys.stdout.write(filter_text(f.read(), sys.argv[1].endswith("signalkit.hpp")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
