"""The package's modules are layered (the "Layers" comment of the package's
__init__.py names them, lowest first): a module imports only modules of lower
layers, at its top. Read from the installed package's sources with ast."""

import ast
import os
import re

import pysignalkit

PACKAGE = os.path.dirname(pysignalkit.__file__)


def layers():
    """{module name: layer} from the Layers comment of the package's
    __init__.py (_operators.catch is in _operators' layer; the package
    itself is "pysignalkit"): a comment, not the docstring, which the Python
    reference shows to users."""
    with open(os.path.join(PACKAGE, "__init__.py"), encoding="utf-8") as handle:
        source = handle.read()
    paragraph = source[source.index("\n# Layers"):]
    paragraph = paragraph[:paragraph.index("\n\n")].replace("\n# ", "\n").replace("\n#", "\n")
    found = {}
    for number, names in re.findall(r"^  (\d+) +([^:]+):", paragraph, re.M):
        for name in names.replace(", and the package itself", ", pysignalkit").split(","):
            found[name.strip()] = int(number)
    return found


def module_files():
    """(module name, path) of every .py file of the installed package."""
    for folder, _, files in os.walk(PACKAGE):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, PACKAGE)[:-3].replace(os.sep, ".")
                yield ("pysignalkit" if relative == "__init__" else
                       relative[:-len(".__init__")] if relative.endswith(".__init__") else relative), path


def layer_of(module, table):
    """The layer of a module of the package (_operators.take: _operators')."""
    while module not in table and "." in module:
        module = module.rsplit(".", 1)[0]
    assert module in table, f"{module} is in no layer of the Layers comment of pysignalkit/__init__.py"
    return table[module]


def imported(module, node):
    """The package modules an import statement of `module` names (its
    relative level resolved), as names inside the package."""
    package = module.split(".")[:-1] if module != "pysignalkit" else []
    if module.endswith("_operators"):  # the subpackage's __init__: its own package
        package = module.split(".")
    if isinstance(node, ast.Import):
        return [a.name[len("pysignalkit."):] for a in node.names if a.name.startswith("pysignalkit.")]
    if node.level == 0:
        if node.module is None or not (node.module + ".").startswith("pysignalkit."):
            return []
        base = node.module[len("pysignalkit."):].split(".")
    else:
        base = package[:len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
    if node.module is None or not base:  # from . import _core, _speedups
        return [".".join(base + [a.name]) for a in node.names]
    return [".".join(base)]


def is_type_checking(node):
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def problems(module, source, table):
    """What breaks the layering in one module's source."""
    found = []
    mine = layer_of(module, table)
    tree = ast.parse(source)
    top_level = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            top_level.add(node)
            for name in imported(module, node):
                if layer_of(name, table) >= mine and not name.startswith(module + "."):
                    found.append(f"{module} (layer {mine}) imports {name} (layer {layer_of(name, table)}), "
                                 f"line {node.lineno}")
        elif is_type_checking(node):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    top_level.add(inner)
                    for name in imported(module, inner):
                        if layer_of(name, table) > mine and name != "_signal":
                            found.append(f"{module} imports {name} under TYPE_CHECKING, line {inner.lineno}: "
                                         "only the composed Signal (_signal) may be named so")
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and node not in top_level:
            if imported(module, node):
                found.append(f"{module} imports {', '.join(imported(module, node))} inside a block or "
                             f"function, line {node.lineno}")
    return found


def test_every_module_imports_only_lower_layers():
    table = layers()
    assert len(set(table.values())) >= 10, table
    seen = set()
    report = []
    for module, path in module_files():
        seen.add(module.split(".")[0] if module.startswith("_operators") else module)
        with open(path, encoding="utf-8") as handle:
            report += problems(module, handle.read(), table)
    assert not report, "\n".join(report)
    missing = set(table) - seen - {"_speedups"}
    assert not missing, f"the Layers comment names modules that do not exist: {sorted(missing)}"


def test_the_check_sees_an_import_from_above():
    table = layers()
    assert problems("_core", "from ._signal import Signal\n", table)
    assert problems("_operators.take", "from .._signal import Signal\n", table)
    assert problems("_operators.take", "from . import meta\n", table)  # a family of the same layer
    assert problems("_handle", "def f():\n    from ._queue import Queue\n", table)
    assert problems("_core", "if TYPE_CHECKING:\n    from ._queue import Queue\n", table)
    assert not problems("_queue", "from ._handle import _Handle\nfrom . import _core\n", table)
    assert not problems("_operators.take", "from .._signal_core import _SignalCore\n", table)
    assert not problems("_operators.take", "if TYPE_CHECKING:\n    from .._signal import Signal\n", table)
