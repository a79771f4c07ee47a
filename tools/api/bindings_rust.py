"""The Rust methods of the operators of a standard shape, made from the
operator table (tools/api/operators.md) and api.json; called by operators.py
(`make api-update` writes them, `make test-api` fails when the tree's copy
differs):

  Sources/rust/rsignalkit/src/operators/standard.rs
      a module of Sources/rust/rsignalkit/src/operators.rs (so it calls that file's
      private helpers: with_ctx, the trampolines, value_or_refused), with an
      `impl<T: Value> Signal<T>` block per family of the table, holding one
      method for each row whose C function has a standard shape and whose
      Rust cell is one name (`Signal::merge` for a function of signals).

Each method is the call a hand-written one makes: the same signature and
closure bounds for a shape (RUST_SIGNATURES), its closure boxed by with_ctx
and called by the shape's trampoline. Its rustdoc comment is the C function's
brief in the crate's words (`fn` is `f`, `signal` is `self`), with what the
shape adds, unless operator_words.RUST gives the words; operator_words.RUST
may add an example. A method whose signature is not its shape's (pairs or
arrays as its values, a signal of signals as its input, its other signal of
its own type) is written by hand in operators.rs and listed as `rust-hand` in
tools/api/exceptions.txt, with why.

A closure that can fail in C (a map, a predicate, a fold: the header's
operator callbacks) fails its call through sk_callback_fail when it panics,
whatever its operator: its trampoline is the shape's alone. A side effect
cannot fail in C: its trampoline takes the marker type (operators.rs's
module `place`, named after the method: `before_next` is
`place::BeforeNext`) that names the callback to the failure hook.

Python 3 standard library only.
"""
import re
import textwrap

import operator_words

RUST_OUT = "Sources/rust/rsignalkit/src/operators/standard.rs"

# A C parameter's name in Rust.
RUST_RENAMES = {"fn": "f"}
# What each shape adds to the brief, in the crate's words.
# ({name} is the method's name.)
RUST_NOTES = {
    "predicate": ("A panic in `f` ends the stream with the error \"panicked: MESSAGE\" (`sk_callback_fail`): the "
                  "value neither passes nor completes anything, the upstream is disposed, nothing comes after."),
    "map": ("A panic in `f` ends the stream with the error \"panicked: MESSAGE\" (`sk_callback_fail`): no value "
            "for that call, the upstream is disposed, nothing comes after."),
    "reduce": ("A panic in `f` ends the stream with the error \"panicked: MESSAGE\" (`sk_callback_fail`): no "
               "accumulator is delivered for that value (`reduce` delivers none at all), the upstream is disposed."),
    "tap": ("A panic in `f` goes to the failure hook (`set_failure_hook`, `where` = `\"{name}\"`): a side effect "
            "cannot fail the stream in C."),
    "work": ("A panic in `f` goes to the failure hook (`set_failure_hook`, `where` = `\"{name}\"`): a side effect "
             "cannot fail the stream in C."),
    "time": "Timed on `queue`.",
}
BOUND = "Send + Sync + 'static"


def rust_words(text, shape):
    """C's words as the crate's: `fn(ctx, value)` is f(value), `signal` self."""
    text = text.replace("`fn(ctx, value)`", "`f(value)`").replace("`fn(ctx)`", "`f()`")
    text = re.sub(r"`fn\(([^`]*)\)`", r"`f(\1)`", text)
    if shape == "signals":
        text = text.replace("`count` signals", "`signals`")
    text = re.sub(r"`signal`", "`self`", text)
    text = re.sub(r"`([a-z_]+)`", lambda m: f"`{RUST_RENAMES.get(m.group(1), m.group(1))}`", text)
    # Brackets outside code would be read as links by rustdoc.
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(part if part.startswith("`") else re.sub(r"([\[\]])", r"\\\1", part) for part in parts)


def place(name):
    """The marker type naming a side effect to the failure hook (in
    operators.rs's module `place`): before_next is BeforeNext."""
    return "".join(part.capitalize() for part in name.split("_"))


# A bounded method's base parameters and the C arguments they give (the
# bounded modifier after a base of no function: bindings.BOUNDED).
RUST_BOUNDED_BASES = {
    "unary": ([], []),
    "count": (["{0}: usize"], ["{0}"]),
    "signal": (["{0}: &Signal<U>"], ["{0}.as_raw()"]),
    "on": (["queue: &Queue"], ["queue.as_raw()"]),
    "time": (["{0}: Duration", "queue: &Queue"], ["to_seconds({0})", "queue.as_raw()"]),
}
RUST_BOUNDED_NOTE = ("At most `capacity` values wait and `overflow` says what happens to the next (docs/concepts.md, "
                     "\"Where values can queue\"); a capacity of 0 fails the signal with `InvalidArgument`.")


