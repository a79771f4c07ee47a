#!/usr/bin/env python3
"""A short example per operator page in C, C++, Swift, Python and Rust,
generated from the shared marble table (Tests/marbles/*.marbles, format in
its README.md), never written by hand.

For each operator of the table (a page of the site, tools/docs/site.py) one
of its cases (CHOSEN, else the first whose only `op` line is the operator's,
or whose two are the operator's and a `take`, for an operator that starts
again for ever, with no `dispose` line, no `also` line that disposes and no
callback that fails)
becomes a program
in each language: its inputs made as cold (or hot) test signals on the
virtual-time test scheduler of that language (the marble diagrams of the
page's picture, each digit the integer it shows), the operator applied with
the vocabulary's function written as a lambda or closure (the call spelled
from its row of the operator table and its shape, as the marble runners'
are; the few no shape spells from this file's tables), a subscriber that
prints each event with its frame (`3: 20`, `4: completed`, `3: error`), a
second subscriber for an `also` line (`late` on its lines), subscribed when
the clock reaches its frame, and the clock run to the end. What it must
print is derived from the case's `out` (and `also`) line: tests compare it
with what each program prints.

Where the files go and who runs them:

- C, C++, Python and Rust: `examples.py --out DIR` writes DIR/c/OP.c,
  DIR/cpp/OP.cpp, DIR/python/OP.py, DIR/rust/OP.rs and
  DIR/expected/LANG/OP.txt (make test-op-examples, mk/docs.mk: every C
  example compiled alone with -Wall -Wextra -Werror; the C++ ones compiled
  as one program, each in a namespace of its own, with -Wall -Wextra
  -pedantic -Werror; the Python ones run with the package; the Rust ones,
  written against the crate's public API only, built as one program of a
  package that depends on the crate by path (DIR/rust/Cargo.toml, each
  example a module of all.rs), with warnings as errors and clippy; each
  output compared);
- Swift: SWIFT_DIR (examples/swift/Sources/OperatorExamples), one executable
  target of the Swift example package: each example is the body of a
  function there (OP.swift), main.swift runs the one its argument names.
  SwiftPM compiles what is in the tree, so these files are committed:
  `examples.py --write-swift` writes them (make api-update), `examples.py
  --check-swift` fails when they differ (make test-api), and make
  test-examples-swift builds the package and compares each output.

site.py imports this module (`examples()`) to show the five programs and
their output on each operator page.

Usage: examples.py --out DIR [--rust-crate DIR] | --write-swift | --check-swift
Standard library only.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARBLES = os.path.join(ROOT, "Tests", "marbles")
SWIFT_DIR = os.path.join(ROOT, "examples", "swift", "Sources", "OperatorExamples")
# What each Swift example prints (make test-examples-swift compares).
SWIFT_EXPECTED = os.path.join(ROOT, "examples", "swift", "OperatorExamples.expected")
LANGUAGES = ("C", "C++", "Swift", "Python", "Rust")
# The crate the Rust examples are written against (its public API only).
RUST_CRATE = os.path.join(ROOT, "Sources", "rust", "rsignalkit")

# The case an operator's example plays, where the first one is not the
# clearest: the issue asks for scan's non-zero initial value; mergeMap's
# first case runs one at a time (a concatMap).
CHOSEN = {"scan": "scan_from_an_initial_value", "mergeMap": "mergeMap_two_at_a_time_makes_the_third_wait"}

# The side effects: what each example's function prints (with its frame),
# whether it takes the value, and where its line goes among the subscriber's
# (before or after which event). Their snake_case name is the C, C++ and
# Python one.
SIDE = {"beforeNext": ("before", True, "before", "next"), "afterNext": ("after", True, "after", "next"),
        "beforeStarted": ("starting", False, "start", ""),
        "beforeCompleted": ("before the completion", False, "before", "completed"),
        "afterCompleted": ("after the completion", False, "after", "completed"),
        "afterDisposed": ("disposed", False, "after", "end")}
# Operators whose Swift signal cannot fail (NoError): no error callback.
SWIFT_NO_ERROR = {"restartIfError", "retryBackoff"}
# The queue hops, on the example's virtual queue.
HOPS = {"deliverOn", "runOn"}


def snake(op: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), op)


# Operators that emit tuples in Swift (lists in Python, arrays in C and C++).
TUPLES = {"zip", "zip3", "combineLatest", "withLatestFrom", "pairwise"}
# Those whose Rust method emits pairs, printed as Rust prints a tuple:
# (2, 5). The others take a slice of signals and emit a Vec, printed as
# C's arrays: [2, 5].
RUST_TUPLES = {"withLatestFrom", "pairwise"}

# The operators of the table: their call in each language is spelled from
# their shape (tools/api/shapes.py) and the operator table's names
# (tools/api/operators.md), as the marble runners' are, with the case's
# arguments written as an example writes them (python_arguments,
# cpp_arguments, swift_arguments, rust_arguments, c_example's); the tables
# of python_op, cpp_op, swift_op, rust_op and c_example spell only a name with no C function
# (concatMap) and an example whose call is not its shape's, which they then
# spell, taking precedence (Swift's zip, zip3 and combineLatest in Swift's
# arities, last's optional). Read from the table's shape column, so this
# needs no api.json.
OPERATORS_PY = os.path.join(ROOT, "tools", "api", "operators.py")


def load_api() -> Any:
    """tools/api/operators.py, as a module (it imports shapes.py beside it)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("api_operators", OPERATORS_PY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


API = load_api()
OPERATORS: dict[str, Any] = API.described_operators(API.read_table(os.path.join(ROOT, API.TABLE))[2])


def example_arguments(case: Case, spell_kind: Callable[[str, list[str], int | None], str],
                      true: str) -> dict[str, str]:
    """kind -> its text in an example of the case's operator: each kind its
    `op` line gives (spell_kind(kind, the line's words, its index)), the
    case's queue, a flag its name sets (`true`); an optional one the line
    leaves out is left out."""
    words = case.ops[0]
    operator, flag = OPERATORS[words[0]]
    indexes, _, _ = API.marble_words(operator.shape)
    found = {}
    for kind in operator.kinds():
        if kind in indexes and (kind != "delay" or len(words) > indexes[kind]):
            found[kind] = spell_kind(kind, words, indexes[kind])
            if kind == "delay":
                found["delay_queue"] = spell_kind("queue", words, None)
        elif kind == "queue":
            found[kind] = spell_kind(kind, words, None)
    if flag:
        found["flag"] = true
    return found


def inners_of(words: list[str]) -> list[str]:
    """The inputs a line names for a signal function or a signal of signals
    (the upstream's value `i` the `i`-th), after its other arguments."""
    if words[0] not in OPERATORS:
        return words[1:]  # concatMap
    operator, _ = OPERATORS[words[0]]
    indexes, after, _ = API.marble_words(operator.shape)
    if "of signals" in operator.shape.conventions:
        return words[after:]
    return words[indexes["inner"]:] if "inner" in indexes else []


def of_signals(op: str) -> bool:
    return op in OPERATORS and "of signals" in OPERATORS[op][0].shape.conventions


def indexes_inners(words: list[str]) -> bool:
    """Whether the example picks among several inputs by index (`inners`):
    a signal of signals, or a signal function of more than one."""
    return words[0] == "concatMap" or of_signals(words[0]) or len(inners_of(words)) > 1


def groups(op: str) -> bool:
    return op in OPERATORS and "groups" in OPERATORS[op][0].shape.conventions


@dataclass
class Case:
    name: str
    where: str
    inputs: list[tuple[str, bool, str]] = field(default_factory=list)  # (name, hot, diagram)
    values: dict[str, Any] = field(default_factory=dict)
    ops: list[list[str]] = field(default_factory=list)
    out: str = ""
    also: list[tuple[int, int | None, str]] = field(default_factory=list)
    dispose: int | None = None
    fails: bool = False  # `fails C`: the subscriber's own callback fails


def read_cases(folder: str = MARBLES) -> list[Case]:
    cases: list[Case] = []
    for path in sorted(glob.glob(os.path.join(folder, "*.marbles"))):
        case: Case | None = None
        with open(path, encoding="utf-8") as f:
            for number, raw in enumerate(f, 1):
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                words = line.split()
                where = f"Tests/marbles/{os.path.basename(path)}:{number}"
                if words[0] == "case":
                    case = Case(words[1], where)
                    cases.append(case)
                elif case is None:
                    raise SystemExit(f"{where}: {words[0]} outside a case")
                elif words[0] in ("in", "hot"):
                    case.inputs.append((words[1], words[0] == "hot", line.split(None, 2)[2]))
                elif words[0] == "value":
                    case.values[words[1]] = json.loads(words[2])
                elif words[0] == "op":
                    case.ops.append(words[1:])
                elif words[0] == "out":
                    case.out = line.split(None, 1)[1] if len(words) > 1 else ""
                elif words[0] == "also":
                    case.also.append((int(words[1]), None if words[2] == "-" else int(words[2]),
                                      line.split(None, 3)[3] if len(words) > 3 else ""))
                elif words[0] == "fails":
                    case.fails = True
                elif words[0] == "dispose":
                    case.dispose = int(words[1])
                elif words[0] == "end":
                    case = None
    return cases


def events(diagram: str, values: dict[str, Any]) -> list[tuple[int, str, Any]]:
    """[(frame, "next" / "error" / "completed", value)] of a diagram."""
    found: list[tuple[int, str, Any]] = []
    frame, group = 0, False
    for ch in diagram.replace(" ", ""):
        if ch == "^":
            continue
        if ch == "(":
            group = True
            continue
        if ch == ")":
            group = False
            frame += 1
            continue
        if ch == "|":
            found.append((frame, "completed", None))
        elif ch == "#":
            found.append((frame, "error", None))
        elif ch != "-":
            found.append((frame, "next", values.get(ch, int(ch) if ch.isdigit() else ch)))
        if not group:
            frame += 1
    return found


def usable(case: Case, op: str) -> bool:
    """A case of the operator alone, or followed by a `take` (an operator
    that starts again for ever), with no disposal, and no callback that
    fails (`!`, or the subscriber's own: `fails`; the examples' functions
    cannot)."""
    return (bool(case.ops) and not case.fails and case.ops[0][0] == op and (len(case.ops) == 1 or (len(case.ops) == 2 and case.ops[1][0] == "take"))
            and case.dispose is None and all(to is None for _, to, _ in case.also)
            and not any("!" in word for words in case.ops for word in words))


def taken(case: Case) -> str | None:
    """The count of the `take` after the operator, if any."""
    return case.ops[1][1] if len(case.ops) == 2 else None


def chosen_cases(cases: list[Case]) -> dict[str, Case | None]:
    """Each operator of the table -> the case its examples play (None: no
    case fits)."""
    found: dict[str, Case | None] = {}
    for case in cases:
        for words in case.ops:
            found.setdefault(words[0], None)
    for op in found:
        if op in CHOSEN:
            found[op] = next(c for c in cases if c.name == CHOSEN[op])
        else:
            found[op] = next((c for c in cases if usable(c, op)), None)
    return found


# ---------------------------------------------------------------------------
# The vocabulary's functions, as an expression of `x` (and `acc`)
# ---------------------------------------------------------------------------

def split_function(spec: str) -> tuple[str, str]:
    name, _, k = spec.partition(":")
    return name, k


def expression(spec: str, lang: str) -> str:
    """The function's body in `lang`, of x (and acc for a binary one)."""
    name, k = split_function(spec)
    true, false = ("True", "False") if lang == "Python" else ("true", "false")
    x = "$0" if lang == "Swift" else "x"
    acc, item = ("$0", "$1") if lang == "Swift" else ("acc", "x")
    table = {
        "identity": x, "negate": f"-{x}", "times": f"{x} * {k}", "plus": f"{x} + {k}", "mod": f"{x} % {k}",
        "is_even": f"{x} % 2 == 0", "is_odd": f"{x} % 2 != 0", "always": true, "never": false,
        "lt": f"{x} < {k}", "gt": f"{x} > {k}", "eq": f"{x} == {k}", "ne": f"{x} != {k}",
        "add": f"{acc} + {item}", "sub": f"{acc} - {item}", "mul": f"{acc} * {item}",
        "max": {"Python": "max(acc, x)", "Swift": "max($0, $1)", "C++": "std::max(acc, x)", "Rust": "acc.max(x)"}.get(
            lang, "acc > x ? acc : x"),
    }
    if name not in table:
        raise SystemExit(f"examples.py: the function `{spec}` is not in the vocabulary")
    return table[name]


def c_name(spec: str) -> str:
    """A C function's name for a vocabulary function: times:10 -> times_10."""
    name, k = split_function(spec)
    words = {"lt": "less_than", "gt": "greater_than", "eq": "equal_to", "ne": "not_equal_to"}
    return words.get(name, name) + (f"_{k.replace('-', 'minus_')}" if k else "")


BINARY = {"add", "sub", "mul", "max"}
PREDICATES = {"is_even", "is_odd", "always", "never", "lt", "gt", "eq", "ne"}


def kind_of(spec: str) -> str:
    name, _ = split_function(spec)
    return "binary" if name in BINARY else "predicate" if name in PREDICATES else "map"


# ---------------------------------------------------------------------------
# Expected output
# ---------------------------------------------------------------------------

def show(value: Any, tuple_form: bool) -> str:
    if isinstance(value, list):
        inner = ", ".join(show(v, False) for v in value)
        return f"({inner})" if tuple_form else f"[{inner}]"
    return str(value)


def expected(case: Case, lang: str) -> str:
    """What the example prints: each subscriber's events by frame (the first
    subscriber's first within a frame)."""
    op = case.ops[0][0]
    tuple_form = (lang == "Swift" and op in TUPLES) or (lang == "Rust" and op in RUST_TUPLES)
    lines: list[tuple[int, int, int, str]] = []
    for index, (label, diagram) in enumerate([("", case.out)] + [("late ", d) for _, _, d in case.also]):
        said: list[tuple[int, str]] = []
        side = SIDE.get(op) if index == 0 else None
        if side and side[2] == "start":
            said.append((0, side[0]))
        for frame, kind, value in events(diagram, case.values):
            text = show(value, tuple_form) if kind == "next" else kind
            effect = None
            if side and (side[3] == kind or (side[3] == "end" and kind != "next")):
                effect = (frame, f"{side[0]} {text}" if side[1] else side[0])
            if effect and side and side[2] == "before":
                said.append(effect)
            said.append((frame, f"{label}{text}"))
            if effect and side and side[2] == "after":
                said.append(effect)
        for order, (frame, text) in enumerate(said):
            lines.append((frame, index, order, f"{frame}: {text}"))
    return "".join(line + "\n" for *_, line in sorted(lines))


# ---------------------------------------------------------------------------
# The operator in each language
# ---------------------------------------------------------------------------

POLICIES = {"dropNewest": ("drop_newest", "DROP_NEWEST", "dropNewest"),
            "dropOldest": ("drop_oldest", "DROP_OLDEST", "dropOldest"),
            "latest": ("latest", "LATEST", "latest")}


def python_arguments(kind: str, words: list[str], i: int | None) -> str:
    """A kind of the case's line, as a Python example writes it."""
    word = words[i] if i is not None and i < len(words) else ""
    if kind in ("predicate", "map"):
        return f"lambda x: {expression(word, 'Python')}"
    if kind == "fold":
        return f"lambda acc, x: {expression(word, 'Python')}"
    if kind == "overflow":
        return f"\"{POLICIES[word][0]}\""
    if kind in ("seconds", "most", "delay"):
        return f"scheduler.seconds({word})"
    if kind == "queue":
        return "scheduler.queue"
    if kind == "signals":
        return ", ".join(words[i:])
    if kind == "inner":
        names = words[i:]
        return f"lambda _: {names[0]}" if len(names) == 1 else f"lambda i: [{', '.join(names)}][i]"
    if kind == "make":
        return f"lambda: {word}"
    if kind == "action":
        return (f"\n    lambda x: (sk.TAKE_PASS if {expression(word, 'Python')} else 0)\n"
                f"    | (sk.TAKE_COMPLETE if {expression(words[(i or 0) + 1], 'Python')} else 0)")
    return word  # a count, a capacity, a value, an input's name


def python_op(case: Case) -> str:
    words = case.ops[0]
    op = words[0]
    a = case.inputs[0][0]
    inners = "[" + ", ".join(inners_of(words)) + "]"
    table: dict[str, Callable[[], str]] = {
        "concatMap": lambda: f"{a}.merge_map(lambda i: {inners}[i], max_concurrent=1)",
    }
    if op in SIDE:
        effect, takes, _, _ = SIDE[op]
        said = f"{{scheduler.now}}: {effect}" + (" {x}" if takes else "")
        return f"{a}.{snake(op)}(lambda{' x' if takes else ''}: print(f\"{said}\"))"
    if op not in table:
        operator, _ = OPERATORS[op]
        arguments = example_arguments(case, python_arguments, "True")
        arguments["source"] = f"{a}.map(lambda i: {inners}[i])" if of_signals(op) else a
        call = API.shapes.spell("Python", operator, arguments)
        if groups(op):
            call += ".merge_map(\n    lambda group: group[1].map(lambda x, key=group[0]: [key, x]))"
        table[op] = lambda: call
    count = taken(case)
    return table[op]() + (f".take({count})" if count else "")


def python_example(case: Case) -> str:
    op = case.ops[0][0]
    uses_sk = "sk." in python_op(case)
    lines = [f'"""{op}: the marble case {case.name}',
             f'({case.where.rsplit(":", 1)[0]}) on virtual time. Generated by tools/docs/examples.py."""']
    if uses_sk:
        lines.append("import pysignalkit as sk")
    lines += ["from pysignalkit.testing import TestScheduler", "",
              "with TestScheduler() as scheduler:  # a frame is 1 ms of virtual time"]
    for name, hot, diagram in case.inputs:
        digits = sorted({ch for ch in diagram if ch.isdigit()})
        table = "{" + ", ".join(f'"{d}": {d}' for d in digits) + "}" if digits else "dict[str, int]()"
        lines.append(f"    {name} = scheduler.{'hot' if hot else 'cold'}(\"{diagram}\", {table})")
    body = python_op(case).replace("\n", "\n    ")
    lines += [f"    result = {body}", "",
              "    def show(event: object, label: str = \"\") -> None:",
              "        print(f\"{scheduler.now}: {label}{event}\")", "",
              "    result.subscribe(show, lambda error: show(\"error\"), lambda: show(\"completed\"))"]
    for start, _, _ in case.also:
        lines += [f"    scheduler.advance_to({start})",
                  "    result.subscribe(lambda value: show(value, \"late \"), lambda error: show(\"error\", \"late \"),",
                  "                     lambda: show(\"completed\", \"late \"))"]
    lines.append("    scheduler.run()")
    return "\n".join(lines) + "\n"


def cpp_fn(spec: str) -> str:
    if kind_of(spec) == "binary":
        return f"[](std::int64_t acc, std::int64_t x) {{ return {expression(spec, 'C++')}; }}"
    return f"[](std::int64_t x) {{ return {expression(spec, 'C++')}; }}"


SELECT = "[inners](std::int64_t i) { return inners[i]; }"


def cpp_arguments(kind: str, words: list[str], i: int | None) -> str:
    """A kind of the case's line, as a C++ example writes it."""
    word = words[i] if i is not None and i < len(words) else ""
    if kind in ("predicate", "map", "fold"):
        return cpp_fn(word)
    if kind == "overflow":
        return f"sk::overflow::{POLICIES[word][0]}"
    if kind in ("seconds", "most", "delay"):
        return f"{word} * frame"
    if kind == "queue":
        return "queue"
    if kind == "signals":
        return "{" + ", ".join(words[i:]) + "}"
    if kind == "inner":
        names = words[i:]
        return f"[{names[0]}](sk::value_view) {{ return {names[0]}; }}" if len(names) == 1 else SELECT
    if kind == "make":
        return f"[{word}] {{ return {word}; }}"
    if kind == "action":
        return ("[](std::int64_t x) {\n"
                f"        return ({expression(word, 'C++')} ? sk::take_pass : sk::take_drop) |\n"
                f"               ({expression(words[(i or 0) + 1], 'C++')} ? sk::take_complete : sk::take_drop);\n"
                "    }")
    return word  # a count, a capacity, a value, an input's name


def cpp_op(case: Case) -> str:
    words = case.ops[0]
    op = words[0]
    a = case.inputs[0][0]
    pipe: dict[str, Callable[[], str]] = {
        "concatMap": lambda: f"{a} | sk::merge_map(1, {SELECT})",
    }
    if op in SIDE:
        effect, takes, _, _ = SIDE[op]
        param, value = ("std::int64_t x", " << x") if takes else ("", "")
        return (f"{a} | sk::{snake(op)}([&queue]({param}) {{\n"
                f"        std::cout << queue.now().count() / 1000000 << \": {effect}{' ' if takes else ''}\"{value} << \"\\n\";\n"
                "    })")
    if op not in pipe:
        operator, _ = OPERATORS[op]
        arguments = example_arguments(case, cpp_arguments, "true")
        arguments["source"] = f"{a} | sk::map({SELECT})" if of_signals(op) else a
        call = API.shapes.spell("C++", operator, arguments, style="pipe")
        if groups(op):
            call += ("\n    | sk::merge_map(SIZE_MAX, [](sk::value_view group) {\n"
                     "          sk::value key = group[0];\n"
                     "          return group[1].as<sk::signal>().map(\n"
                     "              [key](std::int64_t x) { return sk::value(std::vector<sk::value>{key, x}); });\n"
                     "      })")
        pipe[op] = lambda: call
    count = taken(case)
    return pipe[op]() + (f" | sk::take({count})" if count else "")


def emits_lists(case: Case) -> bool:
    return any(isinstance(v, list) for _, kind, v in events(case.out, case.values) if kind == "next") or \
        case.ops[0][0] in TUPLES | {"bufferCount", "bufferTime", "bufferTimeBounded", "groupBy"}


def cpp_example(case: Case) -> str:
    op = case.ops[0][0]
    lists = emits_lists(case)
    lines = [f"// {op}: the marble case {case.name}",
             f"// ({case.where.rsplit(':', 1)[0]}) on virtual time. Generated by tools/docs/examples.py.",
             "#include <signalkit_test.hpp>", "", "#include <cstdint>", "#include <iostream>", "#include <string>"]
    if indexes_inners(case.ops[0]) or groups(op):
        lines.append("#include <vector>")
    if groups(op):
        lines.insert(lines.index("#include <cstdint>"), "#include <cstddef>")
    lines += ["", "namespace sk = signalkit;", "", "int main() {",
              "    const double frame = 0.001; // a frame is 1 ms of virtual time",
              "    auto queue = sk::test::virtual_queue::create(\"example\");"]
    lines += ["    sk::test::marble_values digits; // each digit of the diagrams stands for its integer",
              "    for (char d = '0'; d <= '9'; d++) {", "        digits[d] = d - '0';", "    }"]
    for name, hot, diagram in case.inputs:
        lines.append(f"    sk::signal {name} = sk::test::{'hot' if hot else 'cold'}(queue, frame, \"{diagram}\", "
                     "digits).signal;")
    body = cpp_op(case).replace("\n", "\n    ")
    if indexes_inners(case.ops[0]):
        lines.append(f"    const std::vector<sk::signal> inners = {{{', '.join(inners_of(case.ops[0]))}}};")
    lines += [f"    sk::signal result = {body};",
              "    auto show = [&queue](const std::string &label, const std::string &event) {",
              "        std::cout << queue.now().count() / 1000000 << \": \" << label << event << \"\\n\";",
              "    };"]
    if lists:
        lines += ["    auto text = [](const sk::value &items) {",
                  "        std::string out;",
                  "        for (sk::value_view item : items) {",
                  "            out += (out.empty() ? \"[\" : \", \") + std::to_string(item.as<std::int64_t>());",
                  "        }",
                  "        return out + \"]\";",
                  "    };"]
        param, value_text = "const sk::value &v", "text(v)"
    else:
        param, value_text = "std::int64_t v", "std::to_string(v)"
    def start(name: str, label: str) -> list[str]:
        indent = " " * 8
        return [f"    sk::scoped_disposable {name} = result.start(",
                f"{indent}[&]({param}) {{ show(\"{label}\", {value_text}); }},",
                f"{indent}[&](const sk::value &) {{ show(\"{label}\", \"error\"); }},",
                f"{indent}[&] {{ show(\"{label}\", \"completed\"); }});"]

    lines += start("subscription", "")
    for index, (at, _, _) in enumerate(case.also):
        lines.append(f"    queue.advance_to({at} * frame);")
        lines += start(f"late{index or ''}", "late ")
    lines += ["    queue.run();", "    return 0;", "}"]
    return "\n".join(lines) + "\n"


def swift_fn(spec: str) -> str:
    return f"{{ {expression(spec, 'Swift')} }}"


def swift_arguments(kind: str, words: list[str], i: int | None) -> str:
    """A kind of the case's line, as a Swift example writes it."""
    word = words[i] if i is not None and i < len(words) else ""
    if kind in ("predicate", "map", "fold"):
        return swift_fn(word)
    if kind == "overflow":
        return f".{POLICIES[word][2]}"
    if kind in ("seconds", "most", "delay"):
        return f"scheduler.seconds({word})"
    if kind == "queue":
        return "scheduler.queue"
    if kind == "other":
        return f"{word}.signal"
    if kind == "signals":
        return "[" + ", ".join(f"{n}.signal" for n in words[i:]) + "]"
    if kind == "inner":
        names = words[i:]
        return (f"{{ _ in {names[0]}.signal }}" if len(names) == 1
                else "{ [" + ", ".join(f"{n}.signal" for n in names) + "][$0] }")
    if kind == "make":
        return f"{{ {word}.signal }}"
    if kind == "action":
        return (f"{{\n    SignalTakeAction(passthrough: {expression(word, 'Swift')}, "
                f"complete: {expression(words[(i or 0) + 1], 'Swift')})\n}}")
    return word  # a count, a capacity, a value


def swift_op(case: Case) -> str:
    words = case.ops[0]
    op, args = words[0], words[1:]
    a = f"{case.inputs[0][0]}.signal"
    inners = "[" + ", ".join(f"{n}.signal" for n in inners_of(words)) + "]"
    signals = ", ".join(f"{n}.signal" for n in args)
    table: dict[str, Callable[[], str]] = {
        # Swift's arities: the forms a user writes (tuples).
        "zip": lambda: f"zip({signals})", "zip3": lambda: f"zip({signals})",
        "combineLatest": lambda: f"combineLatest({signals})",
        "concatMap": lambda: f"{a} |> mapToQueue {{ {inners}[$0] }}",
        "last": lambda: f"{a} |> last |> map {{ $0 ?? 0 }}  // last sends nil when a sends no value",
    }
    if op in SIDE:
        effect, takes, _, _ = SIDE[op]
        seen = " \\($0)" if takes else ""
        return f"{a} |> {op} {{ print(\"\\(scheduler.now): {effect}{seen}\") }}"
    if op not in table:
        operator, _ = OPERATORS[op]
        arguments = example_arguments(case, swift_arguments, "true")
        wrap = "\n   " if operator.shape.bounded else ""  # a long line
        arguments["source"] = f"{a} |> map {{ {inners}[$0] }}{wrap}" if of_signals(op) else a
        call = API.shapes.spell("Swift", operator, arguments)
        if groups(op):
            call += "\n    |> mergeMap { group in group.1 |> map { [group.0, $0] } }"
        table[op] = lambda: call
    count = taken(case)
    return table[op]() + (f" |> take({count})" if count else "")


def swift_body(case: Case) -> str:
    """The example as a user's main.swift would have it."""
    lines = ["let scheduler = TestScheduler()  // a frame is 1 ms of virtual time"]
    for name, hot, diagram in case.inputs:
        digits = sorted({ch for ch in diagram if ch.isdigit()})
        table = "[" + ", ".join(f'"{d}": {d}' for d in digits) + "]" if digits else "[Character: Int]()"
        lines.append(f"let {name} = try scheduler.{'hot' if hot else 'cold'}(\"{diagram}\", values: {table}, "
                     "error: \"boom\")")
    lines += [f"let result = {swift_op(case)}",
              "func show(_ event: Any, _ label: String = \"\") {",
              "    print(\"\\(scheduler.now): \\(label)\\(event)\")",
              "}"]
    if case.ops[0][0] == "ignoreValues":
        # A signal of Never: no value to show.
        lines.append("let subscription = result.start(error: { _ in show(\"error\") }, completed: { show(\"completed\") })")
    elif case.ops[0][0] in SWIFT_NO_ERROR:
        # A signal that cannot fail (NoError): no error to show.
        lines.append("let subscription = result.start(next: { show($0) }, completed: { show(\"completed\") })")
    else:
        lines += ["let subscription = result.start(next: { show($0) }, error: { _ in show(\"error\") },",
                  "                                completed: { show(\"completed\") })"]
    for index, (at, _, _) in enumerate(case.also):
        lines += [f"try scheduler.advance(toFrame: {at})",
                  f"let late{index or ''} = result.start(next: {{ show($0, \"late \") }}, "
                  "error: { _ in show(\"error\", \"late \") },",
                  " " * (len(f"let late{index or ''} = result.start(")) + "completed: { show(\"completed\", \"late \") })"]
    lines.append("try scheduler.run()")
    lines.append("subscription.dispose()")
    for index, _ in enumerate(case.also):
        lines.append(f"late{index or ''}.dispose()")
    return "\n".join(lines) + "\n"


def swift_example(case: Case) -> str:
    op = case.ops[0][0]
    return (f"// {op}: the marble case {case.name}\n"
            f"// ({case.where.rsplit(':', 1)[0]}) on virtual time. Generated by tools/docs/examples.py.\n"
            "import SwiftSignalKit\nimport SwiftSignalKitTesting\n\n" + swift_body(case))


def swift_type(op: str) -> str:
    return "Example_" + op


def swift_files(cases: dict[str, Case | None]) -> dict[str, str]:
    """The Swift example target's files: OP.swift, each example's body in a
    function, and main.swift, which runs the one its argument names."""
    header = "// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).\n"
    files: dict[str, str] = {}
    names = []
    for op, case in sorted(cases.items()):
        if case is None:
            continue
        names.append(op)
        body = "\n".join(("        " + line) if line else "" for line in swift_body(case).rstrip("\n").split("\n"))
        files[f"{op}.swift"] = (header + f"// {op}: the marble case {case.name}\n"
                                f"// ({case.where.rsplit(':', 1)[0]}).\n"
                                "import SwiftSignalKit\nimport SwiftSignalKitTesting\n\n"
                                f"enum {swift_type(op)} {{\n    static func run() throws {{\n{body}\n    }}\n}}\n")
    entries = "\n".join(f"    \"{op}\": {swift_type(op)}.run," for op in names)
    files["main.swift"] = (header + "// Runs the operator example its argument names (make test-examples-swift).\n"
                           "#if canImport(Glibc)\nimport Glibc\n#endif\n\n"
                           f"let examples: [String: () throws -> Void] = [\n{entries}\n]\n"
                           "let name = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : \"\"\n"
                           "guard let example = examples[name] else {\n"
                           "    print(\"usage: OperatorExamples OPERATOR (one of \\(examples.keys.sorted()))\")\n"
                           "    exit(2)\n}\ntry example()\n")
    return files


# ---------------------------------------------------------------------------
# Rust: the crate's public API (Sources/rust), on its virtual time
# (rsignalkit::testing::TestScheduler)
# ---------------------------------------------------------------------------

RUST_POLICIES = {"dropNewest": "DropNewest", "dropOldest": "DropOldest", "latest": "Latest"}


def rust_fn(spec: str) -> str:
    """A vocabulary function as a closure of the crate's operators: a map
    takes the value, a predicate borrows it, a fold takes both."""
    body = expression(spec, "Rust")
    kind = kind_of(spec)
    if kind == "binary":
        return f"|acc: i64, x: i64| {body}"
    if kind == "predicate":
        return f"|&x: &i64| {body}"
    return f"|x: i64| {body}"


def rust_arguments(kind: str, words: list[str], i: int | None) -> str:
    """A kind of the case's line, as a Rust example writes it."""
    word = words[i] if i is not None and i < len(words) else ""
    if kind in ("predicate", "map", "fold"):
        return rust_fn(word)
    if kind == "overflow":
        return f"Overflow::{RUST_POLICIES[word]}"
    if kind in ("seconds", "most", "delay"):
        return f"scheduler.frames({word})"
    if kind == "queue":
        return "scheduler.queue()"
    if kind == "other":
        return f"&{word}"
    if kind == "signals":
        return "&[" + ", ".join(words[i:]) + "]"
    if kind == "inner":
        names = words[i:]
        return f"move |_| {names[0]}.clone()" if len(names) == 1 else RUST_SELECT
    if kind == "make":
        return f"move || {word}.clone()"
    if kind == "action":
        return (f"|&x: &i64| TakeAction::new({expression(word, 'Rust')}, "
                f"{expression(words[(i or 0) + 1], 'Rust')})")
    return word  # a count, a capacity, a value


RUST_SELECT = "move |i: i64| inners[i as usize].clone()"


def rust_op(case: Case) -> str:
    words = case.ops[0]
    op = words[0]
    a = case.inputs[0][0]
    table: dict[str, Callable[[], str]] = {
        "concatMap": lambda: f"{a}.merge_map(1, {RUST_SELECT})",
        # last gives an Option: None when `a` sends no value.
        "last": lambda: f"{a}.last().map(|x: Option<i64>| x.unwrap_or(0))",
    }
    if op in SIDE:
        effect, takes, _, _ = SIDE[op]
        value = (" {}", ", x") if takes else ("", "")
        return (f"{a}.{snake(op)}(move |{'x: &i64' if takes else ''}| "
                f"println!(\"{{}}: {effect}{value[0]}\", clock.frame_now(){value[1]}))")
    if op not in table:
        operator, _ = OPERATORS[op]
        arguments = example_arguments(case, rust_arguments, "true")
        if operator.shape.flag and "flag" not in arguments:
            arguments["flag"] = "false"  # Rust's flag has no default
        if groups(op):
            # group_by's key function borrows the value.
            key = words[API.marble_words(operator.shape)[0]["map"]]
            arguments["map"] = f"|&x: &i64| {expression(key, 'Rust')}"
        if of_signals(op):
            wrap = "\n    " if operator.shape.bounded else ""  # a long line
            arguments["source"] = f"{a}{wrap}.map({RUST_SELECT}){wrap}"
        else:
            arguments["source"] = f"{a}\n    " if groups(op) else a
        call = API.shapes.spell("Rust", operator, arguments)
        if groups(op):
            call += ("\n    .merge_map(usize::MAX, |(key, group): (i64, Signal<i64>)| {\n"
                     "        group.map(move |x: i64| vec![key, x])\n    })")
        table[op] = lambda: call
    count = taken(case)
    return table[op]() + (f".take({count})" if count else "")


def rust_example(case: Case) -> str:
    """A program of the crate's public API alone: `fn main` returns the
    crate's Error, so that every fallible call reads `?`."""
    op = case.ops[0][0]
    body = rust_op(case)
    uses = ["Observer", "Signal"] if "Signal::" in body or "Signal<" in body else ["Observer"]
    uses += [name for name in ("Overflow", "TakeAction") if f"{name}::" in body]
    lines = [f"// {op}: the marble case {case.name}",
             f"// ({case.where.rsplit(':', 1)[0]}) on virtual time. Generated by tools/docs/examples.py.",
             "use rsignalkit::testing::TestScheduler;",
             f"use rsignalkit::{{{', '.join(sorted(uses))}}};" if len(uses) > 1 else f"use rsignalkit::{uses[0]};",
             "use std::fmt::Debug;", "",
             "/// A subscriber that prints each event with its frame, after `label`.",
             "fn printer<T: rsignalkit::Value + Debug>(scheduler: &TestScheduler, label: &'static str) -> Observer<T> {",
             "    let (on_next, on_error, on_completed) = (scheduler.clone(), scheduler.clone(), scheduler.clone());",
             "    Observer::new()",
             "        .next(move |value: T| println!(\"{}: {}{:?}\", on_next.frame_now(), label, value))",
             "        .error(move |_| println!(\"{}: {}error\", on_error.frame_now(), label))",
             "        .completed(move || println!(\"{}: {}completed\", on_completed.frame_now(), label))",
             "}", "",
             "fn main() -> Result<(), rsignalkit::Error> {",
             "    let scheduler = TestScheduler::new()?; // a frame is 1 ms of virtual time"]
    for name, hot, diagram in case.inputs:
        digits = sorted({ch for ch in diagram if ch.isdigit()})
        table = ("&[" + ", ".join(f"('{d}', {d}{'i64' if i == 0 else ''})" for i, d in enumerate(digits)) + "]"
                 if digits else "&[] as &[(char, i64)]")
        lines.append(f"    let ({name}, _) = scheduler.{'hot' if hot else 'cold'}(\"{diagram}\", {table}, &())?;")
    if indexes_inners(case.ops[0]):
        lines.append(f"    let inners = [{', '.join(inners_of(case.ops[0]))}];")
    if op in SIDE:
        lines.append("    let clock = scheduler.clone();")
    lines.append(f"    let result = {body.replace(chr(10), chr(10) + '    ')};")
    lines.append("    let subscription = result.start(printer(&scheduler, \"\"))?;")
    for index, (at, _, _) in enumerate(case.also):
        lines += [f"    scheduler.advance_to_frame({at})?;",
                  f"    let late{index or ''} = result.start(printer(&scheduler, \"late \"))?;"]
    lines.append("    scheduler.queue().run_virtual(0)?;")
    lines.append("    drop(subscription);")
    for index, _ in enumerate(case.also):
        lines.append(f"    drop(late{index or ''});")
    lines += ["    Ok(())", "}"]
    return "\n".join(lines) + "\n"


def c_function(spec: str) -> list[str]:
    kind = kind_of(spec)
    name = c_name(spec)
    body = expression(spec, "C")
    if kind == "binary":
        return [f"static void {name}(void *ctx, const sk_value *accumulator, const sk_value *value, sk_value *out) {{",
                "    int64_t acc = 0, x = 0;", "    (void)ctx;", "    sk_value_get_int64(accumulator, &acc);",
                "    sk_value_get_int64(value, &x);", f"    sk_value_set_int64(out, {body});", "}"]
    if kind == "predicate":
        return [f"static bool {name}(void *ctx, const sk_value *value) {{", "    int64_t x = 0;", "    (void)ctx;",
                "    sk_value_get_int64(value, &x);", f"    return {body};", "}"]
    return [f"static void {name}(void *ctx, const sk_value *value, sk_value *out) {{", "    int64_t x = 0;",
            "    (void)ctx;", "    sk_value_get_int64(value, &x);", f"    sk_value_set_int64(out, {body});", "}"]


def c_example(case: Case) -> str:
    op, args = case.ops[0][0], case.ops[0][1:]
    a = case.inputs[0][0]
    lists = emits_lists(case)
    helpers: list[str] = []
    setup: list[str] = []
    cleanup: list[str] = []
    specs = [w for w in args if re.fullmatch(r"[a-z_]+(:-?\d+)?", w) and split_function(w)[0] in
             BINARY | PREDICATES | {"identity", "negate", "times", "plus", "mod"}]
    for spec in specs:
        helpers += c_function(spec) + [""]
    words = case.ops[0]
    inner_names = inners_of(words)
    operator = OPERATORS[op][0] if op in OPERATORS else None
    kinds = operator.kinds() if operator else ()
    if operator and "action" in kinds:
        at = API.marble_words(operator.shape)[0]["action"]
        helpers += ["/* Passes a value, completes after it, both, or neither (drops it). */",
                    "static int decide(void *ctx, const sk_value *value) {",
                    f"    return ({c_name(words[at])}(ctx, value) ? SK_TAKE_PASS : 0) |",
                    f"           ({c_name(words[at + 1])}(ctx, value) ? SK_TAKE_COMPLETE : 0);", "}", ""]
    if "inner" in kinds and len(inner_names) == 1:
        helpers += ["/* The one signal it continues with, whatever it is given (ctx: the signal), +1. */",
                    "static sk_signal *one_input(void *ctx, const sk_value *value) {", "    (void)value;",
                    "    return sk_signal_retain(ctx);", "}", ""]
    if "make" in kinds:
        helpers += ["/* Makes the signal at each start (ctx: the one to start), +1. */",
                    "static sk_signal *make(void *ctx) { return sk_signal_retain(ctx); }", ""]
    if of_signals(op):
        helpers += ["/* The value i as a signal value: inners[i]. */",
                    "static void select_inner(void *ctx, const sk_value *value, sk_value *out) {",
                    "    sk_signal **inners = ctx;", "    int64_t i = 0;", "    sk_value_get_int64(value, &i);",
                    "    sk_value_set_signal(out, inners[i]);", "}", ""]
        setup.append(f"sk_signal *inners[] = {{{', '.join(inner_names)}}};")
    elif indexes_inners(words):
        helpers += ["/* The inner signal a value i selects: inners[i] (+1). */",
                    "static sk_signal *select_inner(void *ctx, const sk_value *value) {",
                    "    sk_signal **inners = ctx;", "    int64_t i = 0;", "    sk_value_get_int64(value, &i);",
                    "    return sk_signal_retain(inners[i]);", "}", ""]
        setup.append(f"sk_signal *inners[] = {{{', '.join(inner_names)}}};")
    if groups(op):
        helpers += ["/* Each value of a group as [key, value] (ctx: the key). */",
                    "static void with_key(void *ctx, const sk_value *value, sk_value *out) {",
                    "    sk_value pair[2] = {*(const sk_value *)ctx, *value};",
                    "    sk_value_set_array(out, pair, 2);", "}", "",
                    "static void release_key(void *ctx) {", "    sk_value_release(ctx);", "    free(ctx);", "}", "",
                    "/* A group [key, signal] -> its values paired with the key. */",
                    "static sk_signal *group_values(void *ctx, const sk_value *group) {",
                    "    const sk_value *key, *item;", "    sk_signal *values, *pairs;",
                    "    sk_value *key_copy = malloc(sizeof *key_copy);", "    (void)ctx;",
                    "    sk_value_get_array_item(group, 0, &key);", "    sk_value_get_array_item(group, 1, &item);",
                    "    sk_value_get_signal(item, &values);", "    sk_value_copy(key_copy, key);",
                    "    sk_signal_map(&pairs, values, with_key, key_copy, release_key);", "    return pairs;", "}", ""]

    def c_arguments(kind: str, words: list[str], i: int | None) -> str:
        """A kind of the case's line, as a C example writes it."""
        word = words[i] if i is not None and i < len(words) else ""
        spelled = {"predicate": c_name(word) if word else "", "map": c_name(word) if word else "",
                   "fold": c_name(word) if word else "", "overflow": f"SK_OVERFLOW_{POLICIES.get(word, ('',) * 3)[1]}",
                   "seconds": f"{word} * frame", "most": f"{word} * frame", "delay": f"{word} * frame",
                   "queue": "queue", "value": "&fallback", "initial": "&initial",
                   "signals": f"inputs, {len(words) - (i or 0)}", "inner": "one_input" if len(inner_names) == 1
                   else "select_inner", "make": "make", "action": "decide", "look": "look", "work": "work"}
        if kind in ("value", "initial"):
            setup.extend([f"sk_value {spelled[kind][1:]};", f"sk_value_set_int64({spelled[kind]}, {word});"])
        if kind == "signals":
            setup.append(f"sk_signal *inputs[] = {{{', '.join(words[i:])}}};")
        return spelled.get(kind, word)

    calls: dict[str, str] = {
        "concatMap": f"sk_signal_merge_map(&result, {a}, 1, select_inner, inners, NULL)",
    }
    if op not in calls and operator:
        arguments = {"out": "&groups" if groups(op) else "&result", "source": "signals" if of_signals(op) else a,
                     "ctx": "NULL, NULL", "flag": "false", "maybe_queue": "NULL", "delay": "0",
                     "delay_queue": "NULL", "on_drop": "NULL"}
        arguments.update(example_arguments(case, c_arguments, "true"))
        if "inner" in kinds:
            arguments["ctx"] = f"{inner_names[0] if len(inner_names) == 1 else 'inners'}, NULL"
        elif "make" in kinds:
            arguments["ctx"] = f"{inner_names[0] if inner_names else words[1]}, NULL"
        elif "look" in kinds or "work" in kinds:
            arguments["ctx"] = "queue, NULL"
        call = API.shapes.spell("C", operator, arguments)
        if of_signals(op):
            call = f"sk_signal_map(&signals, {a}, select_inner, inners, NULL);\n    " + call
        if groups(op):
            call += ";\n    sk_signal_merge_map(&result, groups, SIZE_MAX, group_values, NULL, NULL)"
        calls[op] = call
    names = [name for name, _, _ in case.inputs]
    lines = [f"/* {op}: the marble case {case.name}",
             f" * ({case.where.rsplit(':', 1)[0]}) on virtual time. Generated by tools/docs/examples.py. */",
             "#include <signalkit_test.h>", "#include <stdio.h>"]
    if groups(op):
        lines += ["#include <stdint.h>", "#include <stdlib.h>"]
    lines.append("")
    lines += helpers
    if lists:
        lines += ["/* An integer, or an array of them as [1, 2], then a new line. */",
                  "static void print_value(const sk_value *value) {", "    size_t count = 0;", "    int64_t x = 0;",
                  "    if (sk_value_get_array_count(value, &count) != SK_OK) {",
                  "        sk_value_get_int64(value, &x);", "        printf(\"%lld\\n\", (long long)x);",
                  "        return;", "    }",
                  "    for (size_t i = 0; i < count; i++) {", "        const sk_value *item;",
                  "        sk_value_get_array_item(value, i, &item);", "        sk_value_get_int64(item, &x);",
                  "        printf(\"%s%lld\", i ? \", \" : \"[\", (long long)x);", "    }",
                  "    printf(\"]\\n\");", "}", ""]
    lines += ["/* The frame of virtual time the queue's clock is in (1 ms each). */",
              "static long long frame_of(void *queue) {", "    int64_t now = 0;",
              "    sk_queue_virtual_now(queue, &now);", "    return (long long)(now / 1000000);", "}", ""]
    if op in SIDE:
        effect, takes, _, _ = SIDE[op]
        if takes:
            lines += ["/* The side effect (ctx: the queue): prints the value it sees. */",
                      "static void look(void *queue, const sk_value *value) {", "    int64_t x = 0;",
                      "    sk_value_get_int64(value, &x);",
                      f"    printf(\"%lld: {effect} %lld\\n\", frame_of(queue), (long long)x);", "}", ""]
        else:
            lines += ["/* The side effect (ctx: the queue): says when it runs. */",
                      f"static void work(void *queue) {{ printf(\"%lld: {effect}\\n\", frame_of(queue)); }}", ""]

    def callbacks(prefix: str, label: str) -> list[str]:
        """A subscriber's three callbacks (ctx: the queue), `label` after
        the frame."""
        if lists:
            next_body = [f"    printf(\"%lld: {label}\", frame_of(queue));", "    print_value(value);"]
        else:
            next_body = ["    int64_t x = 0;", "    sk_value_get_int64(value, &x);",
                         f"    printf(\"%lld: {label}%lld\\n\", frame_of(queue), (long long)x);"]
        return ([f"static void {prefix}next(void *queue, const sk_value *value) {{"] + next_body + ["}"] +
                [f"static void {prefix}error(void *queue, const sk_value *error) {{", "    (void)error;",
                 f"    printf(\"%lld: {label}error\\n\", frame_of(queue));", "}",
                 f"static void {prefix}completed(void *queue) {{ printf(\"%lld: {label}completed\\n\", "
                 "frame_of(queue)); }"])

    lines += callbacks("on_", "")
    if case.also:
        lines += [""] + callbacks("late_", "late ")
    lines += ["", "int main(void) {", "    const double frame = 0.001; /* a frame is 1 ms of virtual time */",
              "    sk_marble_value digits[10]; /* each digit of the diagrams stands for its integer */",
              "    sk_queue *queue;",
              f"    sk_signal *{', *'.join(names)}, *result{', *groups' if groups(op) else ''}"
              f"{', *signals' if of_signals(op) else ''}{', *started' if taken(case) else ''};",
              "    sk_disposable *subscription" + "".join(f", *late{i or ''}" for i in range(len(case.also))) + ";",
              "    for (int i = 0; i < 10; i++) {",
              "        digits[i].symbol = (char)('0' + i);", "        sk_value_set_int64(&digits[i].value, i);",
              "    }", "    sk_queue_create_virtual(&queue, \"example\");"]
    for name, hot, diagram in case.inputs:
        lines.append(f"    sk_test_signal_{'hot' if hot else 'cold'}(&{name}, NULL, queue, frame, \"{diagram}\", "
                     "digits, 10, NULL);")
    lines += [f"    {line}" for line in setup]
    count = taken(case)
    if count:
        lines.append(f"    {calls[op].replace('&result', '&started', 1)};")
        lines.append(f"    sk_signal_take(&result, started, {count});")
    else:
        lines.append(f"    {calls[op]};")
    lines += ["    sk_observer observer = {on_next, on_error, on_completed, queue, NULL};",
              "    sk_signal_start(&subscription, result, &observer);"]
    for index, (at, _, _) in enumerate(case.also):
        lines += [f"    sk_queue_virtual_advance_to(queue, {at} * frame, NULL);",
                  "    sk_observer late_observer = {late_next, late_error, late_completed, queue, NULL};",
                  f"    sk_signal_start(&late{index or ''}, result, &late_observer);"]
        cleanup.append(f"sk_disposable_release(late{index or ''});")
    lines.append("    sk_queue_virtual_run(queue, 0, NULL);")
    lines.append("")
    lines += [f"    {line}" for line in cleanup]
    lines.append("    sk_disposable_release(subscription);")
    lines.append("    sk_signal_release(result);")
    if groups(op):
        lines.append("    sk_signal_release(groups);")
    if of_signals(op):
        lines.append("    sk_signal_release(signals);")
    if taken(case):
        lines.append("    sk_signal_release(started);")
    for name in names:
        lines.append(f"    sk_signal_release({name});")
    lines += ["    sk_queue_release(queue);", "    return 0;", "}"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------


RENDER = {"C": c_example, "C++": cpp_example, "Swift": swift_example, "Python": python_example, "Rust": rust_example}


def examples(folder: str = MARBLES) -> dict[str, tuple[Case | None, dict[str, tuple[str, str]]]]:
    """operator -> (its case, {language: (program, what it prints)}); an
    operator without a case has no programs."""
    found: dict[str, tuple[Case | None, dict[str, tuple[str, str]]]] = {}
    for op, case in chosen_cases(read_cases(folder)).items():
        programs: dict[str, tuple[str, str]] = {}
        for lang in LANGUAGES if case is not None else ():
            assert case is not None
            try:
                programs[lang] = (RENDER[lang](case), expected(case, lang))
            except KeyError as missing:
                raise SystemExit(f"tools/docs/examples.py: no {lang} spelling of the marble operator `{op}` "
                                 f"({case.where}; {missing}): an operator of the C API gets its calls from its row "
                                 "of tools/api/operators.md and its shape (tools/api/shapes.py); add another's "
                                 f"call to {RENDER[lang].__name__}'s table (docs/maintainers/adding-an-operator.md)"
                                 ) from None
        found[op] = (case, programs)
    return found


def rust_package(crate: str) -> str:
    """The Rust examples' package: one program, which depends on the crate
    by path as a user's project does."""
    return ("# GENERATED: the operator pages' Rust examples (tools/docs/examples.py), one program.\n"
            "[package]\nname = \"rsignalkit-operator-examples\"\nversion = \"0.0.0\"\nedition = \"2021\"\n"
            "publish = false\n\n[dependencies]\n"
            f"rsignalkit = {{ path = {json.dumps(os.path.abspath(crate))} }}\n\n"
            "[[bin]]\nname = \"all\"\npath = \"all.rs\"\n")


def rust_all(ops: list[str]) -> str:
    """Every Rust example in one program, each in a module of its own (its
    main a function there), run by the name its argument gives."""
    lines = ["// GENERATED: every operator example of tools/docs/examples.py in one program.", ""]
    for op in ops:
        lines += [f"mod example_{snake(op)} {{", f"    include!(\"{op}.rs\");",
                  "    pub fn run() -> Result<(), rsignalkit::Error> {", "        main()", "    }", "}", ""]
    lines += ["fn main() {", "    let name = std::env::args().nth(1).unwrap_or_default();",
              "    let result = match name.as_str() {"]
    lines += [f"        \"{op}\" => example_{snake(op)}::run()," for op in ops]
    lines += ["        _ => {", "            eprintln!(\"usage: all OPERATOR\");", "            std::process::exit(2)",
              "        }", "    };", "    if let Err(error) = result {",
              "        eprintln!(\"{}: {}\", name, error);", "        std::process::exit(1);", "    }", "}"]
    return "\n".join(lines) + "\n"


def write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def run_python(folder: str) -> int:
    """Runs each Python example as a script (runpy, in this process: one
    interpreter's start for all of them), its standard output compared with
    what it must print; returns 1 when any differs or raises."""
    import contextlib
    import difflib
    import io
    import runpy
    import traceback
    with open(os.path.join(folder, "operators.txt"), encoding="utf-8") as f:
        ops = f.read().split()
    failed = 0
    for op in ops:
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                runpy.run_path(os.path.join(folder, "python", f"{op}.py"), run_name="__main__")
        except Exception:  # noqa: BLE001 - reported, and the run fails
            out.write(traceback.format_exc())
        with open(os.path.join(folder, "expected", "python", f"{op}.txt"), encoding="utf-8") as f:
            want = f.read()
        if out.getvalue() != want:
            failed += 1
            sys.stderr.writelines(difflib.unified_diff(want.splitlines(True), out.getvalue().splitlines(True),
                                                       f"expected/python/{op}.txt", f"python/{op}.py's output"))
    if failed:
        print(f"examples.py: {failed} of {len(ops)} Python examples printed something else (above)", file=sys.stderr)
        return 1
    print(f"examples.py: {len(ops)} Python examples printed what they must")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--out", help="writes DIR/{c,cpp,python,rust,expected}/ for make test-op-examples")
    group.add_argument("--write-swift", action="store_true", help=f"writes {os.path.relpath(SWIFT_DIR, ROOT)}")
    group.add_argument("--check-swift", action="store_true", help="fails when the Swift examples are stale")
    parser.add_argument("--rust-crate", default=RUST_CRATE,
                        help="with --out: the folder of the rsignalkit crate the Rust examples depend on")
    group.add_argument("--run-python", metavar="DIR",
                       help="runs DIR/python/*.py (written by --out) in this interpreter, which has the package, "
                       "each output compared with DIR/expected/python")
    args = parser.parse_args()
    if args.run_python:
        return run_python(args.run_python)
    found = examples()
    missing = sorted(op for op, (case, _) in found.items() if case is None)
    if missing:
        print(f"examples.py: no marble case fits an example of {', '.join(missing)} (one `op` line of the operator, "
              "no `dispose`): add one to Tests/marbles, or name one in CHOSEN", file=sys.stderr)
        return 1
    swift = swift_files({op: case for op, (case, _) in found.items()})
    if args.out:
        for op, (_, programs) in found.items():
            for lang, folder, ext in (("C", "c", "c"), ("C++", "cpp", "cpp"), ("Python", "python", "py")):
                write(os.path.join(args.out, folder, f"{op}.{ext}"), programs[lang][0])
            for lang, folder in (("C", "c"), ("C++", "cpp"), ("Python", "python"), ("Swift", "swift"), ("Rust", "rust")):
                write(os.path.join(args.out, "expected", folder, f"{op}.txt"), programs[lang][1])
        # The C++ examples as one program: each in a namespace of its own
        # (its main a function there), run by name.
        ops = sorted(found)
        unit = ["// GENERATED: every operator example of tools/docs/examples.py in one program.",
                "#include <signalkit_test.hpp>", "", "#include <cstddef>", "#include <cstdint>", "#include <cstring>",
                "#include <iostream>", "#include <string>", "#include <vector>", ""]
        unit += [f"namespace example_{op} {{\n#include \"{op}.cpp\"\n}}" for op in ops]
        unit += ["", "int main(int argc, char **argv) {", "    if (argc != 2) return 2;"]
        unit += [f"    if (std::strcmp(argv[1], \"{op}\") == 0) return example_{op}::main();" for op in ops]
        unit += ["    return 2;", "}"]
        write(os.path.join(args.out, "cpp", "all.cxx"), "\n".join(unit) + "\n")
        for op, (_, programs) in found.items():
            write(os.path.join(args.out, "rust", f"{op}.rs"), programs["Rust"][0])
        write(os.path.join(args.out, "rust", "Cargo.toml"), rust_package(args.rust_crate))
        write(os.path.join(args.out, "rust", "all.rs"), rust_all(ops))
        write(os.path.join(args.out, "operators.txt"), "\n".join(ops) + "\n")
        print(f"examples.py: {len(found)} operators, an example each in {', '.join(LANGUAGES)}, in {args.out}")
        return 0
    if args.write_swift:
        for name in os.listdir(SWIFT_DIR) if os.path.isdir(SWIFT_DIR) else []:
            if name.endswith(".swift") and name not in swift:
                os.remove(os.path.join(SWIFT_DIR, name))
        for name, text in swift.items():
            write(os.path.join(SWIFT_DIR, name), text)
        for op, (_, programs) in found.items():
            write(os.path.join(SWIFT_EXPECTED, f"{op}.txt"), programs["Swift"][1])
        return 0
    stale = []
    present = set(os.listdir(SWIFT_DIR)) if os.path.isdir(SWIFT_DIR) else set()
    for name, text in swift.items():
        path = os.path.join(SWIFT_DIR, name)
        if name not in present or open(path, encoding="utf-8").read() != text:
            stale.append(path)
    stale += [os.path.join(SWIFT_DIR, name) for name in present - set(swift) if name.endswith(".swift")]
    for op, (_, programs) in found.items():
        path = os.path.join(SWIFT_EXPECTED, f"{op}.txt")
        if not os.path.exists(path) or open(path, encoding="utf-8").read() != programs["Swift"][1]:
            stale.append(path)
    for path in stale:
        print(f"{os.path.relpath(path, ROOT)} is not what the marble table gives: run `make api-update` "
              "(tools/docs/examples.py --write-swift) and commit it", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
