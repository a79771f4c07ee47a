// `make bench-check`: the deterministic allocation figures of the Swift API,
// one JSON line each ({"check": name, "value": number}); Benchmarks/run.py
// compares them with Benchmarks/thresholds.json. No clock is read.
//
// Each figure is a difference between two runs of different sizes, so the
// fixed cost of building and tearing down a pipeline cancels out and what is
// left is the cost per event, per cycle or per subscription.
import BenchKit
import Glibc
import MallocCounter
import SKWorkloads
import SwiftSignalKit

/// Allocations (malloc-family calls plus reallocs) and live-byte growth in
/// the probed section of one run; exits on a wrong checksum.
func counts(_ name: String, expected: Int, _ run: (Probe) -> Int) -> (allocs: Int64, liveBytes: Int64) {
    var start = mc_snapshot()
    var allocs: Int64 = 0
    var bytes: Int64 = 0
    var sawLive = false
    let probe = Probe(begin: {
        start = mc_read()
    }, end: {
        let now = mc_read()
        if !sawLive {
            allocs = Int64(now.mallocs - start.mallocs + now.reallocs - start.reallocs)
            bytes = now.live_bytes - start.live_bytes
        }
    }, live: {
        let now = mc_read()
        allocs = Int64(now.mallocs - start.mallocs + now.reallocs - start.reallocs)
        bytes = now.live_bytes - start.live_bytes
        sawLive = true
    })
    let checksum = run(probe)
    if checksum != expected {
        print("{\"check\":\"\(name)\",\"error\":\"checksum \(checksum) != expected \(expected)\"}")
        exit(1)
    }
    return (allocs, bytes)
}

func report(_ name: String, _ value: Double) {
    print("{\"check\":\"\(name)\",\"value\":\(json(value))}")
}

// Warm up the runtime (metadata caches, thread-local storage) once.
_ = SKWorkloads.w1(1000, .none)
_ = SKWorkloads.w2(cycles: 100, every: 10, .none)
_ = SKWorkloads.w3(sinks: 10, puts: 10, .none)
_ = SKWorkloads.w4(100, .none)
_ = SKWorkloads.w6(100, .none)
_ = SKWorkloads.w2b(cycles: 100, every: 10, .none)
_ = SKWorkloads.w6b(100, .none)

// W1: per source event through map → filter → map → sink.
let w1a = counts("w1", expected: Expected.w1(100_000)) { SKWorkloads.w1(100_000, $0) }
let w1b = counts("w1", expected: Expected.w1(200_000)) { SKWorkloads.w1(200_000, $0) }
report("swift.w1.allocs_per_event", Double(w1b.allocs - w1a.allocs) / 100_000)

// W2: per subscribe/dispose cycle (no puts inside the difference).
let w2a = counts("w2", expected: Expected.w2(cycles: 10_000, every: 1_000_000)) { SKWorkloads.w2(cycles: 10_000, every: 1_000_000, $0) }
let w2b = counts("w2", expected: Expected.w2(cycles: 20_000, every: 1_000_000)) { SKWorkloads.w2(cycles: 20_000, every: 1_000_000, $0) }
report("swift.w2.allocs_per_cycle", Double(w2b.allocs - w2a.allocs) / 10_000)

// W2b: the same with the pipeline built in each cycle.
let w2ba = counts("w2b", expected: Expected.w2(cycles: 10_000, every: 1_000_000)) { SKWorkloads.w2b(cycles: 10_000, every: 1_000_000, $0) }
let w2bb = counts("w2b", expected: Expected.w2(cycles: 20_000, every: 1_000_000)) { SKWorkloads.w2b(cycles: 20_000, every: 1_000_000, $0) }
report("swift.w2b.allocs_per_cycle", Double(w2bb.allocs - w2ba.allocs) / 10_000)

// W3: per put (100 sinks, 1,000 more puts) and per delivery (100 more sinks
// at 2,000 puts: what one more sink costs on every put).
let w3a = counts("w3", expected: Expected.w3(sinks: 100, puts: 1_000)) { SKWorkloads.w3(sinks: 100, puts: 1_000, $0) }
let w3b = counts("w3", expected: Expected.w3(sinks: 100, puts: 2_000)) { SKWorkloads.w3(sinks: 100, puts: 2_000, $0) }
let w3c = counts("w3", expected: Expected.w3(sinks: 200, puts: 2_000)) { SKWorkloads.w3(sinks: 200, puts: 2_000, $0) }
report("swift.w3.allocs_per_put", Double(w3b.allocs - w3a.allocs) / 1_000)
report("swift.w3.allocs_per_delivery", Double(w3c.allocs - w3b.allocs) / 200_000)

// W4: per inner signal (mapToSignal of a one-value `Signal.single`): the
// workload's own `Signal.single` (the signal and its start's context) plus
// what the switch costs.
let w4a = counts("w4", expected: Expected.sumBelow(10_000)) { SKWorkloads.w4(10_000, $0) }
let w4b = counts("w4", expected: Expected.sumBelow(20_000)) { SKWorkloads.w4(20_000, $0) }
report("swift.w4.allocs_per_event", Double(w4b.allocs - w4a.allocs) / 10_000)

// W6: live heap bytes (malloc_usable_size) and allocations per live subscription.
let w6a = counts("w6", expected: Expected.w6(10_000)) { SKWorkloads.w6(10_000, $0) }
let w6b = counts("w6", expected: Expected.w6(20_000)) { SKWorkloads.w6(20_000, $0) }
report("swift.w6.bytes_per_subscription", Double(w6b.liveBytes - w6a.liveBytes) / 10_000)
report("swift.w6.allocs_per_subscription", Double(w6b.allocs - w6a.allocs) / 10_000)

