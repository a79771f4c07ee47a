// W1-W7 on OpenCombine 0.14.0 (W8 and W9: SwiftBench, see Benchmarks/README.md) under ordo-one's package-benchmark:
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark
// Each benchmark runs one repetition per iteration; the workload's probe starts
// and stops the harness's measurement around the timed section.
import Benchmark
import BenchKit
import OCWorkloads

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
    Benchmark("W1 map-filter-map chain") { b in check(OCWorkloads.w1(s.w1Events, probe(b)), Expected.w1(s.w1Events)) }
    Benchmark("W2 subscribe-dispose") { b in check(OCWorkloads.w2(cycles: s.w2Cycles, every: s.w2PutEvery, probe(b)), Expected.w2(cycles: s.w2Cycles, every: s.w2PutEvery)) }
    Benchmark("W3 fan-out") { b in check(OCWorkloads.w3(sinks: s.w3Sinks, puts: s.w3Puts, probe(b)), Expected.w3(sinks: s.w3Sinks, puts: s.w3Puts)) }
    Benchmark("W4 switch churn") { b in check(OCWorkloads.w4(s.w4Events, probe(b)), Expected.sumBelow(s.w4Events)) }
    Benchmark("W5 combine-latest") { b in check(OCWorkloads.w5(s.w5Puts, probe(b)), Expected.w5(s.w5Puts)) }
    Benchmark("W6 live subscriptions") { b in check(OCWorkloads.w6(s.w6Subscriptions, probe(b)), Expected.w6(s.w6Subscriptions)) }
    Benchmark("W7 queue hop") { b in check(OCWorkloads.w7(s.w7Events, probe(b)), Expected.sumBelow(s.w7Events)) }
}
