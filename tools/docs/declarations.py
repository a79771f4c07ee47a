#!/usr/bin/env python3
"""What each binding declares of an operator, read from the binding itself:
the operator pages' signatures and their availability marks
(tools/docs/site.py), so that neither is written by hand and neither can
drift from the code.

- Signatures. C: api.json (its declarations, as gcc read the header).
  C++: signalkit.hpp, class signalkit::signal's public members. Python: the installed package's methods (inspect; the overloads
  a type checker sees). Rust: the crate's source, the `pub fn` of an `impl`
  block of `Signal`, with that block's header (a method of
  `Signal<Signal<T>>` is not one of `Signal<T>`). Swift: DocC's symbol
  graphs of the Swift core.
- Availability. A binding has the operator of a row with a C function when
  it calls that function: C++, the header; Python, the package's modules
  (its ctypes prototypes `C.signal_...`, not the list of them); Rust, the
  crate's safe layer (`sys::sk_...`, not the raw layer sys.rs). The operator
  table's cell (tools/api/operators.md) must agree: a cell with a dash for
  a binding that calls the function, or a name for one that does not, is a
  problem `check_availability` reports, and the site's build fails on it.
  A row with no C function of its own but another row's operator at fixed
  arguments (concatMap: merge_map one at a time) is held so to that row's
  function, which its cells name (composition): its C cell composes it
  (`sk_signal_merge_map`, max_concurrent 1), its other cells name that
  row's operator, and a dash for a binding that has the function fails as
  above. Any other row with no C function (the Swift API's own) is
  available in a language when its cell names something that language
  declares.
- Prose. What an operator does, on its page, is its C function's brief in
  the words of every language (tools/api/operator_words.py's SHARED: no
  `count` signals, no SK_KIND_SIGNAL); a page whose words keep one of C's
  fails, as the C, C++ and Rust names do, in make test-api and make docs.

Standard library only.
"""

from __future__ import annotations

import functools
import glob
import importlib.util
import inspect
import json
import os
import re
import sys
import typing
import xml.etree.ElementTree as ET
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CPP_HEADER = os.path.join(ROOT, "include", "signalkit.hpp")
PYTHON_PACKAGE = os.path.join(ROOT, "Sources", "python", "pysignalkit")
RUST_SOURCES = os.path.join(ROOT, "Sources", "rust", "rsignalkit", "src")
OPERATORS_PY = os.path.join(ROOT, "tools", "api", "operators.py")
OPERATOR_WORDS_PY = os.path.join(ROOT, "tools", "api", "operator_words.py")

# The languages of a page, in its order, and the operator table's column of each.
COLUMNS = {"C": "c", "C++": "cpp", "Python": "python", "Rust": "rust", "Swift": "swift"}


def names(cell: str) -> list[str]:
    """The names a cell of the operator table gives, bare: `Signal::zip`,
    `Signal.zip` and `deliver_on(q, capacity, overflow)` name zip, zip and
    deliver_on; a remark's words (`capacity=`) name nothing."""
    found = []
    for name in re.findall(r"`([^`]+)`", cell):
        bare = name.split("(")[0].split("::")[-1].split(".")[-1].strip().rstrip("*")
        if re.fullmatch(r"[A-Za-z_]\w*", bare):
            found.append(bare)
    return found


def swift_titles(cell: str) -> list[str]:
    """The Swift cell's functions as the start of their DocC titles:
    `first(where:)` is "first(where:", `mergeMap(maxConcurrent: 1,
    capacity:overflow:onDrop:) { $0 }` "mergeMap(maxConcurrent:capacity:
    overflow:onDrop:", and a name without labels (`scan`) "scan(" followed
    by an unlabelled argument or none."""
    found = []
    for text in re.findall(r"`([^`]+)`", cell):
        match = re.match(r"([A-Za-z_]\w*)(?:\((.*?)\))?", text)
        if not match:
            continue
        labels = re.findall(r"(\w+)\s*:", match.group(2) or "")
        found.append(f"{match.group(1)}({''.join(label + ':' for label in labels)}")
    return found


def _load(path: str, name: str) -> Any:
    """A script of the tree as a module."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.lru_cache(maxsize=None)
def _operators() -> Any:
    """tools/api/operators.py, loaded once."""
    return _load(OPERATORS_PY, "api_operators_once")


def read_rows() -> list[dict[str, str]]:
    """The operator table's rows (tools/api/operators.md)."""
    module = _load(OPERATORS_PY, "api_operators")
    _, _, rows = module.read_table(os.path.join(ROOT, module.TABLE))
    return list(rows)


