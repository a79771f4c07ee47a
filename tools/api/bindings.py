#!/usr/bin/env python3
"""The C++ members and Python methods of the operators of a standard shape,
made from the operator table (tools/api/operators.md) and api.json; called by
operators.py (`make api-update` writes them, `make test-api` fails when the
tree's copy differs):

  include/signalkit.hpp, class signal, between "// BEGIN operators
  (generated)" and "// END operators (generated)"
      one member for each row whose C function has a shape of CPP_SHAPES and
      whose C++ cell is one name; the names its callbacks give in messages
      between "// BEGIN operator names (generated)" and its END;
  Sources/python/pysignalkit/_standard_operators.py
      for each operator family (the C layer's Operators_<Family>.swift that
      exports the function), a class _<Family>Standard that the family's
      class (_operators/<family>.py) extends, with one method for each row
      whose C function has a shape of PYTHON_SHAPES and whose Python cell
      names the C function's own name (or one name only).

Each is a thin call of the helpers the hand-written code uses (signal::op,
with_fn and the *_call trampolines; _new_signal, _with_callback and the
argument checks), so it behaves as the hand-written member it replaces.
Its documentation is the C function's brief (api.json) in the language's
words, unless operator_words.py gives the words (and, in Python, the
signature). A function of a standard shape whose binding stays hand-written
has a `cpp-hand` or `python-hand` line in tools/api/exceptions.txt, with why.

Python 3 standard library only.
"""
import glob
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bindings_rust  # noqa: E402  (beside this file)
import operator_words  # noqa: E402  (beside this file)

CPP_HEADER = "include/signalkit.hpp"
PY_STANDARD = "Sources/python/pysignalkit/_standard_operators.py"
EXCEPTIONS = "tools/api/exceptions.txt"
CAPI_FAMILIES = "Sources/SignalKitCAPI/Operators_*.swift"
CPP_BEGIN = "    // BEGIN operators (generated)\n"
CPP_END = "    // END operators (generated)\n"
NAMES_BEGIN = "    // BEGIN operator names (generated)\n"
NAMES_END = "    // END operator names (generated)\n"

# The shapes generated in each language. Not generated: signals (C++'s and
# Python's are static members taking a list: sources, written by hand with
# combine_latest's), map and reduce in Python (map's and reduce's Python
# stages are composed with the neighbouring ones: _operators/mapping.py,
# reduce.py).
# The bounded modifier (tools/api/shapes.py) is generated after a base of no
# function ("on+bounded": a queue, then a capacity, a policy and a drop
# callback): a member without the drop callback and one with it (C++,
# Rust's `_with`), Python's on_drop= by default None.
BOUNDED_BASES = ("unary", "count", "signal", "time", "on")
BOUNDED = tuple(f"{base}+bounded" for base in BOUNDED_BASES)
CPP_SHAPES = ("unary", "count", "predicate", "map", "value", "signal", "reduce", "time", "on", "tap", "work") + BOUNDED
PYTHON_SHAPES = ("unary", "count", "predicate", "value", "signal", "time", "on", "tap", "work") + BOUNDED
HAND_CHECKS = {"cpp": "cpp-hand", "python": "python-hand", "fuzz": "fuzz-hand", "rust": "rust-hand",
               "marble-swift": "marble-swift-hand"}


def names(cell):
    return re.findall(r"`([^`]+)`", cell)


def plain_names(cell):
    """The names of a cell that holds only names in backticks (a comma
    between them), else []: a remark ("(given a signal)") means hand-written."""
    found = names(cell)
    if not found or re.sub(r"`[^`]+`|,|\s", "", cell):
        return []
    return found


def families():
    """{C function: family} from the C layer's Operators_<Family>.swift."""
    found = {}
    for path in sorted(glob.glob(CAPI_FAMILIES)):
        family = os.path.basename(path)[len("Operators_"):-len(".swift")]
        with open(path, encoding="utf-8") as handle:
            for name in re.findall(r"(?m)^public func (sk_[a-z0-9_]+)\(", handle.read()):
                found[name] = family
    return found


