#!/usr/bin/env python3
"""Makes a Doxygen tag file's paths relative to the tree it was built in:
Doxygen 1.9 writes each file's folder as an absolute path
(`<path>/home/me/SignalKit/include/</path>`; STRIP_FROM_PATH does not reach
the tag file), so that the same tree built in two folders gave two tag
files, and the site and its packages carried the build checkout's path
(issue 80). Each `<path>ROOT/...</path>` becomes `<path>...</path>`; a path
still absolute after that (a file outside ROOT) fails, naming it.

Usage: relative_tags.py TAGFILE ROOT   (rewrites TAGFILE in place)
Standard library only.
"""

from __future__ import annotations

import os
import re
import sys


def relative(text: str, root: str) -> tuple[str, list[str]]:
    """`text` with ROOT's paths made relative, and the paths still absolute."""
    prefix = os.path.abspath(root).rstrip("/") + "/"

    def path(match: re.Match[str]) -> str:
        value = match.group(1)
        return f"<path>{value[len(prefix):]}</path>" if value.startswith(prefix) else match.group(0)
    made = re.sub(r"<path>([^<]*)</path>", path, text)
    return made, re.findall(r"<path>(/[^<]*)</path>", made)


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: relative_tags.py TAGFILE ROOT", file=sys.stderr)
        return 2
    tagfile, root = sys.argv[1], sys.argv[2]
    with open(tagfile, encoding="utf-8") as f:
        made, absolute = relative(f.read(), root)
    if absolute:
        print(f"{tagfile}: paths outside {root}: {', '.join(sorted(set(absolute)))}", file=sys.stderr)
        return 1
    with open(tagfile, "w", encoding="utf-8") as f:
        f.write(made)
    return 0


if __name__ == "__main__":
    sys.exit(main())
