#!/usr/bin/env python3
"""Checks that a shipped library is stripped and that its debug information
is kept (make test-dist-deb, make test-dist-tarball).

  check-debug.py LIBRARY DEBUG_FILE

LIBRARY must hold no .debug_* section, and a .gnu_debuglink whose CRC is
DEBUG_FILE's (what gdb checks before it uses a file it found by the link's
name); DEBUG_FILE must hold the debug information (.debug_info) and the
same build ID as LIBRARY (how gdb finds it under /usr/lib/debug/.build-id),
and no .debug_names (the linker's concatenation of the objects' indexes,
which gdb refuses with a warning at every load). Where gdb is installed, it
loads LIBRARY (finding DEBUG_FILE beside it by the link) and must say no
warning. Exit status 0 when all hold, 1 naming what does not.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib


def sections(path):
    """The names of PATH's sections."""
    out = subprocess.run(["readelf", "-SW", path], check=True, capture_output=True, text=True).stdout
    return set(re.findall(r"^\s*\[\s*\d+\]\s+(\S+)", out, re.M))


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], check=True, capture_output=True, text=True).stdout
    found = re.search(r"Build ID: ([0-9a-f]+)", out)
    return found.group(1) if found else None


def main():
    library, debug = sys.argv[1], sys.argv[2]
    problems = []
    names = sections(library)
    left = sorted(name for name in names if name.startswith(".debug_"))
    if left:
        problems.append(f"{library} is not stripped: it holds {', '.join(left)}")
    if ".gnu_debuglink" not in names:
        problems.append(f"{library} has no .gnu_debuglink")
    else:
        with tempfile.TemporaryDirectory() as scratch:
            dump = os.path.join(scratch, "link")
            subprocess.run(["objcopy", "--dump-section", ".gnu_debuglink=" + dump, library, os.path.join(scratch, "x")],
                           check=True)
            with open(dump, "rb") as handle:
                link = handle.read()
        crc = int.from_bytes(link[-4:], "little")
        with open(debug, "rb") as handle:
            actual = zlib.crc32(handle.read())
        if crc != actual:
            problems.append(f"{library}'s .gnu_debuglink CRC {crc:08x} is not {debug}'s ({actual:08x})")
    debug_sections = sections(debug)
    if ".debug_info" not in debug_sections:
        problems.append(f"{debug} holds no .debug_info")
    if ".debug_names" in debug_sections:
        problems.append(f"{debug} holds a .debug_names, which gdb refuses with a warning at each load")
    if shutil.which("gdb") and os.path.dirname(os.path.abspath(debug)) == os.path.dirname(os.path.abspath(library)):
        said = subprocess.run(["gdb", "-q", "-nx", "-batch", "-ex", "info line sk_pipe_create", library],
                              capture_output=True, text=True, timeout=300)
        warnings = [line for line in (said.stdout + said.stderr).splitlines() if "warning" in line.lower()]
        if warnings:
            problems.append(f"gdb warns loading {library}: {warnings[0]}")
    ids = build_id(library), build_id(debug)
    if ids[0] is None or ids[0] != ids[1]:
        problems.append(f"build IDs differ or are missing: {library} {ids[0]}, {debug} {ids[1]}")
    for problem in problems:
        print("check-debug.py: " + problem, file=sys.stderr)
    if not problems:
        print(f"check-debug.py: {os.path.basename(library)} stripped, its debug information in {debug}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
