"""The shapes of SignalKit's C operators, and how each language spells a call
of one: the one description that the marble runners, the operator pages'
examples, the cost rows, the abandonment sweep, the API fuzzer and the soak
are generated from (tools/api/operators.py writes them, tools/docs/examples.py
spells the examples).

A shape is what a C operator takes after `out`, in order, as *kinds* of
argument (KINDS: a count, a predicate, another signal, a capacity...). It is
a base shape (BASES: `unary`, `count`, ..., and the few of their own such as
`retries` or `deadline`) and modifiers:

- `bounded`: a capacity, an overflow policy and a drop callback with its
  context, the bounded places' arguments (docs/concepts.md). They follow the
  base's arguments (`on_backpressure_buffer` is `unary + bounded`,
  `deliver_on_bounded` is `on + bounded`); for a base with a function of its
  own, `concurrent` (merge_map), C has them around it: the capacity and the
  policy before the function, the drop callback after it, both functions
  sharing one context (`sk_signal_merge_map_bounded`, position_of;
  docs/maintainers/releasing.md, "Kept for the next ABI break", says why it
  stays so until then). Every binding puts them before the function.
- a flag, a `bool` named after its C parameter (`predicate + inclusive`:
  take_while), last in C.

The operator table's `shape` column writes each operator's shape
(`unary + bounded`); operators.py checks it against the C declaration
(recognize()), and fails `make test-api` with the shape the declaration
gives when they differ. Two conventions of the marble table follow the
shape, after a comma: `of signals` (the operator's input is a signal of
signals: a marble line names the inputs its upstream's values stand for)
and `groups` (its values are [key, signal] pairs, which the runners merge).

Each language spells a call of a shape with `spell(LANGUAGE, operator,
arguments)`, `arguments` a dict of the caller's text for each kind (a marble
runner's readers, an example's literals, a cost row's choices): the
language's order, labels and keywords are written once here, per base
shape (CPP, PYTHON, RUST, SWIFT), and the C call is the declaration's order.

Python 3 standard library only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Union

# ---------------------------------------------------------------------------
# Kinds and shapes
# ---------------------------------------------------------------------------

# kind -> the C parameters it stands for, as api.json spells their types.
KINDS = {
    "source": ("sk_signal *",),
    "count": ("size_t",),
    "concurrency": ("size_t",),
    "retries": ("size_t",),
    "predicate": ("sk_predicate_fn",),
    "map": ("sk_map_fn",),
    "value": ("const sk_value *",),
    "initial": ("const sk_value *",),
    "fold": ("sk_reduce_fn",),
    "other": ("sk_signal *",),
    "signals": ("sk_signal *const *", "size_t"),
    "seconds": ("double",),
    "most": ("double",),
    "queue": ("sk_queue *",),
    "maybe_queue": ("sk_queue *",),
    "delay": ("double",),
    "delay_queue": ("sk_queue *",),
    "look": ("sk_value_fn",),
    "work": ("sk_work_fn",),
    "inner": ("sk_signal_fn",),
    "action": ("sk_take_until_fn",),
    "make": ("sk_deferred_fn",),
    "flag": ("bool",),
    "ctx": ("void *", "sk_release_fn"),
    "capacity": ("size_t",),
    "overflow": ("sk_overflow",),
    "on_drop": ("sk_drop_fn",),
}
# The kinds that are a function the library calls (a binding's closure).
FUNCTIONS = ("predicate", "map", "fold", "look", "work", "inner", "action", "make")

# base shape -> its kinds, in C's order, and what it is in words (the
# marble vocabulary and docs/maintainers/adding-an-operator.md quote them).
BASES = {
    "unary": ("source",),
    "count": ("source", "count"),
    "predicate": ("source", "predicate", "ctx"),
    "map": ("source", "map", "ctx"),
    "value": ("source", "value"),
    "signal": ("source", "other"),
    "reduce": ("source", "initial", "fold", "ctx"),
    "signals": ("signals",),
    "time": ("source", "seconds", "queue"),
    "on": ("source", "queue"),
    "tap": ("source", "look", "ctx"),
    "work": ("source", "work", "ctx"),
    # The shapes of their own: each one operator's today.
    "inner": ("source", "inner", "ctx"),
    "concurrent": ("source", "concurrency", "inner", "ctx"),
    "action": ("source", "action", "ctx"),
    "deferred": ("make", "ctx"),
    "backoff": ("source", "seconds", "most", "queue"),
    "retries": ("source", "retries", "delay", "delay_queue"),
    "deadline": ("source", "seconds", "queue", "other"),
    "signals_queue": ("signals", "maybe_queue"),
}
BOUNDED = ("capacity", "overflow", "on_drop", "ctx")
CONVENTIONS = ("of signals", "groups")


@dataclass(frozen=True)
class Shape:
    """A base shape, its modifiers and the marble table's conventions."""
    base: str
    bounded: bool = False
    flag: str | None = None  # the flag's C name (`inclusive`)
    conventions: tuple[str, ...] = ()

    def text(self) -> str:
        """As the operator table's shape column writes it."""
        spelled = " + ".join([self.base] + (["bounded"] if self.bounded else []) + ([self.flag] if self.flag else []))
        return ", ".join([f"`{spelled}`"] + list(self.conventions))

    def name(self) -> str:
        """One word: `unary+bounded`."""
        return "+".join([self.base] + (["bounded"] if self.bounded else []) + ([self.flag] if self.flag else []))

    def kinds(self, position: str = "end") -> tuple[str, ...]:
        """The kinds of a C call, in order. `position` is where the bounded
        arguments go in C: "end", or "function" (around the base's function,
        one context: sk_signal_merge_map_bounded's)."""
        kinds = list(BASES[self.base])
        if self.bounded and position == "function":
            at = next(i for i, kind in enumerate(kinds) if kind in FUNCTIONS)
            kinds[at:at + 1] = ["capacity", "overflow", kinds[at], "on_drop"]
        elif self.bounded:
            kinds += BOUNDED
        if self.flag:
            kinds.append("flag")
        return tuple(kinds)

    def has(self, kind: str) -> bool:
        return kind in self.kinds()


