"""The release folder's manifest: every artifact with its size and SHA-256.

    python3 tools/packaging/manifest.py write DIR
    python3 tools/packaging/manifest.py check DIR

`write` lists every file below DIR (its folders too: python/, debug/) in
two files at DIR's top, sorted by path:

- SHA256SUMS, in the format of coreutils' sha256sum (`HASH  PATH`), so
  that a user checks a download with `sha256sum -c --ignore-missing
  SHA256SUMS`, as with Debian's and most projects' releases;
- manifest.json, the same list for tools: `{"artifacts": [{"path": ...,
  "size": bytes, "sha256": ...}, ...]}`.

`check` fails, naming each, when a file of DIR is not listed, a listed file
is missing, or a file's size or hash is not the listed one, in either
list. Standard library only (make dist runs it on a machine with no venv).
"""

import hashlib
import json
import os
import sys

SUMS = "SHA256SUMS"
MANIFEST = "manifest.json"


def artifacts(folder):
    """Every file below `folder` but the two lists, by its path there
    ('/'-separated), sorted; each with its size and SHA-256."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in files:
            path = os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/")
            if path in (SUMS, MANIFEST):
                continue
            digest = hashlib.sha256()
            with open(os.path.join(root, name), "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
            found.append({"path": path, "size": os.path.getsize(os.path.join(root, name)),
                          "sha256": digest.hexdigest()})
    return sorted(found, key=lambda a: a["path"])


def write(folder):
    listed = artifacts(folder)
    with open(os.path.join(folder, SUMS), "w") as f:
        for a in listed:
            f.write("%s  %s\n" % (a["sha256"], a["path"]))
    with open(os.path.join(folder, MANIFEST), "w") as f:
        json.dump({"artifacts": listed}, f, indent=1)
        f.write("\n")
    print("%s, %s: %d artifacts, %d bytes" % (SUMS, MANIFEST, len(listed), sum(a["size"] for a in listed)))


def read_sums(folder):
    listed = {}
    with open(os.path.join(folder, SUMS)) as f:
        for number, line in enumerate(f, 1):
            digest, sep, path = line.rstrip("\n").partition("  ")
            if not sep or len(digest) != 64:
                raise ValueError("%s line %d is not `HASH  PATH`: %r" % (SUMS, number, line))
            listed[path] = {"sha256": digest}
    return listed


def check(folder):
    """The problems of `folder`'s lists against its files: a list of
    sentences, empty when both lists are true."""
    problems = []
    actual = {a["path"]: a for a in artifacts(folder)}
    try:
        sums = read_sums(folder)
        with open(os.path.join(folder, MANIFEST)) as f:
            manifest = {a["path"]: a for a in json.load(f)["artifacts"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        return ["cannot read the lists in %s: %s (make dist writes them)" % (folder, error)]
    for name, listed in ((SUMS, sums), (MANIFEST, manifest)):
        for path in sorted(set(actual) - set(listed)):
            problems.append("%s does not list %s" % (name, path))
        for path in sorted(set(listed) - set(actual)):
            problems.append("%s lists %s, which is not in the folder" % (name, path))
        for path in sorted(set(listed) & set(actual)):
            for key in ("size", "sha256"):
                if key in listed[path] and listed[path][key] != actual[path][key]:
                    problems.append("%s: %s's %s is %s, the file's %s" % (name, path, key, listed[path][key], actual[path][key]))
    return problems


def main(argv):
    if len(argv) != 3 or argv[1] not in ("write", "check") or not os.path.isdir(argv[2]):
        sys.exit("usage: manifest.py write|check DIR (a folder of release artifacts)")
    if argv[1] == "write":
        write(argv[2])
        return 0
    problems = check(argv[2])
    for problem in problems:
        print("manifest: " + problem, file=sys.stderr)
    if problems:
        return 1
    print("manifest: %d artifacts of %s match %s and %s" % (len(artifacts(argv[2])), argv[2], SUMS, MANIFEST))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