def snake(family):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", family).lower()


def hand_written():
    """{(C function, "cpp-hand" | "python-hand" | "fuzz-hand"): "file:line"} of exceptions.txt."""
    found = {}
    with open(EXCEPTIONS, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            parts = line.split(None, 2)
            if not line.lstrip().startswith("#") and len(parts) >= 2 and parts[1] in HAND_CHECKS.values():
                found[(parts[0], parts[1])] = f"{EXCEPTIONS}:{number}"
    return found


def candidates(rows, api, shape_of):
    """[(row, function, shape, family)] of every row naming one C function
    of a standard shape, and the problems found."""
    functions = {f["name"]: f for f in api["functions"]}
    where = families()
    found, problems = [], []
    for row in rows:
        c = [n for n in names(row["c"]) if n.startswith("sk_")]
        if len(c) != 1 or c[0] not in functions or shape_of(functions[c[0]]) is None:
            continue
        if c[0] not in where:
            problems.append(f"tools/api/operators.md:{row['line']}: {c[0]} is exported by no "
                            f"Sources/SignalKitCAPI/Operators_<Family>.swift (its family)")
            continue
        found.append((row, functions[c[0]], shape_of(functions[c[0]]), where[c[0]]))
    return found, problems


def generated(rows, api, shape_of):
    """([(function, shape, C++ name, family)], [(function, shape, Python name,
    family)], [(function, shape, Rust name, row)], problems): what is
    generated in each language (Rust's: bindings_rust.py)."""
    found, problems = candidates(rows, api, shape_of)
    hand = hand_written()
    rust, used = bindings_rust.candidates(found, hand)
    cpp, python = [], []
    for row, function, shape, family in found:
        name = function["name"]
        short = name[len("sk_signal_"):]
        if shape in CPP_SHAPES and len(plain_names(row["cpp"])) == 1 and re.fullmatch(r"\w+", plain_names(row["cpp"])[0]):
            if (name, "cpp-hand") in hand:
                used.add((name, "cpp-hand"))
            else:
                cpp.append((function, shape, plain_names(row["cpp"])[0], family))
        spelled = plain_names(row["python"])
        method = short if short in spelled else spelled[0] if len(spelled) == 1 else None
        method = method if method and re.fullmatch(r"\w+", method) else None
        if shape in PYTHON_SHAPES and method:
            if (name, "python-hand") in hand:
                used.add((name, "python-hand"))
            else:
                python.append((function, shape, method, family))
    for key, where in sorted(hand.items(), key=lambda item: item[1]):
        if key[1] in ("cpp-hand", "python-hand", "rust-hand") and key not in used:
            problems.append(f"{where}: the exception `{key[0]} {key[1]}` excuses nothing now (no row of "
                            f"tools/api/operators.md makes it a generated binding of a standard shape): remove the entry")
    return cpp, python, rust, problems


# --------------------------------------------------------------------------
# C++
# --------------------------------------------------------------------------

# A C parameter's name in C++, where C's would hide a type of the namespace
# or is C's alone.
CPP_RENAMES = {"queue": "q", "value": "v", "fn": "f"}
# What each shape adds to the brief, in C++'s words.
CPP_NOTES = {
    "predicate": "`f(value)` takes the value as its parameter's type and returns a bool.",
    "map": "`f(value)` takes the value as its parameter's type and returns anything value() accepts.",
    "reduce": "`f(accumulator, value)` returns the new accumulator (anything value() accepts).",
    "tap": "`f(value)` takes the value as its parameter's type.",
    "time": "Timed on `q`.",
}


def cpp_words(text):
    """C's words as C++'s: `fn(ctx, value)` is f(value), parameters renamed."""
    text = text.replace("`fn(ctx, value)`", "`f(value)`").replace("`fn(ctx)`", "`f()`")
    text = re.sub(r"`fn\(([^`]*)\)`", r"`f(\1)`", text)
    return re.sub(r"`([a-z_]+)`", lambda m: f"`{CPP_RENAMES.get(m.group(1), m.group(1))}`", text)


def comment(text, indent="    ", width=100):
    lines = textwrap.wrap(text, width - len(indent) - 3)
    if len(lines) == 1 and len(lines[0]) <= width - len(indent) - 6:
        return f"{indent}/* {lines[0]} */\n"
    body = f"\n{indent} * ".join(lines)
    return f"{indent}/* {body} */\n"


# A bounded member's base parameters and the C arguments they give.
CPP_BOUNDED_BASES = {
    "unary": ([], []),
    "count": (["std::size_t {0}"], ["{0}"]),
    "signal": (["const signal &{0}"], ["{0}.get()"]),
    "on": (["const queue &q"], ["q.get()"]),
    "time": (["seconds_t {0}", "const queue &q"], ["{0}.count", "q.get()"]),
}
CPP_BOUNDED_NOTE = ("At most `capacity` values wait, `policy` deciding about the next "
                    "(docs/concepts.md, \"Where values can queue\").")


def cpp_bounded_member(function, shape, name, words):
    """Two members: without a drop callback, and with `on_drop(value,
    dropped)` (as on_backpressure_buffer's)."""
    c = function["name"]
    params = [CPP_RENAMES.get(p["name"], p["name"]) for p in function["params"][2:]]
    base_params, base_args = CPP_BOUNDED_BASES[shape.split("+")[0]]
    head = ", ".join([p.format(params[0] if params else "") for p in base_params]
                     + ["std::size_t capacity", "overflow policy"])
    args = ", ".join(["&s", "p_"] + [a.format(params[0] if params else "") for a in base_args]
                     + ["capacity", "static_cast<sk_overflow>(policy)"])
    plain = (comment(words) + f"    signal {name}({head}) const {{\n"
             f"        sk_signal *s = nullptr;\n"
             f"        detail::check({c}({args}, nullptr, nullptr, nullptr));\n"
             f"        return adopt(s);\n    }}\n")
    with_drop = (comment("The same, each dropped value passed to `on_drop(value, dropped)`, `dropped` the count of "
                         "drops so far, on the thread that dropped it.") +
                 f"    template <class F> signal {name}({head}, F &&on_drop) const {{\n"
                 f"        using B = detail::box<std::decay_t<F>>;\n"
                 f"        sk_signal *s = nullptr;\n"
                 f"        detail::check({c}({args}, &on_drop_trampoline<B, F>,\n"
                 f"                      detail::make_box(std::forward<F>(on_drop)), &B::release));\n"
                 f"        return adopt(s);\n    }}\n")
    return plain + with_drop


def cpp_member(function, shape, name):
    c = function["name"]
    params = [CPP_RENAMES.get(p["name"], p["name"]) for p in function["params"][2:]]
    words = operator_words.CPP.get(c)
    if words is None:
        words = cpp_words(function["brief"]).rstrip(".") + f" ({c})."
        if shape.split("+")[0] in CPP_NOTES:
            words += " " + CPP_NOTES[shape.split("+")[0]]
        if shape in BOUNDED:
            words += " " + CPP_BOUNDED_NOTE
    if shape in BOUNDED:
        return cpp_bounded_member(function, shape, name, words)
    box = "detail::box<std::decay_t<F>>"
    if shape == "unary":
        body = f"signal {name}() const {{ return op(&{c}); }}"
    elif shape == "count":
        body = f"signal {name}(std::size_t {params[0]}) const {{ return op(&{c}, {params[0]}); }}"
    elif shape == "value":
        body = f"signal {name}(const value &{params[0]}) const {{ return op(&{c}, {params[0]}.get()); }}"
    elif shape == "signal":
        body = f"signal {name}(const signal &{params[0]}) const {{ return op(&{c}, {params[0]}.get()); }}"
    elif shape == "on":
        body = f"signal {name}(const queue &q) const {{ return op(&{c}, q.get()); }}"
    elif shape == "time":
        body = (f"signal {name}(seconds_t {params[0]}, const queue &q) const {{\n"
                f"        return op(&{c}, {params[0]}.count, q.get());\n    }}")
    elif shape in ("predicate", "tap", "map"):
        trampoline = {"predicate": "predicate_call", "tap": "value_call", "map": "map_call"}[shape]
        body = (f"template <class F> signal {name}(F &&f) const {{\n"
                f"        return with_fn(&{c}, &{trampoline}<{box}, F, {name}_name>,\n"
                f"                       std::forward<F>(f));\n    }}")
    elif shape == "work":
        body = (f"template <class F> signal {name}(F &&f) const {{\n"
                f"        return with_fn(&{c}, &work_call<{box}, {name}_name>,\n"
                f"                       std::forward<F>(f));\n    }}")
    elif shape == "reduce":
        body = (f"template <class F> signal {name}(const value &initial, F &&f) const {{\n"
                f"        using B = {box};\n"
                f"        sk_signal *s = nullptr;\n"
                f"        detail::check({c}(&s, p_, initial.get(), &reduce_call<B, F, {name}_name>,\n"
                f"                      detail::make_box(std::forward<F>(f)), &B::release));\n"
                f"        return adopt(s);\n    }}")
    else:
        raise ValueError(shape)
    one_line = re.match(r"(.*\) const) \{ (return .*;) \}$", body)
    if one_line and len(body) > 110:
        body = f"{one_line.group(1)} {{\n        {one_line.group(2)}\n    }}"
    return comment(words) + "    " + body + "\n"


def replace_region(text, begin, end, body, path):
    if begin not in text or end not in text:
        raise SystemExit(f"{path}: the lines {begin.strip()!r} and {end.strip()!r} are gone: put them back "
                         f"(class signal's operators, its private names)")
    before, rest = text.split(begin, 1)
    return before + begin + body + end + rest.split(end, 1)[1]


def cpp_header(text, members):
    """signalkit.hpp with its generated members and their names."""
    body = "".join(cpp_member(function, shape, name) for function, shape, name, _ in members)
    named = [name for function, shape, name, _ in members if shape in ("predicate", "tap", "map", "reduce", "work")]
    names_body = "".join(f'    static constexpr char {name}_name[] = "{name}";\n' for name in named)
    text = replace_region(text, CPP_BEGIN, CPP_END, body, CPP_HEADER)
    return replace_region(text, NAMES_BEGIN, NAMES_END, names_body, CPP_HEADER)


# --------------------------------------------------------------------------
# Python
# --------------------------------------------------------------------------

def python_words(text):
    """C's words as Python's: `fn(ctx, value)` is fn(value), `signal` this."""
    text = text.replace("`fn(ctx, value)`", "fn(value)").replace("`fn(ctx)`", "fn()")
    text = re.sub(r"`signal`", "this", text)
    return text


PYTHON_BOUNDED = ('capacity: int, overflow: Union[str, int], '
                  'on_drop: Optional[Callable[[Any, int], object]] = None) -> "Signal[T_co]"')


def python_signature(function, shape):
    params = [p["name"] for p in function["params"][2:]]
    if shape in BOUNDED:
        base = python_signature(function, shape.split("+")[0])
        # the base's parameters, then the bounded ones (keywords after a default)
        inside = base[1:base.index(") ->")]
        star = "*, " if "=" in inside else ""
        return f"({inside}, {star}{PYTHON_BOUNDED}"
    if shape == "unary":
        return '(self) -> "Signal[T_co]"'
    if shape == "count":
        return f'(self, {params[0]}: int) -> "Signal[T_co]"'
    if shape in ("predicate", "tap"):
        return '(self, fn: Callable[[T_co], object]) -> "Signal[T_co]"'
    if shape == "work":
        return '(self, fn: Callable[[], object]) -> "Signal[T_co]"'
    if shape == "value":
        return f'(self, {params[0]}: U) -> "Signal[Union[T_co, U]]"'
    if shape == "signal":
        return f'(self, {params[0]}: "Signal[Any]") -> "Signal[Any]"'
    if shape == "time":
        return f'(self, {params[0]}: float, queue: Optional["Queue"] = None) -> "Signal[T_co]"'
    if shape == "on":
        return '(self, queue: "Queue") -> "Signal[T_co]"'
    raise ValueError(shape)


PYTHON_NOTES = {
    "count": "TypeError unless an int (bool is not), ValueError when negative, OverflowError past SIZE_MAX.",
    "predicate": "An exception in `fn` ends the stream with it (sk_callback_fail).",
    "tap": "An exception in `fn` is reported (callback_error_hook), not delivered.",
    "work": "An exception in `fn` is reported (callback_error_hook), not delivered.",
    "time": "`queue` by default the default queue (package docstring, Threads).",
}
PYTHON_BOUNDED_NOTE = ("At most `capacity` values wait; `overflow` decides about the next (as on_backpressure_buffer's: "
                       "\"drop_newest\", \"drop_oldest\", \"latest\", \"error\", \"block\"), each dropped value "
                       "going to on_drop(value, dropped). ValueError for a capacity of 0 or an unknown policy.")


def arguments(signature):
    """The parameter names of a signature after self."""
    inside = signature[1:signature.index(")")]
    return [m.group(1) for m in re.finditer(r"(?:^|,)\s*\**([a-z_][a-z0-9_]*)\s*[:=]", inside) if m.group(1) != "self"]


def python_method(function, shape, method):
    c, short = function["name"], function["name"][len("sk_"):]
    words = operator_words.PYTHON.get(c, {})
    signature = words.get("signature") or python_signature(function, shape)
    doc = words.get("doc")
    if doc is None:
        doc = python_words(function["brief"]).rstrip(".") + f" ({c})."
        if shape.split("+")[0] in PYTHON_NOTES:
            doc += " " + PYTHON_NOTES[shape.split("+")[0]]
        if shape in BOUNDED:
            doc += " " + PYTHON_BOUNDED_NOTE
        doc = "\n".join(textwrap.wrap(doc, 72))
    a = arguments(signature)
    if shape in BOUNDED:
        base = shape.split("+")[0]
        before = {"unary": [], "count": [f'_count_arg({a[0]}, "{method}", "{a[0]}")'],
                  "signal": [f'_signal_arg({a[0]}, "{method}")'], "on": [f'_queue_arg({a[0]}, "{method}")'],
                  "time": [a[0], "on"]}[base]
        body = ([f'{a[0]} = _seconds_arg({a[0]}, "{method}")',
                 f'on = _time_queue({a[1]}, "{method}")  # held through the call: a default queue\'s only handle']
                if base == "time" else [])
        body += [f'size, policy = _bounded_policy("{method}", capacity, overflow, on_drop)',
                 "with _InFlight(self) as (pointer,):  # closed: ValueError before retaining anything",
                 f"    return _new_signal(C.{short}, pointer, {', '.join(before + ['size', 'policy'])}, "
                 f"*_drop_arguments(on_drop, policy))"]
    elif shape == "unary":
        body = [f"return _new_signal(C.{short}, self)"]
    elif shape == "count":
        body = [f'return _new_signal(C.{short}, self, _count_arg({a[0]}, "{method}", "{a[0]}"))']
    elif shape == "predicate":
        body = [f"return self._with_callback(C.{short}, _c_predicate_callback, {a[0]})"]
    elif shape == "tap":
        body = [f"return self._with_callback(C.{short}, _c_value_callback, {a[0]})"]
    elif shape == "work":
        body = [f"return self._with_callback(C.{short}, _c_work_callback, {a[0]})"]
    elif shape == "value":
        body = [f"return _with_value(C.{short}, self, {a[0]})"]
    elif shape == "signal":
        body = [f'return _new_signal(C.{short}, self, _signal_arg({a[0]}, "{method}"))']
    elif shape == "on":
        body = [f'return _new_signal(C.{short}, self, _queue_arg({a[0]}, "{method}"))']
    elif shape == "time":
        named = "" if a[0] == "seconds" else f', "{a[0]}"'
        body = [f'{a[0]} = _seconds_arg({a[0]}, "{method}"{named})',
                f'on = _time_queue({a[1]}, "{method}")  # held through the call: a default queue\'s only handle',
                f"return _new_signal(C.{short}, self, {a[0]}, on)"]
    else:
        raise ValueError(shape)
    lines = doc.split("\n")
    head = f"    def {method}{signature}:"
    if len(head) > 110:  # the parameters on two lines, the second under the first
        cut = head.rindex(", ", 0, 110)
        head = head[:cut + 1] + "\n" + " " * (len(f"    def {method}(")) + head[cut + 2:]
    text = head + "\n"
    text += '        """' + lines[0] + ("\n" if len(lines) > 1 else "")
    text += "".join((f"        {line}" if line else "") + "\n" for line in lines[1:-1])
    if len(lines) > 1:
        text += f"        {lines[-1]}"
    text += '"""\n'
    text += "".join(f"        {line}\n" for line in body)
    return text


PYTHON_IMPORTS = (
    ("typing", ("TYPE_CHECKING", "Any", "Callable", "List", "Optional", "TypeVar", "Union")),
    (".._callbacks", ("_c_predicate_callback", "_c_value_callback", "_c_work_callback")),
    (".._core", ("C",)),
    (".._handle", ("_InFlight", "_count_arg", "_seconds_arg")),
    (".._asyncio", ("_time_queue",)),
    (".._queue", ("Queue", "_bounded_policy", "_drop_arguments", "_queue_arg")),
    (".._signal_core", ("_new_signal", "_signal_arg", "_SignalCore", "_with_value")),
)


def python_module(methods):
    """_standard_operators.py: a class per family, the family's methods."""
    by_family = {}
    for family in sorted(set(families().values())):
        by_family[family] = []
    for function, shape, method, family in methods:
        by_family[family].append(python_method(function, shape, method))
    classes = []
    for family, texts in by_family.items():
        head = (f"class _{family}Standard(_SignalCore[T_co]):\n"
                f'    """The {family} family\'s operators of a standard shape (extended by\n'
                f'    _operators.{snake(family)}._{family}Operators)."""\n')
        classes.append(head + ("\n" + "\n".join(texts) if texts else ""))
    code = "\n\n".join(classes)
    imports = []
    for module, candidates_ in PYTHON_IMPORTS:
        used = [name for name in candidates_ if re.search(rf"\b{name}\b", code)
                or name in ("TYPE_CHECKING", "TypeVar")]
        if used:
            imports.append(f"from {module.replace('..', '.')} import {', '.join(used)}")
            if module == "typing":
                imports.append("")
    return "\n".join([
        '"""GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py (tools/api/bindings.py)',
        "from tools/api/operators.md and the C headers (`make api-update`). The",
        "operators of a standard shape, one class per operator family, which the",
        "family's class in pysignalkit._operators extends. Its place among the",
        'modules: the Layers comment of the package\'s __init__.py."""',
        "",
        "from __future__ import annotations",
        "",
        *imports,
        "",
        "if TYPE_CHECKING:  # annotations only: the composed class is above this module",
        "    from ._signal import Signal",
        "",
        'T_co = TypeVar("T_co", covariant=True)',
        'U = TypeVar("U")',
        "",
        "",
        code,
    ]).rstrip("\n") + "\n"
