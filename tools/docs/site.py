#!/usr/bin/env python3
"""Builds the documentation site's own pages (make docs, mk/docs.mk).

The references are made by their generators (Doxygen for C and C++, pdoc
for Python, DocC for Swift) into SITE/c, SITE/cpp, SITE/python and, when
built, SITE/swift; this script adds what joins them:

- SITE/marbles/CASE.svg: a marble picture of every case of the shared table
  (Tests/marbles), drawn from what the case recorded when it ran (the JSON
  the Swift runner writes with SIGNALKIT_MARBLE_DUMP, MarbleTableTests.swift),
  never from its `out` line (marble_svg.py), and checked as a reader would
  look at it (marble_check.py: a problem fails the site);
- SITE/operators/OP.html: one page per operator of the table, which
  binding has it and its signatures in C, C++, Python, Rust and Swift, read
  from the bindings (tools/docs/declarations.py: a page whose binding
  declares no name its row gives, or whose mark says a binding lacks what
  it calls, fails the build), its examples in the five languages
  (tools/docs/examples.py, which the tests compile and run), its pictures
  and links to its entry in each language's reference (found in Doxygen's
  tag files, pdoc's pages, rustdoc's and DocC's folders, so a link is made
  only to what exists); the entry in the C, C++ and Python references gets
  the operator's first picture;
- SITE/bench.html: the latest benchmark runs, plotted per workload as SVG
  (SITE/bench-*.svg), each under its run's own account (date, machine,
  load): Benchmarks/README.md's interleaved and full runs, and the Python
  guide's run against RxPY;
- SITE/index.html: the index, which also lists the guides that guides.py
  rendered (SITE/guide).

Then it checks the whole site: every internal link and image resolves to a
file (and, for an anchor, to an id in that file); a broken one fails.

Usage: site.py SITE MARBLE_DUMP BENCH_README
Standard library only.
"""

from __future__ import annotations

import argparse
import html
import importlib.util
import json
import os
import re
import struct
import sys
import textwrap
import zlib
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import declarations  # noqa: E402  (tools/docs/declarations.py: each binding's declarations of an operator)
import navigation  # noqa: E402  (tools/docs/navigation.py: the bar and the search)
from marble_svg import FONT, LEGEND, case_svg  # noqa: E402  (tools/docs/marble_svg.py: the marble pictures)
import marble_check  # noqa: E402  (tools/docs/marble_check.py: what a reader would find wrong in one)

# ---------------------------------------------------------------------------
# The operators and their names in each reference
# ---------------------------------------------------------------------------

# The operator table (tools/api/operators.md): each operator's names in every
# language, read by the script that makes what is generated from it.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPERATORS_PY = os.path.join(ROOT, "tools", "api", "operators.py")


