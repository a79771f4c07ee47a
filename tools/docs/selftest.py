#!/usr/bin/env python3
"""Checks of the site's own scripts (make test-docs): each check of
site.py and each rule of cpp_comments.py is shown to catch what it is for.

- a picture shows the recorded events (the values the subscriber got), not
  the case's expectations, which the recording does not carry;
- the link check reports a missing file, a missing anchor and a missing
  image, and accepts a link from the site's root;
- the C++ comment filter documents a comment on a declaration, leaves a
  banner and a comment before a blank line alone, escapes #word, and keeps
  the line count.

Usage: selftest.py (standard library only).
"""

import importlib.util
import os
import sys
import tempfile
from types import ModuleType

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name: str) -> ModuleType:
    """A script of this folder as a module (site.py's name is the standard
    library's site, already imported)."""
    spec = importlib.util.spec_from_file_location(f"docs_{name}", os.path.join(HERE, f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cpp_comments = load("cpp_comments")
site_module = load("site")

failures = []


def expect(condition: bool, what: str) -> None:
    if not condition:
        failures.append(what)


def main() -> int:
    case = {
        "name": "t", "location": "t.marbles:1", "operators": ["map times:10"],
        "inputs": [{"name": "a", "hot": False, "events": [{"t": 1, "kind": "next", "value": "1"},
                                                            {"t": 2, "kind": "completed"}],
                    "subscriptions": [{"from": 0, "to": 2}]}],
        "subscribers": [{"from": 0, "to": None, "events": [{"t": 1, "kind": "next", "value": "77"},
                                                            {"t": 3, "kind": "error"}]}],
    }
    svg = site_module.case_svg(case)
    expect(">77</text>" in svg, "the picture shows the recorded value 77")
    expect("<title>error</title>" in svg, "the picture shows the recorded error")
    expect("map times:10" in svg, "the picture names the operators")

    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "sub"))
        with open(os.path.join(root, "sub", "b.html"), "w") as f:
            f.write("<p id='here'>b</p>")
        with open(os.path.join(root, "a.html"), "w") as f:
            f.write("<a href='sub/b.html#here'>ok</a><a href='/sub/b.html'>root</a><a href='https://x.org/'>ext</a>"
                    "<a href='nosuch.html'>gone</a><a href='sub/b.html#nowhere'>anchor</a><img src='no.svg'>")
        problems = site_module.check_links(root)
        expect(any("nosuch.html: no such file" in p for p in problems), "a missing file is reported")
        expect(any("#nowhere: no such anchor" in p for p in problems), "a missing anchor is reported")
        expect(any("no.svg: no such file" in p for p in problems), "a missing image is reported")
        expect(len(problems) == 3, f"only those three are reported: {problems}")

    text = ("/*\n * the file\n */\n/* ---- */\n/* Banner */\n/* ---- */\n\n/* A class; see #error. */\nclass c {\n"
            "    /* kept apart */\n\n    int x;\n};\n")
    out = cpp_comments.filter_text(text)
    lines = out.split("\n")
    expect(len(lines) == len(text.split("\n")), "the line count is kept")
    expect(lines[0] == "/** @file", f"the file's comment documents the file: {lines[0]!r}")
    expect(lines[3] == "/* ---- */" and lines[4] == "/* Banner */", "banners stay plain")
    expect(lines[7] == "/** A class; see \\#error. */", f"a comment on a declaration is documentation: {lines[7]!r}")
    expect(lines[9] == "    /* kept apart */", "a comment before a blank line stays plain")

    for failure in failures:
        print(f"selftest: FAILED: {failure}", file=sys.stderr)
    if failures:
        return 1
    print("selftest: the site's scripts catch what they are for")
    return 0


if __name__ == "__main__":
    sys.exit(main())