def bounded_methods(function, shape, name, doc):
    """`name` and `name_with`, the second telling `on_drop` of each value
    dropped (operators.rs's drop_fn; its panic goes to the failure hook)."""
    c = function["name"]
    params = [RUST_RENAMES.get(p["name"], p["name"]) for p in function["params"][2:]]
    base = shape.split("+")[0]
    base_params, base_args = RUST_BOUNDED_BASES[base]
    head = ", ".join(["&self"] + [p.format(params[0] if params else "") for p in base_params]
                     + ["capacity: usize", "overflow: Overflow"])
    args = ", ".join(["out", "self.as_raw()"] + [a.format(params[0] if params else "") for a in base_args]
                     + ["capacity", "overflow.raw()"])
    generics = "U" if base == "signal" else ""
    text = "".join(f"    ///{' ' if line else ''}{line}\n" for line in doc.split("\n"))
    text += (f"    pub fn {name}{f'<{generics}>' if generics else ''}({head}) -> Signal<T> {{\n"
             f"        operator(|out| unsafe {{ sys::{c}({args}, None, ptr::null_mut(), None) }})\n    }}\n\n")
    text += (f"    /// [`Signal::{name}`] that tells `on_drop` of each value dropped, with the subscription's count of\n"
             f"    /// drops so far, on the thread whose put dropped it; a panic in it goes to the failure hook.\n")
    with_generics = ", ".join(([generics] if generics else []) + [f"F: Fn(&T, u64) + {BOUND}"])
    text += (f"    pub fn {name}_with<{with_generics}>({head}, on_drop: F) -> Signal<T> {{\n"
             f"        with_ctx(FnShared(on_drop), |out, ctx, release| unsafe {{\n"
             f"            sys::{c}({args}, Some(drop_fn::<T, F>), ctx, release)\n"
             f"        }})\n    }}\n")
    uses = {"operator", "with_ctx", "FnShared", "drop_fn", "Overflow", "ptr"}
    if base in ("on", "time"):
        uses.add("Queue")
    if base == "time":
        uses |= {"seconds", "Duration"}
    return text, uses


def method(function, shape, name):
    """(the method's text, the names of operators.rs and the crate it uses)."""
    c = function["name"]
    params = [RUST_RENAMES.get(p["name"], p["name"]) for p in function["params"][2:]]
    words = operator_words.RUST.get(c, {})
    doc = words.get("doc")
    if doc is None:
        brief = rust_words(function["brief"], shape)
        doc = (brief if brief.endswith("...") else brief[:-1] if brief.endswith(".") else brief) + f" (`{c}`)."
        if shape.split("+")[0] in RUST_NOTES:
            doc += " " + RUST_NOTES[shape.split("+")[0]].format(name=name)
        if shape.endswith("+bounded"):
            doc += " " + RUST_BOUNDED_NOTE
        doc = "\n".join(textwrap.wrap(doc, 100 - len("    /// ")))
    if words.get("example"):
        doc += "\n\n" + words["example"].strip("\n")
    if shape.endswith("+bounded"):
        return bounded_methods(function, shape, name, doc)
    call = f"sys::{c}"
    if shape == "unary":
        head, uses = f"pub fn {name}(&self) -> {words.get('result', 'Signal<T>')}", {"operator"}
        body = [f"operator(|out| unsafe {{ {call}(out, self.as_raw()) }})"]
    elif shape == "count":
        head, uses = f"pub fn {name}(&self, {params[0]}: usize) -> Signal<T>", {"operator"}
        body = [f"operator(|out| unsafe {{ {call}(out, self.as_raw(), {params[0]}) }})"]
    elif shape == "value":
        head, uses = f"pub fn {name}(&self, {params[0]}: T) -> Signal<T>", {"operator", "value_or_refused"}
        body = [f"value_or_refused(&{params[0]}, |raw| {{",
                f"    operator(|out| unsafe {{ {call}(out, self.as_raw(), raw.as_ptr()) }})",
                "})"]
    elif shape == "signal":
        head, uses = f"pub fn {name}<U>(&self, {params[0]}: &Signal<U>) -> Signal<T>", {"operator"}
        body = [f"operator(|out| unsafe {{ {call}(out, self.as_raw(), {params[0]}.as_raw()) }})"]
    elif shape == "signals":
        head, uses = f"pub fn {name}(signals: &[Signal<T>]) -> Signal<T>", {"operator", "raw_list"}
        body = ["let raw = raw_list(signals);",
                f"operator(|out| unsafe {{ {call}(out, raw.as_ptr(), raw.len()) }})"]
    elif shape == "time":
        head = f"pub fn {name}(&self, {params[0]}: Duration, queue: &Queue) -> Signal<T>"
        uses = {"operator", "seconds", "Queue", "Duration"}
        body = [f"operator(|out| unsafe {{ {call}(out, self.as_raw(), to_seconds({params[0]}), queue.as_raw()) }})"]
    elif shape == "on":
        head, uses = f"pub fn {name}(&self, queue: &Queue) -> Signal<T>", {"operator", "Queue"}
        body = [f"operator(|out| unsafe {{ {call}(out, self.as_raw(), queue.as_raw()) }})"]
    elif shape in ("predicate", "map", "tap", "work"):
        bound, result, trampoline = {
            "predicate": ("Fn(&T) -> bool", "T", "predicate_fn::<T, F>"),
            "map": ("Fn(T) -> U", "U", "map_fn::<T, U, F>"),
            "tap": ("Fn(&T)", "T", f"value_fn::<T, F, place::{place(name)}>"),
            "work": ("Fn()", "T", f"work_fn::<F, place::{place(name)}>"),
        }[shape]
        generics = "U: Value, " if shape == "map" else ""
        head = f"pub fn {name}<{generics}F: {bound} + {BOUND}>(&self, f: F) -> Signal<{result}>"
        uses = {"with_ctx", "FnShared", trampoline.split("::")[0]} | ({"Value"} if shape == "map" else set())
        if shape in ("tap", "work"):
            uses.add("place")
        body = ["with_ctx(FnShared(f), |out, ctx, release| unsafe {",
                f"    {call}(out, self.as_raw(), Some({trampoline}), ctx, release)",
                "})"]
    elif shape == "reduce":
        head = (f"pub fn {name}<U: Value, F: Fn(U, T) -> U + {BOUND}>(&self, {params[0]}: U, f: F) "
                f"-> Signal<U>")
        uses = {"with_ctx", "FnShared", "reduce_fn", "value_or_refused", "Value"}
        body = [f"value_or_refused(&{params[0]}, |raw| {{",
                "    with_ctx(FnShared(f), |out, ctx, release| unsafe {",
                f"        {call}(out, self.as_raw(), raw.as_ptr(), Some(reduce_fn::<T, U, F>), ctx, release)",
                "    })",
                "})"]
    else:
        raise ValueError(shape)
    text = "".join(f"    ///{' ' if line else ''}{line}\n" for line in doc.split("\n"))
    text += f"    {head} {{\n" + "".join(f"        {line}\n" for line in body) + "    }\n"
    return text, uses


