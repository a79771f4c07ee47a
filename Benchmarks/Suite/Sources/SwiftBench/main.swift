// `make bench` runs this (through Benchmarks/run.py): every workload on every
// Swift implementation, a warm-up then `--reps` repetitions, and one JSON line
// per (implementation, workload) with the median time per unit and the
// allocations counted in the timed section (MallocCounter). A wrong checksum
// fails the run.
import BenchKit
import Glibc
import MallocCounter
import OCWorkloads
import SKWorkloads

struct Workload {
    /// "W1"..."W7"; the W8 variants are "W8-<size>-<order>" (size "1k" or
    /// "1M"), W9's "W9-1t" and "W9-2t" (one thread, two), ND's
    /// "ND-<size>-<kind>".
    let id: String
    let unit: String
    let units: Int
    let expected: Int
    let run: (Probe) -> Int
    /// False for what runs only when `--workloads` names it: OpenCombine's
    /// W8, whose subscriptions cost some 12 µs each (seven runs of a million
    /// would add minutes to `make bench`).
    var byDefault = true
}

func workloads(_ impl: String, _ s: Sizes) -> [Workload] {
    let sk = impl == "swift"
    return [
        Workload(id: "W1", unit: "event", units: s.w1Events, expected: Expected.w1(s.w1Events),
                 run: { sk ? SKWorkloads.w1(s.w1Events, $0) : OCWorkloads.w1(s.w1Events, $0) }),
        Workload(id: "W2", unit: "cycle", units: s.w2Cycles, expected: Expected.w2(cycles: s.w2Cycles, every: s.w2PutEvery),
                 run: { sk ? SKWorkloads.w2(cycles: s.w2Cycles, every: s.w2PutEvery, $0) : OCWorkloads.w2(cycles: s.w2Cycles, every: s.w2PutEvery, $0) }),
        Workload(id: "W3", unit: "delivery", units: s.w3Sinks * s.w3Puts, expected: Expected.w3(sinks: s.w3Sinks, puts: s.w3Puts),
                 run: { sk ? SKWorkloads.w3(sinks: s.w3Sinks, puts: s.w3Puts, $0) : OCWorkloads.w3(sinks: s.w3Sinks, puts: s.w3Puts, $0) }),
        Workload(id: "W4", unit: "event", units: s.w4Events, expected: Expected.sumBelow(s.w4Events),
                 run: { sk ? SKWorkloads.w4(s.w4Events, $0) : OCWorkloads.w4(s.w4Events, $0) }),
        Workload(id: "W5", unit: "put", units: s.w5Puts, expected: Expected.w5(s.w5Puts),
                 run: { sk ? SKWorkloads.w5(s.w5Puts, $0) : OCWorkloads.w5(s.w5Puts, $0) }),
        Workload(id: "W6", unit: "subscription", units: s.w6Subscriptions, expected: Expected.w6(s.w6Subscriptions),
                 run: { sk ? SKWorkloads.w6(s.w6Subscriptions, $0) : OCWorkloads.w6(s.w6Subscriptions, $0) }),
        Workload(id: "W7", unit: "event", units: s.w7Events, expected: Expected.sumBelow(s.w7Events),
                 run: { sk ? SKWorkloads.w7(s.w7Events, $0) : OCWorkloads.w7(s.w7Events, $0) }),
    ] + (sk ? builtPerSubscriptionWorkloads(s) : []) + w8Workloads(impl, s) + w9Workloads(impl, s)
        + (sk ? ndWorkloads(s) : ocSequenceWorkloads(s))
}

/// W2b and W6b (Swift API): W2 and W6 with the pipeline built where each
/// subscription is made; W5z and W5s, W5's shape through zip and scan; W3s,
/// one pipe shared by 100 subscribers, ten times W3's puts.
func builtPerSubscriptionWorkloads(_ s: Sizes) -> [Workload] {
    let w3sSinks = 100, w3sPuts = s.w3Puts * 10
    return [
        Workload(id: "W3s", unit: "delivery", units: w3sSinks * w3sPuts, expected: Expected.w3(sinks: w3sSinks, puts: w3sPuts),
                 run: { SKWorkloads.w3share(sinks: w3sSinks, puts: w3sPuts, $0) }),
        Workload(id: "W5z", unit: "put", units: s.w5Puts, expected: Expected.w5zip(s.w5Puts),
                 run: { SKWorkloads.w5zip(s.w5Puts, $0) }),
        Workload(id: "W5s", unit: "put", units: s.w5Puts, expected: Expected.w5scan(s.w5Puts),
                 run: { SKWorkloads.w5scan(s.w5Puts, $0) }),
        Workload(id: "W2b", unit: "cycle", units: s.w2Cycles, expected: Expected.w2(cycles: s.w2Cycles, every: s.w2PutEvery),
                 run: { SKWorkloads.w2b(cycles: s.w2Cycles, every: s.w2PutEvery, $0) }),
        Workload(id: "W6b", unit: "subscription", units: s.w6Subscriptions, expected: Expected.w6(s.w6Subscriptions),
                 run: { SKWorkloads.w6b(s.w6Subscriptions, $0) }),
    ]
}

