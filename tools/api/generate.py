#!/usr/bin/env python3
"""What is made from api.json and kept in the tree: `make api-update` writes
it, and `make test-api` (check.py) fails, naming the file, when the tree's
copy is not what the headers give.

  Sources/python/pysignalkit/_prototypes.py
      every C function's prototype, as its header spells it in a small
      vocabulary of C types that _core.py turns into ctypes types (_ctype);
  include/signalkit.hpp, between its lines "// BEGIN pipeables (generated)"
  and "// END pipeables (generated)"
      the C++ pipeables (`s | take(3)`): one for each operator of class
      signalkit::signal (a public const member that returns a signal);
  Sources/rust/rsignalkit-sys/src/lib.rs
      the raw Rust crate rsignalkit-sys, whole but for its build.rs
      (generate_rust.py);
  COPIES below
      files kept in the tree as copies of others, so that each Rust crate
      holds every file it reads or must ship: a .crate file holds nothing
      from outside the crate's folder, and `cargo package` builds the crate
      from it alone. docs/rust.md is the Rust guide's text (the site's
      page); rsignalkit's copy is its rustdoc's module `guide`, whose
      blocks are the crate's doc tests, with each link to another page of
      the site written as that page's path in SignalKit's source (the
      crate holds none of them: `crate_guide`).

Usage: generate.py API.json            (from the repository's root: writes both)
       generate.py API.json --check    (says which differ; exit status 1 if any)
Python 3 standard library only.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate_rust  # noqa: E402  (beside this file)

PROTOTYPES = "Sources/python/pysignalkit/_prototypes.py"
# {copy: original}
COPIES = {
    "Sources/rust/rsignalkit/src/guide.md": "docs/rust.md",
    "Sources/rust/rsignalkit/LICENSE": "LICENSE",
    "Sources/rust/rsignalkit-sys/LICENSE": "LICENSE",
}
CPP_HEADER = "include/signalkit.hpp"

# C types as _prototypes.py writes them: these, a handle ("handle",
# "handle *"), a struct pointer ("sk_value *") or a callback typedef's name.
SCALARS = {"int", "bool", "double", "size_t", "int64_t", "uint64_t", "long", "unsigned", "void"}
# Function pointers that are passed as plain addresses (their signature is
# described at run time: libffi's).
ADDRESS_CALLBACKS = {"sk_ffi_fn"}


def spell(c_type, api):
    """`c_type` (api.json's spelling) in _prototypes.py's vocabulary."""
    handles = {h["name"] for h in api["handles"]}
    enums = {e["name"]: e["size"] for e in api["enums"]}
    structs = {s["name"] for s in api["structs"]}
    callbacks = {c["name"] for c in api["callbacks"]}
    bare = re.sub(r"\bconst\b", "", c_type)
    bare = re.sub(r"\s+", " ", bare).replace(" *", "*").strip()
    stars = len(bare) - len(bare.rstrip("*"))
    base = bare.rstrip("*").strip()
    if base in enums:
        base = {4: "int", 8: "long"}[enums[base]]
    if re.sub(r"\s+", "", c_type) == "void(*)(void*)":  # written out: a release function
        return "sk_release_fn"
    if base in ADDRESS_CALLBACKS or base == "FILE":
        return "void *" if stars <= 1 else None
    if base in handles:
        return {1: "handle", 2: "handle *"}.get(stars)
    if base in callbacks and stars == 0:
        return base
    if base in SCALARS or base == "char" or base in structs:
        if base == "char" and stars == 0:
            return None
        if stars > 2:
            return None
        return base + (" " + "*" * stars if stars else "")
    return None


def python_prototypes(api):
    """The text of _prototypes.py."""
    tables = {"signalkit.h": [], "signalkit_test.h": [], "signalkit_ffi.h": []}
    for function in api["functions"]:
        types = [function["returns"]] + [p["type"] for p in function["params"]]
        spelled = [spell(t, api) for t in types]
        if None in spelled:
            bad = types[spelled.index(None)]
            raise SystemExit(f"include/{function['header']}:{function['line']}: {function['name']}: the C type "
                             f"{bad!r} has no ctypes spelling: teach tools/api/generate.py's spell() and "
                             f"_core.py's _ctype() what it is")
        entry = ", ".join(f'"{t}"' for t in spelled)
        tables[function["header"]].append(f'    "{function["name"]}": ({entry}{"," if len(spelled) == 1 else ""}),')
    lines = [
        "# Generated from the C headers (api.json) by tools/api/generate.py: `make api-update`",
        "# writes it, `make test-api` fails when it differs from what the headers give.",
        "# Do not edit.",
        '"""Every C function\'s prototype, name: (result type, parameter types...),',
        "in a few words of C that _core._ctype turns into ctypes types: a scalar",
        "(`size_t`), `char *`, `handle` / `handle *` (any sk_signal, sk_queue...),",
        "a struct pointer (`sk_value *`) or a callback typedef (`sk_map_fn`).",
        '"""',
        "from typing import Dict, Tuple",
        "",
    ]
    for name, header in (("CORE", "signalkit.h"), ("TEST", "signalkit_test.h"), ("FFI", "signalkit_ffi.h")):
        lines.append(f"# include/{header}")
        lines.append(f"{name}: Dict[str, Tuple[str, ...]] = {{")
        lines.extend(tables[header])
        lines.append("}")
    return "\n".join(lines) + "\n"