// W6b: the same with the pipeline built for each subscription.
let w6ba = counts("w6b", expected: Expected.w6(10_000)) { SKWorkloads.w6b(10_000, $0) }
let w6bb = counts("w6b", expected: Expected.w6(20_000)) { SKWorkloads.w6b(20_000, $0) }
report("swift.w6b.bytes_per_subscription", Double(w6bb.liveBytes - w6ba.liveBytes) / 10_000)
report("swift.w6b.allocs_per_subscription", Double(w6bb.allocs - w6ba.allocs) / 10_000)

// W8: allocations per subscription (subscribe map -> sink, one put, dispose) on a pipe
// of 1,000 subscriptions (the difference between 20 and 10 rounds) and on
// one of 1,000,000 (the difference between 1,000,000 and 500,000), for each
// dispose order; the checked figure at each size is the largest of the three.
// A subscription costs the same at both sizes: the bag's storage is kept
// between rounds, and its growth and shrinking are amortized to nothing.
// (bench_capi --check does the same on the C API at 1,000.)
_ = SKWorkloads.w8(subscriptions: 100, rounds: 2, order: .random, .none)
for (label, small, large, rounds) in [("1k", 1_000, 1_000, (10, 20)), ("1m", 500_000, 1_000_000, (1, 1))] {
    var worst = 0.0
    for order in DisposeOrder.allCases {
        let a = counts("w8", expected: Expected.w8(subscriptions: small, rounds: rounds.0)) {
            SKWorkloads.w8(subscriptions: small, rounds: rounds.0, order: order, $0)
        }
        let b = counts("w8", expected: Expected.w8(subscriptions: large, rounds: rounds.1)) {
            SKWorkloads.w8(subscriptions: large, rounds: rounds.1, order: order, $0)
        }
        let perSubscription = Double(b.allocs - a.allocs) / Double(large * rounds.1 - small * rounds.0)
        report("swift.w8.allocs_per_subscription_\(label).\(order.rawValue)", perSubscription)
        worst = max(worst, perSubscription)
    }
    report("swift.w8.allocs_per_subscription_\(label)", worst)
}

// W9: allocations per delivery, ten sinks on a pipe, the puts from one
// thread (the difference between 20,000 and 10,000 puts). Two threads are
// not checked: what they allocate depends on how often their puts overlap.
let w9a = counts("w9", expected: Expected.w9(sinks: 10, puts: 10_000)) { SKWorkloads.w9(threads: 1, sinks: 10, puts: 10_000, $0) }
let w9b = counts("w9", expected: Expected.w9(sinks: 10, puts: 20_000)) { SKWorkloads.w9(threads: 1, sinks: 10, puts: 20_000, $0) }
report("swift.w9.allocs_per_delivery", Double(w9b.allocs - w9a.allocs) / 100_000)

// W10: allocations per round through the synchronous operators of issue 33:
// a pipe through scan -> skip -> skipWhile -> takeWhile -> startWith ->
// pairwise -> map -> withLatestFrom, zipped with a second pipe, into a sink;
// one put into each pipe per round (the difference between 20,000 and
// 10,000 rounds). The target is none: these operators keep their state in
// place (a zip's waiting queue keeps its capacity).
func w10(_ rounds: Int, _ probe: Probe) -> Int {
    let a = ValuePipe<Int>()
    let b = ValuePipe<Int>()
    let other = Signal<Int, NoError>.single(1)
    let left = a.signal()
        |> scan(0, &+)
        |> skip(1)
        |> skipWhile { $0 < 0 }
        |> takeWhile { $0 >= 0 }
        |> startWith(0)
        |> pairwise
        |> map { $0.1 &- $0.0 }
        |> withLatestFrom(other)
        |> map { $0.0 &+ $0.1 }
    var sum = 0
    let disposable = zip(left, b.signal()).start(next: { pair in
        sum = sum &+ pair.0 &+ pair.1
    })
    // The first round fills the startWith and the skip: not counted.
    a.putNext(1)
    b.putNext(0)
    probe.begin()
    for i in 0 ..< rounds {
        a.putNext(1)
        b.putNext(i)
    }
    probe.end()
    disposable.dispose()
    return sum
}
// W5z and W5s: allocations per put through zip (two pipes) and scan.
_ = SKWorkloads.w5zip(100, .none)
let w5za = counts("w5z", expected: Expected.w5zip(10_000)) { SKWorkloads.w5zip(10_000, $0) }
let w5zb = counts("w5z", expected: Expected.w5zip(20_000)) { SKWorkloads.w5zip(20_000, $0) }
report("swift.w5z.allocs_per_put", Double(w5zb.allocs - w5za.allocs) / 10_000)
_ = SKWorkloads.w5scan(100, .none)
let w5sa = counts("w5s", expected: Expected.w5scan(10_000)) { SKWorkloads.w5scan(10_000, $0) }
let w5sb = counts("w5s", expected: Expected.w5scan(20_000)) { SKWorkloads.w5scan(20_000, $0) }
report("swift.w5s.allocs_per_put", Double(w5sb.allocs - w5sa.allocs) / 10_000)

_ = w10(100, .none)
let w10a = counts("w10", expected: w10(10_000, .none)) { w10(10_000, $0) }
let w10b = counts("w10", expected: w10(20_000, .none)) { w10(20_000, $0) }
report("swift.w10.allocs_per_round", Double(w10b.allocs - w10a.allocs) / 10_000)
