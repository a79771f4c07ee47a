#!/usr/bin/env python3
"""What is made from the operator table (tools/api/operators.md) and api.json,
and kept in the tree: `make api-update` writes it, `make test-api` fails,
naming the file, when the tree's copy differs.

  docs/operators.md, between "<!-- BEGIN operators (generated) -->" and
  "<!-- END operators (generated) -->"
      the table of operators, every column but the marble table's, as written;
  Tests/common/operator_list.h
      every C operator of the table: a call of it from an sk_test_args (the
      arguments of the kinds of its shape, operator_shapes.h), its entry
      {C function, shape, conventions, kinds, call}, and the marble table's
      names {name, operator, flag, the kinds its `op` line gives} (the C
      marble runner, the shapes' C test, test_limits.c's abandonment sweep,
      bench_capi's cost rows, the abandonment soak);
  Tests/cpp/marble_operators.hpp, Sources/python/tests/marble_operators.py,
  Sources/rust/marbles/generated/marble_operators.rs,
  Tests/SwiftSignalKitTestingTests/MarbleTableOperators.generated.swift
      the C++, Python, Rust and Swift marble runners': for every marble name
      of a C operator, a call of the binding's operator (the table's column
      of the language) spelled from its shape (tools/api/shapes.py, spell)
      with the runner's readers of the `op` line's words (shapes.py,
      marble_layout, says which word is which); Swift's zip and
      combineLatest are its marble-swift-hand lines;
  Benchmarks/c/cost_operators.hpp, Benchmarks/Sources/OperatorCost/Operators.generated.swift
      the cost table's rows (issue 41) of the C++ header and of the Swift API:
      every C operator, its call spelled from its shape with the program's
      arguments (Benchmarks/Sources/CostRows/include/CostRows.h's choices), as
      bench_capi.c builds it from operator_list.h (COST_SWIFT_BY_HAND: the
      Swift rows written by hand, with why);
  Sources/python/bench/cost_operators.py
      the Python rows of the cost table (`make bench-python`): every C
      operator of a standard shape with a Python name, its shape, and RxPY's
      name for it (the table's RxJS / RxPY column) where RxPY has one.
  include/signalkit.hpp (class signal's generated operators) and
  Sources/python/pysignalkit/_standard_operators.py
      the C++ members and Python methods of the standard shapes, and of
      those with the bounded modifier (tools/api/bindings.py says which and
      how);
  Sources/rust/rsignalkit/src/operators/standard.rs
      the Rust methods of the same (tools/api/bindings_rust.py);
  Tests/marbles/README.md, between "<!-- BEGIN operators of the operator
  table (generated) -->" and its END
      the marble vocabulary of the runners' generated operators;
  Tests/fuzz/fuzz_operators.h
      the API fuzzer's operators (those of operator_list.h but its fuzz-hand
      exceptions), each at a slot that is kept once given (read back from
      the file), so that adding an operator changes no committed input's
      meaning.

Every C operator the table names has a shape, which its shape column
writes and table_operators checks against the declaration. Every operator
an `op` line of Tests/marbles/*.marbles uses must be a marble name of the
table; the runners build by hand the one whose row has no C function
(concatMap).

Usage: operators.py API.json            (from the repository's root: writes them)
       operators.py API.json --check    (says which differ; exit status 1 if any)
Python 3 standard library only.
"""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bindings  # noqa: E402  (beside this file)
import bindings_rust  # noqa: E402  (beside this file)
import shapes  # noqa: E402  (beside this file)

TABLE = "tools/api/operators.md"
DOC = "docs/operators.md"
DOC_BEGIN = "<!-- BEGIN operators (generated) -->"
DOC_END = "<!-- END operators (generated) -->"
C_OUT = "Tests/common/operator_list.h"
CPP_OUT = "Tests/cpp/marble_operators.hpp"
PY_OUT = "Sources/python/tests/marble_operators.py"
COST_CPP_OUT = "Benchmarks/c/cost_operators.hpp"
COST_SWIFT_OUT = "Benchmarks/Sources/OperatorCost/Operators.generated.swift"
COST_PY_OUT = "Sources/python/bench/cost_operators.py"
MARBLES = "Tests/marbles/*.marbles"

# The shapes the bindings are generated for (tools/api/bindings.py,
# bindings_rust.py): the twelve first base shapes of tools/api/shapes.py,
# without modifiers. Every C operator has a shape (shapes.recognize).
STANDARD = ("unary", "count", "predicate", "map", "value", "signal", "reduce", "signals", "time", "on", "tap",
            "work")
COLUMNS = ("family", "operator", "swift", "c", "cpp", "python", "rust", "rx", "marble", "shape")


