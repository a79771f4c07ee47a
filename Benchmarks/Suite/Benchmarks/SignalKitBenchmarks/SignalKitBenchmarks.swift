// W1-W9 and ND on SwiftSignalKit under ordo-one's package-benchmark:
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark
// Each benchmark runs one repetition per iteration; the workload's probe starts
// and stops the harness's measurement around the timed section.
import Benchmark
import BenchKit
import SKWorkloads

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .memoryLeaked, .peakMemoryResident],
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 5
    )
    let s = Sizes.standard
    func probe(_ benchmark: Benchmark) -> Probe {
        return Probe(begin: { benchmark.startMeasurement() }, end: { benchmark.stopMeasurement() })
    }
    func check(_ got: Int, _ expected: Int) {
        precondition(got == expected, "checksum \(got) != \(expected)")
    }
    Benchmark("W1 map-filter-map chain") { b in check(SKWorkloads.w1(s.w1Events, probe(b)), Expected.w1(s.w1Events)) }
    Benchmark("W2 subscribe-dispose") { b in check(SKWorkloads.w2(cycles: s.w2Cycles, every: s.w2PutEvery, probe(b)), Expected.w2(cycles: s.w2Cycles, every: s.w2PutEvery)) }
    Benchmark("W3 fan-out") { b in check(SKWorkloads.w3(sinks: s.w3Sinks, puts: s.w3Puts, probe(b)), Expected.w3(sinks: s.w3Sinks, puts: s.w3Puts)) }
    Benchmark("W4 switch churn") { b in check(SKWorkloads.w4(s.w4Events, probe(b)), Expected.sumBelow(s.w4Events)) }
    Benchmark("W5 combine-latest") { b in check(SKWorkloads.w5(s.w5Puts, probe(b)), Expected.w5(s.w5Puts)) }
    Benchmark("W6 live subscriptions") { b in check(SKWorkloads.w6(s.w6Subscriptions, probe(b)), Expected.w6(s.w6Subscriptions)) }
    Benchmark("W7 queue hop") { b in check(SKWorkloads.w7(s.w7Events, probe(b)), Expected.sumBelow(s.w7Events)) }
    for (label, subscriptions, rounds) in [("1k", s.w8Small, s.w8SmallRounds), ("1M", s.w8Large, 1)] {
        for order in DisposeOrder.allCases {
            Benchmark("W8 scale \(label), \(order.label)") { b in
                check(SKWorkloads.w8(subscriptions: subscriptions, rounds: rounds, order: order, probe(b)),
                      Expected.w8(subscriptions: subscriptions, rounds: rounds))
            }
        }
    }
    for threads in [1, 2] {
        Benchmark("W9 contention, \(threads) putting thread\(threads == 1 ? "" : "s")") { b in
            check(SKWorkloads.w9(threads: threads, sinks: s.w9Sinks, puts: s.w9Puts, probe(b)), Expected.w9(sinks: s.w9Sinks, puts: s.w9Puts))
        }
    }
    for (label, depth, rounds) in [("1k", s.ndSmall, s.ndSmallRounds), ("1M", s.ndLarge, 1)] {
        for kind in NestedKind.allCases {
            Benchmark("ND nested disposal \(label), \(kind.rawValue)") { b in
                check(SKWorkloads.nested(depth: depth, rounds: rounds, kind: kind, probe(b)), Expected.nested(rounds: rounds))
            }
        }
    }
}
