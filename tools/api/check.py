#!/usr/bin/env python3
"""Holds the bindings, the tests and the README to api.json (describe.py's
description of the C headers), so that a function added to a header and
forgotten elsewhere fails `make test-api` with a message that says what to
add where.

  wrappers   every function has a C++ wrapper (signalkit.hpp or
             signalkit_test.hpp names it, macros expanded), a Python method
             (the package calls C.<name>, or a C file of its extension,
             pysignalkit/_speedups_src, calls it) and a C test (a file of
             Tests/C or Tests/C/ffi names it);
  generated  what generate.py makes from api.json (the Python package's
             _prototypes.py, signalkit.hpp's pipeables) is up to date;
  ctypes     the Python package's prototypes (_prototypes.py's C types
             through _core.py's _ctype) agree with the header: the same number of
             parameters, each of the C type's size and kind, a pointer to a
             struct pointing at a ctypes Structure laid out as the C struct
             (field by field: name, offset, size; so is every Structure named
             after a C struct, _LiveObject for sk_live_object), a callback's
             CFUNCTYPE with the callback typedef's own prototype (c_void_p
             passes an address unchecked); the KIND_ and TAKE_ constants have
             their enumerators' values;
  readme     docs/operators.md's "What is available" (the availability
             tables): every function is named in a C column (`sk_pipe_*` and
             the shorthand `_name` after a full name count), every name there
             is a function, every backticked name in a Python column is a name
             of the package, in a C++ column a name the C++ headers declare,
             in a Swift column a name the Swift sources declare; the C++
             paragraph below them names exactly the signalkit.h functions C++
             lacks;
  docs       every group, function, callback, handle, constant, enum, enum
             value, struct and struct field (union members too) has a brief (a header comment
             that describe.py reads), and no text of api.json keeps a Doxygen
             command but @ref (a tag whose text ran into another's); every
             @ref names a group or a main page's section that api.json holds.

The intended gaps are listed in tools/api/exceptions.txt, one a line with its
reason; an entry that no longer excuses anything fails too (remove it).
The misuse table's rows are checked by tools/check/check-doc-tests.sh.

Usage: check.py API.json [generated|wrappers|ctypes|readme|testers|docs ...]   (from the repository's root)
Python 3 standard library only: the prototypes are read from _core.py's
source, not by importing the package (which needs the built libraries).
"""
import ast
import ctypes
import fnmatch
import glob
import json
import os
import re
import subprocess
import sys

EXCEPTIONS = "tools/api/exceptions.txt"
OPERATOR_LIST = "Tests/common/operator_list.h"
CHECKS = ("cpp", "python", "ctest", "readme", "fuzz", "model", "sweep", "cpp-hand", "python-hand", "fuzz-hand", "rust-hand",
          "marble-swift-hand")
CORE_PY = "Sources/python/pysignalkit/_core.py"
PROTOTYPES_PY = "Sources/python/pysignalkit/_prototypes.py"
PYTHON_DIR = "Sources/python/pysignalkit"
# The extension's C sources (the package's build backend compiles them).
SPEEDUPS = "Sources/python/pysignalkit/_speedups_src"
CPP_HEADERS = ("signalkit.hpp", "signalkit_test.hpp")
README = "docs/operators.md"
SWIFT_SOURCES = ("Sources/SwiftSignalKit", "Sources/SwiftSignalKitTesting")


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


class Report:
    def __init__(self):
        self.problems = []

    def __call__(self, message):
        self.problems.append(message)


# --------------------------------------------------------------------------
# Exceptions
# --------------------------------------------------------------------------