def cells(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def names(cell):
    """The names in backticks of a cell, in order."""
    return re.findall(r"`([^`]+)`", cell)


# Each binding's language and its column of the table.
BINDINGS = (("C", "c"), ("C++", "cpp"), ("Python", "python"), ("Rust", "rust"), ("Swift", "swift"))


def binding_languages(row, api):
    """The languages whose binding has the row's operator: C when its cell
    names a function of api.json; C++, Python, Rust and Swift when their
    cell names one, since check.py's readme check holds each such name to
    the binding's own sources (the C++ headers, the package, the crate, the
    Swift sources)."""
    functions = {function["name"] for function in api["functions"]}
    return [language for language, column in BINDINGS
            if any(name in functions or column != "c" for name in names(row[column]))]


def composes(row):
    """Whether the row's C cell composes its operator from another row's
    function rather than naming one of its own: a name, then words that fix
    its other arguments (concatMap's `sk_signal_merge_map`, max_concurrent
    1). Such a row has no C function, shape or generated code of its own;
    its availability marks follow the function it names
    (tools/docs/declarations.py, check_availability)."""
    rest = re.sub(r"`[^`]*`", "", row["c"])
    return any(n.startswith("sk_") for n in names(row["c"])) and re.search(r"[A-Za-z0-9]", rest) is not None


def c_names(row):
    """The C functions the row's C cell names as its own: its `sk_` names,
    none when the cell composes (composes)."""
    return [] if composes(row) else [n for n in names(row["c"]) if n.startswith("sk_")]


def read_table(path=TABLE):
    """(header line, separator, rows): each row a dict of COLUMNS, with the
    line it came from."""
    with open(path, encoding="utf-8") as handle:
        lines = [line.rstrip("\n") for line in handle]
    table = [(number, line) for number, line in enumerate(lines, 1) if line.startswith("|")]
    rows = []
    for number, line in table[2:]:
        values = cells(line)
        if len(values) != len(COLUMNS):
            sys.exit(f"{path}:{number}: a row has {len(values)} cells, the table {len(COLUMNS)}")
        row = dict(zip(COLUMNS, values))
        row["line"] = number
        rows.append(row)
    return table[0][1], table[1][1], rows


def shape_of(function):
    """The standard shape of a C function (one of STANDARD), else None."""
    found = shapes.recognize(function)
    if found is None:
        return None
    shape = found[0]
    return shape.base if shape.base in STANDARD and not shape.bounded and not shape.flag else None


def spelled_names(row, c):
    """{language: shapes.Spelled or None} of a row, its C function `c`."""
    short = c[len("sk_signal_"):]
    return {language: shapes.spelled(row[column], language, short)
            for language, column in (("C++", "cpp"), ("Python", "python"), ("Rust", "rust"), ("Swift", "swift"))}


def described_operators(rows):
    """{marble name: (shapes.Operator, the flag it sets)} of the C operators
    as the table's shape column describes them, without api.json (which
    table_operators checks them against): tools/docs/examples.py's."""
    found = {}
    for row in rows:
        c = c_names(row)
        shape = shapes.parse_cell(row["shape"])
        if len(c) != 1 or shape is None:
            continue
        op = shapes.Operator(c[0], shape, shapes.marble_names(row["marble"], shape), spelled_names(row, c[0]),
                             shapes.position_of(shape), row)
        found.update({marble: (op, flag) for marble, flag in op.marble})
    return found


def binding_shape_of(function):
    """The shape a binding is generated for (bindings.py, bindings_rust.py):
    a standard one, or one of them with the bounded modifier after it
    (bindings.BOUNDED: "on+bounded"); else None."""
    found = shapes.recognize(function)
    if found is None or found[0].flag:
        return None
    shape, position = found
    if not shape.bounded:
        return shape.base if shape.base in STANDARD else None
    name = f"{shape.base}+bounded"
    return name if name in bindings.BOUNDED and position == "end" else None


def table_operators(rows, api):
    """[shapes.Operator] of every C operator the table names, in its order,
    and the problems found: a shape column that is not what the C
    declaration gives, a C function of no shape."""
    functions = {f["name"]: f for f in api["functions"]}
    found, problems = [], []
    for row in rows:
        where = f"{TABLE}:{row['line']}"
        c = c_names(row)
        try:
            written = shapes.parse_cell(row["shape"])
        except SyntaxError as problem:
            problems.append(f"{where}: the shape column: {problem}")
            continue
        if not c:
            if written is not None:
                problems.append(f"{where}: a shape ({row['shape']}) in a row with no C function: leave it empty")
            continue
        if len(c) != 1 or c[0] not in functions:
            problems.append(f"{where}: the C column names {', '.join(c)}: one function of the headers, or none")
            continue
        recognized = shapes.recognize(functions[c[0]])
        if recognized is None:
            problems.append(f"{where}: the parameters of {c[0]} are no shape of tools/api/shapes.py (a base shape, "
                            f"`bounded`, a flag): add a base shape there (docs/maintainers/adding-an-operator.md, "
                            f"\"Another shape\")")
            continue
        shape, position = recognized
        if written is None or (written.base, written.bounded, written.flag) != (shape.base, shape.bounded, shape.flag):
            said = f"says {row['shape']}" if written else "is empty"
            problems.append(f"{where}: the shape column {said}, and the declaration of {c[0]} gives "
                            f"{shape.text()}: write that")
            continue
        shape = shapes.Shape(shape.base, shape.bounded, shape.flag, written.conventions)
        if position != shapes.position_of(shape):
            problems.append(f"{where}: {c[0]}'s bounded arguments are not where tools/api/shapes.py's position_of "
                            f"says: update it")
        found.append(shapes.Operator(c[0], shape, shapes.marble_names(row["marble"], shape), spelled_names(row, c[0]),
                                     position, row))
    return found, problems


def marble_names(rows):
    return {name.rstrip("*") for row in rows for name in names(row["marble"])}


def used_marble_operators():
    used = {}
    for path in sorted(glob.glob(MARBLES)):
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                words = line.split()
                if len(words) >= 2 and words[0] == "op":
                    used.setdefault(words[1], f"{path}:{number}")
    return used


def doc_block(header, rows):
    """Every column but the marble table's and the shape."""
    shown = COLUMNS.index("marble")
    lines = ["| " + " | ".join(cells(header)[:shown]) + " |", "|" + "---|" * shown]
    lines += ["| " + " | ".join(row[column] for column in COLUMNS[:shown]) + " |" for row in rows]
    return "\n".join(lines)


# How the C call of a thunk passes each kind (operator_shapes.h's fields).
C_FIELDS = {kind: f"a->{kind}" for kind in shapes.KINDS}
C_FIELDS.update({"signals": "a->signals, a->signal_count", "ctx": "a->ctx, a->release"})


def c_kinds(kinds):
    return "{" + ", ".join(f"SK_ARG_{kind.upper()}" for kind in kinds or ("none",)) + "}"


def c_header(operators):
    """operator_list.h: a call of each operator from an sk_test_args, its
    entry, and the marble table's names."""
    lines = [
        "/* GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from",
        " * tools/api/operators.md and the C declarations (`make api-update`). Every",
        " * C operator of the operator table: a call of it with the arguments of its",
        " * kinds (operator_shapes.h), its entry, and the marble table's names. */",
        "#ifndef SIGNALKIT_TESTS_OPERATOR_LIST_H",
        "#define SIGNALKIT_TESTS_OPERATOR_LIST_H",
        "",
        '#include "operator_shapes.h"',
        "",
    ]
    for op in operators:
        short = op.c[len("sk_signal_"):]
        lines += [f"static inline int sk_test_call_{short}(sk_signal **out, const sk_test_args *a) {{",
                  f"    return {shapes.spell('C', op, C_FIELDS)};", "}"]
    lines += ["", "static const sk_test_operator SK_TEST_OPERATORS[] = {"]
    index = {}
    for number, op in enumerate(operators):
        index[op.c] = number
        conventions = " | ".join(f"SK_TEST_{c.upper().replace(' ', '_')}" for c in op.shape.conventions) or "0"
        lines.append(f'    {{"{op.c}", "{op.shape.name()}", {conventions}, {c_kinds(op.kinds())}, '
                     f'sk_test_call_{op.c[len("sk_signal_"):]}}},')
    lines += ["};", "", "#define SK_TEST_OPERATOR_COUNT (sizeof SK_TEST_OPERATORS / sizeof SK_TEST_OPERATORS[0])", "",
              "/* The marble table's names: each one's operator, the flag it sets and the",
              " * kinds its `op` line gives (tools/api/shapes.py, marble_layout). */",
              "static const sk_test_marble SK_TEST_MARBLES[] = {"]
    for op in operators:
        for marble, flag in op.marble:
            lines.append(f'    {{"{marble}", &SK_TEST_OPERATORS[{index[op.c]}], {"true" if flag else "false"}, '
                         f'{c_kinds(shapes.marble_layout(op.shape))}}},')
    lines += ["};", "", "#define SK_TEST_MARBLE_COUNT (sizeof SK_TEST_MARBLES / sizeof SK_TEST_MARBLES[0])", "",
              "#endif"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# The marble runners
# ---------------------------------------------------------------------------

def marble_words(shape):
    """({kind: the index of its first word in an `op` line, 1 the first
    after the name}, the index after them, whether the line's length varies
    (a list of inputs, an optional word, the inputs of a signal of signals))."""
    at, found = 1, {}
    for kind in shapes.marble_layout(shape):
        found[kind] = at
        at += 2 if kind == "action" else 1
    varies = (any(kind in shapes.TRAILING for kind in found) or "of signals" in shape.conventions
              or (shape.bounded and shape.has("queue")))  # `host F...`
    return found, at, varies


def runner_call(language, op, flag, reader, source, optional, groups):
    """The call of a marble runner in `language` for a name of `op` (which
    sets the flag to `flag`): `reader(kind, index)` spells the runner's
    reading of a kind from the line's word `index` (None: the case's, a
    queue); `source(index)` the upstream (of signals: mapped over the inputs
    named from `index`, else None: the case's signal); `optional(index,
    with_it, without_it)` chooses by the line's length; `groups(call)`
    merges groups. A bounded operator is given the case's drop recorder
    (`on_drop`; of signals, `dropped_signal` from the inputs' index, which
    records a signal as its place among them) and, where it takes a queue,
    `host_queue` from the index after its words: the case's queue, or a
    host-drained one for `host F...` (README.md's "Bounded operators")."""
    indexes, after, _ = marble_words(op.shape)
    literal = {"C++": ("true", "false"), "Python": ("True", "False"), "Rust": ("true", "false"),
               "Swift": ("true", "false")}[language]

    def arguments(with_delay):
        found = {"source": source(after if "of signals" in op.shape.conventions else None)}
        for kind in op.kinds():
            if kind in indexes and kind != "delay":
                found[kind] = reader(kind, indexes[kind])
            elif kind == "queue" and op.shape.bounded:
                found[kind] = reader("host_queue", after)
            elif kind == "queue":
                found[kind] = reader("queue", None)
            elif kind == "on_drop":
                of_signals = "of signals" in op.shape.conventions
                found[kind] = reader("dropped_signal", after) if of_signals else reader("on_drop", None)
            elif kind == "flag":
                found[kind] = literal[0] if flag else literal[1]
        if with_delay:
            found["delay"] = reader("delay", indexes["delay"])
            found["delay_queue"] = reader("queue", None)
        return found

    call = shapes.spell(language, op, arguments(False))
    if "delay" in indexes:
        if optional is None:
            return shapes.spell(language, op, arguments(True)), call
        call = optional(indexes["delay"], shapes.spell(language, op, arguments(True)), call)
    return groups(call) if groups and "groups" in op.shape.conventions else call


def runner_names(operators, language, hand=()):
    """[(marble name, operator, flag)] of the operators a runner in
    `language` generates (not those of `hand`), and the problems found."""
    found, problems = [], []
    for op in operators:
        if op.c in hand:
            continue
        if op.names.get(language) is None:
            problems.append(f"{TABLE}: {op.c} has no {language} name: its {language} marble runner cannot apply it")
            continue
        found += [(marble, op, flag) for marble, flag in op.marble]
    return found, problems


# The C++ runner (test_marble_table.cpp): `operation`'s readers of a line's
# words, by kind.
CPP_READERS = {
    "count": "a.count({i})", "concurrency": "a.count({i})", "retries": "a.count_or_zero({i})",
    "capacity": "a.count_or_zero({i})", "overflow": "a.overflow({i})", "predicate": "a.predicate({i})",
    "map": "a.map({i})", "fold": "a.binary({i})", "value": "a.value({i})", "initial": "a.initial({i})",
    "other": "a.input({i})", "signals": "a.inputs({i})", "seconds": "a.seconds({i})", "most": "a.seconds({i})",
    "delay": "a.seconds({i})", "queue": "a.queue()", "look": "a.look({i})", "work": "a.work({i})",
    "inner": "a.inner({i})", "action": "a.action({i})", "make": "a.make({i})",
    "on_drop": "a.on_drop()", "dropped_signal": "a.dropped_signal({i})", "host_queue": "a.host_queue({i})",
}


def cpp_header(operators):
    """The C++ runner's operators, and the problems found."""
    found, problems = runner_names(operators, "C++")
    lines = [
        "/* GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from",
        " * tools/api/operators.md (`make api-update`). The marble table's",
        " * operators, each a call of signalkit.hpp spelled from its shape",
        " * (tools/api/shapes.py) with `operation`'s readers of the line's words, and",
        " * its count of words (-1: it varies); test_marble_table.cpp defines",
        " * `operation` and `marble_operator` and builds concatMap by hand. */",
        "const marble_operator marble_operators[] = {",
    ]
    for marble, op, flag in found:
        _, after, varies = marble_words(op.shape)
        call = runner_call("C++", op, flag, lambda kind, i: CPP_READERS[kind].format(i=i),
                           lambda i: "a.s" if i is None else f"a.upstream({i})",
                           lambda i, with_it, without: f"a.has({i}) ? {with_it} : {without}",
                           lambda made: f"a.groups({made})")
        lines.append(f'    {{"{marble}", {-1 if varies else after - 1}, [](const operation &a) {{ return {call}; }}}},')
    lines.append("};")
    return "\n".join(lines) + "\n", problems


# The Python runner (test_marble_table.py): its Line's readers of a line's
# words, by kind.
PY_READERS = dict(CPP_READERS, concurrency="a.count({i})", retries="a.count_or_zero({i})",
                  capacity="a.count_or_zero({i})", predicate="a.function({i})", map="a.function({i})",
                  fold="a.function({i})", initial="a.integer({i})", signals="*a.inputs_from({i})", queue="a.queue",
                  on_drop="a.bounded.on_drop")


def python_module(operators):
    """The Python runner's operators, and the problems found."""
    found, problems = runner_names(operators, "Python")
    lines = [
        '"""GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from',
        "tools/api/operators.md (`make api-update`). The marble table's operators:",
        "name -> (its count of words, -1 where it varies; a call of the package",
        "spelled from its shape, tools/api/shapes.py, with the readers of",
        'test_marble_table.py\'s Line); that file builds concatMap by hand."""',
        "import pysignalkit as sk",
        "",
        "MARBLE_OPERATORS = {",
    ]
    for marble, op, flag in found:
        _, after, varies = marble_words(op.shape)
        call = runner_call("Python", op, flag, lambda kind, i: PY_READERS[kind].format(i=i),
                           lambda i: "a.source" if i is None else f"a.upstream({i})",
                           lambda i, with_it, without: f"({with_it} if a.has({i}) else {without})",
                           lambda made: f"a.groups({made})")
        lines.append(f'    "{marble}": ({-1 if varies else after - 1}, lambda a: {call}),')
    lines.append("}")
    return "\n".join(lines) + "\n", problems



# The cost table's C++ rows: each operator's call of signalkit.hpp spelled
# from its shape, with bench_cpp.cpp's cost_args (CostRows.h's choices) for
# each kind.
COST_CPP_ARGUMENTS = {
    "source": "a.s", "count": "a.count()", "concurrency": "COST_CONCURRENCY", "retries": "COST_RETRIES",
    "predicate": "a.predicate()", "map": "a.map()", "value": "sk::value(0)", "initial": "sk::value(0)",
    "fold": "a.fold()", "other": "a.other()", "signals": "{a.s, a.s}", "seconds": "cost_seconds(a.row)",
    "most": "COST_MOST", "queue": "a.queue()", "look": "a.look()", "work": "a.work()", "inner": "a.inner()",
    "action": "a.action()", "make": "a.make()", "flag": "false", "capacity": "COST_CAPACITY",
    "overflow": "sk::overflow::drop_newest",
}


def cost_cpp(operators):
    """The C++ rows, and the problems found."""
    found, problems = runner_names(operators, "C++")
    lines = [
        "/* GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from",
        " * tools/api/operators.md (`make api-update`). The cost table's rows of the",
        " * C++ header (issue 41): every C operator, a call spelled from its shape",
        " * (tools/api/shapes.py) with cost_args' arguments, and whether its input is a",
        " * signal of signals; bench_cpp.cpp defines cost_args and cost_operator and",
        " * builds the rows that are no operator. */",
        "const cost_operator cost_operators[] = {",
    ]
    seen = set()
    for _, op, _ in found:
        if op.c in seen:
            continue
        seen.add(op.c)
        call = shapes.spell("C++", op, COST_CPP_ARGUMENTS)
        signals = "true" if "of signals" in op.shape.conventions else "false"
        lines.append(f'    {{"{op.c[len("sk_signal_"):]}", {signals}, [](const cost_args &a) {{ return {call}; }}}},')
    lines.append("};")
    return "\n".join(lines) + "\n", problems


# The cost table's Swift rows: each operator's call of the Swift API spelled
# from its shape, with OperatorCost's arguments (CostRows.h's choices) for
# each kind. A Swift operator whose call is not its shape's is written by
# hand in OperatorCost/main.swift: listed here with the reason.
COST_SWIFT_ARGUMENTS = {
    "source": "a.source", "count": "a.count", "concurrency": "Int(COST_CONCURRENCY)", "retries": "Int(COST_RETRIES)",
    "predicate": "a.predicate", "map": "a.map", "value": "0", "initial": "0", "fold": "a.fold", "other": "a.other",
    "signals": "[a.source, a.source]", "seconds": "cost_seconds(a.row)", "most": "COST_MOST", "queue": "a.queue",
    "look": "a.look", "work": "a.work", "inner": "singleOf",
    "action": "{ _ in SignalTakeAction(passthrough: true, complete: false) }", "make": "{ a.source }", "flag": "false",
    "capacity": "Int(COST_CAPACITY)", "overflow": ".dropNewest",
}
COST_SWIFT_BY_HAND = {
    # row: why its Swift row is written by hand (OperatorCost/main.swift)
    "last": "labelled (`last(signal:)`)",
    "reduce_left": "labelled (`reduceLeft(value:f:)`)",
    "zip": "the two-signal form `zip(a, b)`, as a user writes it (a tuple per value; the array form "
           "`zip([a, b])` makes an array per value)",
    "combine_latest": "the two-signal form `combineLatest(a, b)`, as zip's",
}


def cost_swift(operators):
    """The Swift rows, and the problems found."""
    found, problems = runner_names(operators, "Swift")
    lines = [
        "// GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from",
        "// tools/api/operators.md (`make api-update`). The cost table's rows of the",
        "// Swift API (issue 41): every C operator, a call spelled from its shape",
        "// (tools/api/shapes.py) with CostArguments' arguments, and whether its input",
        "// is a signal of signals; main.swift defines CostArguments and builds the",
        "// others by hand (tools/api/operators.py, COST_SWIFT_BY_HAND, says why each).",
        "import CostRows",
        "import SwiftSignalKit",
        "",
        "func generatedCostRows() -> [CostRow] {",
        "    [",
    ]
    seen = set()
    for _, op, _ in found:
        row = op.c[len("sk_signal_"):]
        if op.c in seen or row in COST_SWIFT_BY_HAND:
            continue
        seen.add(op.c)
        signals = "of signals" in op.shape.conventions
        arguments = dict(COST_SWIFT_ARGUMENTS, source="a.signals" if signals else "a.source")
        call = shapes.spell("Swift", op, arguments)
        lines.append(f'        CostRow("{row}", signals: {"true" if signals else "false"}) {{ a in a.start({call}) }},')
    lines += ["    ]", "}"]
    return "\n".join(lines) + "\n", problems

# The Python rows (bench.py, `make bench-python`): no queue or time (their
# cost per value is the host loop's, not the operator's) and no signal of
# signals (the puts would be signals), as listed here.
COST_PY_SKIPPED = {
    "time": "a timer per value on a queue: the host loop's cost, not the operator's",
    "on": "a hop per value to a queue: the host loop's cost, not the operator's",
}
COST_PY_SIGNAL_VALUED = {"switch_to_latest", "queue", "throttled"}


def rxpy_name(row):
    """RxPY's name for the operator of a table row, or None: the cell
    "RxJS / RxPY" gives both; a cell with one spelling gives the name both
    use; an empty cell means ours; "none" means RxPY has none."""
    cell = row["rx"]
    if not cell:
        python = names(row["python"])
        return python[0].split(".")[-1] if python else None
    part = cell.split(" / ", 1)[1] if " / " in cell else cell
    if part.strip().startswith("none"):
        return None
    found = names(part)
    if not found:
        return None
    name = re.sub(r"\(.*", "", found[0])
    return name if re.fullmatch(r"[a-z_]+", name) else None


def cost_python(rows, api):
    functions = {f["name"]: f for f in api["functions"]}
    lines = [
        '"""GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from',
        "tools/api/operators.md (`make api-update`). The Python rows of the cost",
        "table (issue 41): every C operator of a standard shape with a Python",
        "name, as (row, shape, our method, RxPY's operator or None); bench.py",
        "times each between a pipe and a plain subscriber. Not here: the",
        "operators of a queue or time, and those of a signal of signals",
        '(tools/api/operators.py, COST_PY_SKIPPED)."""',
        "",
        "COST_OPERATORS = [",
    ]
    for row in rows:
        for c in c_names(row):
            shape = shape_of(functions[c]) if c in functions else None
            python = [n for n in names(row["python"]) if re.fullmatch(r"[A-Za-z_.]+", n)]
            if shape is None or not python or shape in COST_PY_SKIPPED:
                continue
            name = c[len("sk_signal_"):]
            if name in COST_PY_SIGNAL_VALUED:
                continue
            method = python[-1].split(".")[-1]
            rx = rxpy_name(row)
            lines.append(f'    ("{name}", "{shape}", "{method}", {repr(rx)}),')
    lines.append("]")
    return "\n".join(lines) + "\n"
# The API fuzzer's operators (Tests/fuzz/fuzz_operators.h).
FUZZ_OUT = "Tests/fuzz/fuzz_operators.h"
FUZZ_HARNESS = "Tests/fuzz/fuzz_api.c"
# A new operator's slot: after every slot in use, and never below this (the
# hand-written cases of fuzz_api.c take numbers below it).
FUZZ_FIRST_NEW_SLOT = 64


def fuzz_slots():
    """{C function: slot} of the committed fuzz_operators.h: a slot, once
    given, is kept, so that an input of the corpus keeps its meaning."""
    try:
        with open(FUZZ_OUT, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return {}
    return {name: int(slot) for slot, name in re.findall(r'\[(\d+)\] = \{\{?"(sk_[a-z0-9_]+)"', text)}


def fuzz_hand_slots():
    """The slots of fuzz_api.c's hand-written cases: the `case N:` labels of
    apply_operator."""
    with open(FUZZ_HARNESS, encoding="utf-8") as handle:
        text = handle.read()
    start = text.find("static void apply_operator(")
    end = text.find("\n}\n", start)
    return {int(n) for n in re.findall(r"\bcase (\d+):", text[start:end])} if start >= 0 else set()


def positive(operator, function):
    """Whether the fuzzer gives the operator's count at least 1 (documented
    "At least 1"), or its time at least a quarter second (a timer that
    repeats, its brief saying each window or period: 0 would fire for ever on
    the fuzzer's virtual clock)."""
    params = dict(zip(operator.kinds(), function["params"][1:]))
    for kind in ("count", "concurrency"):
        if kind in params and re.match(r"(?i)(as [^:]*: )?at least 1\b", params[kind]["doc"]):
            return True
    return "seconds" in params and re.search(r"\b(each|per) (window|period)\b", function["brief"]) is not None


def fuzz_header(operators, api):
    """fuzz_operators.h, and the problems found."""
    functions = {f["name"]: f for f in api["functions"]}
    hand = {key[0]: where for key, where in bindings.hand_written().items() if key[1] == "fuzz-hand"}
    problems = []
    applied = []
    index = {op.c: number for number, op in enumerate(operators)}
    for op in operators:
        if op.c in hand:
            hand[op.c] = None
        else:
            applied.append(op)
    for name, where in sorted(hand.items()):
        if where is not None:
            problems.append(f"{where}: the exception `{name} fuzz-hand` excuses nothing now (not an operator of "
                            f"{TABLE}): remove the entry")
    slots = fuzz_slots()
    taken = fuzz_hand_slots()
    given = {op.c: slots[op.c] for op in applied if op.c in slots}
    for op in applied:
        if op.c not in given:
            given[op.c] = max([FUZZ_FIRST_NEW_SLOT - 1, *given.values(), *taken]) + 1
    for name, slot in sorted(given.items(), key=lambda item: item[1]):
        if slot in taken:
            problems.append(f"{FUZZ_OUT}: the slot {slot} of {name} is also a hand-written case of {FUZZ_HARNESS}'s "
                            f"apply_operator: give that case another number")
        if slot > 255:
            problems.append(f"{FUZZ_OUT}: {name} has slot {slot}, past the operator byte's 255")
    lines = [
        "/* GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from",
        " * tools/api/operators.md (`make api-update`). The API fuzzer's operators",
        " * (operator_list.h), each at its slot: the value of the operator byte that",
        " * applies it (Tests/fuzz/fuzz_api.c, apply_operator; its hand-written cases",
        " * are the fuzz-hand lines of tools/api/exceptions.txt). A slot, once given,",
        " * is kept (api-update reads this file back), and a new operator takes the",
        f" * next after every slot in use (at least {FUZZ_FIRST_NEW_SLOT}), so that an input of the corpus",
        " * keeps its meaning when operators are added. `positive`: its count is at",
        " * least 1, or its time at least 0.25 s. */",
        "#ifndef SIGNALKIT_TESTS_FUZZ_OPERATORS_H",
        "#define SIGNALKIT_TESTS_FUZZ_OPERATORS_H",
        "",
        "#include <stdbool.h>",
        "",
        '#include "operator_list.h"',
        "",
        "typedef struct fuzz_operator {",
        "    const char *name;",
        "    const sk_test_operator *op;",
        "    bool positive;",
        "} fuzz_operator;",
        "",
        "static const fuzz_operator FUZZ_OPERATORS[256] = {",
    ]
    by_name = {op.c: op for op in applied}
    for name, slot in sorted(given.items(), key=lambda item: item[1]):
        flag = "true" if positive(by_name[name], functions[name]) else "false"
        lines.append(f'    [{slot}] = {{"{name}", &SK_TEST_OPERATORS[{index[name]}], {flag}}},')
    lines += ["};", "", "#endif"]
    return "\n".join(lines) + "\n", problems


# The Rust runner's operators (Sources/rust/marbles/marbles.rs includes it):
# a macro expanded in its `apply`, given its Line of the `op` line's words.
RUST_OUT = "Sources/rust/marbles/generated/marble_operators.rs"
# The Rust runner's readers of a line's words, by kind (marbles.rs's Line;
# the closures are written here, where each operator's bound infers their
# parameter: map's a value, group_by's a reference).
RUST_READERS = {
    "count": "$a.count({i})?", "concurrency": "$a.count({i})?", "retries": "$a.count_or_zero({i})?",
    "capacity": "$a.count_or_zero({i})?", "overflow": "$a.overflow({i})?",
    "predicate": "{{ let f = $a.predicate({i})?; move |v| f(int(v)) }}",
    "map": "{{ let f = $a.unary({i})?; move |v| AnyValue::Int(f(int(&v))) }}",
    "fold": "{{ let f = $a.binary({i})?; move |acc: AnyValue, x: AnyValue| AnyValue::Int(f(int(&acc), int(&x))) }}",
    "value": "$a.value({i})?", "initial": "AnyValue::Int($a.integer({i})?)", "other": "&$a.input({i})?",
    "signals": "&$a.inputs({i})?", "seconds": "$a.frames({i})?", "most": "$a.frames({i})?",
    "delay": "$a.frames({i})?", "queue": "$a.queue()",
    "look": "{{ let f = $a.look({i})?; move |v| f(v) }}", "work": "{{ let f = $a.work({i})?; move || f() }}",
    "inner": "$a.inner({i})?", "action": "$a.action({i})?", "make": "$a.make({i})?",
    "on_drop": "$a.on_drop()", "dropped_signal": "$a.dropped_signal({i})?", "host_queue": "&$a.host_queue({i})?",
}


def rust_runner(operators):
    """The Rust runner's operators: a macro_rules! whose match gives
    Some(signal) for a marble name, else None; and the problems found."""
    found, problems = runner_names(operators, "Rust")
    lines = [
        "// GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from",
        "// tools/api/operators.md (`make api-update`). The marble table's operators,",
        "// each a call of the crate's method spelled from its shape (tools/api/shapes.py)",
        "// with the readers of marbles.rs's Line, `$a`; marbles.rs includes it and",
        "// expands it in `apply`, which builds concatMap by hand.",
        "macro_rules! marble_operator {",
        "    ($name:expr, $a:ident) => {",
        "        match $name {",
    ]
    for marble, op, flag in found:
        _, after, varies = marble_words(op.shape)
        call = runner_call("Rust", op, flag, lambda kind, i: RUST_READERS[kind].format(i=i),
                           lambda i: "$a.source()" if i is None else f"$a.upstream({i})?",
                           lambda i, with_it, without: f"if $a.has({i}) {{ {with_it} }} else {{ {without} }}",
                           lambda made: f"$a.groups({made})")
        check = "" if varies else f"$a.arguments({after - 1})?; "
        lines.append(f'            "{marble}" => Some({{ {check}{call} }}.cast::<AnyValue>()),')
    lines += ["            _ => None,", "        }", "    };", "}"]
    return "\n".join(lines) + "\n", problems


# The Swift runner's operators (Tests/SwiftSignalKitTestingTests): a
# function of MarbleOperators, `listed`, that gives the signal of a marble
# name, else nil; MarbleTableOperators.swift's `apply` calls it first and
# builds the others by hand. MarbleOperators.marble turns the values it
# gives (an optional, a pair, an array, none) into the table's. A row whose
# Swift call is not its shape's keeps a case written by hand: a
# `marble-swift-hand` line of tools/api/exceptions.txt, with why.
SWIFT_RUNNER_OUT = "Tests/SwiftSignalKitTestingTests/MarbleTableOperators.generated.swift"
# The Swift runner's reading of each kind from the line's word {I} (0 the
# first after the name): the statements that read it, and the argument.
SWIFT_READERS = {
    "count": (["let n{I} = try self.integer(arguments, {I}, operation)"], "n{I}"),
    "overflow": (["let o{I} = try bounded.overflow(self.word(arguments, {I}, operation), operation)"], "o{I}"),
    "on_drop": ([], "bounded.onDrop"),
    "dropped_signal": ([], "self.droppedSignal(bounded)"),
    "host_queue": (["let queue{I} = try self.hostQueue(arguments, {I}, operation, bounded)"],
                   "queue{I}"),
    "predicate": (["let p{I} = try self.predicate(self.word(arguments, {I}, operation))"], "{{ p{I}($0.int) }}"),
    "map": (["let f{I} = try self.unary(self.word(arguments, {I}, operation))"], "{{ MarbleValue.int(f{I}($0.int)) }}"),
    "fold": (["let b{I} = try self.binary(self.word(arguments, {I}, operation))"], "{{ .int(b{I}($0.int, $1.int)) }}"),
    "value": (["let v{I} = try self.value(arguments, {I}, operation)"], "v{I}"),
    "initial": (["let i{I} = try self.integer(arguments, {I}, operation)"], "MarbleValue.int(i{I})"),
    "other": (["let other{I} = try self.input(arguments, {I}, inputs, operation)"], "other{I}"),
    "signals": (["let signals{I} = try self.named(Array(arguments.dropFirst({I})), inputs, operation)"], "signals{I}"),
    "seconds": (["let t{I} = try self.integer(arguments, {I}, operation)"], "scheduler.seconds(t{I})"),
    "queue": ([], "scheduler.queue"),
    "look": ([], "{{ _ in }}"),
    "work": ([], "{{}}"),
    "inner": (["let inner{I} = try self.namedOrFailing(Array(arguments.dropFirst({I})), inputs, operation)"],
              "{{ self.pick(inner{I}, self.index($0), failures) }}"),
    "action": (["let pass{I} = try self.predicate(self.word(arguments, {I}, operation))",
                "let complete{I} = try self.predicate(self.word(arguments, {I} + 1, operation))"],
               "{{ SignalTakeAction(passthrough: pass{I}($0.int), complete: complete{I}($0.int)) }}"),
    "make": (["let made{I} = try self.namedOrFailing([self.word(arguments, {I}, operation)], inputs, operation)"],
             "{{ self.pick(made{I}, 0, failures) }}"),
}
for _kind in ("concurrency", "retries", "capacity"):
    SWIFT_READERS[_kind] = SWIFT_READERS["count"]
for _kind in ("most", "delay"):
    SWIFT_READERS[_kind] = SWIFT_READERS["seconds"]


def swift_runner(operators):
    """The Swift runner's operators, and the problems found."""
    hand = {key[0]: where for key, where in bindings.hand_written().items() if key[1] == "marble-swift-hand"}
    found, problems = runner_names(operators, "Swift", hand)
    for op in operators:
        if op.c in hand:
            hand[op.c] = None
    for name, where in sorted(hand.items()):
        if where is not None:
            problems.append(f"{where}: the exception `{name} marble-swift-hand` excuses nothing now (no operator of "
                            f"{TABLE}): remove the entry")
    lines = [
        "// GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from",
        "// tools/api/operators.md (`make api-update`). The marble table's operators,",
        "// each a call of the row's Swift operator spelled from its shape",
        "// (tools/api/shapes.py) with the case's arguments; MarbleTableOperators.swift's",
        "// `apply` calls `listed` first and builds the others by hand (concatMap, and",
        "// the marble-swift-hand lines of tools/api/exceptions.txt).",
        "import SwiftSignalKit",
        "import SwiftSignalKitTesting",
        "",
        "extension MarbleOperators {",
        "    /// The signal of a marble operator of the operator table, or nil for another name.",
        "    static func listed(_ operation: MarbleCase.Operation, to signal: MarbleSignal, "
        "inputs: [String: TestSignal<MarbleValue, MarbleFailure>], scheduler: TestScheduler, failures: MarbleFailures, "
        "bounded: MarbleBounded) throws(MarbleTableError) -> MarbleSignal? {",
        "        let arguments = operation.arguments",
        "        switch operation.name {",
    ]
    for marble, op, flag in found:
        indexes, after, varies = marble_words(op.shape)
        reads = [] if varies else [f"try self.arity(arguments, {after - 1}, operation)"]
        optional_reads = []

        def reader(kind, i, reads=reads, optional_reads=optional_reads, op=op):
            statements, argument = SWIFT_READERS[kind]
            if kind == "map" and "groups" in op.shape.conventions:
                argument = "{{ f{I}($0.int) }}"  # a key: Hashable, an Int
            index = None if i is None else i - 1
            into = optional_reads if kind == "delay" else reads
            for statement in statements:
                if statement.format(I=index) not in into:
                    into.append(statement.format(I=index))
            return argument.format(I=index)

        def source(i, reads=reads, op=op):
            if i is None:
                return "signal"
            # A bounded one's keeps its inputs' signals in `bounded`, where
            # its drop callback finds a dropped one's place (droppedSignal).
            keep = ", bounded" if op.shape.bounded else ""
            reads.append(f"let upstream = try self.upstream(signal, Array(arguments.dropFirst({i - 1})), inputs, "
                         f"operation{keep})")
            return "upstream"

        made = runner_call("Swift", op, flag, reader, source, None, None)
        wrap = "self.groups" if "groups" in op.shape.conventions else "self.marble"
        lines.append(f'        case "{marble}":')
        lines += [f"            {statement}" for statement in reads]
        if isinstance(made, tuple):
            with_it, without = made
            lines.append(f"            if arguments.count > {indexes['delay'] - 1} {{")
            lines += [f"                {statement}" for statement in optional_reads]
            lines += [f"                return {wrap}({with_it})", "            }"]
            made = without
        lines.append(f"            return {wrap}({made})")
    lines += ["        default:", "            return nil", "        }", "    }", "}"]
    return "\n".join(lines) + "\n", problems


# The marble table's vocabulary (Tests/marbles/README.md): the operators
# of the operator table, between these lines.
MARBLE_README = "Tests/marbles/README.md"
MARBLE_BEGIN = "<!-- BEGIN operators of the operator table (generated) -->"
MARBLE_END = "<!-- END operators of the operator table (generated) -->"


def marble_vocabulary(operators):
    """The table of the marble README's generated part: each marble name of
    a C operator, its `op` line, its Swift name and what its arguments are."""
    lines = ["| operator | Swift | arguments |", "|---|---|---|"]
    for op in operators:
        swift = ", ".join(f"`{name}`" for name in names(op.cells["swift"])) or "—"
        for marble, flag in op.marble:
            line, meaning = shapes.marble_vocabulary_line(marble, op.shape)
            if flag:
                meaning = "; ".join(part for part in (meaning, f"`{op.shape.flag}`") if part)
            lines.append(f"| `{line}` | {swift} | {meaning} |")
    return "\n".join(lines)


def outputs(api):
    """{path: text} of every generated file, and the problems found."""
    header, _, rows = read_table()
    operators, problems = table_operators(rows, api)
    known = marble_names(rows)
    for name, where in sorted(used_marble_operators().items()):
        if name not in known:
            problems.append(f"{where}: the operator `{name}` is in no row of {TABLE} (its marble table column)")
    with open(DOC, encoding="utf-8") as handle:
        doc = handle.read()
    if DOC_BEGIN not in doc or DOC_END not in doc:
        problems.append(f"{DOC}: the lines {DOC_BEGIN} and {DOC_END} are gone: put them back around the table of operators")
        new_doc = doc
    else:
        before, rest = doc.split(DOC_BEGIN, 1)
        _, after = rest.split(DOC_END, 1)
        new_doc = before + DOC_BEGIN + "\n" + doc_block(header, rows) + "\n" + DOC_END + after
    own = [row for row in rows if not composes(row)]
    cpp_members, python_methods, rust_methods, binding_problems = bindings.generated(own, api, binding_shape_of)
    problems += binding_problems
    rust_methods_text, rust_method_problems = bindings_rust.module(rust_methods)
    problems += rust_method_problems
    with open(bindings.CPP_HEADER, encoding="utf-8") as handle:
        cpp_text = handle.read()
    try:
        new_cpp = bindings.cpp_header(cpp_text, cpp_members)
    except SystemExit as problem:
        problems.append(str(problem))
        new_cpp = cpp_text
    with open(MARBLE_README, encoding="utf-8") as handle:
        readme = handle.read()
    if MARBLE_BEGIN not in readme or MARBLE_END not in readme:
        problems.append(f"{MARBLE_README}: the lines {MARBLE_BEGIN} and {MARBLE_END} are gone: put them back around "
                        f"the operators of the operator table")
        new_readme = readme
    else:
        before, rest = readme.split(MARBLE_BEGIN, 1)
        new_readme = (before + MARBLE_BEGIN + "\n" + marble_vocabulary(operators) + "\n" + MARBLE_END
                      + rest.split(MARBLE_END, 1)[1])
    fuzz_text, fuzz_problems = fuzz_header(operators, api)
    problems += fuzz_problems
    marble_cpp_text, marble_cpp_problems = cpp_header(operators)
    problems += marble_cpp_problems
    python_text, python_problems = python_module(operators)
    problems += python_problems
    cost_swift_text, cost_swift_problems = cost_swift(operators)
    problems += cost_swift_problems
    cost_cpp_text, cost_cpp_problems = cost_cpp(operators)
    problems += cost_cpp_problems
    rust_text, rust_problems = rust_runner(operators)
    problems += rust_problems
    swift_text, swift_problems = swift_runner(operators)
    problems += swift_problems
    return {DOC: new_doc, C_OUT: c_header(operators), CPP_OUT: marble_cpp_text, FUZZ_OUT: fuzz_text, MARBLE_README: new_readme, RUST_OUT: rust_text,
            SWIFT_RUNNER_OUT: swift_text,
            PY_OUT: python_text, bindings.CPP_HEADER: new_cpp,
            bindings.PY_STANDARD: bindings.python_module(python_methods), bindings_rust.RUST_OUT: rust_methods_text,
            COST_CPP_OUT: cost_cpp_text,
            COST_SWIFT_OUT: cost_swift_text, COST_PY_OUT: cost_python(rows, api)}, problems


def stale(api):
    """The generated files that differ from what the table gives, and the
    table's problems (check.py reports both)."""
    texts, problems = outputs(api)
    differ = []
    for path, text in texts.items():
        try:
            with open(path, encoding="utf-8") as handle:
                current = handle.read()
        except FileNotFoundError:
            current = None
        if current != text:
            differ.append(path)
    return differ, problems


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: operators.py API.json [--check]")
    with open(sys.argv[1], encoding="utf-8") as handle:
        api = json.load(handle)
    if "--check" in sys.argv[2:]:
        differ, problems = stale(api)
        for path in differ:
            print(f"{path} is not what {TABLE} gives: run `make api-update` (tools/api/operators.py) and commit it",
                  file=sys.stderr)
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if differ or problems else 0
    texts, problems = outputs(api)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    for path, text in texts.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
