#!/usr/bin/env python3
"""Runs the benchmark programs and prints one table (`make bench`), or checks
the deterministic allocation counts against thresholds.json (`make
bench-check`). Every program prints JSON lines; see Benchmarks/README.md.

  run.py bench --reps N --out DIR --stage LIBDIR --swift PATH [--divide N]
  run.py interleave --reps N --out DIR --stage LIBDIR --swift PATH [--workloads W2b,W4]
                (the Swift API, C API, C++ header and C++ peers in turn, once per
                round: the figures of a shared, noisy machine compared fairly)
  run.py check --out DIR --stage LIBDIR --alloc-check PATH [--operator-cost PATH]
                (needs valgrind: NP's instructions per value, and the C API's per
                W1 event, W2 cycle, W4 event, W5 put and ND nested meta, are
                counted by callgrind; so is the cost table, every operator's row
                in the C API, the C++ header and the Swift API, one callgrind
                process per API)
  run.py costs --out DIR --stage LIBDIR [--operator-cost PATH]
                (make bench-costs: the cost table measured into costs.json,
                docs/performance.md's table rewritten, missing limits added)
  run.py self FILE [--units N]
                (the self cost of each function in one callgrind dump, the
                largest first, per unit when given: what callgrind_annotate
                3.19 cannot read from one part of a run that dumped several)
"""
import argparse
import concurrent.futures
import datetime
import json
import math
import os
import re
import platform
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
THRESHOLDS = os.path.join(HERE, "thresholds.json")
COSTS = os.path.join(HERE, "costs.json")

WORKLOADS = [
    ("W1", "chain map-filter-map", "ns/event"),
    ("W2", "subscribe/dispose", "ns/cycle"),
    ("W2b", "W2, pipeline built per cycle", "ns/cycle"),
    ("W3", "fan-out 1000 sinks", "ns/delivery"),
    ("W4", "switch churn", "ns/event"),
    ("W5", "combine-latest", "ns/put"),
    ("W5z", "zip", "ns/put"),
    ("W5s", "scan", "ns/put"),
    ("W3s", "share, 100 subscribers", "ns/delivery"),
    ("W6", "100k live subs", "B/sub"),
    ("W6b", "W6, pipeline built per sub", "B/sub"),
    ("W7", "queue hop", "ns/event"),
    ("W7b", "W7 bounded (capacity 2n)", "ns/event"),
]
# W8 (Swift and C APIs): subscribe N map -> sink subscriptions to one pipe,
# put once, dispose them all, for N = 1k (1,000 rounds) and 1M, in three
# dispose orders.
W8_SIZES = ["1k", "1M"]
W8_ORDERS = [("first", "first-made first"), ("last", "last-made first"), ("random", "random")]
W8_PHASES = ("subscribe", "deliver", "dispose")
# W9 (Swift and C APIs): 10 sinks on one pipe, the puts from one thread, then
# from two at once.
W9_THREADS = [("1t", "1 thread"), ("2t", "2 threads")]
# ND (Swift and C APIs): dispose N containers nested in one another, for
# N = 1k (1,000 rounds) and 1M, of three kinds.
ND_SIZES = ["1k", "1M"]
ND_KINDS = [("meta", "metas"), ("set", "sets"), ("dict", "dicts")]
# The FFI path (typed subscriptions over libffi) runs W1, W3 and W7; its
# program, when it exists, is $OUT/bench_ffi and prints impl "ffi" lines.
FFI_WORKLOADS = {"W1", "W3", "W7"}
# Workloads whose figure is bytes per live subscription, not a time.
BYTES_WORKLOADS = {"W6", "W6b"}
# The optional C++ peers (mk/bench.mk: built when their headers are in
# Benchmarks/peers/): program, impl, column title.
PEERS = [("bench_rxcpp", "rxcpp", "RxCpp"), ("bench_rpp", "rpp", "RPP")]


def run_lines(command, env=None):
    """Runs `command`, echoes its stderr, returns its JSON lines; fails on error lines."""
    print("+ " + " ".join(command), file=sys.stderr, flush=True)
    result = subprocess.run(command, env=env, stdout=subprocess.PIPE, text=True)
    lines = []
    for line in result.stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        record = json.loads(line)
        if "error" in record:
            sys.exit("FAILED: %s" % line)
        lines.append(record)
    if result.returncode != 0:
        sys.exit("FAILED: %s exited with %d" % (command[0], result.returncode))
    return lines


def staged_env(stage):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = stage + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


def machine():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, nproc %d, %s" % (model, os.cpu_count() or 0, platform.platform())


def fmt(value, digits=1):
    if value is None:
        return "-"
    if value >= 1000:
        return "%.0f" % value
    return "%.*f" % (digits, value)


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def verdict(value, limit, at_least):
    """'ok'/'MISS' for a ratio against a target (at_least: value >= limit)."""
    if value is None:
        return "pending"
    good = value >= limit if at_least else value <= limit
    return "ok" if good else "MISS"


