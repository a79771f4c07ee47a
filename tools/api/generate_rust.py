#!/usr/bin/env python3
"""The raw Rust bindings, made from api.json: the whole of the crate
rsignalkit-sys's Sources/rust/rsignalkit-sys/src/lib.rs (its build.rs finds
and links the library).

Every function, callback, handle, struct, enum and constant of the three C
headers, declared as the header declares it, with its brief as the doc
comment; nothing in the file is written by hand. generate.py writes it
(`make api-update`) and check.py fails when the tree's copy is stale
(`make test-api`), as for the Python prototypes.

Mapping of the C types (api.json's spelling):
  int, unsigned, long, size_t, int64_t, uint64_t, double, bool, char
      -> c_int, c_uint, c_long, usize, i64, u64, f64, bool, c_char
  an enum -> its own type alias of c_int (values may be negative) or
      c_uint, with one constant per value: an enum a C function returns is
      never a Rust enum, whose unknown values would be undefined behaviour
  a handle -> an opaque struct (no size, not Send, not Sync, not Unpin)
  a callback typedef -> Option<unsafe extern "C" fn(...)>: NULL is None
  T * / const T * -> *mut T / *const T, `T *const *` -> *const *mut T
  FILE * -> *mut FILE, an opaque struct
The functions of signalkit_ffi.h (libsignalkit-ffi) are in the module
`ffi`, compiled with the crate's feature "ffi" (rsignalkit's "ffi" turns it
on), whose build script then links that library too.

Python 3 standard library only.
"""
import re

SYS_RS = "Sources/rust/rsignalkit-sys/src/lib.rs"

SCALARS = {
    "int": "c_int", "unsigned": "c_uint", "long": "c_long", "size_t": "usize", "int64_t": "i64",
    "uint64_t": "u64", "double": "f64", "bool": "bool", "char": "c_char", "void": "c_void",
}
KEYWORDS = {"fn", "type", "ref", "in", "loop", "match", "move", "mut", "self", "struct", "use", "where", "impl",
            "trait", "static", "const", "box", "dyn", "as", "break", "continue", "crate", "else", "enum", "extern",
            "false", "true", "for", "if", "let", "mod", "pub", "return", "super", "unsafe", "while", "async",
            "await", "abstract", "become", "do", "final", "macro", "override", "priv", "typeof", "unsized",
            "virtual", "yield", "try"}


class Unmapped(Exception):
    pass


def ident(name):
    return name + "_" if name in KEYWORDS else name


def doc(text, indent=""):
    """A /// comment of api.json's brief (one paragraph)."""
    text = re.sub(r"\s+", " ", text or "").strip()
    if not text:
        return ""
    text = text.replace("@ref ", "")
    # rustdoc reads [x] and <x> as links and HTML: say them as text.
    text = text.replace("[", "\\[").replace("]", "\\]").replace("<", "\\<").replace(">", "\\>")
    return f"{indent}/// {text}\n"


def rust_type(c_type, api, where):
    """`c_type` (api.json's spelling) as a Rust type of sys.rs."""
    compact = re.sub(r"\s+", "", c_type)
    if compact == "void(*)(void*)":
        return "sk_release_fn"
    handles = {h["name"] for h in api["handles"]}
    enums = {e["name"] for e in api["enums"]}
    structs = {s["name"] for s in api["structs"]}
    callbacks = {c["name"] for c in api["callbacks"]}
    # Split into the base and the pointer levels, each with its const-ness:
    # "sk_signal *const *" is pointer (const) to pointer to sk_signal.
    tokens = re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\*", c_type)
    base_const = False
    base = None
    levels = []  # for each '*', whether the pointer itself is const
    for token in tokens:
        if token == "*":
            levels.append(False)
        elif token == "const":
            if levels:
                levels[-1] = True
            else:
                base_const = True
        elif base is None:
            base = token
        else:
            raise Unmapped(f"{where}: cannot read the C type {c_type!r}")
    if base is None:
        raise Unmapped(f"{where}: cannot read the C type {c_type!r}")
    if base in SCALARS:
        inner = SCALARS[base]
        if base == "void" and not levels:
            return "()"
    elif base in handles or base in enums or base in structs or base in callbacks or base == "FILE":
        inner = base
    else:
        raise Unmapped(f"{where}: the C type {c_type!r} has no Rust spelling: teach tools/api/generate_rust.py")
    if base in callbacks and levels:
        raise Unmapped(f"{where}: a pointer to a callback ({c_type!r}) has no Rust spelling yet")
    # The pointee of the innermost pointer is const when the base is; each
    # outer pointer points at a pointer that is const when that level is.
    result = inner
    pointee_const = base_const
    for const_level in levels:
        result = f"*{'const' if pointee_const else 'mut'} {result}"
        pointee_const = const_level
    return result


def function_signature(params, returns, api, where):
    args = ", ".join(f"{ident(p['name'] or f'arg{i}')}: {rust_type(p['type'], api, where)}"
                     for i, p in enumerate(params))
    result = rust_type(returns, api, where)
    return f"({args})" + ("" if result == "()" else f" -> {result}")


