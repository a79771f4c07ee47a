#!/usr/bin/env python3
"""Checks that every place stating SignalKit's version agrees with VERSION.

VERSION (at the repository's root, MAJOR.MINOR.PATCH) is the one place the
version is written. The build makes the sonames' file names, the .pc files,
the CMake package and the Python package's version from it; the places that
cannot be made from it at build time are checked here:

  include/signalkit.h                   SK_VERSION_MAJOR/MINOR/PATCH
  Tests/abi/version                     the version the ABI was recorded at:
                                        not above VERSION, same major
  CHANGELOG.md                          an Unreleased section, and no release
                                        heading above VERSION
  README.md, docs/*.md, docs/*/*.md      every `from: "X.Y.Z"` of a Swift
                                        dependency line
  Sources/rust/rsignalkit-sys/Cargo.toml, Sources/rust/rsignalkit/Cargo.toml
                                        the crates' versions, and the second's
                                        requirement on the first

and, when a staged install is given (check-version.py STAGE), what the build
made: the .pc files' Version and the CMake package's PACKAGE_VERSION.

A mismatch names both places. Exit status 0 when all agree, 1 otherwise.
Usage: check-version.py [STAGE_PREFIX] (run from the repository's root).
"""
import glob
import os
import re
import sys

# The raw crate's manifest, then the safe crate's (which depends on it).
RUST_MANIFESTS = ["Sources/rust/rsignalkit-sys/Cargo.toml", "Sources/rust/rsignalkit/Cargo.toml"]


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def key(version):
    return tuple(int(part) for part in version.split("."))


def main():
    stage = sys.argv[1] if len(sys.argv) > 1 else None
    problems = []
    text = read("VERSION")
    version = text.strip()
    if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", version) or text != version + "\n":
        print(f"VERSION: holds {text!r}; it must be one line MAJOR.MINOR.PATCH, such as 0.4.0", file=sys.stderr)
        return 1

    def disagree(place, says):
        problems.append(f"{place} says {says}, but VERSION says {version}: make them agree "
                        "(docs/maintainers/releasing.md, \"Releasing\", lists what to change with the version)")

    header = read("include/signalkit.h")
    parts = [re.search(rf"^#define SK_VERSION_{name} ([0-9]+)$", header, re.M) for name in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        problems.append("include/signalkit.h: no #define SK_VERSION_MAJOR/MINOR/PATCH lines")
    elif ".".join(part.group(1) for part in parts) != version:
        disagree("include/signalkit.h (SK_VERSION_MAJOR/MINOR/PATCH)", ".".join(part.group(1) for part in parts))

    # Both crates are released with the library, at its version; so is the
    # safe crate's requirement on the raw one.
    for manifest in RUST_MANIFESTS:
        crate = re.search(r'(?m)^version = "([^"]+)"$', read(manifest))
        if not crate:
            problems.append(f"{manifest}: no version = \"X.Y.Z\" line")
        elif crate.group(1) != version:
            disagree(f"{manifest} (the crate's version)", crate.group(1))
    requirement = re.search(r'(?m)^rsignalkit-sys = \{.*version = "([^"]+)"', read(RUST_MANIFESTS[1]))
    if not requirement:
        problems.append(f"{RUST_MANIFESTS[1]}: no rsignalkit-sys = {{ ..., version = \"X.Y.Z\" }} dependency")
    elif requirement.group(1) != version:
        disagree(f"{RUST_MANIFESTS[1]} (its dependency on rsignalkit-sys)", requirement.group(1))

    recorded = read("Tests/abi/version").strip()
    if key(recorded) > key(version) or key(recorded)[0] != key(version)[0]:
        problems.append(f"Tests/abi/version says the ABI was recorded at {recorded}, which VERSION ({version}) "
                        "is below or of another major version: raise VERSION, or record the ABI again "
                        "(make abi-update)")

    changelog = read("CHANGELOG.md")
    if not re.search(r"^## \[Unreleased\]$", changelog, re.M):
        problems.append("CHANGELOG.md: no '## [Unreleased]' section for the changes to come")
    for released in re.findall(r"^## \[([0-9]+\.[0-9]+\.[0-9]+)\]", changelog, re.M):
        if key(released) > key(version):
            disagree(f"CHANGELOG.md (a release heading [{released}])", f"a release {released} exists")

    documents = ["README.md"] + sorted(glob.glob("docs/*.md") + glob.glob("docs/*/*.md"))
    for document in documents:
        for requirement in re.findall(r'from: "([0-9][^"]*)"', read(document)):
            if requirement != version:
                disagree(f'{document} (a Swift dependency line, from: "{requirement}")', requirement)

    if stage:
        for name in ("signalkit", "signalkit-ffi"):
            path = os.path.join(stage, "lib", "pkgconfig", f"{name}.pc")
            found = re.search(r"^Version: (\S+)$", read(path), re.M)
            if not found or found.group(1) != version:
                disagree(path, found.group(1) if found else "no Version")
        path = os.path.join(stage, "lib", "cmake", "SignalKit", "SignalKitConfigVersion.cmake")
        found = re.search(r'set\(PACKAGE_VERSION "([^"]+)"\)', read(path))
        if not found or found.group(1) != version:
            disagree(path, found.group(1) if found else "no PACKAGE_VERSION")

    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if not problems:
        print(f"version {version}: VERSION, signalkit.h (and so sk_version_number/string), the ABI record, CHANGELOG.md and "
              f"the Rust crates, the Swift dependency lines of README.md and docs/ agree{'; so does the staged install' if stage else ''}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