# Where each name the generated methods use comes from.
IMPORTS = (
    ("std", ("ptr",)),
    ("std::time", ("Duration",)),
    ("super", ("drop_fn", "map_fn", "place", "predicate_fn", "raw_list", "reduce_fn", "value_fn",
               "value_or_refused", "with_ctx", "work_fn", "Overflow")),
    ("crate::callback", ("FnShared",)),
    ("crate::queue", ("seconds as to_seconds", "Queue")),
    ("crate::signal", ("operator", "Signal")),
    ("crate::sys", ()),
    ("crate::value", ("Value",)),
)


def candidates(found, hand):
    """[(function, shape, Rust name, row)] of the rows (bindings.candidates)
    whose Rust cell names one method plainly, and the rust-hand entries used."""
    chosen, used = [], set()
    for row, function, shape, _ in found:
        spelled = re.findall(r"`([^`]+)`", row["rust"])
        if shape.endswith("+bounded"):
            # `name`, `name_with`: the one without a drop callback and the one with
            if len(spelled) != 2 or spelled[1] != spelled[0] + "_with":
                continue
            spelled = spelled[:1]
        elif len(spelled) != 1 or re.sub(r"`[^`]+`|\s", "", row["rust"]):
            continue
        name = spelled[0]
        if shape == "signals":
            if not name.startswith("Signal::"):
                continue
            name = name[len("Signal::"):]
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
            continue
        if (function["name"], "rust-hand") in hand:
            used.add((function["name"], "rust-hand"))
            continue
        chosen.append((function, shape, name, row))
    return chosen, used


def module(methods):
    """standard.rs, and the problems found: methods is
    [(function, shape, Rust name, row)] in the table's order."""
    problems = []
    families = {}
    uses = {"Signal", "Value"}
    for function, shape, name, row in methods:
        text, used = method(function, shape, name)
        uses |= used
        families.setdefault(row["family"], []).append(text)
    lines = [
        "// GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py (tools/api/bindings_rust.py)",
        "// from tools/api/operators.md and the C headers (`make api-update`). The methods of",
        "// the operators of a standard shape, one impl block per family of the operator table;",
        "// operators.rs holds the others and the helpers these call (tools/api/exceptions.txt's",
        "// rust-hand lines say why each of a standard shape is written there by hand).",
    ]
    for module_path, names in IMPORTS:
        wanted = [n for n in names if n.split(" ")[0] in uses]
        if module_path == "crate::sys":
            lines.append("use crate::sys;")
        elif len(wanted) == 1:
            lines.append(f"use {module_path}::{wanted[0]};")
        elif wanted:
            lines.append(f"use {module_path}::{{{', '.join(wanted)}}};")
    for family, texts in families.items():
        lines += ["", f"/// # {family[0].upper()}{family[1:]}: the operators of a standard shape",
                  "impl<T: Value> Signal<T> {"]
        lines.append("\n".join(texts).rstrip("\n"))
        lines.append("}")
    return "\n".join(lines) + "\n", problems
