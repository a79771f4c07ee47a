#!/usr/bin/env python3
"""The Python reference (make docs): pdoc over the installed package, after
checking that every public name has a docstring.

Public: the names of a module's ``__all__`` (or, without one, those not
starting with ``_``), and the members each public class defines itself
whose names do not start with ``_``. A name without a docstring is listed
and fails the build; so does any warning pdoc gives while rendering.

The package defines its constants in private modules (``pysignalkit._core``)
and re-exports them; pdoc reads a variable's docstring (the string after
its assignment) only from the module it documents, so this script gives
pdoc's module the docstrings of the private module a re-exported variable
was assigned in, before rendering; and a class's page gets the public
members it inherits from a private base class (pdoc leaves them out).

Run with the docs venv's Python (pdoc installed, the package importable).

Usage: python_docs.py OUTPUT_DIR MODULE...
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from functools import cached_property

import pdoc
import pdoc.doc
import pdoc.doc_ast


def _var_docstrings(self: pdoc.doc.Module) -> dict[str, str]:
    """pdoc's own, plus those of the package's modules for the variables
    this module re-exports."""
    docstrings = dict(pdoc.doc_ast.walk_tree(self.obj).var_docstrings)
    package = self.modulename.split(".")[0]
    for name in getattr(self.obj, "__all__", []):
        if name in docstrings or not hasattr(self.obj, name):
            continue
        value = getattr(self.obj, name)
        for modulename, module in sorted(sys.modules.items()):
            if module is None or not (modulename == package or modulename.startswith(package + ".")):
                continue
            if module is self.obj or getattr(module, name, None) is not value:
                continue
            found = pdoc.doc_ast.walk_tree(module).var_docstrings.get(name)
            if found:
                docstrings[name] = found
                break
    return docstrings


_patched = cached_property(_var_docstrings)
_patched.__set_name__(pdoc.doc.Module, "_var_docstrings")
pdoc.doc.Module._var_docstrings = _patched  # type: ignore[assignment]


def _own_members(self: pdoc.doc.Class) -> list[pdoc.doc.Doc]:  # type: ignore[type-arg]
    """pdoc's own members, plus the public ones inherited from a private
    base class (``Signal.exception``, from ``_Failing``): pdoc leaves those
    out of the page, though the class's users have them."""
    members = list(_class_own_members(self))
    have = {member.name for member in members}
    for (_, qualname), inherited in self.inherited_members.items():
        if not qualname.split(".")[-1].startswith("_"):
            continue
        for member in inherited:
            if not member.name.startswith("_") and member.name not in have:
                members.append(member)
                have.add(member.name)
    return members


_class_own_members = pdoc.doc.Class.own_members.func  # type: ignore[attr-defined]
_patched_members = cached_property(_own_members)
_patched_members.__set_name__(pdoc.doc.Class, "own_members")
pdoc.doc.Class.own_members = _patched_members  # type: ignore[assignment]


def missing(namespace: pdoc.doc.Module | pdoc.doc.Class) -> list[str]:
    """The public members of `namespace` (recursively) without a docstring."""
    found = []
    for member in namespace.own_members:
        if member.name.startswith("_"):
            continue
        if not member.docstring.strip():
            found.append(member.fullname)
        if isinstance(member, pdoc.doc.Class):
            found.extend(missing(member))
    return found


def main() -> int:
    output = sys.argv[1]
    names = sys.argv[2:]
    gaps: list[str] = []
    for name in names:
        module = pdoc.doc.Module.from_name(name)
        if not module.docstring.strip():
            gaps.append(name)
        gaps.extend(missing(module))
    for gap in gaps:
        print(f"no docstring: {gap}", file=sys.stderr)
    if gaps:
        print(f"{len(gaps)} public Python names without a docstring (above)", file=sys.stderr)
        return 1
    pdoc.render.configure(show_source=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*names, output_directory=__import__("pathlib").Path(output))
    for warning in caught:
        print(f"pdoc: {warning.filename}:{warning.lineno}: {warning.message}", file=sys.stderr)
    if caught:
        print(f"{len(caught)} warnings of pdoc (above): a warning fails the reference", file=sys.stderr)
        return 1
    for page in sorted(__import__("pathlib").Path(output).rglob("*.html")):
        hide_private_bases(page)
    return 0


PRIVATE_BASE = re.compile(r'(?:, )?<span class="base">[\w.]*\._\w[^<]*</span>')


def hide_private_bases(page: "os.PathLike[str]") -> None:
    """A class's heading lists only its public bases: pdoc writes every one
    (Signal's heading named its 13 private operator families,
    pysignalkit._operators.catch._CatchOperators[+T_co] and the rest, whose
    methods are the class's own in the reference anyway); what is left of
    the list keeps its commas, and a list left empty goes with its
    parentheses."""
    with open(page, encoding="utf-8") as handle:
        text = handle.read()
    fixed = PRIVATE_BASE.sub("", text).replace("<wbr>(, ", "<wbr>(").replace("<wbr>():", ":")
    if fixed != text:
        with open(page, "w", encoding="utf-8") as handle:
            handle.write(fixed)


if __name__ == "__main__":
    sys.exit(main())