/// W1 and W4 on OpenCombine written with `(0..<n).publisher` as the source
/// (whose `map` and `filter` are eager: see OCWorkloads.w1Sequence), for
/// comparison with the W1 and W4 columns: "W1-seq", "W4-seq".
func ocSequenceWorkloads(_ s: Sizes) -> [Workload] {
    return [
        Workload(id: "W1-seq", unit: "event", units: s.w1Events, expected: Expected.w1(s.w1Events),
                 run: { OCWorkloads.w1Sequence(s.w1Events, $0) }),
        Workload(id: "W4-seq", unit: "event", units: s.w4Events, expected: Expected.sumBelow(s.w4Events),
                 run: { OCWorkloads.w4Sequence(s.w4Events, $0) }),
    ]
}

/// W9: the puts from one thread, then from two at once.
func w9Workloads(_ impl: String, _ s: Sizes) -> [Workload] {
    return [1, 2].map { threads in
        Workload(id: "W9-\(threads)t", unit: "delivery", units: s.w9Sinks * s.w9Puts,
                 expected: Expected.w9(sinks: s.w9Sinks, puts: s.w9Puts),
                 run: {
                     impl == "swift" ? SKWorkloads.w9(threads: threads, sinks: s.w9Sinks, puts: s.w9Puts, $0)
                         : OCWorkloads.w9(threads: threads, sinks: s.w9Sinks, puts: s.w9Puts, $0)
                 })
    }
}

/// W8: the small pipe over its rounds and the large one, each disposed in
/// the three orders.
func w8Workloads(_ impl: String, _ s: Sizes) -> [Workload] {
    var result: [Workload] = []
    for (label, subscriptions, rounds) in [(sizeLabel(s.w8Small), s.w8Small, s.w8SmallRounds), (sizeLabel(s.w8Large), s.w8Large, 1)] {
        for order in DisposeOrder.allCases {
            result.append(Workload(id: "W8-\(label)-\(order.rawValue)", unit: "subscription", units: subscriptions * rounds,
                                   expected: Expected.w8(subscriptions: subscriptions, rounds: rounds),
                                   run: {
                                       impl == "swift" ? SKWorkloads.w8(subscriptions: subscriptions, rounds: rounds, order: order, $0)
                                           : OCWorkloads.w8(subscriptions: subscriptions, rounds: rounds, order: order, $0)
                                   }, byDefault: impl == "swift"))
        }
    }
    return result
}

/// ND (SwiftSignalKit only: OpenCombine has no containers of
/// disposables): the shallow nesting over its rounds and the deep one, of
/// each kind: "ND-1k-meta" ... "ND-1M-dict".
func ndWorkloads(_ s: Sizes) -> [Workload] {
    var result: [Workload] = []
    for (label, depth, rounds) in [(sizeLabel(s.ndSmall), s.ndSmall, s.ndSmallRounds), (sizeLabel(s.ndLarge), s.ndLarge, 1)] {
        for kind in NestedKind.allCases {
            result.append(Workload(id: "ND-\(label)-\(kind.rawValue)", unit: "container", units: depth * rounds,
                                   expected: Expected.nested(rounds: rounds),
                                   run: { SKWorkloads.nested(depth: depth, rounds: rounds, kind: kind, $0) }))
        }
    }
    return result
}

/// 1000 -> "1k", 1000000 -> "1M" (other sizes as they are).
func sizeLabel(_ n: Int) -> String {
    if n >= 1_000_000 && n % 1_000_000 == 0 {
        return "\(n / 1_000_000)M"
    }
    if n >= 1_000 && n % 1_000 == 0 {
        return "\(n / 1_000)k"
    }
    return "\(n)"
}

struct Sample {
    var ns: UInt64 = 0
    var mallocs: UInt64 = 0
    var reallocs: UInt64 = 0
    var liveBytes: Int64 = 0
    var heapBytes: Int64 = 0
    var rssBytes: Int64 = 0
    /// W8: the time of each phase (`Probe.Phase`), summed over the rounds.
    var phaseNs: [UInt64] = [0, 0, 0]
}