def operator_rows() -> dict[str, dict[str, str]]:
    """The table's row of each marble name: its cells, by column."""
    spec = importlib.util.spec_from_file_location("api_operators", OPERATORS_PY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _, _, rows = module.read_table(os.path.join(ROOT, module.TABLE))
    found: dict[str, dict[str, str]] = {}
    for row in rows:
        for name in module.names(row["marble"]):
            found[name.rstrip("*")] = row
    return found


USES_MD = os.path.join(ROOT, "tools", "docs", "operator_uses.md")


def read_uses(path: str = USES_MD) -> dict[str, tuple[str, list[str]]]:
    """tools/docs/operator_uses.md: for each operator (a `## name` section),
    the paragraph of when to use it and the operators its "See also" line
    names."""
    uses: dict[str, tuple[str, list[str]]] = {}
    with open(path, encoding="utf-8") as f:
        sections = re.split(r"^## ", f.read(), flags=re.M)[1:]
    for section in sections:
        name, _, text = section.partition("\n")
        paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n") if p.strip()]
        see = [p for p in paragraphs if p.startswith("See also:")]
        prose = [p for p in paragraphs if not p.startswith("See also:")]
        also = re.findall(r"`([^`]+)`", see[0]) if len(see) == 1 else []
        uses[name.strip()] = (" ".join(prose), also)
    return uses


def check_uses(uses: dict[str, tuple[str, list[str]]], operators: set[str]) -> list[str]:
    """What is wrong with operator_uses.md against the operators that have
    pages: a missing or extra section, a section without its paragraph or its
    "See also", a "See also" naming an operator without a page."""
    problems = [f"operator_uses.md: no section for the operator {name}" for name in sorted(operators - set(uses))]
    problems += [f"operator_uses.md: the section {name} names no operator of the table"
                 for name in sorted(set(uses) - operators)]
    for name, (prose, also) in sorted(uses.items()):
        if not prose:
            problems.append(f"operator_uses.md: the section {name} says nothing of when to use it")
        if not also:
            problems.append(f"operator_uses.md: the section {name} has no 'See also:' line of operators")
        problems += [f"operator_uses.md: the section {name} sees also {other}, which has no page"
                     for other in also if other not in operators or other == name]
    return problems


def uses_html(use: tuple[str, list[str]] | None) -> list[str]:
    """The page's "When to use it" section and its "See also" links."""
    if use is None:
        return []
    prose, also = use
    text = re.sub(r"`([^`]+)`", lambda m: f"<code>{html.escape(m.group(1))}</code>", html.escape(prose))
    links = ", ".join(f"<a href='{html.escape(name)}.html'><code>{html.escape(name)}</code></a>" for name in also)
    return ["<h2>When to use it</h2>", f"<p class='use'>{text}</p>", f"<p class='see-also'>See also: {links}.</p>"]


def swift_only_rows() -> list[dict[str, str]]:
    """The table's rows with no C function (the Swift API's own operators):
    no marble case can run them, since every binding plays each case."""
    spec = importlib.util.spec_from_file_location("api_operators", OPERATORS_PY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _, _, rows = module.read_table(os.path.join(ROOT, module.TABLE))
    return [row for row in rows if not module.names(row["marble"]) and not first_name(row["c"])]


# Why an operator of the Swift API alone has no C function, where there is
# more to say than that none was written.
SWIFT_ONLY_WHY = {
    "flatMap": "it works on Swift's optionals, which the C API's values (sk_value) do not have: a C, C++, Python "
               "or Rust map skips nothing by returning nil",
    "mapError": "the C API's errors are values (sk_value) with no type of their own: a map of the error is not "
                "written yet",
    "castError": "it changes the signal's Swift error type, which the C API's untyped errors do not have",
    "mapToThrottled": "it is map then throttled: in C, C++, Python and Rust, map to signal values and apply "
                      "throttled (sk_signal_throttled)",
    "materialize": "it converts between events and Swift enum values (SignalEvent), which the C API's values "
                   "do not have",
    "withState": "its state is a Swift value made per subscription and handed to each callback: not written "
                 "for the C API yet",
    "suspendAwareDelay": "it counts the time the device was suspended, which only the Swift core's clocks see "
                         "(and which virtual time, where the marble table runs, cannot show)",
}


def swift_only_slug(row: dict[str, str]) -> str:
    """The page's name: the row's first Swift name, without its labels."""
    return (first_name(row["swift"]) or "operator").replace(":", "")


def swift_only_page(row: dict[str, str], swift: dict[str, list[str]], swift_pages: list[str],
                    swift_built: bool) -> str:
    """A page for an operator of the Swift API alone, from its table row: what
    it does, its Swift declarations, which languages have it and why the
    others do not, and why it has no marble picture."""
    names = re.findall(r"`([^`]+)`", row["swift"])
    rx = row["rx"].replace("`", "")
    what = row["operator"].replace("`", "")
    first = names[0] if names else "?"
    why = SWIFT_ONLY_WHY.get(swift_only_slug(row), "no C function was written for it yet")
    body = [f"<p>{html.escape(what[:1].upper() + what[1:])} (the family {html.escape(row['family'])}): "
            f"{', '.join(f'<code>{html.escape(n)}</code>' for n in names)} of the Swift API. "
            f"RxJS / RxPY: {html.escape(rx) or 'the same name'}.</p>",
            "<table><tr><th>Swift</th><td>" + html.escape(", ".join(names)) + " (<code>import SwiftSignalKit</code>)"
            "</td></tr><tr><th>C, C++, Python, Rust</th><td>none</td></tr></table>",
            f"<p>Only the Swift API has it: the C API has no function for it ({html.escape(why)}), and the C++, "
            "Python and Rust bindings are made over the C API. Its row in the operator table "
            "(<code>tools/api/operators.md</code>) says so.</p>",
            "<h2>Signatures</h2>"]
    declarations: list[str] = []
    for name in names:
        prefix = name[:-1] if name.endswith(")") else name + "("
        declarations += sorted({d for title, found in swift.items() if title.startswith(prefix) for d in found},
                               key=len)[:3]
    if declarations:
        body.append(f"<h3>Swift</h3>\n<pre><code>{html.escape(chr(10).join(declarations))}</code></pre>")
    else:
        body.append("<p>The Swift declarations come from the Swift reference's symbol graphs, not in this build: "
                    "see <a href='../index.html#swift'>the Swift reference</a>.</p>")
    page_name = next((page for page in swift_pages if page.startswith(first.lower().split("(")[0] + "(")
                      or page == first.lower()), None) if swift_built else None
    if page_name:
        body.append(f"<p>In <a href='../swift/documentation/swiftsignalkit/{html.escape(page_name)}/'>the Swift "
                    "reference</a>.</p>")
    body += ["<h2>No example and no marble picture</h2>",
             "<p>The operator pages' examples and pictures are cases of the shared marble table "
             "(<code>Tests/marbles</code>), which every binding plays: C, C++, Python, Rust and Swift. An operator "
             "of one binding has no case there; its tests are the Swift core's own "
             "(<code>Tests/SwiftSignalKitTests</code>).</p>"]
    return page(f"Operator {first} (Swift only)", "\n".join(body), "../")


EXAMPLES_PY = os.path.join(ROOT, "tools", "docs", "examples.py")


def operator_examples() -> dict[str, tuple[Any, dict[str, tuple[str, str]]]]:
    """Each operator's examples (tools/docs/examples.py): its case, and per
    language the program and what it prints."""
    spec = importlib.util.spec_from_file_location("docs_examples", EXAMPLES_PY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module.examples()  # type: ignore[no-any-return]


# Where each language's examples are compiled and run, as the page says.
EXAMPLE_RUNS = {"C": "checked by make test-op-examples; built with -std=c99 -Wall -Wextra -pedantic -Werror",
                "C++": "checked by make test-op-examples; built with -std=c++17 -Wall -Wextra -pedantic -Werror",
                "Swift": "checked by make test-examples-swift, where it is the body of a function of "
                         "examples/swift/Sources/OperatorExamples",
                "Python": "checked by make test-op-examples, with the package's wheel and mypy --strict",
                "Rust": "checked by make test-op-examples; built offline against the crate with warnings as errors "
                        "and clippy -D warnings"}


def examples_html(op: str, example: tuple[Any, dict[str, tuple[str, str]]] | None) -> list[str]:
    """The page's Examples section: the five programs and what each prints;
    or, for an operator no marble case gives an example, why."""
    if example is None or example[0] is None:
        return ["<h2 id='examples'>Examples</h2>",
                f"<p class='no-example'>No example: no case of the marble table applies <code>{html.escape(op)}"
                "</code> alone, or followed by <code>take</code> (tools/docs/examples.py).</p>"]
    case, programs = example
    parts = ["<h2 id='examples'>Examples</h2>",
             f"<p>The case <a href='#{html.escape(case.name)}'><code>{html.escape(case.name)}</code></a> of the "
             "marble table (its picture is below), written as a program in each language: its inputs are test "
             "signals on virtual time (a frame is 1 ms, and the clock moves only when the program runs it, in "
             "microseconds), each event printed with its frame. Generated by <code>tools/docs/examples.py</code>; "
             "each is compiled and run by the tests, its output compared with the one shown.</p>"]
    # Tabs without a script: a radio button per language, its label the
    # tab; CSS shows the example of the checked one (all five without CSS).
    languages = [("C", "c"), ("C++", "cpp"), ("Swift", "swift"), ("Python", "python"), ("Rust", "rust")]
    parts.append("<div class='tabs'>")
    for index, (lang, css) in enumerate(languages):
        parts.append(f"<input type='radio' name='example-language' id='tab-{css}'{' checked' if index == 0 else ''}>"
                     f"<label for='tab-{css}'>{lang}</label>")
    for lang, css in languages:
        program, output = programs[lang]
        parts.append(f"<div class='example' data-lang='{css}'><h3>{lang}</h3>"
                     f"<pre><code class='language-{css}'>{html.escape(program)}</code></pre>"
                     f"<p class='prints'>What it prints ({html.escape(EXAMPLE_RUNS[lang])}):</p>"
                     f"<pre class='output'><samp>{html.escape(output)}</samp></pre></div>")
    parts.append("</div>")
    return parts


COSTS_JSON = os.path.join(ROOT, "Benchmarks", "costs.json")


def operator_costs() -> tuple[str, dict[str, dict[str, Any]]]:
    """The cost table's date and rows (Benchmarks/costs.json, written by
    `make bench-costs`): {row: {"impls": {api: {instructions, allocs}}}},
    a row named after its C function without `sk_signal_` ("bare": the
    pipe and subscriber alone)."""
    if not os.path.exists(COSTS_JSON):
        return "", {}
    with open(COSTS_JSON, encoding="utf-8") as f:
        data = json.load(f)
    return str(data.get("measured", "")), dict(data.get("rows", {}))


def figure(value: float, places: int) -> str:
    """`value` with `places` decimals and thousands' commas; one that rounds
    to zero is 0, never "-0.00" (zip's Swift allocations per put measured
    -0.0005: a put that allocated nothing, over a bare run's stray one)."""
    text = f"{value:,.{places}f}"
    return text[1:] if text.startswith("-") and float(text.replace(",", "")) == 0 else text


def cost_html(c_name: str | None, costs: tuple[str, dict[str, dict[str, Any]]]) -> list[str]:
    """The operator's row of the cost table, per API: instructions per put
    added over the bare pipe and subscriber, and allocations per put."""
    measured, rows = costs
    key = c_name[len("sk_signal_"):] if c_name and c_name.startswith("sk_signal_") else None
    if not key or key not in rows or "bare" not in rows:
        return []
    cells = []
    for api, title in (("swift", "Swift"), ("c", "C"), ("cpp", "C++")):
        mine, bare = rows[key]["impls"].get(api), rows["bare"]["impls"].get(api)
        if not mine or not bare:
            continue
        added = mine["instructions"] - bare["instructions"]
        cells.append(f"<tr><th>{title}</th><td>{figure(added, 0)}</td><td>{figure(mine['allocs'], 2)}</td></tr>")
    if not cells:
        return []
    return ["<h2>Cost</h2>",
            f"<p>One <code>{html.escape(key)}</code> between a pipe and a plain subscriber: instructions per put "
            "under callgrind added over the pipe and subscriber alone (a negative figure: the operator stops "
            "values), and allocations per put; measured " + html.escape(measured) + " by <code>make "
            "bench-costs</code>, held to a limit by <code>make bench-check</code>. The whole table, the targets "
            "and what each shape measures: <a href='../guide/docs/performance.html'>Performance</a>.</p>",
            "<table><tr><th>API</th><th>instructions per put</th><th>allocations per put</th></tr>"
            + "".join(cells) + "</table>"]


def first_name(cell: str) -> str | None:
    """The first name in backticks of a cell of the table (`Signal.zip` and
    `Signal::zip`: zip; `deliver_on(q, capacity, overflow)`: deliver_on)."""
    names = re.findall(r"`([^`]+)`", cell)
    return names[0].split("(")[0].split(".")[-1].split("::")[-1] if names else None


def doxygen_tags(path: str, scopes: list[str] | None) -> dict[str, tuple[str, str]]:
    """name -> (qualified name, 'file#anchor') of the members of a Doxygen
    tag file: the file compounds' for C (scopes None), for C++ those of the
    namespaces and classes `scopes`, the first scope's first."""
    found: dict[str, tuple[str, str]] = {}
    if not os.path.exists(path):
        return found
    root = ET.parse(path).getroot()
    compounds = root.findall("compound")
    every: list[str | None] = list(scopes) if scopes else [None]
    for scope in every:
        for compound in compounds:
            kind = compound.get("kind")
            name = compound.findtext("name")
            if scope is None and kind != "file":
                continue
            if scope is not None and not (kind in ("namespace", "class", "struct") and name == scope):
                continue
            for member in compound.findall("member"):
                member_name = member.findtext("name") or ""
                anchorfile = member.findtext("anchorfile") or ""
                anchor = member.findtext("anchor") or ""
                qualified = member_name if scope is None else f"{scope}::{member_name}"
                found.setdefault(member_name, (qualified, f"{anchorfile}#{anchor}"))
    return found


def pdoc_ids(path: str) -> set[str]:
    if not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as f:
        return set(re.findall(r'\bid="([^"]+)"', f.read()))


def reference_links(row: dict[str, str], c_tags: dict[str, tuple[str, str]], cpp_tags: dict[str, tuple[str, str]],
                    py_ids: set[str], swift_pages: list[str],
                    rust_ids: set[str] | None = None) -> list[tuple[str, str | None, str]]:
    """(language, link from an operator page or None, the name) for each
    reference, the names the operator table's row gives; Swift's from DocC's
    folders of symbol pages, when built."""
    links: list[tuple[str, str | None, str]] = []
    for lang, table, column, folder in (("C", c_tags, "c", "c"), ("C++", cpp_tags, "cpp", "cpp")):
        found = first_name(row[column])
        if found and found in table:
            qualified, href = table[found]
            links.append((lang, f"../{folder}/{href}", qualified))
        else:
            links.append((lang, None, ""))
    found = first_name(row["python"])
    if found and f"Signal.{found}" in py_ids:
        links.append(("Python", f"../python/pysignalkit.html#Signal.{found}", f"pysignalkit.Signal.{found}"))
    else:
        links.append(("Python", None, ""))
    found = next(iter(declarations.names(row["rust"])), None)
    if found and f"method.{found}" in (rust_ids or set()):
        links.append(("Rust", f"../rust/rsignalkit/struct.Signal.html#method.{found}", f"rsignalkit::Signal::{found}"))
    else:
        links.append(("Rust", None, ""))
    name = first_name(row["swift"]) or "?"
    prefix = name.lower()[:-1] if "(" in name else name.lower() + "("
    pages = sorted((page for page in swift_pages if page.startswith(prefix)), key=len)
    links.append(("Swift", f"../swift/documentation/swiftsignalkit/{pages[0]}/" if pages else None, name))
    return links


# ---------------------------------------------------------------------------
# Pages
# ---------------------------------------------------------------------------

STYLE = """<style>
body { font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; color: #222; }
code, pre { font-family: ui-monospace, monospace; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: .25em .6em; text-align: left; }
.case { margin: 1.5em 0; } .case img { max-width: 100%; border: 1px solid #ddd; }
nav a { margin-right: 1em; }
ul.ops { columns: 4; }
pre { background: #f6f8fa; padding: .6em .8em; overflow-x: auto; }
pre.signature { white-space: pre-wrap; overflow-wrap: break-word; }
pre.output { background: #fff; border-left: 3px solid #9be39b; }
.example p.prints { margin: .3em 0; color: #555; font-size: 90%; }
.tabs > input { position: absolute; opacity: 0; }
.tabs > label { display: inline-block; padding: .3em 1em; border: 1px solid #ccc; border-bottom: none;
  border-radius: 4px 4px 0 0; cursor: pointer; background: #f3f3f3; }
.tabs > input:checked + label { background: #fff; font-weight: bold; }
.tabs > input:focus-visible + label { outline: 2px solid #7cc6fe; }
.tabs > .example { display: none; border-top: 1px solid #ccc; }
.tabs > .example h3 { display: none; }
#tab-c:checked ~ .example[data-lang=c], #tab-cpp:checked ~ .example[data-lang=cpp],
#tab-swift:checked ~ .example[data-lang=swift], #tab-python:checked ~ .example[data-lang=python],
#tab-rust:checked ~ .example[data-lang=rust] { display: block; }
</style>"""


def page(title: str, body: str, root: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'>\n"
            f"<link rel='icon' href='data:,'>\n"
            f"<title>{html.escape(title)}</title>\n{STYLE}\n</head>\n<body>{navigation.bar(root)}\n"
            f"<h1>{html.escape(title)}</h1>\n{body}\n</body>\n</html>\n")


# Where each language's signatures come from (tools/docs/declarations.py).
SIGNATURE_SOURCES = ("C: api.json, as gcc read signalkit.h; C++: signalkit.hpp, its class signal; Python: the "
                     "installed package; Rust: the crate's source; Swift: the Swift core, as DocC's symbol graphs "
                     "give it")
# The note a mark "not in this binding yet" leads to: the operators guide,
# whose first paragraph says what a dash means and what holds it true.
AVAILABILITY_NOTE = "../guide/docs/operators.html"


def cell_html(cell: str, href: str | None) -> str:
    """A cell of the operator table as HTML: its names in code (the first
    linked to `href`, its entry in the reference), its remarks as text."""
    parts = re.split(r"(`[^`]+`)", re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", cell))
    out, linked = [], False
    for part in parts:
        if part.startswith("`") and part.endswith("`"):
            code = f"<code>{html.escape(part[1:-1])}</code>"
            if href and not linked:
                code, linked = f"<a href='{html.escape(href)}'>{code}</a>", True
            out.append(code)
        else:
            out.append(html.escape(part))
    return "".join(out).strip()


def availability_html(lang: str, row: dict[str, str], has: bool, names: list[str], href: str | None,
                      swift_built: bool) -> str:
    """A language's cell of the page's table: the row's names (linked to the
    reference); or, where the binding lacks the operator, that mark, its
    note, and what the example composes it from."""
    if not has:
        composed = ", ".join(f"<code>{html.escape(n)}</code>" for n in names)
        return (f"not in this binding yet (<a href='{AVAILABILITY_NOTE}'>Operators</a>: a dash)"
                + (f"; the <a href='#examples'>example</a> composes it from {composed}" if composed else ""))
    cell = cell_html(row[declarations.COLUMNS[lang]], href)
    if lang == "Swift" and not href:
        cell += (" (see <a href='../swift/documentation/swiftsignalkit/'>the Swift reference</a>)" if swift_built else
                 " (the Swift reference is built apart: <a href='../index.html#swift'>how</a>)")
    return cell


def prose_html(text: str, pages: set[str]) -> str:
    """A page's prose (declarations.prose) as HTML: code in code, another
    operator's name a link to its page."""
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`"):
            name = part[1:-1]
            code = f"<code>{html.escape(name)}</code>"
            out.append(f"<a href='{html.escape(name)}.html'>{code}</a>" if name in pages else code)
        else:
            out.append(html.escape(part))
    return "".join(out)


def signature_html(lang: str, has: bool, lines: list[str]) -> str:
    """A language's declarations on an operator page: wrapped at their
    spaces to the box's width (pre.signature), where a long one was cut at
    its edge (issue 80)."""
    note = "" if has else ("<p class='composed'>Not in this binding yet: the declarations of what the "
                           "example composes it from.</p>\n")
    return f"<h3>{lang}</h3>\n{note}<pre class='signature'><code>{html.escape(chr(10).join(lines))}</code></pre>"


def operator_page(op: str, row: dict[str, str], cases: list[dict[str, Any]], links: list[tuple[str, str | None, str]],
                  swift_built: bool, brief: str, languages: list[tuple[str, bool, list[str], list[str]]],
                  example: tuple[Any, dict[str, tuple[str, str]]] | None = None, cost: list[str] | None = None,
                  use: tuple[str, list[str]] | None = None) -> str:
    """An operator's page. `brief`: what it does, as HTML (prose_html);
    `languages`: declarations.page_languages's (each language, whether its
    binding has the operator, the names, their declarations)."""
    hrefs = {lang: href for lang, href, _ in links}
    rows = [f"<tr><th>{lang}</th><td>{availability_html(lang, row, has, names, hrefs.get(lang), swift_built)}"
            "</td></tr>" for lang, has, names, _ in languages]
    rx = row["rx"].replace("`", "")
    what = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", row["operator"]).replace("`", "")  # the cell's Markdown, as text
    body = [f"<p>{html.escape(what[:1].upper() + what[1:])} "
            f"(the family {html.escape(row['family'])}); RxJS / RxPY: {html.escape(rx) or 'the same name'}. "
            f"The marble table's operator <code>{html.escape(op)}</code> in each language:</p>",
            "<table>" + "".join(rows) + "</table>"]
    if brief:
        body.append(f"<p class='what'>{brief}</p>")
    body += uses_html(use)
    if languages:
        body.append("<h2>Signatures</h2>\n<p>Each binding's declarations, read from the binding itself ("
                    f"{html.escape(SIGNATURE_SOURCES)}). Each language takes the arguments in its own order: compare "
                    "them before porting a call.</p>")
        for lang, has, names, lines in languages:
            body.append(signature_html(lang, has, lines))
    body += examples_html(op, example)
    body += cost or []
    body += [
            "<h2>Marble diagrams</h2>", LEGEND]
    for case in cases:
        alt = f"{case['name']}: {' | '.join(case['operators'])}"
        body.append(f"<div class='case' id='{html.escape(case['name'])}'><h3><code>{html.escape(case['name'])}"
                    f"</code></h3><p><code>{html.escape(case['location'])}</code></p>"
                    f"<img src='../marbles/{html.escape(case['name'])}.svg' alt='{html.escape(alt)}'></div>")
    return page(f"Operator {op}", "\n".join(body), "../")


# ---------------------------------------------------------------------------
# The benchmark plot
# ---------------------------------------------------------------------------

def bench_table(path: str, anchor: str) -> tuple[str, list[str], list[tuple[str, str, list[float | None]]]]:
    """The paragraph before, the columns (implementations) and the rows
    (workload, unit, numbers) of the first table after `anchor` in `path`.
    Columns of ratios (a '/' in the name), allocation counts and earlier
    runs ('before') are left out: the plot shows measured figures only."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.find(anchor)
    if start < 0:
        raise SystemExit(f"{path}: no '{anchor}' to find the benchmark table by")
    after = text[start:].split("\n", 1)[1] if anchor.startswith("#") else text[start:]
    paragraph = " ".join(after.strip().split("\n\n")[0].split())
    table: list[list[str]] = []
    for line in after.split("\n"):
        if line.startswith("|"):
            table.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif table:
            break
    header = table[0]
    keep = [i for i, name in enumerate(header)
            if i >= 2 and "/" not in name and not name.startswith("allocs") and "before" not in name]
    columns = [header[i] for i in keep]
    rows = []
    for cells in table[2:]:
        numbers: list[float | None] = []
        for i in keep:
            try:
                numbers.append(float(cells[i].replace(",", "")))
            except ValueError:
                numbers.append(None)
        rows.append((cells[0], cells[1], numbers))
    return paragraph, columns, rows


def markdown_inline(text: str) -> str:
    """A paragraph of Markdown as HTML text: code spans kept, links as their text."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    parts = text.split("`")
    return "".join(f"<code>{html.escape(part)}</code>" if i % 2 else html.escape(part) for i, part in enumerate(parts))


def bench_svg(columns: list[str], rows: list[tuple[str, str, list[float | None]]]) -> str:
    """Bars per workload, each scaled to the workload's largest number
    (lower is better in every unit of the table)."""
    palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
    # One colour per implementation on every plot of the page.
    known = ["Swift API", "C API", "C++ header", "FFI", "OpenCombine", "RxCpp", "RPP"]
    named = {"ours": palette[1], "RxPY": palette[7]}
    colors = [named.get(name, palette[known.index(name)] if name in known else palette[index % len(palette)])
              for index, name in enumerate(columns)]
    bar = 13
    label_w = 250
    plot_w = 420
    width = label_w + plot_w + 90
    y = 40
    parts = []
    for index, name in enumerate(columns):
        parts.append(f"<rect x='{label_w + (index % 4) * 120}' y='{8 + (index // 4) * 16}' width='10' height='10' "
                     f"fill='{colors[index]}'/><text x='{label_w + 14 + (index % 4) * 120}' "
                     f"y='{17 + (index // 4) * 16}' font-size='11' {FONT}>{html.escape(name)}</text>")
    y += 16 * ((len(columns) - 1) // 4)
    for workload, unit, numbers in rows:
        present = [n for n in numbers if n is not None]
        if not present:
            continue
        top = max(present)
        label = textwrap.wrap(workload, 31) or [""]
        for line_index, line in enumerate(label):
            parts.append(f"<text x='4' y='{y + 12 + 14 * line_index}' font-size='12' font-weight='bold' {FONT}>"
                         f"{html.escape(line)}</text>")
        parts.append(f"<text x='4' y='{y + 12 + 14 * len(label)}' font-size='11' fill='#555' {FONT}>"
                     f"{html.escape(unit)}, lower is better</text>")
        label_bottom = y + 14 * (len(label) + 1)
        for index, number in enumerate(numbers):
            if number is None:
                continue
            w = max(1.0, plot_w * number / top)
            parts.append(f"<rect x='{label_w}' y='{y}' width='{w:.1f}' height='{bar - 2}' "
                         f"fill='{colors[index]}'><title>{html.escape(columns[index])}: {number:g} "
                         f"{html.escape(unit)}</title></rect><text x='{label_w + w + 4:.1f}' y='{y + bar - 3}' "
                         f"font-size='10' {FONT}>{number:g}</text>")
            y += bar
        y = max(y, label_bottom) + 12
    height = y + 10
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' viewBox='0 0 {width} "
            f"{height}' role='img'><title>SignalKit against its peers, per workload</title>"
            "<rect width='100%' height='100%' fill='#fff'/>" + "".join(parts) + "</svg>\n")


# ---------------------------------------------------------------------------
# The link check
# ---------------------------------------------------------------------------

class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("id", "name"):
            if values.get(key) and (key == "id" or tag == "a"):
                self.ids.add(values[key] or "")
        for key in ("href", "src", "data"):
            ref = values.get(key)
            if ref and not (tag == "link" and values.get("rel") in ("preconnect", "dns-prefetch")):
                self.refs.append(ref)


def check_links(site: str) -> list[str]:
    """Every internal href/src of every page names a file of the site, and
    an anchor an id of that page."""
    parsed: dict[str, Links] = {}

    def parse(path: str) -> Links:
        if path not in parsed:
            links = Links()
            with open(path, encoding="utf-8", errors="replace") as f:
                links.feed(f.read())
            parsed[path] = links
        return parsed[path]

    problems = []
    for folder, _, files in os.walk(site):
        for name in files:
            if not name.endswith(".html"):
                continue
            path = os.path.join(folder, name)
            for ref in parse(path).refs:
                if re.match(r"^[a-z][a-z0-9+.-]*:", ref, re.I) or ref.startswith("//"):
                    continue  # http:, mailto:, data:, javascript:
                target, _, anchor = ref.partition("#")
                target = target.split("?")[0]
                if target.startswith("/"):
                    # From the site's root, where it is served (DocC's pages).
                    full = os.path.normpath(os.path.join(site, target.lstrip("/")))
                else:
                    full = os.path.normpath(os.path.join(folder, target)) if target else path
                if os.path.isdir(full):
                    full = os.path.join(full, "index.html")
                if not os.path.exists(full):
                    problems.append(f"{os.path.relpath(path, site)}: {ref}: no such file")
                elif anchor and full.endswith(".html") and anchor not in parse(full).ids:
                    problems.append(f"{os.path.relpath(path, site)}: {ref}: no such anchor")
    return problems


def embed_pictures(site: str, coverage: list[tuple[str, list[tuple[str, str | None, str]]]],
                   by_operator: dict[str, list[dict[str, Any]]]) -> int:
    """Puts the first marble picture of each operator into its entry in the
    C, C++, Python and Rust references (at the top of the entry's
    documentation, linking to the operator's page: the way back from the
    entry); DocC's pages are drawn by its script from data, which
    link_docc_entries gives the link. Returns the number put."""
    edits: dict[str, list[tuple[str, str]]] = {}
    for op, links in coverage:
        case = by_operator[op][0]
        for lang, href, _ in links:
            if not href or lang == "Swift":
                continue
            target, _, anchor = href.removeprefix("../").partition("#")
            root = "../" * target.count("/")
            alt = html.escape(f"{case['name']}: {' | '.join(case['operators'])}")
            snippet = (f"<div class='signalkit-marbles'><p><a href='{root}operators/{op}.html'>Marble diagram of "
                       f"{html.escape(op)}</a> (the case <code>{html.escape(case['name'])}</code>, drawn from "
                       f"what it delivered):</p><img src='{root}marbles/{html.escape(case['name'])}.svg' alt='{alt}' "
                       "style='max-width:100%'></div>")
            edits.setdefault(target, []).append((anchor, snippet))
    count = 0
    for target, items in edits.items():
        path = os.path.join(site, target)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for anchor, snippet in items:
            if target.startswith("python/"):
                start = text.find(f'id="{anchor}"')
                opening, end = '<div class="docstring">', None
            elif target.startswith("rust/"):
                # rustdoc: the method's heading, then its documentation, in
                # one <details>.
                start = text.find(f'<section id="{anchor}"')
                opening, end = '<div class="docblock">', "</details>"
            else:
                # Doxygen: the anchor before the entry's title (the summary
                # table names it too, without a title after it).
                start = text.find(f'<a id="{anchor}" name="{anchor}"></a>\n<h2 class="memtitle">')
                opening, end = '<div class="memdoc">', None
            at = text.find(opening, start) if start >= 0 else -1
            if at < 0 or (end is not None and text.find(end, start) < at):
                raise SystemExit(f"{target}#{anchor}: no entry to put the marble picture in")
            at += len(opening)
            text = text[:at] + "\n" + snippet + text[at:]
            count += 1
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return count


def link_docc_entries(site: str, coverage: list[tuple[str, list[tuple[str, str | None, str]]]]) -> int:
    """The way back from each operator's page of the Swift reference: DocC
    draws a page from its data (data/documentation/...json), to which a
    section is added, its paragraph linking the operator's page. The link is
    from the site's root, where DocC's pages are served (its own links are
    too: --hosting-base-path); a relative one would depend on the address
    the page was reached by, with or without its final slash. Returns the
    number of pages linked."""
    count = 0
    for op, links in coverage:
        for lang, href, _ in links:
            if lang != "Swift" or not href:
                continue
            page = href.removeprefix("../swift/").rstrip("/")
            path = os.path.join(site, "swift", "data", page.removesuffix("/") + ".json")
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            identifier = f"signalkit-operator-page-{op}"
            data.setdefault("primaryContentSections", []).append({"kind": "content", "content": [
                {"type": "heading", "level": 2, "text": "Operator page", "anchor": "operator-page"},
                {"type": "paragraph", "inlineContent": [
                    {"type": "text", "text": "In every language, with its marble diagrams and examples: "},
                    {"type": "reference", "identifier": identifier, "isActive": True},
                    {"type": "text", "text": "."}]}]})
            title = f"the operator page of {op}"
            data.setdefault("references", {})[identifier] = {
                "type": "link", "identifier": identifier, "title": title, "url": f"/operators/{op}.html",
                "titleInlineContent": [{"type": "text", "text": title}]}
            with open(path, "w", encoding="utf-8") as f:
                json.dump(data, f, ensure_ascii=False, separators=(",", ":"))
            count += 1
    return count


def fix_doxygen_summaries(folder: str) -> None:
    """Doxygen (1.9) puts a "Classes" link in the summary line of a class
    whose only nested classes are private (signalkit::queue's sync_state),
    to a section it then leaves out: that one link goes, every other link
    stays under the check."""
    for name in os.listdir(folder):
        if not name.endswith(".html"):
            continue
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if 'href="#nested-classes"' not in text or 'id="nested-classes"' in text or 'name="nested-classes"' in text:
            continue
        text = re.sub(r'<a href="#nested-classes">Classes</a>(\s*&#124;)?', "", text)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def add_way_back(site: str) -> int:
    """Every page of the references (Doxygen's C and C++, pdoc's Python,
    DocC's Swift, rustdoc's Rust) gets the site's bar at its top: the way
    back to the front page, the guides, the operators and the search;
    returns how many pages got it."""
    return navigation.add_to_references(site, ("c", "cpp", "python", "swift", "rust"))


def fix_rustdoc(folder: str) -> None:
    """rustdoc's pages (make docs copies them under rust/) link to the
    documentation root's index.html (help, settings), which a crate's docs
    leave to the tool that gathers several crates: it is made here, sending
    the reader to the crate. Their links to source lines name ranges
    ("#52-55") that rustdoc's script selects: the first line's id is the
    anchor kept. The guide (docs/rust.md, the crate's module guide) links
    the other guides by their Markdown files (those below docs/,
    maintainers/releasing.md, and documents outside docs/,
    ../Benchmarks/README.md): to their pages under guide/."""
    if not os.path.isdir(folder):
        return
    with open(os.path.join(folder, "index.html"), "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>rsignalkit (Rust)</title>"
                "<meta http-equiv='refresh' content='0; url=rsignalkit/index.html'></head>"
                "<body><a href='rsignalkit/index.html'>the rsignalkit crate</a></body></html>\n")
    for parent, _, names in os.walk(folder):
        for name in names:
            if not name.endswith(".html"):
                continue
            path = os.path.join(parent, name)
            up = os.path.relpath(os.path.dirname(folder), parent)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            fixed = re.sub(r'(href="[^"#]*\.rs\.html#\d+)-\d+"', r'\1"', text)
            fixed = re.sub(r'href="([a-z][a-z0-9-]*(?:/[a-z][a-z0-9-]*)*)\.md(#[^"]*)?"',
                           lambda m: f'href="{up}/guide/docs/{m.group(1)}.html{m.group(2) or ""}"', fixed)
            # A document of the tree outside docs/ (../Benchmarks/README.md):
            # its page under guide/, as guides.py renders it.
            fixed = re.sub(r'href="\.\./([A-Za-z0-9_][A-Za-z0-9_/.-]*)\.md(#[^"]*)?"',
                           lambda m: f'href="{up}/guide/{m.group(1)}.html{m.group(2) or ""}"', fixed)
            if fixed != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(fixed)


def favicon() -> bytes:
    """A 16x16 icon (a PNG in an ICO), a blue dot: a browser asks every
    page's server for /favicon.ico, and the generators' pages name none (a
    404 is an error in the console)."""
    size = 16
    rows = b""
    for y in range(size):
        row = b"\0"
        for x in range(size):
            inside = (x - 7.5) ** 2 + (y - 7.5) ** 2 <= 36
            row += bytes([31, 119, 180, 255]) if inside else bytes(4)
        rows += row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    return struct.pack("<HHH", 0, 1, 1) + struct.pack("<BBBBHHII", size, size, 0, 0, 1, 32, len(png), 22) + png


# ---------------------------------------------------------------------------

# The guides (rendered from Markdown by guides.py) the index lists, in order.
GUIDES = [("README", "README: install, the two commands, a quick start per language"),
          ("docs/c", "C"), ("docs/cpp", "C++"), ("docs/swift", "Swift"), ("docs/python", "Python"), ("docs/rust", "Rust"),
          ("Sources/python/README", "The Python package's README (the package index's page)"), ("docs/concepts", "Concepts, and where each rule lives"),
          ("docs/operators", "Operators in every language, with their RxJS and RxPY names"),
          ("docs/semantics", "Semantics, compared with RxJS and RxPY"),
          ("docs/testing", "Testing time: virtual time and marble diagrams"),
          ("docs/misuse", "What misuse returns"), ("docs/performance", "Performance"),
          ("docs/maintainers/make-targets", "Maintainers: make targets and the stages of make test"),
          ("docs/maintainers/ci", "Maintainers: CI"), ("docs/maintainers/layout", "Maintainers: the layout of the tree"),
          ("docs/maintainers/adding-an-operator", "Maintainers: adding an operator"),
          ("docs/maintainers/releasing", "Maintainers: versioning and releasing")]


def main() -> int:
    parser = argparse.ArgumentParser(description="the site's index, operator and benchmark pages")
    parser.add_argument("site")
    parser.add_argument("marbles", help="the marble table's cases as the Swift runner recorded them (JSON)")
    parser.add_argument("readme", help="Benchmarks/README.md")
    parser.add_argument("--api", help="api.json: the C signatures and briefs")
    parser.add_argument("--symbols", help="DocC's symbol graphs folder: the Swift declarations")
    args = parser.parse_args()
    site, dump_path, readme = args.site, args.marbles, args.readme
    api: dict[str, dict[str, Any]] = {}
    if args.api:
        # Named but missing is an error: without it the pages would lose
        # their C signatures and briefs, and the search its C functions.
        if not os.path.exists(args.api):
            print(f"{args.api}: no such file (make api writes it)", file=sys.stderr)
            return 1
        with open(args.api, encoding="utf-8") as f:
            api = {function["name"]: function for function in json.load(f)["functions"]}
    with open(dump_path, encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    os.makedirs(os.path.join(site, "marbles"), exist_ok=True)
    os.makedirs(os.path.join(site, "operators"), exist_ok=True)
    by_operator: dict[str, list[dict[str, Any]]] = {}
    drawn_wrong = []
    for case in cases:
        svg = case_svg(case)
        drawn_wrong += [f"{case['location']} {case['name']}: its picture: {problem}"
                        for problem in marble_check.problems(svg, case)]
        with open(os.path.join(site, "marbles", case["name"] + ".svg"), "w", encoding="utf-8") as f:
            f.write(svg)
        for op in dict.fromkeys(o.split()[0] for o in case["operators"]):
            by_operator.setdefault(op, []).append(case)
    if drawn_wrong:
        print("\n".join(drawn_wrong), file=sys.stderr)
        print(f"{len(drawn_wrong)} problems in the marble pictures (above; tools/docs/marble_check.py)",
              file=sys.stderr)
        return 1
    fix_doxygen_summaries(os.path.join(site, "cpp"))
    fix_rustdoc(os.path.join(site, "rust"))
    c_tags = doxygen_tags(os.path.join(site, "c", "signalkit-c.tag"), None)
    cpp_tags = doxygen_tags(os.path.join(site, "cpp", "signalkit-cpp.tag"), ["signalkit", "signalkit::signal"])
    py_ids = pdoc_ids(os.path.join(site, "python", "pysignalkit.html"))
    rust_ids = pdoc_ids(os.path.join(site, "rust", "rsignalkit", "struct.Signal.html"))
    swift_built = os.path.exists(os.path.join(site, "swift", "index.html"))
    swift_folder = os.path.join(site, "swift", "documentation", "swiftsignalkit")
    swift_pages = sorted(os.listdir(swift_folder)) if swift_built and os.path.isdir(swift_folder) else []
    coverage = []
    cpp_declared = declarations.cpp_declarations()
    swift_declared = declarations.swift_declarations(args.symbols)
    all_rows = declarations.read_rows()
    bindings = declarations.Bindings(api, cpp_declared, swift_declared, declarations.rust_declarations(), all_rows)
    # The availability marks, held to the bindings; then each page's.
    page_problems = declarations.check_availability(all_rows,
                                                    declarations.called_functions(c_api=set(api) if api else None))
    table = operator_rows()
    examples = operator_examples()
    costs = operator_costs()
    missing = sorted(op for op in by_operator if op not in table)
    if missing:
        print(f"the operator table (tools/api/operators.md) has no row for {', '.join(missing)}", file=sys.stderr)
        return 1
    uses = read_uses()
    wrong = check_uses(uses, set(by_operator))
    if wrong:
        print("\n".join(wrong), file=sys.stderr)
        return 1
    for op in sorted(by_operator, key=str.lower):
        links = reference_links(table[op], c_tags, cpp_tags, py_ids, swift_pages, rust_ids)
        coverage.append((op, links))
        with open(os.path.join(site, "operators", op + ".html"), "w", encoding="utf-8") as f:
            c_name = declarations.c_function(table[op])
            brief, c_words = declarations.prose(table[op], api, all_rows)
            if c_words:
                page_problems.append(f"operators/{op}.html: its prose says {', '.join(c_words)}, C's words, to "
                                     "every language (tools/api/operator_words.py's SHARED)")
            example = examples.get(op)
            languages, problems = declarations.page_languages(table[op], bindings, example[1] if example else {},
                                                              all_rows)
            page_problems += [f"operators/{op}.html: {problem}" for problem in problems]
            f.write(operator_page(op, table[op], by_operator[op], links, swift_built,
                                  prose_html(brief, set(by_operator)), languages, example, cost_html(c_name, costs),
                                  uses.get(op)))
    if page_problems:
        print("\n".join(page_problems), file=sys.stderr)
        print(f"{len(page_problems)} operator pages' signatures or availability marks are not their bindings' "
              "(above)", file=sys.stderr)
        return 1

    # The Swift API's own operators: a page each from its row alone.
    os.makedirs(os.path.join(site, "swift-only"), exist_ok=True)
    swift_only = []
    for row in swift_only_rows():
        slug = swift_only_slug(row)
        swift_only.append((slug, row))
        with open(os.path.join(site, "swift-only", slug + ".html"), "w", encoding="utf-8") as f:
            f.write(swift_only_page(row, swift_declared, swift_pages, swift_built))

    embedded = embed_pictures(site, coverage, by_operator)
    docc_linked = link_docc_entries(site, coverage)
    way_back = add_way_back(site)

    # The benchmark page: each plot with the run's own words (its date,
    # machine and load, and what to trust in it) above it.
    python_guide = os.path.join(os.path.dirname(os.path.abspath(readme)), "..", "docs", "python.md")
    plots = [("interleaved", "The C API, the Swift API, the C++ header and the C++ peers, interleaved",
              readme, "## Latest run"),
             ("full", "Every implementation, the full run", readme, "The full run"),
             ("python", "Python: the package against RxPY", python_guide, "## Performance")]
    sections = []
    for name, title, path, anchor in plots:
        paragraph, columns, rows = bench_table(path, anchor)
        with open(os.path.join(site, f"bench-{name}.svg"), "w", encoding="utf-8") as f:
            f.write(bench_svg(columns, rows))
        source = os.path.relpath(os.path.abspath(path), os.path.join(os.path.dirname(os.path.abspath(readme)), ".."))
        sections.append(f"<h2 id='{name}'>{html.escape(title)}</h2>\n<p class='caption'>From "
                        f"<code>{html.escape(source)}</code>: {markdown_inline(paragraph)}</p>\n"
                        f"<img src='bench-{name}.svg' alt='{html.escape(title)}, per workload'>")
    with open(os.path.join(site, "bench.html"), "w", encoding="utf-8") as f:
        f.write(page("Benchmarks", "<p>The latest runs recorded in <code>Benchmarks/README.md</code> and the Python "
                     "guide, plotted. Each workload's bars are scaled to its largest number (lower is better); "
                     "hover a bar for its implementation. Above each plot, the run's own account: when and where "
                     "it ran, and its load. On this shared machine times move by a fifth or more between runs: "
                     "compare the bars of one plot, prefer the interleaved run, and read the exact instruction "
                     "counts in <code>Benchmarks/README.md</code> and <a href='guide/docs/performance.html'>"
                     "Performance</a>. The README says what each workload measures and how to run them "
                     "(<code>make bench</code>, <code>make bench-python</code>).</p>\n" + "\n".join(sections), ""))

    op_items = []
    for op, links in coverage:
        have = ", ".join(lang for lang, href, _ in links if href or (lang == "Swift" and not swift_built))
        op_items.append(f"<li><a href='operators/{op}.html'>{html.escape(op)}</a> <small>({have})</small></li>")
    swift_only_items = "".join(f"<li><a href='swift-only/{slug}.html'>{html.escape(slug)}</a> "
                               f"<small>({html.escape(row['operator'].replace('`', ''))})</small></li>"
                               for slug, row in swift_only)
    swift = ("<a href='swift/documentation/swiftsignalkit/'>the Swift reference</a> (DocC)" if swift_built else
             "the Swift reference (DocC) is missing from this build")
    guides = ""
    if os.path.exists(os.path.join(site, "guide", "README.html")):
        items = "".join(f"<li><a href='guide/{path}.html'>{html.escape(title)}</a></li>" for path, title in GUIDES
                        if os.path.exists(os.path.join(site, "guide", path + ".html")))
        guides = f"<h2 id='guides'>Guides</h2>\n<ul>{items}</ul>"
    body = f"""<p>SignalKit is a reactive-streams library with one core (Swift) and four faces. References:</p>
<ul>
<li><a href='c/index.html'>C</a>: <code>signalkit.h</code>, <code>signalkit_ffi.h</code>, <code>signalkit_test.h</code> (Doxygen)</li>
<li><a href='cpp/index.html'>C++</a>: <code>signalkit.hpp</code>, <code>signalkit_test.hpp</code> (Doxygen)</li>
<li><a href='python/pysignalkit.html'>Python</a>: the <code>pysignalkit</code> package (pdoc, from its docstrings and annotations)</li>
<li><a href='rust/rsignalkit/index.html'>Rust</a>: the <code>rsignalkit</code> crate (rustdoc)</li>
<li id='swift'>Swift: {swift}. DocC's pages are a web application, blank when opened from a file: serve the
site over HTTP rather than opening its files: <code>make docs-serve</code> (from the checkout), or
<code>python3 -m http.server --directory FOLDER</code> with this page's folder (an installed copy:
<code>/usr/share/doc/libsignalkit-doc/html</code>), then <code>http://127.0.0.1:8000/</code>.</li>
</ul>
<p id='served-from-file' class='note' hidden>You opened this site from a file: every page but the Swift reference
works so; for the Swift reference serve this page's folder over HTTP, <code>python3 -m http.server --directory
FOLDER</code> (or <code>make docs-serve</code> from the checkout), and open <code>http://127.0.0.1:8000/</code>.</p>
<script>if (location.protocol === 'file:') document.getElementById('served-from-file').hidden = false;</script>
{guides}
<h2 id='operators'>Operators</h2>
<p>One page per operator of the shared marble table, with an example in C, C++, Swift, Python and Rust (compiled and run by
the tests) and pictures drawn from running its cases. In brackets: the
references that have it (an operator the C, C++ or Python binding does not have yet is left to the Swift API).</p>
<ul class='ops'>{''.join(op_items)}</ul>
<h3 id='swift-only'>The Swift API's own</h3>
<p>Operators that only the Swift API has (no C function, so no C++, Python or Rust method, and no marble case, which
every binding plays): a page each with what it does, its declaration and why the others lack it.</p>
<ul>{swift_only_items}</ul>
<h2>Benchmarks</h2>
<p><a href='bench.html'>SignalKit against its peers</a>, the latest runs plotted.</p>"""
    with open(os.path.join(site, "index.html"), "w", encoding="utf-8") as f:
        f.write(page("SignalKit documentation", body, ""))

    # The search: the guides' headings, each operator under every name its
    # row gives, and every name the five references document.
    entries = navigation.guide_entries(site)
    for op, _ in coverage:
        row = table[op]
        names = {op} | {name.split("(")[0] for column in ("swift", "c", "cpp", "python", "rust", "rx")
                        for name in re.findall(r"`([^`]+)`", row.get(column, ""))
                        if re.match(r"[A-Za-z_][\w:.]*(\(|$)", name)}
        for name in sorted(names):
            entries.append({"name": name, "where": f"operator page: {op} ({row['operator']})",
                            "url": f"operators/{op}.html"})
    for slug, row in swift_only:
        for name in re.findall(r"`([^`]+)`", row["swift"]):
            entries.append({"name": name.split("(")[0], "where": f"Swift only: {row['operator']}",
                            "url": f"swift-only/{slug}.html"})
    entries += navigation.reference_entries(site)
    searchable = navigation.write_search(site, entries, page("Search", navigation.SEARCH_BODY, ""))

    with open(os.path.join(site, "favicon.ico"), "wb") as f:
        f.write(favicon())
    theme = os.path.join(site, "swift", "theme-settings.json")
    if swift_built and not os.path.exists(theme):
        # DocC's pages ask for their optional theme (a 404 in the console
        # otherwise): the default one.
        with open(theme, "w", encoding="utf-8") as f:
            f.write("{}\n")

    problems = check_links(site)
    if not swift_built:
        problems.append(f"{site}/swift/index.html: the Swift reference was not built (mk/docs-swift.mk)")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} broken links or images in {site} (above)", file=sys.stderr)
        return 1
    print(f"the site: {site}/index.html ({len(cases)} marble pictures, {len(by_operator)} operator pages, "
          f"{len(swift_only)} pages of the Swift API's own operators, "
          f"{embedded} pictures in the references' entries, {docc_linked} DocC pages linking their operator's, {way_back} reference pages with the site's bar, "
          f"{searchable} entries in the search)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
