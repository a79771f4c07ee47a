"""Checks the Python package's sdist without its native build (minutes of
Swift): `python tools/packaging/check_python_sdist.py SDIST CHECKOUT` (make test-python).

A wheel built from the sdist (what `python -m build` does after making it)
runs `make python-native` in the sdist's folder `native`, the copy of the
SignalKit tree. So the sdist must hold:
- the package (its Python files, py.typed, the stub, and every file git
  tracks in the extension's source folder, EXTENSION_SOURCES of the
  backend), pyproject.toml, README.md, the backend and PKG-INFO, and the
  tree's LICENSE and CHANGELOG.md at its top;
- every file git tracks under the tree entries the backend copies
  (TREE_ENTRIES of Sources/python/_build/pysignalkit_build.py), but the
  Python package itself, and nothing else there;
- a tree whose Makefile finds every prerequisite of python-native (make -n
  names a missing one) and whose Package.swift SwiftPM reads (swift package
  describe).
Exits non-zero, naming what is wrong, otherwise prints one line.
"""

import os
import subprocess
import sys
import tarfile
import tempfile

PACKAGE_FILES = ("pyproject.toml", "README.md", "PKG-INFO", "LICENSE", "CHANGELOG.md", "_build/pysignalkit_build.py",
                 "pysignalkit/__init__.py", "pysignalkit/_core.py", "pysignalkit/_signal.py", "pysignalkit/_signal_core.py",
                 "pysignalkit/_operators/__init__.py", "pysignalkit/_asyncio.py",
                 "pysignalkit/testing.py", "pysignalkit/_speedups.pyi", "pysignalkit/py.typed")


def tracked(checkout, entries, package=False):
    """The files git tracks under `entries` (None: not a git checkout), but
    the Python package's (only the package's when `package`)."""
    try:
        listing = subprocess.run(["git", "-C", checkout, "ls-files", "-z", "--", *entries], check=True,
                                 capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return {name for name in listing.decode().split("\0")
            if name and name.startswith("Sources/python/") == package}


def main(sdist, checkout):
    sys.path.insert(0, os.path.join(checkout, "Sources", "python", "_build"))
    import pysignalkit_build  # the backend: what the sdist carries

    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        with tarfile.open(sdist) as archive:
            members = archive.getmembers()
            archive.extractall(scratch)  # our own archive, just made
        names = [member.name for member in members]
        roots = {name.split("/", 1)[0] for name in names}
        if len(roots) != 1:
            sys.exit(f"check_python_sdist: {sdist}: one top folder expected, not {sorted(roots)}")
        root = roots.pop()
        files = {m.name.split("/", 1)[1] for m in members if "/" in m.name and m.isfile()}
        problems += [f"missing {name}" for name in PACKAGE_FILES if name not in files]
        sources = tracked(checkout, [f"Sources/python/pysignalkit/{pysignalkit_build.EXTENSION_SOURCES}"], package=True)
        if sources is not None:
            if not sources:
                problems.append(f"git tracks no file in Sources/python/pysignalkit/{pysignalkit_build.EXTENSION_SOURCES}")
            problems += [f"missing {name}" for name in sorted(name[len("Sources/python/"):] for name in sources)
                         if name not in files]
        native = {name[len("native/"):] for name in files if name.startswith("native/")}
        expected = tracked(checkout, pysignalkit_build.TREE_ENTRIES)
        if expected is not None:
            problems += [f"missing native/{name}" for name in sorted(expected - native)]
            problems += [f"not tracked by git: native/{name}" for name in sorted(native - expected)]
        tree = os.path.join(scratch, root, "native")
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        for command in (["make", "-n", "-C", tree, "python-native"],
                        ["swift", "package", "--package-path", tree, "describe"]):
            result = subprocess.run(command, env=env, capture_output=True, text=True)
            if result.returncode != 0:
                problems.append(f"{' '.join(command[:3])} fails in the sdist's tree:\n{result.stderr.strip()}")
    if problems:
        sys.exit(f"check_python_sdist: {os.path.basename(sdist)}:\n  " + "\n  ".join(problems))
    listed = "every tracked file of the tree" if expected is not None else "(no git: listing not compared)"
    print(f"check_python_sdist: {os.path.basename(sdist)}: {len(files)} files, {listed}; "
          f"make -n python-native and swift package describe pass in it")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: check_python_sdist.py SDIST CHECKOUT")
    main(sys.argv[1], sys.argv[2])