def bench(args):
    records = []
    records += run_lines([os.path.join(args.out, "floors"), "--reps", str(args.reps)])
    env = staged_env(args.stage)
    # --divide N (smaller sizes, a quick look at the table) goes to every
    # program but the floors; the sizes in the table's labels are then wrong.
    sizes = ["--reps", str(args.reps)] + (["--divide", str(args.divide)] if args.divide > 1 else [])
    records += run_lines([os.path.join(args.out, "bench_capi")] + sizes, env)
    for program in ("bench_ffi", "bench_cpp"):
        path = os.path.join(args.out, program)
        if os.path.exists(path):
            records += run_lines([path] + sizes, env)
    if args.rust and os.path.exists(args.rust):
        records += run_lines([args.rust] + sizes, env)
    records += run_lines([args.swift] + sizes)
    peers = []
    for program, impl, title in PEERS:
        path = os.path.join(args.out, program)
        if os.path.exists(path):
            records += run_lines([path] + sizes)
            peers.append((impl, title))
        else:
            print("%s: not built (its headers are not in Benchmarks/peers/), column skipped" % title, file=sys.stderr)

    by = {(r["impl"], r["workload"]): r for r in records}

    def ns(impl, workload):
        r = by.get((impl, workload))
        return r["ns_median"] if r else None

    def bytes_per_sub(impl, workload="W6"):
        r = by.get((impl, workload))
        return r.get("live_bytes_per_unit") if r else None

    def allocs(impl, workload):
        r = by.get((impl, workload))
        return r["allocs_per_unit"] if r else None

    floor = {name: ns("floor", name) for name in
             ("call", "mutex", "atomic", "malloc64", "ffi_call", "ffi_closure", "dispatch_hop")}

    def value(impl, workload):
        return bytes_per_sub(impl, workload) if workload in BYTES_WORKLOADS else ns(impl, workload)

    out = []
    out.append("SignalKit benchmarks, %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M"))
    out.append("machine: %s; median of %d repetitions after a warm-up%s" % (
        machine(), args.reps, "; SIZES DIVIDED BY %d" % args.divide if args.divide > 1 else ""))
    out.append("")
    header = "| workload | unit | Swift API | C API | C / Swift | C++ header | FFI | Rust |%s OpenCombine |%s allocs/unit Swift, C, OC%s |" % (
        " Rust / C |", "".join(" %s |" % title for _, title in peers), "".join(", " + title for _, title in peers))
    out.append(header)
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|%s---|" % ("---:|" * len(peers)))

    def peer_cells(workload):
        return "".join(" %s |" % fmt(value(impl, workload)) for impl, _ in peers)

    def peer_allocs(workload):
        return "".join(", " + fmt(allocs(impl, workload), 3) for impl, _ in peers)

    def c_over_swift(workload):
        r = ratio(value("c", workload), value("swift", workload))
        return fmt(r, 2) if r is not None else "-"

    for workload, name, unit in WORKLOADS:
        ffi_cell = fmt(value("ffi", workload)) if workload in FFI_WORKLOADS else "n/a"
        if workload in FFI_WORKLOADS and value("ffi", workload) is None:
            ffi_cell = "(slot)"
        cpp_cell = fmt(value("cpp", workload)) if workload in CPP_WORKLOADS else "n/a"
        rust_cell, rust_ratio = "n/a", "n/a"
        if workload in RUST_WORKLOADS:
            rust_cell = fmt(value("rust", workload))
            r = ratio(value("rust", workload), value("c", workload))
            rust_ratio = fmt(r, 2) if r is not None else "-"
        out.append("| %s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%s %s, %s, %s%s |" % (
            workload, name, unit, fmt(value("swift", workload)), fmt(value("c", workload)), c_over_swift(workload),
            cpp_cell, ffi_cell, rust_cell, rust_ratio, fmt(value("opencombine", workload)), peer_cells(workload),
            fmt(allocs("swift", workload), 3), fmt(allocs("c", workload), 3), fmt(allocs("opencombine", workload), 3),
            peer_allocs(workload)))
    scale_rows = [("W8-%s-%s" % (size, order), "W8 scale %s, %s" % (size, label), "ns/sub")
                  for size in W8_SIZES for order, label in W8_ORDERS]
    scale_rows += [("W9-" + threads, "W9 10 sinks, puts from %s" % label, "ns/delivery") for threads, label in W9_THREADS]
    for workload, name, unit in scale_rows:
        out.append("| %s | %s | %s | %s | %s | n/a | n/a | n/a | n/a | %s |%s %s, %s, %s%s |" % (
            name, unit, fmt(ns("swift", workload)), fmt(ns("c", workload)), c_over_swift(workload),
            fmt(ns("opencombine", workload)), "".join(" n/a |" for _ in peers),
            fmt(allocs("swift", workload), 3), fmt(allocs("c", workload), 3), fmt(allocs("opencombine", workload), 3),
            "".join(", -" for _ in peers)))
    out.append("")
    out.append("Floors (ns/op): " + ", ".join("%s %s" % (k, fmt(v, 2)) for k, v in floor.items()) +
               "; W8's (ns per object, 1k / 1M): " + ", ".join(
                   "%s %s / %s" % (order, fmt(ns("floor", "w8_1k_" + order)), fmt(ns("floor", "w8_1M_" + order)))
                   for order, _ in W8_ORDERS))
    w6 = {"%s %s" % (impl, workload): by.get((impl, workload))
          for workload in ("W6", "W6b") for impl in ["swift", "c", "cpp", "opencombine"] + [i for i, _ in peers]}
    seq = []
    for workload in ("W1", "W4"):
        a, b = ns("opencombine", workload + "-seq"), ns("opencombine", workload)
        if a is not None:
            seq.append("%s %s ns/event (%s x the %s column's)" % (workload, fmt(a), fmt(ratio(a, b), 2), workload))
    if seq:
        out.append("OpenCombine with (0..<n).publisher as the source (its map and filter are eager; README): " + ", ".join(seq))
    if ns("ffi", "NP") is not None:
        out.append("NP, issue 15's native pipeline (pipe -> typed map \"i64(i64)\" -> distinct -> take -> last; README): "
                   "%s ns/value, %s allocations/value" % (fmt(ns("ffi", "NP")), fmt(by[("ffi", "NP")]["allocs_per_unit"], 3)))
    out.append("W6 and W6b bytes/sub (live malloc bytes; glibc heap in use; RSS): " + "; ".join(
        "%s %s, %s, %s" % (impl, fmt(r["live_bytes_per_unit"]), fmt(r["heap_bytes_per_unit"]), fmt(r["rss_bytes_per_unit"]))
        for impl, r in w6.items() if r))
    out.append("")
    out.append("W8 by phase (ns per subscription; 1M / 1k is the 1M figure over the 1k one, flat is <= 2):")
    out.append("")
    out.append("| dispose order | phase | Swift 1k | Swift 1M | Swift 1M / 1k | C 1k | C 1M | C 1M / 1k | floor 1k | floor 1M | floor 1M / 1k |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

    def phase_ns(impl, size, order, phase):
        if impl == "floor":
            return ns("floor", "w8_%s_%s" % (size, order)) if phase == "total" else None
        r = by.get((impl, "W8-%s-%s" % (size, order)))
        if r is None:
            return None
        return r["ns_median"] if phase == "total" else r.get(phase + "_ns_median")

    for order, label in W8_ORDERS:
        for phase in W8_PHASES + ("total",):
            cells = []
            for impl in ("swift", "c", "floor"):
                a, b = phase_ns(impl, "1k", order, phase), phase_ns(impl, "1M", order, phase)
                r = ratio(b, a)
                cells += [fmt(a), fmt(b), fmt(r, 2) if r is not None else "-"]
            out.append("| %s | %s | %s |" % (label, phase, " | ".join(cells)))
    out.append("")
    out.append("ND nested disposal (ns per container: nest N containers, each holding the next, dispose and release "
               "the outermost; 1M / 1k as above, linear is <= 3, quadratic some 1,000):")
    out.append("")
    out.append("| containers | phase | Swift 1k | Swift 1M | Swift 1M / 1k | C 1k | C 1M | C 1M / 1k |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|")

    def nd_ns(impl, size, kind, phase):
        r = by.get((impl, "ND-%s-%s" % (size, kind)))
        if r is None:
            return None
        return r["ns_median"] if phase == "total" else r.get({"nest": "subscribe"}.get(phase, phase) + "_ns_median")

    for kind, label in ND_KINDS:
        for phase in ("nest", "dispose", "total"):
            cells = []
            for impl in ("swift", "c"):
                a, b = nd_ns(impl, "1k", kind, phase), nd_ns(impl, "1M", kind, phase)
                r = ratio(b, a)
                cells += [fmt(a), fmt(b), fmt(r, 2) if r is not None else "-"]
            out.append("| %s | %s | %s |" % (label, phase, " | ".join(cells)))
    out.append("")
    out.append("| target | measured | goal | |")
    out.append("|---|---:|---:|---|")

    def target(label, measured, goal, at_least, suffix="x"):
        # A negative cost (a difference of two noisy times) says nothing.
        status = "noise" if measured is not None and measured < 0 else verdict(measured, goal, at_least)
        out.append("| %s | %s | %s %s%s | %s |" % (
            label, fmt(measured, 2) if measured is not None else "-", ">=" if at_least else "<=", goal, suffix,
            status))

    target("W1 OpenCombine / Swift", ratio(ns("opencombine", "W1"), ns("swift", "W1")), 15, True)
    target("W1 Swift / direct call", ratio(ns("swift", "W1"), floor["call"]), 12, False)
    w1_allocs = allocs("swift", "W1")
    out.append("| W1 Swift allocations per event | %s | 0 | %s |" % (
        fmt(w1_allocs, 4), "ok" if w1_allocs == 0 else "MISS"))
    target("W2 OpenCombine / Swift", ratio(ns("opencombine", "W2"), ns("swift", "W2")), 10, True)
    target("W2 Swift / malloc(64)+free", ratio(ns("swift", "W2"), floor["malloc64"]), 20, False)
    target("W3 Swift / direct call", ratio(ns("swift", "W3"), floor["call"]), 8, False)
    target("W4 OpenCombine / Swift", ratio(ns("opencombine", "W4"), ns("swift", "W4")), 8, True)
    target("W5 OpenCombine / Swift", ratio(ns("opencombine", "W5"), ns("swift", "W5")), 5, True)
    target("W6 Swift bytes per subscription", bytes_per_sub("swift"), 200, False, " B")
    target("W6 C bytes per subscription", bytes_per_sub("c"), 200, False, " B")
    # Issue 34: the pipeline built per subscription, its intermediate
    # handles released (W2b, W6b).
    target("W6b C bytes per subscription", bytes_per_sub("c", "W6b"), 200, False, " B")
    target("W7 Swift / dispatch_async_f hop", ratio(ns("swift", "W7"), floor["dispatch_hop"]), 2, False)
    # Issue 18: the C API within 1.5x of the Swift API on every workload,
    # with allocations to match; the floors where a fused C++ chain cannot be
    # matched across a C boundary; the Swift API ahead of every Swift peer.
    for workload, _, _ in WORKLOADS:
        target("%s C API / Swift API" % workload, ratio(value("c", workload), value("swift", workload)), 1.5, False)
    for workload in ("W2", "W2b", "W4", "W5", "W6", "W6b"):
        c_allocs, swift_allocs = allocs("c", workload), allocs("swift", workload)
        status = "pending" if c_allocs is None or swift_allocs is None else (
            "ok" if c_allocs <= swift_allocs + 1e-3 else "MISS")
        out.append("| %s C API allocations per unit (Swift API's) | %s (%s) | <= Swift | %s |" % (
            workload, fmt(c_allocs, 3), fmt(swift_allocs, 3), status))
    target("W1 C API / direct call", ratio(ns("c", "W1"), floor["call"]), 16, False)
    target("W5 C API ns per put", ns("c", "W5"), 50, False, " ns")
    for workload, _, _ in WORKLOADS:
        if value("opencombine", workload) is not None:
            target("%s OpenCombine / Swift API" % workload,
                   ratio(value("opencombine", workload), value("swift", workload)), 1, True)
    # Issue 34: ahead of RxCpp and ReactivePlusPlus (when built) on W2b, W4,
    # W6b and W7: each peer's figure over ours, at least 1.
    for impl, title in peers:
        for workload in ("W1", "W2", "W2b", "W3", "W4", "W6", "W6b", "W7"):
            for ours, label in (("swift", "Swift API"), ("c", "C API")):
                if value(impl, workload) is not None:
                    target("%s %s / %s" % (workload, title, label), ratio(value(impl, workload), value(ours, workload)),
                           1, True)
    # OpenCombine's W8 is not in the default run (SwiftBench: some 12 us per
    # subscription, minutes at 1M); README gives a separate run of it.
    for workload, name, _ in scale_rows:
        if workload.startswith("W9"):
            target("%s OpenCombine / Swift API" % name, ratio(ns("opencombine", workload), ns("swift", workload)), 1, True)
    # Issue 18, scale: the 1M figures within 2x of the 1k ones (each order, each
    # phase's sum); W9: what a second putting thread does to a delivery's cost.
    # The floor's own 1M / 1k (malloc, touch and free N blocks in the same
    # order: the memory hierarchy's share) is printed beside each.
    for impl, label in (("swift", "Swift"), ("c", "C")):
        for order, order_label in W8_ORDERS:
            floor_ratio = ratio(phase_ns("floor", "1M", order, "total"), phase_ns("floor", "1k", order, "total"))
            target("W8 %s 1M / 1k, %s (floor's: %s)" % (label, order_label, fmt(floor_ratio, 2)),
                   ratio(phase_ns(impl, "1M", order, "total"), phase_ns(impl, "1k", order, "total")), 2, False)
    # Issue 30: disposing nested containers linear at any depth (it was
    # quadratic: 200,000 nested metas took 9.5 s, a million would take
    # minutes). At most 3, not W8's 2: a million nested containers (some
    # 200 MB) miss every cache at each step, a thousand fit in one.
    for impl, label in (("swift", "Swift"), ("c", "C")):
        for kind, kind_label in ND_KINDS:
            target("ND %s 1M / 1k, nested %s" % (label, kind_label),
                   ratio(nd_ns(impl, "1M", kind, "total"), nd_ns(impl, "1k", kind, "total")), 3, False)
    for impl, label in (("swift", "Swift"), ("c", "C")):
        r = ratio(ns(impl, "W9-2t"), ns(impl, "W9-1t"))
        out.append("| W9 %s two threads / one (ns per delivery) | %s | (reported) | |" % (
            label, fmt(r, 2) if r is not None else "-"))
    # The C++ header over the C API: the same pipeline through its RAII
    # handles and templated trampolines, measured in the same run.
    for workload in sorted(CPP_WORKLOADS):
        target("%s C++ header / C API" % workload, ratio(value("cpp", workload), value("c", workload)), 1.1, False)
    # The Rust crate over the C API (issue 45), in the same run; make
    # bench-check holds the same ratios in instructions.
    for workload in sorted(RUST_WORKLOADS):
        target("%s Rust crate / C API" % workload, ratio(value("rust", workload), value("c", workload)), 1.1, False)
    # The typed sink's cost per call: what the FFI run adds to the C API run
    # (same pipeline, the sink called through libffi instead of directly),
    # per sink call (in W1 half the source events reach the sink).
    for workload in sorted(FFI_WORKLOADS):
        ffi_ns, c_ns = ns("ffi", workload), ns("c", workload)
        per_call = None
        if ffi_ns is not None and c_ns is not None:
            per_call = (ffi_ns - c_ns) / SINK_CALLS_PER_UNIT[workload]
        target("%s FFI typed sink (FFI - C API, per sink call) / ffi_call" % workload,
               ratio(per_call, floor["ffi_call"]), 2, False)
    text = "\n".join(out)
    print(text)
    with open(os.path.join(args.out, "latest.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(args.out, "latest.json"), "w") as f:
        json.dump(records, f, indent=1)
    print("\n(written to %s/latest.md and latest.json)" % args.out)


# interleave: the workloads compared with the C++ peers (issue 34).
INTERLEAVED_WORKLOADS = "W2,W2b,W3,W4,W6b,W7,W5,W5z,W5s,W3s"
# The floors each round measures too, printed under the table (W7's target
# is a ratio to the dispatch hop measured in the same run; an uncontended
# atomic read-modify-write is most of a W5 put's time, and its cost differs
# threefold between the machines this project has run on).
INTERLEAVED_FLOORS = ("dispatch_hop", "atomic", "malloc64", "call")


def interleave(args):
    """Runs each program once per round (`--reps 1`: a warm-up, one timed
    repetition, one counted), in turn, for `--reps` rounds, and prints the
    median over the rounds of each (implementation, workload): a change of
    the machine's load weighs on every implementation alike, where `bench`
    runs each program's repetitions together. Writes interleaved.md."""
    env = staged_env(args.stage)
    workloads = args.workloads or INTERLEAVED_WORKLOADS
    selected = ["--reps", "1", "--workloads", workloads] + (["--divide", str(args.divide)] if args.divide > 1 else [])
    programs = [([os.path.join(args.out, "bench_capi")], env), ([os.path.join(args.out, "bench_cpp")], env),
                ([args.swift, "--impls", "swift"], None)]
    floors = os.path.join(args.out, "floors")
    columns = [("swift", "Swift API"), ("c", "C API"), ("cpp", "C++ header")]
    for program, impl, title in PEERS:
        path = os.path.join(args.out, program)
        if os.path.exists(path):
            programs.append(([path], None))
            columns.append((impl, title))
        else:
            print("%s: not built (its headers are not in Benchmarks/peers/), column skipped" % title, file=sys.stderr)
    loads = [os.getloadavg()[0]]
    rounds = {}
    for _ in range(args.reps):
        for command, program_env in programs:
            for record in run_lines(command + selected, program_env):
                rounds.setdefault((record["impl"], record["workload"]), []).append(record)
        if os.path.exists(floors):
            for record in run_lines([floors, "--reps", "1"]):
                rounds.setdefault((record["impl"], record["workload"]), []).append(record)
        loads.append(os.getloadavg()[0])
    units = {workload: unit for workload, _, unit in WORKLOADS}

    def figure(impl, workload):
        records = rounds.get((impl, workload))
        if not records:
            return None
        key = "live_bytes_per_unit" if workload in BYTES_WORKLOADS else "ns_median"
        values = sorted(r[key] for r in records)
        return values[len(values) // 2]

    out = ["Interleaved run, %s: %s, median of %d rounds (each program once per round, in turn); "
           "load average (1 min) %s" % (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), machine(), args.reps,
                                        ", ".join("%.1f" % load for load in loads)), ""]
    out.append("| workload | unit | %s | allocs/unit %s |" % (" | ".join(title for _, title in columns),
                                                          ", ".join(title for _, title in columns)))
    out.append("|---|---|%s---|" % ("---:|" * len(columns)))
    for workload in workloads.split(","):
        allocs = []
        for impl, _ in columns:
            records = rounds.get((impl, workload))
            allocs.append(fmt(records[0]["allocs_per_unit"], 3) if records else "-")
        out.append("| %s | %s | %s | %s |" % (workload, units.get(workload, "-"),
                                              " | ".join(fmt(figure(impl, workload)) for impl, _ in columns),
                                              ", ".join(allocs)))
    out.append("")
    out.append("| workload | C / Swift | C++ / C | %s |" % " | ".join(
        "%s / Swift | %s / C" % (title, title) for impl, title in columns[3:]))
    out.append("|---|---:|---:|%s" % ("---:|---:|" * len(columns[3:])))
    for workload in workloads.split(","):
        cells = [ratio(figure("c", workload), figure("swift", workload)), ratio(figure("cpp", workload), figure("c", workload))]
        for impl, _ in columns[3:]:
            cells += [ratio(figure(impl, workload), figure("swift", workload)), ratio(figure(impl, workload), figure("c", workload))]
        out.append("| %s | %s |" % (workload, " | ".join(fmt(cell, 2) for cell in cells)))
    if figure("floor", "dispatch_hop") is not None:
        out.append("")
        out.append("Floors in the same rounds (ns/op, median): " + ", ".join(
            "%s %s" % (name, fmt(figure("floor", name), 2)) for name in INTERLEAVED_FLOORS))
        if "W7" in workloads.split(","):
            out.append("W7 over the dispatch_async_f hop floor (target <= 2): " + ", ".join(
                "%s %s" % (title, fmt(ratio(figure(impl, "W7"), figure("floor", "dispatch_hop")), 2))
                for impl, title in columns if figure(impl, "W7") is not None))
    text = "\n".join(out)
    print(text)
    with open(os.path.join(args.out, "interleaved.md"), "w") as f:
        f.write(text + "\n")


# The workloads bench_cpp measures (Benchmarks/c/bench_cpp.cpp).
CPP_WORKLOADS = {"W1", "W2", "W2b", "W3", "W6", "W6b"}

# The workloads bench_rust measures (Sources/rust/rsignalkit/benches/bench_rust.rs): issue
# 45's, where the Rust crate may cost at most 1.1 times the C API per unit.
RUST_WORKLOADS = {"W1", "W2", "W2b", "W3"}

# Sink calls per workload unit (W1: the filter lets half the events through).
SINK_CALLS_PER_UNIT = {"W1": 0.5, "W3": 1.0, "W7": 1.0}


def callgrind_counts(command, env):
    """The instructions of the runs `command` counts under callgrind, by
    label, and the JSON lines it printed.

    The program (`--instructions`) turns callgrind's collection on only
    around the runs it counts and dumps each under a label (bench_capi.c,
    COUNTED); everything else, the runtime's start-up included, is not
    counted. Exact and independent of the machine's load."""
    print("+ valgrind --tool=callgrind --collect-atstart=no " + " ".join(command), file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as folder:
        result = subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                                 "--callgrind-out-file=" + os.path.join(folder, "callgrind.out")] + command,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = []
        for line in result.stdout.splitlines():
            line = line.strip()
            if line.startswith("{"):
                record = json.loads(line)
                if "error" in record:
                    sys.exit("FAILED: %s" % line)
                lines.append(record)
        if result.returncode != 0:
            sys.exit("FAILED: callgrind of %s exited with %d:\n%s" % (command[0], result.returncode, result.stderr))
        counts = {}
        for name in os.listdir(folder):
            label, total = None, None
            with open(os.path.join(folder, name)) as f:
                for line in f:
                    if line.startswith("desc: Trigger: Client Request: "):
                        label = line[len("desc: Trigger: Client Request: "):].strip()
                    elif line.startswith("summary:") or line.startswith("totals:"):
                        total = int(line.split()[1])
            if label is not None and total is not None:
                counts[label] = total
        return counts, lines


# Instructions per unit under callgrind: the check's name, the program and
# the workload's label in its `--instructions` run, and n (the units of its
# smaller counted run; the larger is 2n).
INSTRUCTION_CHECKS = [
    ("c.w1.instructions_per_event", "bench_capi", "W1", 50000),
    ("c.w2.instructions_per_cycle", "bench_capi", "W2", 10000),
    ("c.w2b.instructions_per_cycle", "bench_capi", "W2b", 10000),
    ("c.w4.instructions_per_event", "bench_capi", "W4", 10000),
    ("c.w5.instructions_per_put", "bench_capi", "W5", 10000),
    ("c.nd.instructions_per_meta", "bench_capi", "ND", 10000),
    ("c.w7.instructions_per_event", "bench_capi", "W7", 20000),
    ("c.w7b.instructions_per_event", "bench_capi", "W7b", 20000),
    # The same two in the Swift API, counted by OperatorCost ("swift": the
    # program given as --operator-cost).
    ("swift.w7.instructions_per_event", "swift", "W7", 20000),
    ("swift.w7b.instructions_per_event", "swift", "W7b", 20000),
    # Issue 78: the C API against the Swift API, the same workloads in both
    # (W3 and W3s per delivery: 1,000 and 100 sinks, the puts doubled).
    ("c.w3.instructions_per_delivery", "bench_capi", "W3", 20000),
    ("c.w3s.instructions_per_delivery", "bench_capi", "W3s", 10000),
    ("c.w5z.instructions_per_put", "bench_capi", "W5z", 10000),
    ("c.w5s.instructions_per_put", "bench_capi", "W5s", 10000),
    ("swift.w1.instructions_per_event", "swift", "W1", 50000),
    ("swift.w3.instructions_per_delivery", "swift", "W3", 20000),
    ("swift.w3s.instructions_per_delivery", "swift", "W3s", 10000),
    ("swift.w5.instructions_per_put", "swift", "W5", 10000),
    ("swift.w5z.instructions_per_put", "swift", "W5z", 10000),
    ("swift.w5s.instructions_per_put", "swift", "W5s", 10000),
    ("ffi.np.instructions_per_value", "bench_ffi", "NP", 10000),
    ("ffi.handle_check_200k_alive.instructions_per_check", "bench_ffi", "HC", 1000),
]

# The workloads whose C API count is held against the Swift API's (issue 78).
C_OVER_SWIFT = ("W1", "W3", "W3s", "W5", "W5z", "W5s")

# The cost table (issue 41; Benchmarks/README.md, "Per-operator cost"): each
# program counts every operator's row, one operator between a pipe and a
# plain subscriber, under the labels "op:ROW n" and "op:ROW 2n" (2,000 and
# 4,000 puts), all in one callgrind process per API, and prints each row's
# allocations per put ("IMPL.op.ROW.allocs_per_put") and what it delivered
# ({"row": ...}). The rows are the programs' own: bench_capi's from the
# operator list (Tests/common/operator_list.h), bench_cpp's and OperatorCost's
# (Swift) from the files tools/api/operators.py generates from the operator
# table; nothing here names an operator.
OPERATOR_PUTS = 2000
OPERATOR_CHECK = re.compile(r"^(c|cpp|swift)\.op\.([a-z0-9_]+)\.(instructions|allocs)_per_put$")


def operator_records(impl, counts, lines):
    """The instructions per put of every row a program counted, its
    allocation lines, and its rows' descriptions."""
    records, rows = [], []
    for label in sorted(counts):
        if label.startswith("op:") and label.endswith(" n"):
            row = label[len("op:"):-len(" n")]
            if "op:%s 2n" % row not in counts:
                sys.exit("FAILED: %s counted %s at n but not at 2n" % (impl, row))
            records.append({"check": "%s.op.%s.instructions_per_put" % (impl, row),
                            "value": (counts["op:%s 2n" % row] - counts[label]) / OPERATOR_PUTS})
    for line in lines:
        if "check" in line and OPERATOR_CHECK.match(line["check"]):
            records.append(line)
        elif "row" in line:
            rows.append(line)
    return records, rows


def instruction_checks(args):
    """C API W1, W2, W2b, W4, W5 and ND and the FFI's NP: instructions per unit, the
    difference between each workload's counted runs at 2n and n units
    (one callgrind run per program), so that the cost of building the
    pipeline cancels; and the cost table's rows of each API whose program
    is there (C: bench_capi, C++: bench_cpp, Swift: --operator-cost)."""
    env = staged_env(args.stage)
    runs = [(program, [os.path.join(args.out, program), "--instructions"], env)
            for program in sorted({program for _, program, _, _ in INSTRUCTION_CHECKS if program != "swift"} | {"bench_cpp"})]
    if getattr(args, "operator_cost", None):
        runs.append(("swift", [args.operator_cost], None))
    # Two callgrind processes at a time (each is single-threaded but for
    # W7's worker): the stage's wall time on two idle cores about halves.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        done = {name: pool.submit(callgrind_counts, command, run_env) for name, command, run_env in runs}
    counts, lines = {}, {}
    for name, future in done.items():
        counts[name], lines[name] = future.result()
    records = []
    for name, program, label, units in INSTRUCTION_CHECKS:
        if program not in counts:
            continue  # the Swift program, when not given
        found = counts[program]
        if label + " n" not in found or label + " 2n" not in found:
            sys.exit("FAILED: %s --instructions dumped no counts for %s (got %s)" % (program, label, sorted(found)))
        records.append({"check": name, "value": (found[label + " 2n"] - found[label + " n"]) / units})
    # W7b over W7 (issues 44 and 54: a bounded deliver-on with room to
    # spare costs at most 1.2 times the unbounded one), in each API that
    # counted them; both are counted with the queue held, so the ratio
    # repeats (thresholds.json holds it).
    per_unit = {record["check"]: record["value"] for record in records}
    for impl in ("c", "swift"):
        if "%s.w7.instructions_per_event" % impl in per_unit:
            records.append({"check": "%s.w7b_over_w7.instructions_ratio" % impl,
                            "value": per_unit["%s.w7b.instructions_per_event" % impl] /
                            per_unit["%s.w7.instructions_per_event" % impl]})
    # The C API over the Swift API, per workload both counted (issue 78's
    # target: at most 1.2; thresholds.json holds each where it stands, so
    # that neither API's change moves it unseen).
    for name, _, label, _ in INSTRUCTION_CHECKS:
        if name.startswith("swift.") and label in C_OVER_SWIFT and name in per_unit:
            records.append({"check": "c_over_swift.%s.instructions_ratio" % label.lower(),
                            "value": per_unit["c." + name[len("swift."):]] / per_unit[name]})
    rows = {}
    for impl, program in (("c", "bench_capi"), ("cpp", "bench_cpp"), ("swift", "swift")):
        if program in counts:
            found, described = operator_records(impl, counts[program], lines[program])
            records += found
            rows[impl] = described
    return records, rows


def suggested_limit(name, value):
    """~10% over a measured figure; allocations: the figure rounded up to a
    hundredth, plus a tenth (the counter is process-wide: other threads'
    allocations meanwhile, libdispatch's workers and timers, land in the row
    counted, 0.012 per put seen; one more allocation per value still
    fails)."""
    if name.endswith(".allocs_per_put"):
        return round(max(math.ceil(value * 100 - 1e-6) / 100, 0) + 0.1, 2)
    return int(math.ceil(value * 1.1 / 5.0) * 5)


def rust_instruction_checks(args):
    """The Rust crate's W1, W2, W2b and W3 against the C API's, in instructions
    per unit under callgrind (Benchmarks/rust/instructions.py: each program
    run whole at two sizes, the difference divided by the units and the
    runs, the same method for both), and their ratios (issue 45: at most
    1.1)."""
    sys.path.insert(0, os.path.join(HERE, "rust"))
    import instructions  # noqa: E402  (Benchmarks/rust/instructions.py)
    env = staged_env(args.stage)
    per = instructions.per_unit({"c": os.path.join(args.out, "bench_capi"), "rust": args.rust}, env)
    units = {"W1": "event", "W2": "cycle", "W2b": "cycle", "W3": "delivery"}
    records = []
    for workload in sorted(RUST_WORKLOADS):
        name = workload.lower()
        records.append({"check": "rust.%s.instructions_per_%s" % (name, units[workload]), "value": per[workload]["rust"]})
        records.append({"check": "rust.%s_over_c.instructions_ratio" % name,
                        "value": per[workload]["rust"] / per[workload]["c"]})
    return records


def check(args):
    records = run_lines([args.alloc_check])
    records += run_lines([os.path.join(args.out, "bench_capi"), "--check"], staged_env(args.stage))
    records += run_lines([os.path.join(args.out, "bench_ffi"), "--check"], staged_env(args.stage))
    measured, _ = instruction_checks(args)
    records += measured
    records += run_lines([os.path.join(args.out, "bench_cpp"), "--check"], staged_env(args.stage))
    if args.rust:
        records += rust_instruction_checks(args)
    with open(THRESHOLDS) as f:
        thresholds = json.load(f)["max"]
    failed = 0
    seen = set()
    unlimited = []
    for record in records:
        name, value = record["check"], record["value"]
        seen.add(name)
        limit = thresholds.get(name)
        if limit is None and OPERATOR_CHECK.match(name):
            # A row of the cost table must have its limit: a new operator's
            # row fails until its limit is recorded.
            status = "FAIL (no limit)"
            failed += 1
            unlimited.append((name, value))
        elif limit is None:
            status = "info"
        elif value <= limit + 1e-9:
            status = "ok"
        else:
            status = "FAIL"
            failed += 1
        print("%-46s %12.4f  max %-10s %s" % (name, value, "-" if limit is None else limit, status))
    for name in thresholds:
        if name not in seen:
            print("%-46s %12s  max %-10s FAIL (not measured)" % (name, "-", thresholds[name]))
            failed += 1
    for name, value in unlimited:
        print("bench-check: the cost table's row %s has no limit in Benchmarks/thresholds.json (measured %.4f): "
              "record it with `make bench-costs` (it adds \"%s\": %s, ~10%% over the measured figure, and "
              "rewrites the table of docs/performance.md), then say why in a sentence of the file's \"about\""
              % (name, value, name, suggested_limit(name, value)))
    passed = sum(1 for name in thresholds if name in seen) - failed
    print("bench-check: %d passed, %d failed" % (max(passed, 0), failed))
    sys.exit(1 if failed else 0)


def costs(args):
    """make bench-costs: the cost table's rows measured as bench-check
    measures them, written to Benchmarks/costs.json with the rows'
    descriptions; docs/performance.md's table rewritten from it
    (Benchmarks/cost_table.py); a limit ~10% over the measured figure added
    to thresholds.json for each row that has none (printed)."""
    measured, rows = instruction_checks(args)
    table = {}
    for impl, described in rows.items():
        for line in described:
            entry = table.setdefault(line["row"], {"deliveries_per_put": line.get("deliveries_per_put"),
                                                   "function": line.get("function", "")})
            entry.setdefault("impls", {})
    for record in measured:
        match = OPERATOR_CHECK.match(record["check"])
        if match:
            impl, row, kind = match.groups()
            table.setdefault(row, {}).setdefault("impls", {}).setdefault(impl, {})[kind] = round(record["value"], 4)
    with open(COSTS, "w") as f:
        json.dump({"about": "Written by `make bench-costs` (Benchmarks/run.py costs): the cost table's figures "
                            "as measured, instructions and allocations per put of each row and API; "
                            "docs/performance.md's table is made from it (Benchmarks/cost_table.py).",
                   "measured": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
                   "rows": dict(sorted(table.items()))}, f, indent=1, sort_keys=False)
        f.write("\n")
    with open(THRESHOLDS) as f:
        thresholds = json.load(f)
    added = []
    for record in measured:
        name = record["check"]
        if OPERATOR_CHECK.match(name) and name not in thresholds["max"]:
            thresholds["max"][name] = suggested_limit(name, record["value"])
            added.append("%s %s (measured %.4f)" % (name, thresholds["max"][name], record["value"]))
    if added:
        with open(THRESHOLDS, "w") as f:
            json.dump(thresholds, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print("added to Benchmarks/thresholds.json (say why in the commit that adds them):\n  " + "\n  ".join(added))
    subprocess.run([sys.executable, os.path.join(HERE, "cost_table.py"), "--write"], check=True)


def self_costs(path, units, top=30):
    """Prints the self cost (instructions) of each function of the callgrind
    dump at `path` (written with --compress-strings=no), the largest first:
    the cost lines of each `fn=` block, less those that follow a `calls=`
    line (a call's inclusive cost)."""
    costs = {}
    function, after_call = None, False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("fn="):
                function, after_call = line[3:].strip(), False
            elif line.startswith("calls="):
                after_call = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                fields = line.split()
                if len(fields) >= 2 and function is not None:
                    if after_call:
                        after_call = False
                    else:
                        costs[function] = costs.get(function, 0) + int(fields[1])
    total = sum(costs.values())
    print("%12d %10.1f  total" % (total, total / units))
    for function, cost in sorted(costs.items(), key=lambda item: -item[1])[:top]:
        print("%12d %10.1f  %s" % (cost, cost / units, function[:160]))


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "self":
        units = float(sys.argv[sys.argv.index("--units") + 1]) if "--units" in sys.argv else 1.0
        self_costs(sys.argv[2], units)
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["bench", "interleave", "check", "costs"])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--out", required=True)
    parser.add_argument("--stage", required=True)
    parser.add_argument("--swift")
    parser.add_argument("--divide", type=int, default=1)
    parser.add_argument("--alloc-check")
    parser.add_argument("--rust", help="bench_rust (rsignalkit's benches/bench_rust.rs): its column in the table, its checks")
    parser.add_argument("--workloads")
    parser.add_argument("--operator-cost", help="the Swift API's cost table program (Benchmarks' OperatorCost)")
    args = parser.parse_args()
    if args.mode == "bench":
        bench(args)
    elif args.mode == "interleave":
        interleave(args)
    elif args.mode == "costs":
        costs(args)
    else:
        check(args)


if __name__ == "__main__":
    main()