def load_exceptions(report, functions):
    """[(pattern, check, reason, line)] from exceptions.txt."""
    entries = []
    for number, line in enumerate(read(EXCEPTIONS).splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(None, 2)
        where = f"{EXCEPTIONS}:{number}"
        if len(parts) < 3 or parts[1] not in CHECKS:
            report(f"{where}: write `FUNCTION-OR-PATTERN CHECK REASON` with CHECK one of {', '.join(CHECKS)}")
            continue
        pattern, check, reason = parts
        if not any(fnmatch.fnmatchcase(name, pattern) for name in functions) and pattern not in header_names():
            report(f"{where}: {pattern} names no function of the headers: remove the entry")
            continue
        entries.append([pattern, check, reason, where, False])
    return entries


def header_names():
    return {"signalkit.h", "signalkit_test.h", "signalkit_ffi.h"}


def excused(entries, function, check):
    for entry in entries:
        pattern, kind = entry[0], entry[1]
        if kind == check and (fnmatch.fnmatchcase(function["name"], pattern) or pattern == function["header"]):
            entry[4] = True
            return entry
    return None


def stale(report, entries, check):
    for pattern, kind, reason, where, used in entries:
        if kind == check and not used:
            report(f"{where}: the exception `{pattern} {kind}` excuses nothing now (every function it names has "
                   f"its {kind}): remove the entry")


# --------------------------------------------------------------------------
# Wrappers: C++, Python, C tests
# --------------------------------------------------------------------------

def cpp_text():
    """The C++ headers preprocessed without the C headers (their include
    guards defined), so that only what the wrappers name is left, macros
    such as SIGNALKIT_REF_TRAITS(sk_signal) expanded."""
    source = "".join(f'#include "{header}"\n' for header in CPP_HEADERS)
    result = subprocess.run([os.environ.get("CXX", "c++"), "-std=c++17", "-E", "-P", "-DSIGNALKIT_H",
                             "-DSIGNALKIT_TEST_H", "-DSIGNALKIT_FFI_H", "-Iinclude", "-x", "c++", "-"],
                            input=source, capture_output=True, text=True, check=True)
    return result.stdout


def check_wrappers(api, entries, report):
    functions = api["functions"]
    # The names each place uses, found once: sk_ identifiers, C.<name> calls.
    cpp = set(re.findall(r"\bsk_[a-z0-9_]+", cpp_text()))
    python = set(re.findall(r"\bC\.([a-z0-9_]+)", "\n".join(read(path) for path in
                                                          sorted(glob.glob(f"{PYTHON_DIR}/**/*.py", recursive=True)))))
    speedups = set(re.findall(r"\b(sk_[a-z0-9_]+)\s*\(", "\n".join(read(path) for path in
                                                                   sorted(glob.glob(f"{SPEEDUPS}/*.[ch]")))))
    c_tests = set()
    # operator_list.h: every operator of the table, each tested through its
    # shape by Tests/C/test_operator_shapes.c (argument errors, a build) and,
    # with a marble case, by the marble table's C runner.
    for path in sorted(glob.glob("Tests/C/test_*.c") + glob.glob("Tests/C/ffi/test_*.c")) + [OPERATOR_LIST]:
        c_tests |= set(re.findall(r"\bsk_[a-z0-9_]+", read(path)))
    prototypes = python_prototypes(report)
    for function in functions:
        name, short = function["name"], function["name"][3:]
        place = f"include/{function['header']}:{function['line']}: {name}"
        if name not in cpp and not excused(entries, function, "cpp"):
            report(f"{place} has no C++ wrapper: wrap it in include/"
                   f"{'signalkit_test.hpp' if function['header'] == 'signalkit_test.h' else 'signalkit.hpp'} "
                   f"(an operator of a standard shape, or of one with the bounded modifier, gets its member generated "
                   f"once it has a row in tools/api/operators.md: `make api-update`; else a member of the class of "
                   f"its first handle "
                   f"argument, whose pipeable api-update writes), or add `{name} cpp REASON` to {EXCEPTIONS}")
        if short not in python and name not in speedups and not excused(entries, function, "python"):
            bound = "" if prototypes is None or name in prototypes else (
                f"run `make api-update` (it writes its prototype to {PROTOTYPES_PY}), then ")
            report(f"{place} has no Python method: {bound}call it as C.{short}(...) from a method of "
                   f"{PYTHON_DIR}/ (an operator of a standard shape, or of one with the bounded modifier, gets its method "
                   f"generated once it has a row in tools/api/operators.md: `make api-update`; else "
                   f"_operators/<family>.py for a signal operator, "
                   f"with a docstring and a test in Sources/python/tests), or add `{name} python REASON` to "
                   f"{EXCEPTIONS}")
        if name not in c_tests and not excused(entries, function, "ctest"):
            folder = "Tests/C/ffi/test_ffi_*.c" if function["header"] == "signalkit_ffi.h" else "Tests/C/test_*.c"
            report(f"{place} has no C test: call it in a Test() of {folder} (the file of its feature, group "
                   f"'{function['group']}'; an operator with a row in tools/api/operators.md is tested through its "
                   f"shape once `make api-update` lists it), or add `{name} ctest REASON` to "
                   f"{EXCEPTIONS}")
    for check in ("cpp", "python", "ctest"):
        stale(report, entries, check)


# Where an operator must be tried besides its tests: the API fuzzer, the
# model tester (its C runner builds each operator with the C API) and the
# abandonment sweep (test_limits.c, through its shape: the operator list).
TESTERS = (
    ("fuzz", ("Tests/fuzz/fuzz_api.c", "Tests/fuzz/fuzz_operators.h"),
     "the API fuzzer: an operator with a row in tools/api/operators.md is in Tests/fuzz/fuzz_operators.h "
     "(make api-update), a fuzz-hand one a case of apply_operator in Tests/fuzz/fuzz_api.c"),
    ("model", ("Tests/SignalKitModel/**/*.swift", "Tests/SwiftSignalKitTests/Model/**/*.swift"),
     "the model tester: a ModelOperator whose buildC makes it (Tests/SignalKitModel/Operators), or a threaded "
     "case's C runner (Tests/SwiftSignalKitTests/Model/Concurrent)"),
    ("sweep", ("Tests/C/test_limits.c", "Tests/common/operator_list.h"),
     "the abandonment sweep: a row in tools/api/operators.md (then make api-update lists it in "
     "Tests/common/operator_list.h, which the sweep goes over)"),
)


def check_testers(api, entries, report):
    """Every operator of signalkit.h is tried by the fuzzer, the model and
    the sweep, or excused with its reason."""
    for check, patterns, where in TESTERS:
        named = set()
        for pattern in patterns:
            for path in sorted(glob.glob(pattern, recursive=True)):
                named |= set(re.findall(r"\bsk_[a-z0-9_]+", read(path)))
        for function in api["functions"]:
            if function["group"] != "operators" or function["header"] != "signalkit.h":
                continue
            if function["name"] not in named and not excused(entries, function, check):
                report(f"include/{function['header']}:{function['line']}: {function['name']} is not tried by "
                       f"{where}, or add `{function['name']} {check} REASON` to {EXCEPTIONS}")
        stale(report, entries, check)


# --------------------------------------------------------------------------
# ctypes prototypes
# --------------------------------------------------------------------------

SAFE_CALLS = {"CFUNCTYPE", "POINTER", "Dict", "Tuple", "Any", "range"}


def python_prototypes(report, namespace=None):
    """The prototypes the package binds: _prototypes.py's tables (generated
    from the headers), each C type turned into ctypes by _core.py's own
    _ctype, evaluated from _core.py's source: its imports from ctypes and
    typing, its Structure and Union classes, its module-level assignments
    made of ctypes types (no call but CFUNCTYPE and POINTER) and _ctype;
    nothing else of the module runs."""
    if namespace is None:
        namespace = {}
    tree = ast.parse(read(CORE_PY), CORE_PY)
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            if not all(m in ("ctypes", "typing", "__future__") for m in modules):
                continue
        elif isinstance(node, ast.ClassDef):
            if not any(isinstance(b, ast.Name) and b.id in ("Structure", "Union") for b in node.bases):
                continue
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
            if any(not (isinstance(c.func, ast.Name) and c.func.id in SAFE_CALLS) for c in calls):
                continue
        elif not (isinstance(node, ast.FunctionDef) and node.name == "_ctype"):
            continue
        try:
            exec(compile(ast.Module(body=[node], type_ignores=[]), CORE_PY, "exec"), namespace)  # noqa: S102
        except Exception:  # a statement made of something this reader left out: not a prototype
            pass
    tables = {}
    exec(compile(read(PROTOTYPES_PY), PROTOTYPES_PY, "exec"), tables)  # noqa: S102  (data only)
    if "_ctype" not in namespace or not all(isinstance(tables.get(t), dict) for t in ("CORE", "TEST", "FFI")):
        report(f"{CORE_PY}, {PROTOTYPES_PY}: cannot read the prototypes (CORE, TEST and FFI, dicts of name: "
               f"(restype, *argtypes) in C, and _core._ctype, which turns them into ctypes types): keep them in "
               f"that shape, or teach tools/api/check.py the new one")
        return None
    merged = {}
    for table_name in ("CORE", "TEST", "FFI"):
        for name, prototype in tables[table_name].items():
            try:
                merged[name] = (table_name, tuple(namespace["_ctype"](spelling) for spelling in prototype))
            except KeyError as missing:
                report(f"{PROTOTYPES_PY}: {name}: _core._ctype knows no ctypes type for {prototype} ({missing}): "
                       f"add it to _core.py's _CTYPES, or define the callback's CFUNCTYPE there")
    return merged


SCALARS = {  # C scalar: (size, kind)
    "int": (4, "signed"), "unsigned": (4, "unsigned"), "long": (8, "signed"), "unsigned long": (8, "unsigned"),
    "bool": (1, "bool"), "double": (8, "float"), "float": (4, "float"), "size_t": (8, "unsigned"),
    "int64_t": (8, "signed"), "uint64_t": (8, "unsigned"), "int32_t": (4, "signed"), "uint32_t": (4, "unsigned"),
    "char": (1, "char"), "int8_t": (1, "signed"), "uint8_t": (1, "unsigned"), "int16_t": (2, "signed"),
    "uint16_t": (2, "unsigned"), "long long": (8, "signed"), "unsigned long long": (8, "unsigned"),
    "ptrdiff_t": (8, "signed"), "ssize_t": (8, "signed"), "intptr_t": (8, "signed"), "uintptr_t": (8, "unsigned"),
}


def ctypes_scalar(ctype):
    code = getattr(ctype, "_type_", None)
    if not isinstance(code, str) or code in ("z", "Z", "P", "O"):
        return None
    kind = {"?": "bool", "d": "float", "f": "float", "g": "float", "c": "char"}.get(
        code, "unsigned" if code.isupper() else "signed")
    return ctypes.sizeof(ctype), kind


def describe_ctype(ctype):
    if ctype is None:
        return "None"
    return getattr(ctype, "__name__", repr(ctype))


class Types:
    """Compares a C type of api.json with a ctypes type."""

    def __init__(self, api, namespace=None):
        self.handles = {h["name"] for h in api["handles"]}
        # _core.py's Structures named after a C struct (Value: sk_value,
        # _FfiObserver: sk_ffi_observer), laid out field by field even when
        # only a ctypes.cast reaches them.
        self.py_structs = {}
        for name, value in (namespace or {}).items():
            if isinstance(value, type) and issubclass(value, ctypes.Structure):
                c_name = "sk_" + re.sub(r"(?<!^)(?=[A-Z])", "_", name.lstrip("_")).lower()
                if any(struct["name"] == c_name for struct in api["structs"]):
                    self.py_structs[c_name] = value
        self.structs = {s["name"]: s for s in api["structs"]}
        self.enums = {e["name"]: e for e in api["enums"]}
        self.callbacks = {c["name"]: c for c in api["callbacks"]}
        self.layouts = []  # (ctypes Structure, C struct) pairs met through pointers

    def differs(self, c_type, ctype):
        """None when they agree, else why not."""
        c_type = re.sub(r"\bconst\b", "", c_type).replace("  ", " ").strip()
        c_type = re.sub(r"\s+\*", " *", c_type)
        if c_type == "void":
            return None if ctype is None else f"C returns void, ctypes says {describe_ctype(ctype)}"
        if ctype is None:
            return f"C has {c_type}, ctypes says None (void)"
        if c_type in self.callbacks or "(*)" in c_type:
            return self.callback_differs(c_type, ctype)
        if c_type.endswith("*"):
            return self.pointer_differs(c_type[:-1].strip(), ctype)
        if c_type in self.enums:
            c_type = "int" if self.enums[c_type]["size"] == 4 else "long"
        if c_type in SCALARS:
            got = ctypes_scalar(ctype)
            want = SCALARS[c_type]
            return None if got == want else (f"C has {c_type} ({want[0]} bytes, {want[1]}), ctypes "
                                             f"{describe_ctype(ctype)}")
        if c_type in self.structs:
            return self.struct_differs(c_type, ctype)
        return f"C type {c_type} is unknown to tools/api/check.py"

    def pointer_differs(self, target, ctype):
        if ctype is ctypes.c_void_p:
            if target in self.structs and target in self.py_structs:
                return None  # read through a cast to its Structure, whose layout is checked
            known = target in self.structs or target in SCALARS or target in self.enums or target.endswith("*")
            if not known:  # a handle, void, a callback, or a type of another library (FILE): an address
                return None
            return f"C has {target} *, ctypes c_void_p: use POINTER({self.suggest(target)})"
        if ctype is ctypes.c_char_p:
            return None if target in ("char", "void") else f"C has {target} *, ctypes c_char_p"
        pointee = getattr(ctype, "_type_", None)
        if not isinstance(pointee, str) and pointee is not None and issubclass(ctype, ctypes._Pointer):
            inner = self.differs(target, pointee)
            return None if inner is None else f"through the pointer: {inner}"
        return f"C has {target} *, ctypes {describe_ctype(ctype)}"

    def suggest(self, target):
        return {"sk_value": "Value"}.get(target, target)

    def struct_differs(self, name, ctype):
        if not (isinstance(ctype, type) and issubclass(ctype, ctypes.Structure)):
            return f"C has struct {name}, ctypes {describe_ctype(ctype)}"
        self.layouts.append((ctype, self.structs[name]))
        return None

    def callback_differs(self, c_type, ctype):
        if ctype is ctypes.c_void_p:
            return None  # an address ctypes cannot check (NULL, or sk_ffi_fn's: the signature describes it)
        if not hasattr(ctype, "_argtypes_"):
            return f"C has the callback {c_type}, ctypes {describe_ctype(ctype)}: use a CFUNCTYPE"
        if c_type in self.callbacks:
            callback = self.callbacks[c_type]
            returns, params = callback["returns"], [p["type"] for p in callback["params"]]
        else:  # written out: void (*)(void *)
            match = re.match(r"(.*?)\(\*\)\((.*)\)$", c_type)
            returns, params = match.group(1).strip(), [p.strip() for p in match.group(2).split(",")]
            params = [] if params == ["void"] else params
        got = list(ctype._argtypes_)
        if len(got) != len(params):
            return f"the callback {c_type} takes {len(params)} arguments, its CFUNCTYPE {len(got)}"
        problem = self.differs(returns, ctype._restype_ if ctype._restype_ is not None else None)
        if problem:
            return f"the callback {c_type}'s result: {problem}"
        for index, (c_param, py_param) in enumerate(zip(params, got)):
            problem = self.differs(c_param, py_param)
            if problem:
                return f"the callback {c_type}'s argument {index + 1}: {problem}"
        return None


def check_layout(ctype, struct, types, report):
    """A ctypes Structure against a C struct of api.json, field by field."""
    where = f"{CORE_PY}: class {ctype.__name__} (C struct {struct['name']}, include/{struct['header']}:{struct['line']})"
    if ctypes.sizeof(ctype) != struct["size"]:
        report(f"{where}: {ctypes.sizeof(ctype)} bytes, the C struct {struct['size']}")
    py_fields = [field[0] for field in ctype._fields_]
    c_fields = [field["name"] for field in struct["fields"]]
    if py_fields != c_fields:
        report(f"{where}: fields {py_fields}, the C struct's {c_fields}: declare the same fields in the same order")
        return
    for (name, py_type), field in zip(ctype._fields_, struct["fields"]):
        descriptor = getattr(ctype, name)
        if descriptor.offset != field["offset"] or descriptor.size != field["size"]:
            report(f"{where}: field {name} at offset {descriptor.offset}, {descriptor.size} bytes; in C at "
                   f"{field['offset']}, {field['size']} bytes")
        if field["type"] == "union":
            members = [member["name"] for member in field["members"]]
            py_members = [member[0] for member in getattr(py_type, "_fields_", [])]
            if members != py_members:
                report(f"{where}: union {name} has {py_members}, the C union {members}")
                continue
            for (member_name, member_type), member in zip(py_type._fields_, field["members"]):
                problem = types.differs(member["type"], member_type)
                if problem:
                    report(f"{where}: {name}.{member_name}: {problem}")
            continue
        problem = types.differs(field["type"], py_type)
        if problem:
            report(f"{where}: field {name}: {problem}")


def check_ctypes(api, report):
    namespace = {}
    prototypes = python_prototypes(report, namespace)
    if prototypes is None:
        return
    functions = {function["name"]: function for function in api["functions"]}
    types = Types(api, namespace)
    types.layouts.extend((ctype, types.structs[name]) for name, ctype in types.py_structs.items())
    for name, (table, prototype) in prototypes.items():
        where = f"{PROTOTYPES_PY}: {table}[\"{name}\"]"
        function = functions.get(name)
        if function is None:
            report(f"{where}: no header declares {name}: remove the prototype, or declare the function")
            continue
        wanted = {"signalkit_ffi.h": ("FFI",), "signalkit.h": ("CORE",), "signalkit_test.h": ("TEST",)}[function["header"]]
        if table not in wanted:
            report(f"{where}: {name} is in {function['library']} (include/{function['header']}): "
                   f"move it to {' or '.join(wanted)}")
        restype, argtypes = prototype[0], prototype[1:]
        params = function["params"]
        header = f"include/{function['header']}:{function['line']}"
        if len(argtypes) != len(params):
            report(f"{where}: {len(argtypes)} argument types, but {header} declares {len(params)} parameters "
                   f"({', '.join(p['type'] + ' ' + str(p['name']) for p in params) or 'void'})")
            continue
        problem = types.differs(function["returns"], restype)
        if problem:
            report(f"{where}: the result: {problem} ({header})")
        for index, (param, argtype) in enumerate(zip(params, argtypes)):
            problem = types.differs(param["type"], argtype)
            if problem:
                report(f"{where}: argument {index + 1} ({param['name']}): {problem} ({header})")
    checked = set()
    for ctype, struct in types.layouts:
        if (ctype, struct["name"]) not in checked:
            checked.add((ctype, struct["name"]))
            check_layout(ctype, struct, types, report)
    enumerators = {value["name"]: value["value"] for enum in api["enums"] for value in enum["values"]}
    for name, value in namespace.items():
        if re.fullmatch(r"(KIND|TAKE|OVERFLOW)_[A-Z0-9_]+", name):
            c_name = f"SK_{name}"
            if c_name not in enumerators:
                report(f"{CORE_PY}: {name} stands for {c_name}, which no header declares")
            elif enumerators[c_name] != value:
                report(f"{CORE_PY}: {name} is {value}, {c_name} is {enumerators[c_name]}")


# --------------------------------------------------------------------------
# docs/operators.md, "What is available"
# --------------------------------------------------------------------------

def section(text, title):
    match = re.search(rf"(?ms)^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text)
    return match.group(1) if match else None


def table_rows(text):
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in rows]


def tables(text):
    """The tables of a text, each as its rows (the header first, then the
    separator), split where a line that is not a row comes between."""
    found, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            found.append(table_rows("\n".join(current)))
            current = []
    return found


def declared_names(paths, pattern):
    """Every identifier that `pattern` (one group) finds in the files under
    `paths` (files or folders, recursively)."""
    names = set()
    for path in paths:
        files = [path] if os.path.isfile(path) else glob.glob(f"{path}/**/*.*", recursive=True)
        for name in files:
            if os.path.isfile(name):
                names |= set(re.findall(pattern, read(name)))
    return names


def column_names(cell):
    """The identifiers a cell names: each backticked token's leading name
    (`take(until:)` names take, `Queue.host` names Queue and host)."""
    names = []
    for token in re.findall(r"`([^`]+)`", cell):
        head = re.match(r"[A-Za-z_][A-Za-z0-9_.]*", token)
        if head and re.fullmatch(r"[\w.]+(\(.*\))?", token):
            names += [part for part in head.group(0).split(".") if part]
    return names


def expand_c_names(cell, names, report, row):
    """The functions a C cell names: full names, `prefix_*`, and `_suffix`
    after a full name (the longest prefix of that name that makes one)."""
    found, previous = set(), None
    for token in re.findall(r"`([^`]+)`", cell):
        if token.endswith("*") and token.startswith("sk_"):
            matched = {name for name in names if name.startswith(token[:-1])}
            if not matched:
                report(f"{README}, What is available, row '{row}': `{token}` names no function")
            found |= matched
        elif re.fullmatch(r"sk_[a-z0-9_]+", token):
            if token in names:
                found.add(token)
                previous = token
            elif not re.fullmatch(r"sk_[a-z0-9_]+", token) or token not in TYPE_NAMES:
                report(f"{README}, What is available, row '{row}': `{token}` is no function of the headers")
        elif re.fullmatch(r"_[a-z0-9_]+", token):
            candidates = []
            if previous:
                parts = previous.split("_")
                candidates = ["_".join(parts[:cut]) + token for cut in range(len(parts) - 1, 1, -1)]
            match = next((candidate for candidate in candidates if candidate in names), None)
            if match:
                found.add(match)
            else:
                report(f"{README}, What is available, row '{row}': `{token}` (after `{previous}`) names no function")
    return found


TYPE_NAMES = set()


def python_names():
    """Every name the package defines: modules, classes, functions,
    methods, module attributes."""
    names = {"pysignalkit"}
    for path in glob.glob(f"{PYTHON_DIR}/**/*.py", recursive=True):
        module = os.path.splitext(os.path.basename(path))[0]
        names.add(module)
        for node in ast.walk(ast.parse(read(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return names


# The Rust crates' sources (the Rust column's names: the safe crate's, and
# the raw crate's, which it re-exports as `sys`), and the names of the
# language and its standard library the column may use.
RUST_SOURCES = "Sources/rust/rsignalkit/src"
RUST_SYS_SOURCES = "Sources/rust/rsignalkit-sys/src"
RUST_BUILTINS = {"rsignalkit", "i64", "f64", "bool", "String", "Option", "Vec", "Arc"}


def check_readme(api, entries, report):
    TYPE_NAMES.update(h["name"] for h in api["handles"])
    TYPE_NAMES.update(s["name"] for s in api["structs"])
    text = read(README)
    body = section(text, "What is available")
    if body is None:
        report(f"{README} has no section \"## What is available\"")
        return
    names = {function["name"] for function in api["functions"]}
    named = set()
    package = python_names()
    cpp = declared_names([f"include/{header}" for header in CPP_HEADERS], r"\b([a-z_][a-z0-9_]*)\s*[({<]")
    cpp |= declared_names([f"include/{header}" for header in CPP_HEADERS],
                          r"\b(?:class|struct|namespace|using)\s+([A-Za-z_][A-Za-z0-9_]*)")
    swift = declared_names(SWIFT_SOURCES, r"\b(?:func|class|struct|enum|protocol|typealias|var|let|case|init)\s+"
                                          r"`?([A-Za-z_][A-Za-z0-9_]*)")
    swift |= {"init", "Signal", "SwiftSignalKit", "SwiftSignalKitTesting"}
    rust = declared_names([RUST_SOURCES, RUST_SYS_SOURCES],
                          r"\b(?:fn|struct|enum|trait|type|mod)\s+([A-Za-z_][A-Za-z0-9_]*)")
    rust |= declared_names([RUST_SOURCES], r"(?m)^pub use [\w:]+ as ([A-Za-z_][A-Za-z0-9_]*);")  # sys
    rust |= declared_names([RUST_SOURCES], r"(?m)^    ([A-Z][A-Za-z0-9]*)\s*[(,{]")  # enum variants
    rust |= RUST_BUILTINS
    grids = tables(body)
    if not grids:
        report(f"{README}, What is available: no table")
        return
    for rows in grids:
        header = rows[0]
        column = lambda prefix: next((i for i, cell in enumerate(header) if cell.startswith(prefix)), None)
        c_column, py_column = column("C ("), column("Python")
        cpp_column, swift_column, rust_column = column("C++"), column("Swift"), column("Rust")
        if c_column is None or py_column is None:
            report(f"{README}, What is available: each table needs a column 'C (...)' and a column 'Python (...)'; "
                   f"this one's header is {' | '.join(header)}")
            continue
        for row in rows[2:]:
            if len(row) != len(header):
                report(f"{README}, What is available, row '{row[0]}': {len(row)} cells, the header {len(header)}")
                continue
            label = " ".join(cell for cell in row[:2] if not cell.startswith("`"))
            named |= expand_c_names(row[c_column], names, report, label)
            for token in re.findall(r"`([^`]+)`", row[py_column]):
                for part in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", token) if re.fullmatch(r"[\w.]+", token) else []:
                    if part not in package:
                        report(f"{README}, What is available, row '{label}': the Python column names `{token}`, "
                               f"and the package defines no {part} ({PYTHON_DIR}/)")
            if cpp_column is not None:
                for part in column_names(row[cpp_column]):
                    if part not in cpp:
                        report(f"{README}, What is available, row '{label}': the C++ column names `{part}`, which "
                               f"{' and '.join(CPP_HEADERS)} do not declare")
            if rust_column is not None:
                for token in re.findall(r"`([^`]+)`", row[rust_column]):
                    for part in token.split("::") if re.fullmatch(r"[\w:]+", token) else []:
                        if part not in rust:
                            report(f"{README}, What is available, row '{label}': the Rust column names `{part}`, "
                                   f"which no file of {RUST_SOURCES}/ or {RUST_SYS_SOURCES}/ declares")
            if swift_column is not None:
                for part in column_names(row[swift_column]):
                    if part not in swift:
                        report(f"{README}, What is available, row '{label}': the Swift column names `{part}`, which "
                               f"no file of {' or '.join(SWIFT_SOURCES)} declares")
    for function in api["functions"]:
        if function["name"] not in named and not excused(entries, function, "readme"):
            report(f"include/{function['header']}:{function['line']}: {function['name']} is in no row of "
                   f"{README}'s \"What is available\": give it a row in the operator table, tools/api/operators.md "
                   f"(or name it in the C column of its family's row there; header group '{function['group']}'), "
                   f"then `make api-update` writes {README}'s table, or add `{function['name']} readme REASON` to "
                   f"{EXCEPTIONS}")
    stale(report, entries, "readme")
    # The C++ paragraph under the table: "C++ ... has everything of
    # `signalkit.h` except X, Y ...": X, Y are the functions excused from a
    # C++ wrapper whose reason names no C++ equivalent.
    paragraph = re.search(r"(?s)\nC\+\+ \(`signalkit\.hpp`\) has everything of `signalkit\.h`\s+except(.*?)\(call",
                          body)
    if not paragraph:
        report(f"{README}, What is available: the paragraph \"C++ (`signalkit.hpp`) has everything of "
               f"`signalkit.h` except ... (call those C functions directly)\" is gone: tools/api/check.py reads it")
        return
    said = set(re.findall(r"`(sk_[a-z0-9_]+)`", paragraph.group(1)))
    lacking = set()
    for function in api["functions"]:
        if function["header"] == "signalkit.h":
            entry = next((e for e in entries if e[1] == "cpp" and fnmatch.fnmatchcase(function["name"], e[0])), None)
            if entry and "equivalent:" not in entry[2]:
                lacking.add(function["name"])
    for name in sorted(said - lacking):
        report(f"{README}, What is available: the C++ paragraph says C++ lacks {name}, but {EXCEPTIONS} does not "
               f"excuse it from a wrapper (it has one?): take it out of the paragraph")
    for name in sorted(lacking - said):
        report(f"{README}, What is available: C++ has no wrapper of {name} ({EXCEPTIONS}): name it in the "
               f"paragraph \"C++ (`signalkit.hpp`) has everything of `signalkit.h` except ...\"")


# --------------------------------------------------------------------------
# The headers' documentation as api.json carries it
# --------------------------------------------------------------------------

def check_docs(api, report):
    """Every item has a brief (that no text keeps a Doxygen command but @ref,
    describe.py checks: it writes no api.json that does)."""
    fix = "document it in the header: a /** ... */ comment before it, or a /**< ... */ one after it"
    for group in api["groups"]:
        if not group.get("brief"):
            report(f"include/{group['header']}: the group {group['name']} has no @brief in api.json: give its "
                   f"@defgroup comment one")
    for kind, key in (("function", "functions"), ("callback", "callbacks"), ("handle", "handles"),
                      ("constant", "constants"), ("enum", "enums"), ("struct", "structs")):
        for item in api[key]:
            if not item.get("brief"):
                report(f"include/{item['header']}:{item['line']}: the {kind} {item['name']} has no brief in "
                       f"api.json: {fix}")
    for enum in api["enums"]:
        for value in enum["values"]:
            if not value.get("brief"):
                report(f"include/{enum['header']}:{enum['line']}: the value {value['name']} of the enum "
                       f"{enum['name']} has no brief in api.json: {fix}")
    for struct in api["structs"]:
        for field in struct["fields"]:
            for member, path in [(field, field["name"])] + [(m, f"{field['name']}.{m['name']}")
                                                            for m in field.get("members", [])]:
                if not member.get("brief"):
                    report(f"include/{struct['header']}:{struct['line']}: the field {path} of the struct "
                           f"{struct['name']} has no brief in api.json: {fix}")
    # Every @ref names what api.json holds: a group, or a section of a
    # header's main page (signalkit.h's conventions), so that a reader of
    # api.json alone finds what a text refers to.
    targets = {group["name"] for group in api["groups"]} | {section["name"] for section in api.get("sections", [])}

    def refs(item, where):
        if isinstance(item, str):
            for name in re.findall(r"@ref (\w+)", item):
                if name not in targets:
                    report(f"api.json: {where} refers to @ref {name}, which is no group and no section of "
                           f"api.json: name a @defgroup or a @section of a header's @mainpage")
        elif isinstance(item, dict):
            for key, value in item.items():
                refs(value, f"{where}.{key}" if key != "name" else f"{where}[{item.get('name')}]")
        elif isinstance(item, list):
            for value in item:
                refs(value, where)
    for key in ("sections", "groups", "functions", "callbacks", "handles", "structs", "enums", "constants"):
        refs(api.get(key, []), key)


# --------------------------------------------------------------------------
# What is generated from api.json (generate.py) and from the operator table
# (operators.py)
# --------------------------------------------------------------------------

def check_generated(api, report):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import generate  # noqa: E402  (beside this file)
    try:
        differing = generate.stale(api)
    except SystemExit as problem:  # what it cannot generate, in its words
        report(str(problem))
        return
    for path in differing:
        made = f"a copy of {generate.COPIES[path]}" if path in generate.COPIES else \
            "what the headers give (its generated part)"
        report(f"{path} is not {made}: run `make api-update` (tools/api/generate.py) and commit the result")
    import operators  # noqa: E402  (beside this file)
    differing, problems = operators.stale(api)
    for path in differing:
        report(f"{path} is not what the operator table gives (tools/api/operators.md): run `make api-update` "
               f"(tools/api/operators.py) and commit the result")
    for problem in problems:
        report(problem)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    api = json.loads(read(sys.argv[1]))
    wanted = sys.argv[2:] or ["generated", "wrappers", "ctypes", "readme", "testers", "docs"]
    report = Report()
    entries = load_exceptions(report, {function["name"] for function in api["functions"]})
    for check in wanted:
        {"generated": lambda a, e, r: check_generated(a, r), "wrappers": check_wrappers, "testers": check_testers,
         "ctypes": lambda a, e, r: check_ctypes(a, r), "readme": check_readme,
         "docs": lambda a, e, r: check_docs(a, r)}[check](api, entries, report)
    for problem in report.problems:
        print(problem, file=sys.stderr)
    if report.problems:
        print(f"{len(report.problems)} problem(s); api.json: {sys.argv[1]}", file=sys.stderr)
        sys.exit(1)
    print(f"api.json: {len(api['functions'])} functions; {', '.join(wanted)}: all agree")


if __name__ == "__main__":
    main()