/// Runs `workload` once, returning what the probe saw; exits on a wrong checksum.
func measure(_ impl: String, _ workload: Workload) -> Sample {
    var sample = Sample()
    var start = mc_snapshot()
    var startNs: UInt64 = 0
    var startHeap: Int64 = 0
    var startRss: Int64 = 0
    var sawLive = false
    var phase = -1
    var phaseStart: UInt64 = 0
    let probe = Probe(begin: {
        startHeap = mc_heap_in_use()
        startRss = mc_rss_bytes()
        start = mc_read()
        startNs = mc_now_ns()
    }, end: {
        let ns = mc_now_ns()
        let now = mc_read()
        sample.ns = ns - startNs
        if phase >= 0 {
            sample.phaseNs[phase] += ns - phaseStart
        }
        if !sawLive {
            sample.mallocs = now.mallocs - start.mallocs
            sample.reallocs = now.reallocs - start.reallocs
            sample.liveBytes = now.live_bytes - start.live_bytes
        }
    }, live: {
        let now = mc_read()
        sample.mallocs = now.mallocs - start.mallocs
        sample.reallocs = now.reallocs - start.reallocs
        sample.liveBytes = now.live_bytes - start.live_bytes
        sample.heapBytes = mc_heap_in_use() - startHeap
        sample.rssBytes = mc_rss_bytes() - startRss
        sawLive = true
    }, phase: { next in
        let ns = mc_now_ns()
        if phase >= 0 {
            sample.phaseNs[phase] += ns - phaseStart
        }
        phase = next.rawValue
        phaseStart = ns
    })
    let checksum = workload.run(probe)
    if checksum != workload.expected {
        print("{\"impl\":\"\(impl)\",\"workload\":\"\(workload.id)\",\"error\":\"checksum \(checksum) != expected \(workload.expected)\"}")
        fflush(nil)
        exit(1)
    }
    return sample
}

func median<T: Comparable>(_ values: [T]) -> T {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}


var reps = 5
var only: Set<String>? = nil
var impls = ["swift", "opencombine"]
var divide = 1
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--reps": reps = Int(arguments.next() ?? "") ?? reps
    case "--workloads": only = Set((arguments.next() ?? "").split(separator: ",").map(String.init))  // W8 selects every W8-*, W9 every W9-*
    case "--impls": impls = (arguments.next() ?? "").split(separator: ",").map(String.init)
    case "--divide": divide = max(1, Int(arguments.next() ?? "") ?? 1)  // smaller sizes, for profiling
    default:
        print("usage: SwiftBench [--reps N] [--workloads W1,W2,W8,W8-1M-random,W9,ND] [--impls swift,opencombine] [--divide N]")
        exit(2)
    }
}

for impl in impls {
    for workload in workloads(impl, Sizes.standard.divided(by: divide))
    where only.map({ $0.contains(workload.id) || $0.contains(String(workload.id.prefix { $0 != "-" })) }) ?? workload.byDefault {
        // Timed repetitions without counting (the counter's atomics would
        // weigh on the times), then one counted repetition.
        mc_set_enabled(0)
        _ = measure(impl, workload)  // warm-up
        var samples: [Sample] = []
        for _ in 0 ..< reps {
            samples.append(measure(impl, workload))
        }
        mc_set_enabled(1)
        let counted = measure(impl, workload)
        mc_set_enabled(0)
        let units = Double(workload.units)
        let nsPerUnit = samples.map { Double($0.ns) / units }
        var line = "{\"impl\":\"\(impl)\",\"workload\":\"\(workload.id)\",\"unit\":\"\(workload.unit)\",\"units\":\(workload.units)"
        line += ",\"reps\":\(reps),\"ns_median\":\(json(median(nsPerUnit))),\"ns_min\":\(json(nsPerUnit.min()!))"
        line += ",\"allocs_per_unit\":\(json(Double(counted.mallocs) / units))"
        line += ",\"reallocs_per_unit\":\(json(Double(counted.reallocs) / units))"
        // W8's phases; ND's are the nesting ("subscribe") and the dispose
        // and release ("dispose").
        if workload.id.hasPrefix("W8") || workload.id.hasPrefix("ND") {
            for (index, name) in ["subscribe", "deliver", "dispose"].enumerated() {
                line += ",\"\(name)_ns_median\":\(json(median(samples.map { Double($0.phaseNs[index]) / units })))"
            }
        }
        if workload.id == "W6" || workload.id == "W6b" {
            line += ",\"live_bytes_per_unit\":\(json(Double(counted.liveBytes) / units))"
            line += ",\"heap_bytes_per_unit\":\(json(Double(counted.heapBytes) / units))"
            line += ",\"rss_bytes_per_unit\":\(json(Double(counted.rssBytes) / units))"
        }
        line += ",\"checksum\":\"ok\"}"
        print(line)
        fflush(nil)
    }
}