def page_names(rows: list[dict[str, str]]) -> dict[str, str]:
    """C function -> the name of its operator page (its first marble name)."""
    return {function: names(row["marble"])[0] for row in rows
            for function in [c_function(row)] if function and names(row["marble"])}


def prose(row: dict[str, str], api: dict[str, dict[str, Any]], rows: list[dict[str, str]]) -> tuple[str, list[str]]:
    """The page's paragraph of what the operator does: its C function's
    brief in every language's words (tools/api/operator_words.py's
    shared_words, the one place those words are kept), and the C words it
    still has (a problem: the page would speak C to every language)."""
    function = c_function(row)
    if function is None or function not in api:
        return "", []
    words = _load(OPERATOR_WORDS_PY, "api_operator_words")
    text = str(words.shared_words(api[function]["brief"], page_names(rows)))
    return text, [str(word) for word in words.c_only_words(text)]


# ---------------------------------------------------------------------------
# Signatures
# ---------------------------------------------------------------------------

def c_signature(function: dict[str, Any]) -> str:
    """A function of api.json as its C prototype."""
    params = ", ".join(p["type"] + ("" if p["type"].endswith("*") else " ") + p["name"] for p in function["params"])
    return f"{function['returns']} {function['name']}({params});"


def cpp_declarations(header: str = CPP_HEADER) -> dict[str, list[str]]:
    """member name -> its declarations in class signalkit::signal's public
    part (signalkit.hpp), each as the header writes it up to its body, its
    `template <...>` included, its lines joined."""
    with open(header, encoding="utf-8") as f:
        text = f.read()
    opened = re.search(r"(?m)^class signal\b[^{;\n]*\{\n", text)
    if not opened:
        return {}
    body = text[opened.end():]
    body = body[:re.search(r"(?m)^(?: private:|};)", body).start()]  # type: ignore[union-attr]
    found: dict[str, list[str]] = {}
    for item in re.finditer(r"(?m)^    ((?:template <[^\n]*?> )?(?:static )?signal (\w+)\()", body):
        end = _declaration_end(body, item.start())
        found.setdefault(item.group(2), []).append(" ".join(body[item.start():end].split()) + ";")
    return found


def python_signature(name: str) -> str | None:
    """Signal.NAME's signature, when the package is importable (make docs
    runs site.py with the documentation's venv, which has the wheel)."""
    try:
        import pysignalkit  # type: ignore[import-not-found]
    except ImportError:
        return None
    method = getattr(pysignalkit.Signal, name, None)
    if method is None:
        return None
    # The overloads a type checker sees (typing.get_overloads, Python 3.11),
    # else the function's own signature.
    get_overloads = getattr(typing, "get_overloads", None)
    overloads: list[Any] = list(get_overloads(getattr(method, "__func__", method))) if get_overloads else []
    lines = []
    for function in overloads or [method]:
        try:
            text = re.sub(r"[\"']", "", str(inspect.signature(function)))
        except (TypeError, ValueError):
            return None
        lines.append(f"Signal.{name}" + text.replace("(self, ", "(").replace("(self)", "()"))
    return "\n".join(lines)


def swift_declarations(folder: str | None) -> dict[str, list[str]]:
    """A function's title (`scan(_:_:)`) -> its declarations (DocC's symbol
    graphs)."""
    found: dict[str, list[str]] = {}
    if not folder or not os.path.isdir(folder):
        return found
    for path in sorted(os.listdir(folder)):
        with open(os.path.join(folder, path), encoding="utf-8") as f:
            graph = json.load(f)
        for symbol in graph.get("symbols", []):
            if symbol["kind"]["identifier"] != "swift.func" or len(symbol.get("pathComponents", [])) != 1:
                continue
            title = symbol["names"]["title"]
            declaration = "".join(fragment["spelling"] for fragment in symbol["declarationFragments"])
            found.setdefault(title, []).append(declaration)
    return found


def swift_signatures(prefix: str, swift: dict[str, list[str]], others: set[str] | frozenset[str] = frozenset()
                     ) -> list[str]:
    """The declarations whose title starts with `prefix` (swift_titles),
    but for those of `others`, the prefixes of other operators that add a
    label to it (`first(` is first(_:), not first(where:), which the table
    names apart); the three shortest."""
    def fits(title: str) -> bool:
        return title.startswith(prefix) and not any(
            title.startswith(other) for other in others
            if other.startswith(prefix) and re.search(r"[A-Za-z]\w*:", other[len(prefix):]))
    declarations = {d for title, found in swift.items() if fits(title) for d in found}
    return sorted(declarations, key=lambda d: (len(d), d))[:3]