def position_of(shape: Shape) -> str:
    """Where C has a shape's bounded arguments: around the base's function
    when the base has one (its context then shared), else at the end (the
    two compositions recognize() accepts)."""
    return "function" if shape.bounded and "ctx" in BASES[shape.base] else "end"


def c_types(shape: Shape, position: str = "end") -> tuple[str, ...]:
    return tuple(t for kind in shape.kinds(position) for t in KINDS[kind])


def recognize(function: dict[str, Any]) -> tuple[Shape, str] | None:
    """(shape, position of its bounded arguments) of a C function of
    api.json, or None: every base, bounded or not, with or without a flag,
    tried against its parameters after `out`."""
    params = function["params"][1:]
    types = tuple(p["type"] for p in params)
    flag = params[-1]["name"] if types and types[-1] == "bool" else None
    for base, kinds in BASES.items():
        for bounded in (False, True):
            shape = Shape(base, bounded, flag)
            positions = ["end"] + (["function"] if bounded and any(k in FUNCTIONS for k in kinds) else [])
            for position in positions:
                if bounded and position == "end" and "ctx" in kinds:
                    continue  # two contexts: not a composition that exists
                if c_types(shape, position) == types:
                    return shape, position
    return None


def parse_cell(cell: str) -> Shape | None:
    """The shape a cell of the table's shape column writes (None: blank);
    SyntaxError with why for one that is no shape."""
    cell = cell.strip()
    if not cell or cell == "—":
        return None
    match = re.fullmatch(r"`([^`]+)`((?:\s*,\s*[a-z ]+)*)", cell)
    if not match:
        raise SyntaxError(f"`{cell}` is no shape: write `BASE[ + MODIFIER]...` in backticks, then `, of signals` "
                          f"or `, groups` where they apply")
    parts = [part.strip() for part in match.group(1).split("+")]
    if parts[0] not in BASES:
        raise SyntaxError(f"`{parts[0]}` is no base shape (one of {', '.join(BASES)})")
    bounded = "bounded" in parts[1:]
    flags = [part for part in parts[1:] if part != "bounded"]
    if len(flags) > 1 or any(not re.fullmatch(r"[a-z_]+", part) for part in flags):
        raise SyntaxError(f"`{match.group(1)}`: the modifiers are `bounded` and one flag, named after its C parameter")
    conventions = tuple(word.strip() for word in match.group(2).split(",") if word.strip())
    for convention in conventions:
        if convention not in CONVENTIONS:
            raise SyntaxError(f"`{convention}` is no convention of the marble table ({', '.join(CONVENTIONS)})")
    return Shape(parts[0], bounded, flags[0] if flags else None, conventions)


