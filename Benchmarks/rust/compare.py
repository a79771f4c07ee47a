#!/usr/bin/env python3
"""The Rust crate against the C API on W1, W2, W2b and W3: reads the JSON lines
of bench_capi and bench_rust (files named on the command line) and prints
a table with the ratio of each workload and the issue's target (at most
1.1 times the C API per unit). Python 3 standard library only.

Usage: compare.py C_LINES RUST_LINES
"""
import json
import sys

TARGET = 1.1


def lines(path):
    with open(path, encoding="utf-8") as source:
        return {r["workload"]: r for r in map(json.loads, filter(str.strip, source)) if "ns_median" in r}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    c, rust = lines(sys.argv[1]), lines(sys.argv[2])
    print("| workload | unit | C API | Rust crate | Rust / C | target |")
    print("|---|---|---:|---:|---:|---|")
    for workload in ("W1", "W2", "W2b", "W3"):
        if workload not in c or workload not in rust:
            print(f"| {workload} | - | - | - | - | not measured |")
            continue
        a, b = c[workload]["ns_median"], rust[workload]["ns_median"]
        ratio = b / a
        verdict = "met" if ratio <= TARGET else "missed"
        print(f"| {workload} | ns/{c[workload]['unit']} | {a:.1f} | {b:.1f} | {ratio:.2f} | <= {TARGET}: {verdict} |")


if __name__ == "__main__":
    main()
