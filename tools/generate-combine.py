#!/usr/bin/env python3
"""Writes Sources/SwiftSignalKit/Operators/Signal_Combine+Arity.swift: the combineLatest
overloads for 3 to 26 signals, all going through combineLatestCore over [Any];
and Signal_Combine+ZipArity.swift: the zip overloads for 3 to 26 signals, all
going through the array form of zip over Any.

Run from anywhere: python3 tools/generate-combine.py (`make api-update`
runs it); with --check it writes nothing and fails when a file differs from
what it would write (`make test-api`).
"""
import os
import sys

MIN_ARITY = 3
MAX_ARITY = 26

OPERATORS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "Sources", "SwiftSignalKit", "Operators")
OUTPUT = os.path.join(OPERATORS, "Signal_Combine+Arity.swift")
ZIP_OUTPUT = os.path.join(OPERATORS, "Signal_Combine+ZipArity.swift")


def overload(n):
    indices = range(1, n + 1)
    generics = ", ".join("T%d" % i for i in indices)
    params = ", ".join("_ s%d: Signal<T%d, E>" % (i, i) for i in indices)
    tuple_type = "(" + ", ".join("T%d" % i for i in indices) + ")"
    starters = ", ".join("combineLatestStarter(s%d)" % i for i in indices)
    casts = ", ".join("values[%d] as! T%d" % (i - 1, i) for i in indices)
    return (
        "/// Emits the tuple of the latest values of the %d signals each time any of\n"
        "/// them emits, once every one has emitted at least once. Errors, completion,\n"
        "/// `queue` and threading: as `combineLatest(queue:_:_:)`.\n"
        "public func combineLatest<%s, E>(queue: Queue? = nil, %s) -> Signal<%s, E> {\n"
        "    return combineLatestCore(queue: queue, [%s], combine: { (values: [Any]) -> %s in\n"
        "        return (%s)\n"
        "    })\n"
        "}\n"
    ) % (n, generics, params, tuple_type, starters, tuple_type, casts)


def zip_overload(n):
    indices = range(1, n + 1)
    generics = ", ".join("T%d" % i for i in indices)
    params = ", ".join("_ s%d: Signal<T%d, E>" % (i, i) for i in indices)
    tuple_type = "(" + ", ".join("T%d" % i for i in indices) + ")"
    inputs = ", ".join("s%d |> map { $0 as Any }" % i for i in indices)
    casts = ", ".join("values[%d] as! T%d" % (i - 1, i) for i in indices)
    return (
        "/// The tuples of the n-th values of the %d signals, in order. Completion,\n"
        "/// errors and threading: as `zip(_:_:)`.\n"
        "public func zip<%s, E>(%s) -> Signal<%s, E> {\n"
        "    return zip([%s]) |> map { (values: [Any]) -> %s in\n"
        "        return (%s)\n"
        "    }\n"
        "}\n"
    ) % (n, generics, params, tuple_type, inputs, tuple_type, casts)


def main(check):
    """Writes both files, or with check only compares them; returns the
    names of those that differ."""
    parts = [
        "// GENERATED FILE, DO NOT EDIT: written by tools/generate-combine.py\n"
        "// (run `python3 tools/generate-combine.py` to regenerate).\n"
        "//\n"
        "// combineLatest for %d to %d signals. Each overload goes through the shared\n"
        "// combineLatestCore (Signal_Combine.swift) over [Any] and casts the latest\n"
        "// values back to a typed tuple.\n" % (MIN_ARITY, MAX_ARITY)
    ]
    for n in range(MIN_ARITY, MAX_ARITY + 1):
        parts.append(overload(n))
    zip_parts = [
        "// GENERATED FILE, DO NOT EDIT: written by tools/generate-combine.py\n"
        "// (run `python3 tools/generate-combine.py` to regenerate).\n"
        "//\n"
        "// zip for %d to %d signals. Each overload goes through the array form of\n"
        "// zip (Signal_Combine+Zip.swift) over Any and casts the values back to a\n"
        "// typed tuple.\n" % (MIN_ARITY, MAX_ARITY)
    ]
    for n in range(MIN_ARITY, MAX_ARITY + 1):
        zip_parts.append(zip_overload(n))
    stale = []
    for path, text in ((OUTPUT, "\n".join(parts)), (ZIP_OUTPUT, "\n".join(zip_parts))):
        if check:
            with open(path) as f:
                if f.read() != text:
                    stale.append(os.path.relpath(path))
        else:
            with open(path, "w") as f:
                f.write(text)
    return stale


if __name__ == "__main__":
    differ = main("--check" in sys.argv[1:])
    for name in differ:
        print(f"{name} is not what tools/generate-combine.py writes: run `make api-update` and commit it",
              file=sys.stderr)
    sys.exit(1 if differ else 0)