# ---------------------------------------------------------------------------
# The marble table's arguments
# ---------------------------------------------------------------------------

# base -> the kinds an `op` line gives, in its order; the others come from
# the case (its virtual queue) or are none (a context, a drop callback).
MARBLE = {
    "unary": (), "count": ("count",), "predicate": ("predicate",), "map": ("map",), "value": ("value",),
    "signal": ("other",), "reduce": ("fold", "initial"), "signals": ("signals",), "time": ("seconds",), "on": (),
    "tap": ("look",), "work": ("work",), "inner": ("inner",), "concurrent": ("concurrency", "inner"),
    "action": ("action",), "deferred": ("make",), "backoff": ("seconds", "most"), "retries": ("retries", "delay"),
    "deadline": ("seconds", "other"), "signals_queue": ("signals",),
}
# Kinds an `op` line gives last: a list of inputs, or an optional word.
TRAILING = ("signals", "inner", "look", "work", "delay")
# How each kind is written in the marble vocabulary, and what it is.
MARBLE_WORDS = {
    "count": ("N", "`N` a count (negative: one past any)"),
    "concurrency": ("N", "`N` inner signals at once"),
    "retries": ("N", "`N` retries"),
    "predicate": ("P", "`P` a predicate"),
    "map": ("F", "`F` a function"),
    "value": ("V", "`V` a value"),
    "fold": ("B", "`B` a function of two values"),
    "initial": ("I", "folding from `I`"),
    "other": ("NAME", "`NAME` another input of the case"),
    "signals": ("NAME...", "the signal of the named inputs, replacing the upstream"),
    "seconds": ("T", "`T` frames, on the virtual queue"),
    "most": ("M", "at most `M` frames"),
    "delay": ("[D]", "`D` frames before each, on the virtual queue (none without it)"),
    "look": ("[!K]", "a function of the value that does nothing (`!K`: that fails, see Functions)"),
    "work": ("[!]", "a function that does nothing (`!`: that fails, see Functions)"),
    "inner": ("NAME...", "a function returning the input at the value's place among the named ones (0 the first; "
                         "the first for an error), `!` where it fails"),
    "action": ("P Q", "passing a value when `P` holds and completing after it when `Q` does"),
    "make": ("NAME", "a function returning the named input at each start (`!`: failing), replacing the upstream"),
    "capacity": ("C", "at most `C` waiting"),
    "overflow": ("POLICY", "`POLICY` for the next: `dropNewest`, `dropOldest`, `latest`, `error` or `block` (see \"Bounded operators\")"),
}


def marble_layout(shape: Shape) -> tuple[str, ...]:
    """The kinds an `op` line of the shape gives, in order: the base's, the
    bounded ones before its trailing list or optional word."""
    kinds = list(MARBLE[shape.base])
    if shape.bounded:
        at = next((i for i, kind in enumerate(kinds) if kind in TRAILING), len(kinds))
        kinds[at:at] = ["capacity", "overflow"]
    return tuple(kinds)


def takes_inputs(shape: Shape) -> bool:
    """Whether an `op` line names inputs the shape takes itself; one that
    does not may name, after its arguments, the inputs a signal of signals
    stands for (`of signals`)."""
    return any(kind in ("signals", "inner", "other", "make") for kind in marble_layout(shape))


