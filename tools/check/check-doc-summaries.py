#!/usr/bin/env python3
"""Every public symbol of a module has a summary (the first paragraph of its
doc comment): lists those that have none, from the symbol graph that
swift-symbolgraph-extract made for DocC (mk/docs-swift.mk), and fails if any.

Symbols the compiler synthesizes (a protocol's default implementations, such
as Sequence's on a collection of the module) are left out: DocC shows the
protocol's own documentation for them. An implementation of a protocol
requirement needs a comment of its own: the symbol graph lends it the
requirement's (marked with the protocol's module), which DocC does not show
as its summary.

Usage: check-doc-summaries.py SYMBOL-GRAPH-DIR MODULE
"""
import glob
import json
import os
import sys

directory, module = sys.argv[1], sys.argv[2]
paths = sorted(glob.glob(os.path.join(directory, module + ".symbols.json")) +
               glob.glob(os.path.join(directory, module + "@*.symbols.json")))
if not paths:
    sys.exit(f"check-doc-summaries: no symbol graph of {module} in {directory}")
missing = []
count = 0
for path in paths:
    with open(path) as file:
        graph = json.load(file)
    for symbol in graph["symbols"]:
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue
        count += 1
        doc = symbol.get("docComment") or {"lines": []}
        # A comment of another module's (a protocol requirement's, inherited
        # by an implementation without its own) is not this symbol's summary.
        own = doc.get("module", module) == module
        if own and any(line["text"].strip() for line in doc["lines"]):
            continue
        location = symbol.get("location", {})
        uri = location.get("uri", "?")
        uri = uri[uri.find("Sources/"):] if "Sources/" in uri else uri
        line = location.get("position", {}).get("line", -1) + 1
        missing.append((uri, line, f"{symbol['kind']['displayName'].lower()} "
                        f"{'.'.join(symbol['pathComponents'])} has no summary"))
for uri, line, message in sorted(missing):
    print(f"{uri}:{line}: {message}", flush=True)
if missing:
    sys.exit(f"{len(missing)} of the {count} public symbols of {module} have no doc comment (///)")
print(f"every public symbol of {module} has a summary ({count})")
