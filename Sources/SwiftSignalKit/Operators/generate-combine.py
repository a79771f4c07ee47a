#!/usr/bin/env python3
"""Writes Signal_Combine+Arity.swift beside this script: the combineLatest
overloads for 3 to 26 signals, all going through combineLatestCore over [Any];
and Signal_Combine+ZipArity.swift: the zip overloads for 3 to 26 signals, all
going through the array form of zip over Any.

Run from anywhere: python3 Sources/SwiftSignalKit/Operators/generate-combine.py
"""
import os

MIN_ARITY = 3
MAX_ARITY = 26

OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Signal_Combine+Arity.swift")
ZIP_OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Signal_Combine+ZipArity.swift")


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


def main():
    parts = [
        "// GENERATED FILE, DO NOT EDIT: written by Sources/SwiftSignalKit/Operators/generate-combine.py\n"
        "// (run `python3 Sources/SwiftSignalKit/Operators/generate-combine.py` to regenerate).\n"
        "//\n"
        "// combineLatest for %d to %d signals. Each overload goes through the shared\n"
        "// combineLatestCore (Signal_Combine.swift) over [Any] and casts the latest\n"
        "// values back to a typed tuple.\n" % (MIN_ARITY, MAX_ARITY)
    ]
    for n in range(MIN_ARITY, MAX_ARITY + 1):
        parts.append(overload(n))
    with open(OUTPUT, "w") as f:
        f.write("\n".join(parts))
    zip_parts = [
        "// GENERATED FILE, DO NOT EDIT: written by Sources/SwiftSignalKit/Operators/generate-combine.py\n"
        "// (run `python3 Sources/SwiftSignalKit/Operators/generate-combine.py` to regenerate).\n"
        "//\n"
        "// zip for %d to %d signals. Each overload goes through the array form of\n"
        "// zip (Signal_Combine+Zip.swift) over Any and casts the values back to a\n"
        "// typed tuple.\n" % (MIN_ARITY, MAX_ARITY)
    ]
    for n in range(MIN_ARITY, MAX_ARITY + 1):
        zip_parts.append(zip_overload(n))
    with open(ZIP_OUTPUT, "w") as f:
        f.write("\n".join(zip_parts))


if __name__ == "__main__":
    main()