def marble_vocabulary_line(marble: str, shape: Shape) -> tuple[str, str]:
    """(`op` line, what its arguments are) for the marble README."""
    layout = marble_layout(shape)
    words = [MARBLE_WORDS[kind][0] for kind in layout]
    meaning = [MARBLE_WORDS[kind][1] for kind in layout]
    if "queue" in shape.kinds() and "seconds" not in layout:
        meaning.append("on the virtual queue")
    if "of signals" in shape.conventions:
        words.append("NAME...")
        meaning.append("over a signal of signals: the upstream's value `i` is the `i`-th named input")
    if "groups" in shape.conventions:
        meaning.append("each group's values as `[key,value]`, the groups merged")
    return " ".join([f"{marble}"] + words), "; ".join(meaning)


# ---------------------------------------------------------------------------
# The operators' names in each language
# ---------------------------------------------------------------------------

@dataclass
class Spelled:
    """An operator's name in one language, as its column of the table gives
    it: a name (`first(where:)`: Swift's first label), or a call whose
    fixed arguments and closure stand around the shape's own
    (`mergeMap(maxConcurrent: 1, capacity:overflow:onDrop:) { $0 }`)."""
    name: str
    label: str | None = None  # Swift: the first argument's label
    before: list[str] = field(default_factory=list)  # fixed arguments before the shape's
    after: list[str] = field(default_factory=list)  # and after them
    closure: str | None = None  # a fixed trailing closure (Swift)