def _declaration_end(text: str, start: int) -> int:
    """Where a Rust item's signature ends: its body's `{` (or a `;`) outside
    parentheses and brackets."""
    depth = 0
    for index in range(start, len(text)):
        ch = text[index]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch in "{;" and depth == 0:
            return index
    return len(text)


def rust_declarations(folder: str = RUST_SOURCES) -> dict[str, list[str]]:
    """method name -> its declarations in the crate's source: each `pub fn`
    of an `impl ... Signal<...>` block, written `impl<T: Value> Signal<T> {
    pub fn name(...) -> ...; }` (its bounds as the source has them, its
    lines joined), so that a page shows which signals have it."""
    found: dict[str, list[str]] = {}
    paths = sorted(glob.glob(os.path.join(folder, "**", "*.rs"), recursive=True))
    for path in paths:
        if os.path.basename(path) == "sys.rs":
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for block in re.finditer(r"(?m)^impl(<[^{]*?>)? (Signal<[^{]*?>) \{\n(.*?)^\}", text, re.S):
            header = f"impl{block.group(1) or ''} {block.group(2)}"
            body = block.group(3)
            for item in re.finditer(r"(?m)^    pub fn (\w+)", body):
                end = _declaration_end(body, item.start())
                declaration = " ".join(body[item.start():end].split())
                declaration = re.sub(r"\(\s+", "(", re.sub(r",\s*\)", ")", declaration))
                found.setdefault(item.group(1), []).append(f"{header} {{\n    {declaration};\n}}")
    return found


# ---------------------------------------------------------------------------
# Availability
# ---------------------------------------------------------------------------

def _read(paths: list[str]) -> str:
    text = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text.append(f.read())
    return "\n".join(text)


def _code(text: str, comment: str) -> str:
    """`text` without its comments (`comment`: a regular expression)."""
    return re.sub(comment, " ", text)


def called_functions(cpp_header: str = CPP_HEADER, python_package: str = PYTHON_PACKAGE,
                     rust_sources: str = RUST_SOURCES, c_api: set[str] | None = None) -> dict[str, set[str]]:
    """language -> the C functions its binding's code names (C++: the
    header, calls and function pointers; Python: the ctypes prototypes its
    modules call, and its C extension; Rust: the safe layer's calls of the
    raw one), comments left out; and C's, api.json's functions (`c_api`),
    when given."""
    c_comments = r"(?s)/\*.*?\*/|//[^\n]*"
    cpp = set(re.findall(r"\b(sk_\w+)\b", _code(_read([cpp_header]), c_comments)))
    modules = [p for p in glob.glob(os.path.join(python_package, "**", "*.py"), recursive=True)
               if os.path.basename(p) != "_prototypes.py"]
    python = {"sk_" + name for name in re.findall(r"\bC\.(\w+)\b", _read(modules))}
    python |= set(re.findall(r"\b(sk_\w+)\s*\(", _code(_read(glob.glob(os.path.join(python_package, "*.c"))),
                                                       c_comments)))
    crate = [p for p in glob.glob(os.path.join(rust_sources, "**", "*.rs"), recursive=True)
             if os.path.basename(p) != "sys.rs"]
    rust = set(re.findall(r"\bsys::(sk_\w+)\s*\(", _code(_read(crate), r"//[^\n]*")))
    found = {"C++": cpp, "Python": python, "Rust": rust}
    if c_api is not None:
        found["C"] = set(c_api)
    return found


def c_function(row: dict[str, str]) -> str | None:
    """The row's own C function (its C cell's first name), if any: none
    where the cell composes the operator from another row's function
    (tools/api/operators.py's composes)."""
    found = names(row["c"])
    return found[0] if found and found[0].startswith("sk_") and not _operators().composes(row) else None