BEGIN = "// BEGIN pipeables (generated)\n"
END = "// END pipeables (generated)\n"


def signal_members(text):
    """The operators of class signal: its public const members that return
    a signal, in the class's order, each once (overloads share a pipeable)."""
    start = text.index("\nclass signal ")
    public = text[start:text.index("\nprivate:", start)] if "\nprivate:" in text[start:] else text[start:]
    names = []
    for match in re.finditer(r"(?m)^    (?:template <[^>]*> )?signal ([a-z_][a-z0-9_]*)\(", public):
        if match.group(1) not in names:
            names.append(match.group(1))
    return names


def cpp_pipeables(cpp_text):
    """signalkit.hpp with its generated region: a pipeable for each operator
    member of class signal."""
    if BEGIN not in cpp_text or END not in cpp_text:
        raise SystemExit(f"{CPP_HEADER}: the lines {BEGIN.strip()!r} and {END.strip()!r} are gone: put them back "
                         f"where the pipeables go (after SIGNALKIT_DETAIL_PIPEABLE's definition)")
    before, rest = cpp_text.split(BEGIN, 1)
    after = rest.split(END, 1)[1]
    lines = "".join(f"SIGNALKIT_DETAIL_PIPEABLE({name})\n" for name in signal_members(cpp_text))
    return before + BEGIN + lines + END + after


def outputs(api):
    with open(CPP_HEADER, encoding="utf-8") as source:
        cpp_text = source.read()
    copies = {}
    for copy, original in COPIES.items():
        with open(original, encoding="utf-8") as source:
            copies[copy] = source.read()
    guide = "Sources/rust/rsignalkit/src/guide.md"
    copies[guide] = crate_guide(copies[guide])
    return {PROTOTYPES: python_prototypes(api), CPP_HEADER: cpp_pipeables(cpp_text), **generate_rust.outputs(api),
            **copies}


def crate_guide(text):
    """docs/rust.md as the crate's module `guide`: outside code blocks, a
    link to another file ("[the table](operators.md)", relative to docs/)
    becomes its text and that file's path in SignalKit's source ("the
    table (`docs/operators.md` in SignalKit's source)", the anchor kept);
    web addresses and
    links within the page stay."""
    def local(match):
        label, target = match.group(1), match.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return match.group(0)
        file, _, anchor = target.partition("#")
        path = os.path.normpath(os.path.join("docs", file)) + (f"#{anchor}" if anchor else "")
        if label == os.path.normpath(os.path.join("docs", file)) or label == os.path.basename(file) == file:
            return f"`{path}` in SignalKit's source"
        return f"{label} (`{path}` in SignalKit's source)"
    parts = re.split(r"(^```.*?^```[^\n]*$)", text, flags=re.S | re.M)
    return "".join(part if part.startswith("```") else re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", local, part)
                   for part in parts)


def stale(api):
    """The generated files whose tree copy differs from what api.json gives."""
    differing = []
    for path, text in outputs(api).items():
        try:
            with open(path, encoding="utf-8") as current:
                if current.read() == text:
                    continue
        except FileNotFoundError:
            pass
        differing.append(path)
    return differing


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as source:
        api = json.load(source)
    if sys.argv[2:] == ["--check"]:
        differing = stale(api)
        for path in differing:
            made = f"a copy of {COPIES[path]}" if path in COPIES else "what the headers give"
            print(f"{path} is not {made}: run `make api-update` (tools/api/generate.py) and commit it",
                  file=sys.stderr)
        sys.exit(1 if differing else 0)
    for path, text in outputs(api).items():
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