def split_arguments(text: str) -> list[str]:
    """The arguments of a call's parentheses, split at the commas outside
    brackets."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


SHAPE_ARGUMENT = re.compile(r"(\w+:)+|capacity|overflow|on_drop|[a-z_]+=?")


def spelled(cell: str, language: str, c_short: str) -> Spelled | None:
    """An operator's Spelled in `language` from its column's cell, or None
    (`—`). The first name in backticks, its `Signal::` / `Signal.` and its
    parentheses aside; Python prefers the C function's short name when the
    cell has it (before_next over tap)."""
    found = re.findall(r"`([^`]+)`", cell)
    if not found:
        return None
    if language == "Python":
        plain = [n for n in found if re.fullmatch(r"[\w.]+", n)]
        found = [n for n in plain if n.split(".")[-1] == c_short] or plain or found
    text = found[0]
    text = re.sub(r"^(Signal::|Signal\.|sk::)", "", text)
    match = re.fullmatch(r"(\w+)(?:\((.*)\))?(?:\s*(\{.*\}))?", text, re.S)
    if not match:
        return None
    name, inside, closure = match.group(1), match.group(2), match.group(3)
    result = Spelled(name, closure=closure)
    if inside is None:
        return result
    arguments = split_arguments(inside)
    if language == "Swift" and len(arguments) == 1 and re.fullmatch(r"(\w+:)+", arguments[0]):
        # A selector: `first(where:)`, `buffer(timeSpan:queue:...)`.
        first = arguments[0].split(":")[0]
        result.label = None if first == "_" else first
        return result
    # A call: its fixed arguments (a value: `maxConcurrent: 1`, `1`,
    # `|s| s`) around the shape's (`capacity:overflow:onDrop:`, `capacity`,
    # `capacity=`, `f`, `q`...), which the spelling fills.
    fixed = [not SHAPE_ARGUMENT.fullmatch(argument) and not re.fullmatch(r"[a-z_]\w*(\[, \w+\])?", argument)
             for argument in arguments]
    if any(fixed):
        start = fixed.index(False) if False in fixed else len(arguments)
        end = len(arguments) - fixed[::-1].index(False) if False in fixed else start
        result.before, result.after = arguments[:start], arguments[end:]
    if language == "Swift" and not any(fixed) and arguments:
        first = arguments[0].split(":")[0]
        result.label = None if first in ("_", "") or ":" not in arguments[0] else first
    return result


@dataclass
class Operator:
    """A C operator of the table: its function, shape and names."""
    c: str
    shape: Shape
    marble: list[tuple[str, bool]]  # (marble name, the flag it sets)
    names: dict[str, Spelled | None]  # language -> its name
    position: str = "end"  # of its bounded arguments in C (Shape.kinds)
    cells: dict[str, str] = field(default_factory=dict)  # the table's cells, by column

    def kinds(self) -> tuple[str, ...]:
        return self.shape.kinds(self.position)


def marble_names(cell: str, shape: Shape) -> list[tuple[str, bool]]:
    """(marble name, its flag) of a marble cell: a name ending in the flag's
    name sets it (takeWhileInclusive: inclusive)."""
    found = []
    for name in re.findall(r"`([^`]+)`", cell):
        name = name.rstrip("*")
        tail = "".join(part.capitalize() for part in shape.flag.split("_")) if shape.flag else None
        found.append((name, bool(tail) and name.endswith(tail)))
    return found


# ---------------------------------------------------------------------------
# Spelling a call in each language
# ---------------------------------------------------------------------------

# Each language's arguments per base shape, in its order: a kind, or
# (label or keyword, kind). A kind in `arguments` missing (the optional
# ones: delay and delay_queue, maybe_queue) is left out. The functions are
# the last (Swift: its trailing closure).
Slot = Union[str, tuple[str, str]]
CPP: dict[str, list[Slot]] = {
    "unary": [], "count": ["count"], "predicate": ["predicate"], "map": ["map"], "value": ["value"],
    "signal": ["other"], "reduce": ["initial", "fold"], "signals": ["signals"], "time": ["seconds", "queue"],
    "on": ["queue"], "tap": ["look"], "work": ["work"], "inner": ["inner"], "concurrent": ["concurrency", "inner"],
    "action": ["action"], "deferred": ["make"], "backoff": ["seconds", "most", "queue"],
    "retries": ["retries", "delay", "delay_queue"], "deadline": ["seconds", "queue", "other"],
    "signals_queue": ["signals", "maybe_queue"],
}
RUST: dict[str, list[Slot]] = dict(CPP)
PYTHON: dict[str, list[Slot]] = dict(CPP, reduce=["fold", "initial"], concurrent=["inner", ("max_concurrent", "concurrency")],
              deadline=["seconds", "other", "queue"], signals_queue=["signals", ("queue", "maybe_queue")])
SWIFT: dict[str, list[Slot]] = dict(CPP, time=["seconds", ("queue", "queue")], backoff=["seconds", ("maxDelay", "most"), ("onQueue", "queue")],
             retries=["retries", ("delay", "delay"), ("queue", "delay_queue")],
             deadline=["seconds", ("queue", "queue"), ("alternate", "other")],
             signals_queue=[("queue", "maybe_queue"), "signals"])
# The shapes whose call has no upstream: a static (C++ sk::signal::, Python
# sk.Signal., Rust Signal::) or a free function (Swift).
STATIC = ("signals", "deferred", "signals_queue")
SWIFT_KEYWORDS = {"catch", "default", "repeat", "defer", "switch"}


def language_arguments(language: str, operator: Operator, arguments: dict[str, str]) -> list[tuple[str | None, str, str]]:
    """[(label or keyword, kind, text)] of a call in `language`: the base's in
    the language's order, the bounded ones before its function (else last;
    Python's keywords last), the flag last (Rust: first; Swift: before its
    closure)."""
    table = {"C++": CPP, "Python": PYTHON, "Rust": RUST, "Swift": SWIFT}[language]
    slots: list[tuple[str | None, str]] = [slot if isinstance(slot, tuple) else (None, slot)
                                           for slot in table[operator.shape.base]]
    if operator.shape.bounded:
        keyed = language in ("Python", "Swift")
        bounded: list[tuple[str | None, str]] = [("capacity" if keyed else None, "capacity"),
                                                 ("overflow" if keyed else None, "overflow")]
        # The drop callback, where given: Python's `on_drop=` and Swift's
        # `onDrop:` after the policy, C++'s and Rust's (`NAME_with`) last.
        drop: tuple[str | None, str] = ({"Python": "on_drop", "Swift": "onDrop"}.get(language), "on_drop")
        at = next((i for i, (_, kind) in enumerate(slots) if kind in FUNCTIONS), len(slots))
        slots[at:at] = [] if language == "Python" else bounded + ([drop] if keyed else [])
        slots += bounded + [drop] if language == "Python" else [] if keyed else [drop]
    if operator.shape.flag:
        flag: tuple[str | None, str] = (operator.shape.flag if language in ("Python", "Swift") else None, "flag")
        slots = [flag] + slots if language == "Rust" else slots + [flag]
    if language == "Swift":  # the function last: the trailing closure
        slots = [slot for slot in slots if slot[1] not in FUNCTIONS] + [slot for slot in slots if slot[1] in FUNCTIONS]
    found: list[tuple[str | None, str, str]] = []
    for label, kind in slots:
        if language == "Rust" and kind == "delay":
            found.append((None, kind, f"Some(({arguments['delay']}, {arguments['delay_queue']}))"
                          if "delay" in arguments else "None"))
        elif language == "Rust" and kind == "maybe_queue":
            found.append((None, kind, f"Some({arguments['maybe_queue']})" if "maybe_queue" in arguments else "None"))
        elif language == "Rust" and kind == "delay_queue":
            continue
        elif kind in arguments:
            found.append((label, kind, arguments[kind]))
    return found


def spell(language: str, operator: Operator, arguments: dict[str, str], style: str = "member") -> str:
    """A call of `operator` in `language` with `arguments` (kind -> text;
    the optional kinds may be missing: a bounded operator's `on_drop`, which
    in Rust names its `_with` form). `source` is the upstream's text;
    C's `out` the output's (`out` by default); C++'s `style` is "member"
    (`s.take(2)`) or "pipe" (`s | sk::take(2)`). Raises KeyError naming what
    is missing: the language's name for the operator, or an argument."""
    shape = operator.shape
    if language == "C":
        texts = [arguments.get("out", "out")] + [arguments[kind] for kind in operator.kinds()]
        return f"{operator.c}({', '.join(texts)})"
    name = operator.names.get(language)
    if name is None:
        raise KeyError(f"{operator.c} has no {language} name in the operator table")
    listed = language_arguments(language, operator, arguments)
    static = shape.base in STATIC
    if language == "Swift":
        return swift_spell(name, listed, arguments.get("source", ""), static)
    texts = [f"{label}={text}" if label else text for label, _, text in listed]
    method = name.name
    if language == "Rust" and shape.bounded and "on_drop" in arguments:
        method += "_with"  # the form that takes a drop callback
    call = f"{method}({', '.join(name.before + texts + name.after)})"
    source = arguments.get("source", "")
    if language == "C++":
        if static:
            # The free functions (sk::zip, sk::merge...) have no bounded form.
            return f"sk::signal::{call}" if shape.bounded or style == "member" else f"sk::{call}"
        return f"{source} | sk::{call}" if style == "pipe" else f"{source}.{call}"
    if language == "Python":
        return f"sk.Signal.{call}" if static else f"{source}.{call}"
    return f"Signal::{call}" if static else f"{source}.{call}"


def swift_spell(name: Spelled, listed: list[tuple[str | None, str, str]], source: str, static: bool) -> str:
    """Swift: `source |> name(arguments) { closure }`, the first argument
    labelled as the table's selector says (`first(where:)`; the closure
    when there is no other: `take(until: { ... })`)."""
    # A function written as a closure is the trailing closure; one written
    # as a name (a function of the program) is an argument as the others.
    plain = [(label, text) for label, kind, text in listed if kind not in FUNCTIONS or not text.startswith("{")]
    closures = [text for _, kind, text in listed if kind in FUNCTIONS and text.startswith("{")]
    texts = []
    for index, (label, text) in enumerate(plain):
        if index == 0 and name.label and not name.before:
            label = name.label
        texts.append(f"{label}: {text}" if label else text)
    closure = closures[-1] if closures else name.closure
    if name.label and not plain and closures and not name.before:
        texts, closure = [f"{name.label}: {closure}"], None
    texts = name.before + texts + name.after
    base = f"`{name.name}`" if name.name in SWIFT_KEYWORDS else name.name
    call = f"{base}({', '.join(texts)})" if texts else base
    if closure:
        call = f"{call} {closure}"
    return call if static else f"{source} |> {call}"