def composition(row: dict[str, str], rows: list[dict[str, str]]) -> list[str]:
    """The C functions a row with none of its own is made of, at fixed
    arguments, as its cells say: the one its C cell composes it from
    (concatMap's `sk_signal_merge_map`, max_concurrent 1), and for each of
    C++, Python and Rust, the function of the first row with one of its own
    whose cell in that language names first what this row's cell names first
    (concatMap's Python `merge_map`, max_concurrent=1: mergeMap's
    sk_signal_merge_map). Empty for a row with a function of its own, and for
    one whose cells name no other row's operator (the Swift API's own)."""
    if c_function(row):
        return []
    found = [name for name in names(row["c"])[:1] if name.startswith("sk_")]
    for lang in ("C++", "Python", "Rust"):
        given = names(row[COLUMNS[lang]])[:1]
        for other in rows:
            function = c_function(other)
            if given and function and names(other[COLUMNS[lang]])[:1] == given:
                found.append(function)
                break
    return list(dict.fromkeys(found))


# The bindings whose every operator calls its C function: a name in their
# cell for a binding that never calls it names something else. (Python's
# map and filter are stages of its own, composed in Python: a name there is
# held to the package's declarations alone.) C: api.json's functions.
CALLS_ITS_FUNCTION = ("C", "C++", "Rust")


def check_availability(rows: list[dict[str, str]], called: dict[str, set[str]]) -> list[str]:
    """Where a row's cell and its binding disagree: the cell says the
    binding lacks the operator (no name) but the binding calls the row's C
    function, so that the mark "not in this binding yet" would be false; or,
    for C (when `called` has api.json's functions), C++ and Rust, the cell
    names an operator but the binding never calls the function. A row with
    no function of its own is held so to the one its cells compose it from
    (composition: concatMap, mergeMap's function one at a time), and its
    cells must agree on one. (A name the binding does not declare at all:
    page_languages.)"""
    problems = []
    for row in rows:
        where = f"tools/api/operators.md:{row.get('line', '?')}: the"
        function = c_function(row)
        composed = [] if function else composition(row, rows)
        if len(composed) > 1:
            problems.append(f"{where} cells of '{row['operator']}' compose it from different functions, "
                            f"{', '.join(composed)}: name one operator in each (its own words after it)")
            continue
        function = function or next(iter(composed), None)
        if function is None:
            continue
        made = f" (the row is {function} at fixed arguments, as its other cells say)" if composed else ""
        for lang, functions in called.items():
            named = names(row[COLUMNS[lang]])
            verb = "has" if lang == "C" else "calls"
            if not named and function in functions:
                problems.append(f"{where} {lang} cell of '{row['operator']}' says the binding lacks it, but the "
                                f"{lang} binding {verb} {function}{made}: name its operator in the cell"
                                + ("" if composed else " (make api-update)"))
            if named and function not in functions and lang in CALLS_ITS_FUNCTION:
                problems.append(f"{where} {lang} cell of '{row['operator']}' names {', '.join(named)}, but the "
                                f"{lang} binding never {verb} {function}{made}: the cell "
                                "names another operator")
    return problems


# The operators a program calls, by language: what an example composes an
# operator from where its binding lacks it.
# (The test scheduler's own methods, `scheduler.queue()`, are none.)
CALLS = {"C": r"\b(sk_signal_\w+)\(", "C++": r"\bsk::(?:signal::)?(\w+)\(",
         "Python": r"(?<!scheduler)\.(\w+)\(", "Rust": r"(?:(?<!scheduler)\.|Signal::)(\w+)\(",
         "Swift": r"(?:\|>|=) (\w+)\b"}


def called_operators(lang: str, program: str, rows: list[dict[str, str]]) -> list[str]:
    """The operators of the table (in `lang`'s column) that `program` calls,
    in the order it first calls them."""
    known = {name for row in rows for name in names(row[COLUMNS[lang]])}
    return list(dict.fromkeys(name for name in re.findall(CALLS[lang], program) if name in known))


class Bindings:
    """Every binding's declarations (signatures), as the site's build finds
    them: api.json's functions, the C++ header's members, the Python
    package (imported), the crate's source, the Swift symbol graphs."""

    def __init__(self, api: dict[str, dict[str, Any]], cpp: dict[str, list[str]], swift: dict[str, list[str]],
                 rust: dict[str, list[str]], rows: list[dict[str, str]]) -> None:
        self.api, self.cpp, self.swift, self.rust, self.rows = api, cpp, swift, rust, rows
        # Every Swift title prefix the table names (a name with labels is
        # an operator of its own).
        self.swift_prefixes = {prefix for row in rows for prefix in swift_titles(row["swift"])}

    def declared(self, lang: str, name: str) -> list[str]:
        """`name`'s declarations in `lang` (a Swift title prefix for Swift)."""
        if lang == "C":
            return [c_signature(self.api[name])] if name in self.api else []
        if lang == "C++":
            return sorted(self.cpp.get(name, []), key=lambda d: (len(d), d))
        if lang == "Python":
            found = python_signature(name)
            return [found] if found else []
        if lang == "Rust":
            return self.rust.get(name, [])
        return swift_signatures(name, self.swift, self.swift_prefixes)

    def cell_names(self, lang: str, row: dict[str, str]) -> list[str]:
        return swift_titles(row["swift"]) if lang == "Swift" else names(row[COLUMNS[lang]])


