#!/usr/bin/env python3
"""Instructions per unit of W1, W2, W2b and W3 under callgrind, for
bench_capi and bench_rust: each program run at two sizes (--divide 100 and
50, one repetition), the difference of the totals divided by the difference
of the units and by the runs per size (bench_capi: a warm-up, the
repetition and the counted run; bench_rust: the checksum run and the
repetition, for every workload).
Deterministic, unlike the clock on a shared machine.

Usage: instructions.py BENCH_CAPI BENCH_RUST      (LD_LIBRARY_PATH as for them)
"""
import re
import subprocess
import sys

UNITS = {"W1": lambda d: 5_000_000 // d, "W2": lambda d: 1_000_000 // d, "W2b": lambda d: 1_000_000 // d,
         "W3": lambda d: 1000 * (10_000 // d)}
RUNS = {"c": 3, "rust": 2}


def collected(program, workload, divide, env=None):
    result = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", program,
                             "--reps", "1", "--divide", str(divide), "--workloads", workload],
                            capture_output=True, text=True, check=True, env=env)
    return int(re.search(r"Collected : (\d+)", result.stderr).group(1))


def per_unit(programs, env=None):
    """{workload: {impl: instructions per unit}} for programs {"c": BENCH_CAPI,
    "rust": BENCH_RUST} (run.py's bench-check reads it too)."""
    per = {}
    for workload, units in UNITS.items():
        per[workload] = {}
        for impl, program in programs.items():
            small, large = collected(program, workload, 100, env), collected(program, workload, 50, env)
            per[workload][impl] = (large - small) / ((units(50) - units(100)) * RUNS[impl])
    return per


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    per = per_unit({"c": sys.argv[1], "rust": sys.argv[2]})
    print("| workload | C API instructions/unit | Rust crate | Rust / C |")
    print("|---|---:|---:|---:|")
    for workload, figures in per.items():
        print(f"| {workload} | {figures['c']:.0f} | {figures['rust']:.0f} | {figures['rust'] / figures['c']:.2f} |")


if __name__ == "__main__":
    main()