def generate(api):
    """The text of sys.rs."""
    out = []
    w = out.append
    w("// Generated from the C headers (api.json) by tools/api/generate_rust.py: `make api-update`\n")
    w("// writes it, `make test-api` fails when it differs from what the headers give.\n")
    w("// Do not edit.\n")
    w("//! The raw C interface: every function, callback, handle, struct, enum and\n")
    w("//! constant of `signalkit.h`, `signalkit_test.h` and (feature `ffi`)\n")
    w("//! `signalkit_ffi.h`, as the headers declare them (api.json). Each item's\n")
    w("//! documentation is the header's brief; the header says the rest\n")
    w("//! (ownership, threads, errors). Everything here is `unsafe` to call:\n")
    w("//! the crate `rsignalkit`, the safe layer over this one, is what keeps\n")
    w("//! the contract (it re-exports this crate as `rsignalkit::sys`). The\n")
    w("//! build script finds and links libsignalkit as rsignalkit's guide says\n")
    w("//! (\"Building against the library\").\n")
    w(f"//! Headers of version {api['version']}.\n")
    w("#![allow(non_camel_case_types, non_upper_case_globals, missing_docs, clippy::upper_case_acronyms)]\n\n")
    w("pub use std::os::raw::{c_char, c_int, c_long, c_uint, c_void};\n\n")
    w("/// The C library's `FILE` (stdio), opaque.\n")
    w("#[repr(C)]\npub struct FILE {\n    _opaque: [u8; 0],\n    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,\n}\n\n")

    w("// Constants\n\n")
    for constant in api["constants"]:
        w(doc(constant["brief"] or constant["name"]))
        value = constant["value"]
        w(f"pub const {constant['name']}: i64 = {value};\n")
    w("\n// Enums\n\n")
    for enum in api["enums"]:
        if enum["size"] != 4:
            raise Unmapped(f"{enum['header']}:{enum['line']}: enum {enum['name']} of size {enum['size']}")
        signed = any(v["value"] < 0 for v in enum["values"])
        w(doc(enum.get("brief") or f"The C enum {enum['name']}."))
        w(f"pub type {enum['name']} = {'c_int' if signed else 'c_uint'};\n")
        for value in enum["values"]:
            w(doc(value.get("brief")))
            w(f"pub const {value['name']}: {enum['name']} = {value['value']};\n")
        w("\n")

    w("// Handles\n\n")
    for handle in api["handles"]:
        w(doc(handle.get("brief") or f"The handle {handle['name']}."))
        w("#[repr(C)]\n")
        w(f"pub struct {handle['name']} {{\n    _opaque: [u8; 0],\n")
        w("    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,\n}\n\n")

    w("// Callbacks\n\n")
    for callback in api["callbacks"]:
        where = f"include/{callback['header']}:{callback['line']}: {callback['name']}"
        w(doc(callback.get("brief") or f"The callback type {callback['name']}."))
        sig = function_signature(callback["params"], callback["returns"], api, where)
        w(f"pub type {callback['name']} = Option<unsafe extern \"C\" fn{sig}>;\n")
    w("\n// Structs\n\n")
    for struct in api["structs"]:
        where = f"include/{struct['header']}:{struct['line']}: {struct['name']}"
        unions = []
        w(doc(struct.get("brief")))
        w("#[repr(C)]\n#[derive(Clone, Copy)]\n")
        w(f"pub struct {struct['name']} {{\n")
        for field in struct["fields"]:
            w(doc(field.get("brief"), "    "))
            if field["type"] == "union":
                union_name = f"{struct['name']}_{field['name']}"
                unions.append((union_name, field))
                w(f"    pub {ident(field['name'])}: {union_name},\n")
            else:
                w(f"    pub {ident(field['name'])}: {rust_type(field['type'], api, where)},\n")
        w("}\n")
        w(f"const _: () = assert!(core::mem::size_of::<{struct['name']}>() == {struct['size']});\n")
        w(f"const _: () = assert!(core::mem::align_of::<{struct['name']}>() == {struct['align']});\n\n")
        for union_name, field in unions:
            w(f"/// The union `{field['name']}` of {struct['name']}.\n")
            w("#[repr(C)]\n#[derive(Clone, Copy)]\n")
            w(f"pub union {union_name} {{\n")
            for member in field["members"]:
                w(doc(member.get("brief"), "    "))
                w(f"    pub {ident(member['name'])}: {rust_type(member['type'], api, where)},\n")
            w("}\n")
            w(f"const _: () = assert!(core::mem::size_of::<{union_name}>() == {field['size']});\n\n")

    headers = [("signalkit.h", None), ("signalkit_test.h", None), ("signalkit_ffi.h", "ffi")]
    for header, module in headers:
        functions = [f for f in api["functions"] if f["header"] == header]
        indent = "    " if module else ""
        w(f"// include/{header}\n\n")
        if module:
            w(f"/// The functions of `{header}` (libsignalkit-ffi; the crate's feature `ffi` links it).\n")
            w(f"#[cfg(feature = \"{module}\")]\npub mod {module} {{\n    use super::*;\n\n")
        w(f"{indent}extern \"C\" {{\n")
        for function in functions:
            where = f"include/{header}:{function['line']}: {function['name']}"
            w(doc(function.get("brief"), indent + "    "))
            sig = function_signature(function["params"], function["returns"], api, where)
            w(f"{indent}    pub fn {function['name']}{sig};\n")
        w(f"{indent}}}\n")
        if module:
            w("}\n")
        w("\n")
    return "".join(out).rstrip("\n") + "\n"


def outputs(api):
    """{path: text} of what this module generates."""
    try:
        return {SYS_RS: generate(api)}
    except Unmapped as problem:
        raise SystemExit(str(problem))