def bounded_or_not(overloads: list[str], row: dict[str, str], bindings: Bindings) -> list[str]:
    """A C++ name's overloads that are the row's C function: with a
    `capacity` when it has one (zip's page shows zip(signals), zipBounded's
    zip(signals, capacity, policy ...)); all of them when none fits."""
    function = bindings.api.get(c_function(row) or next(iter(composition(row, bindings.rows)), ""))
    if function is None:
        return overloads
    bounded = any(p["name"] == "capacity" for p in function["params"])
    fitting = [o for o in overloads if ("capacity" in o) == bounded]
    return fitting or overloads


def page_languages(row: dict[str, str], bindings: Bindings, programs: dict[str, tuple[str, str]],
                   rows: list[dict[str, str]]) -> tuple[list[tuple[str, bool, list[str], list[str]]], list[str]]:
    """A page's languages, in COLUMNS' order: (language, whether its binding
    has the operator, the names its row gives or, where it has not, those
    its example composes it from, their declarations); and the problems: a
    name the binding does not declare, a language with no declaration to
    show."""
    found: list[tuple[str, bool, list[str], list[str]]] = []
    problems: list[str] = []
    where = f"tools/api/operators.md:{row.get('line', '?')} ({row['operator']})"
    for lang in COLUMNS:
        given = bindings.cell_names(lang, row)
        has = bool(given)
        if not has and lang in programs:
            given = called_operators(lang, programs[lang][0], rows)
        declarations = []
        for name in given:
            mine = bindings.declared(lang, name)
            if not mine:
                problems.append(f"{where}: {lang} names `{name}`, which the {lang} binding does not declare")
            declarations += bounded_or_not(mine, row, bindings) if lang == "C++" and has else mine
        if not declarations:
            problems.append(f"{where}: no {lang} signature to show: the binding has no operator the row names, "
                            "and its example calls none")
        found.append((lang, has, given, declarations))
    return found, problems


def check_declared(rows: list[dict[str, str]], bindings: Bindings, languages: tuple[str, ...]) -> list[str]:
    """Every name that an operator page's row (a row with a marble name)
    gives in `languages` is declared by that binding: the page's signature
    is then the binding's own."""
    problems = []
    for row in rows:
        if not names(row["marble"]):
            continue
        for lang in languages:
            for name in bindings.cell_names(lang, row):
                if not bindings.declared(lang, name):
                    problems.append(f"tools/api/operators.md:{row.get('line', '?')}: the {lang} cell of "
                                    f"'{row['operator']}' names `{name}`, which the {lang} binding does not declare "
                                    "(its operator page would show no signature)")
    return problems


def main() -> int:
    """Checks the operator table against the bindings that need no build:
    the availability marks (C++, Python, Rust), the names the pages take
    their signatures from (C from api.json, C++ and Rust from their
    source), and the pages' prose (no C words). make docs checks the Python
    and Swift names, whose readers need the package installed and the
    symbol graphs."""
    if len(sys.argv) != 2:
        print("usage: declarations.py API_JSON", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        api = {function["name"]: function for function in json.load(f)["functions"]}
    rows = read_rows()
    bindings = Bindings(api, cpp_declarations(), {}, rust_declarations(), rows)
    problems = check_availability(rows, called_functions(c_api=set(api))) + check_declared(rows, bindings,
                                                                                          ("C", "C++", "Rust"))
    for row in rows:
        said, c_words = prose(row, api, rows) if names(row["marble"]) else ("", [])
        if c_words:
            problems.append(f"tools/api/operators.md:{row.get('line', '?')}: the page of '{row['operator']}' would "
                            f"say {', '.join(c_words)}, C's words, to every language: {said!r} (its C brief: add "
                            "the words to tools/api/operator_words.py's SHARED)")
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print("declarations.py: every operator page's C, C++ and Rust names are their bindings' declarations, "
              "every availability mark is its binding's, and no page's prose speaks C")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
