// The cost table's Swift rows (issue 41; Benchmarks/README.md, "Per-operator
// cost"), run by `make bench-check` under callgrind (Benchmarks/run.py, one
// process): one operator between a pipe and a plain subscriber
// (`start(next:)`), the shape a user writes, for every C operator of the
// operator table. The rows are generated (Operators.generated.swift, by
// tools/api/operators.py from the table's Swift names and the operators'
// shapes); the few whose Swift call is not their shape's are below (the
// reason for each is in operators.py's COST_SWIFT_BY_HAND). What each operator is given is
// CostRows.h's, as for the C and C++ programs. Each row runs at 2,000 and
// 4,000 puts, counted under the labels "op:ROW n" and "op:ROW 2n"; its
// allocations and deliveries per put are printed as JSON lines.
import BenchKit
import CostRows
import Dispatch
import Glibc
import MallocCounter
import SKWorkloads
import SwiftSignalKit

/// What one row's operator is given, and what its subscriber counted. One
/// thread only (the virtual-time queue runs on the thread advancing it).
final class CostArguments {
    let row: String
    let pipe = ValuePipe<Int>()
    let signalPipe = ValuePipe<Signal<Int, NoError>>()
    let source: Signal<Int, NoError>
    let count: Int
    let predicate: (Int) -> Bool
    let map: (Int) -> Int
    let fold: (Int, Int) -> Int = { $0 &+ $1 }
    let look: (Int) -> Void = { _ in }
    let work: () -> Void = {}
    private(set) var usedQueue: Queue?
    private var keep: [AnyObject] = []
    let sink = CostSink()

    init(_ row: String) {
        self.row = row
        source = pipe.signal()
        count = Int(cost_count(row))
        predicate = cost_predicate_holds(row) ? { _ in true } : { _ in false }
        map = cost_constant_key(row) ? { _ in 0 } : { $0 &+ 1 }
    }

    /// The same pipe's signals, for the operators of a signal of signals.
    var signals: Signal<Signal<Int, NoError>, NoError> { signalPipe.signal() }

    /// A virtual-time queue, advanced after the start and after the puts.
    var queue: Queue {
        if let queue = usedQueue {
            return queue
        }
        let queue = Queue.virtualTime(name: "cost")
        usedQueue = queue
        return queue
    }

    /// A second pipe that never emits (with_latest_from: a replaying one
    /// holding one value).
    var other: Signal<Int, NoError> {
        if cost_replaying_other(row) {
            let promise = ValuePromise(0)
            keep.append(promise)
            return promise.get()
        }
        let other = ValuePipe<Int>()
        keep.append(other)
        return other.signal()
    }

    /// The plain subscriber: counts what it is given.
    func start<T>(_ signal: Signal<T, NoError>) -> Disposable {
        let sink = self.sink
        return signal.start(next: { _ in sink.deliveries &+= 1 })
    }
}

final class CostSink {
    var deliveries = 0
}

/// A row: its name (the C function's without `sk_signal_`), whether its
/// input is a signal of signals (each put is then one), and its pipeline.
struct CostRow {
    let name: String
    let signals: Bool
    let build: (CostArguments) -> Disposable

    init(_ name: String, signals: Bool, _ build: @escaping (CostArguments) -> Disposable) {
        self.name = name
        self.signals = signals
        self.build = build
    }
}

/// The signal functions' (map_to_signal, merge_map, catch): a one-value
/// signal. A generic function: catch's is called with an error of NoError,
/// which has no values, where a closure would be code that never runs.
func singleOf<V>(_ value: V) -> Signal<Int, NoError> {
    .single(1)
}

/// The rows that are no operator (bare, buffer_count_100, deliver_on_each:
/// deliver_on with a dispatch per value), and those whose
/// Swift call is not their shape's (tools/api/operators.py,
/// COST_SWIFT_BY_HAND, says why each).
let rowsByHand: [CostRow] = [
    CostRow("bare", signals: false) { a in a.start(a.source) },
    CostRow("buffer_count_100", signals: false) { a in a.start(a.source |> buffer(count: 100)) },
    CostRow("combine_latest", signals: false) { a in a.start(combineLatest(a.source, a.source)) },
    CostRow("zip", signals: false) { a in a.start(zip(a.source, a.source)) },
    CostRow("last", signals: false) { a in a.start(last(signal: a.source)) },
    CostRow("reduce_left", signals: false) { a in a.start(a.source |> reduceLeft(value: 0, f: a.fold)) },
    CostRow("deliver_on_each", signals: false) { a in a.start(a.source |> deliverOn(a.queue)) },
]

/// One row: build, start, `puts` puts, dispose; the values delivered.
func run(_ costRow: CostRow, puts: Int) -> Int {
    let row = costRow.name
    let a = CostArguments(row)
    let disposable = costRow.build(a)
    let advance = { (queue: Queue) in
        do {
            _ = try queue.advance(by: COST_ADVANCE)
        } catch {
            print("{\"impl\":\"swift\",\"workload\":\"op:\(row)\",\"error\":\"the virtual queue: \(error)\"}")
            exit(1)
        }
    }
    if let queue = a.usedQueue {
        advance(queue)
    }
    if costRow.signals {
        let one = Signal<Int, NoError>.single(1)
        for _ in 0 ..< puts {
            a.signalPipe.putNext(one)
        }
    } else {
        let each = cost_advance_each_put(row) ? a.usedQueue : nil
        for i in 0 ..< puts {
            a.pipe.putNext(i)
            if let queue = each {
                advance(queue)
            }
        }
    }
    if let queue = a.usedQueue {
        advance(queue)
    }
    disposable.dispose()
    return a.sink.deliveries
}

func allocations() -> Int64 {
    let now = mc_read()
    return Int64(now.mallocs + now.reallocs)
}

func measure(_ costRow: CostRow) {
    let row = costRow.name
    let puts = Int(COST_PUTS)
    let labelN = "op:\(row) n"
    let label2N = "op:\(row) 2n"
    _ = run(costRow, puts: 100)
    let s0 = allocations()
    cost_counted_begin()
    let a = run(costRow, puts: puts)
    cost_counted_end(labelN)
    let s1 = allocations()
    cost_counted_begin()
    let b = run(costRow, puts: 2 * puts)
    cost_counted_end(label2N)
    let s2 = allocations()
    let expected = puts * Int(cost_deliveries_hundredths(row)) / 100
    if b - a != expected {
        print("{\"impl\":\"swift\",\"workload\":\"op:\(row)\",\"error\":\"\(b - a) more deliveries for \(puts) more puts, expected \(expected)\"}")
        exit(1)
    }
    let perPut = Double((s2 - s1) - (s1 - s0)) / Double(puts)
    print("{\"check\":\"swift.op.\(row).allocs_per_put\",\"value\":\(perPut)}")
    print("{\"row\":\"\(row)\",\"impl\":\"swift\",\"deliveries_per_put\":\(Double(b - a) / Double(puts))}")
}

/// W7 and W7b as bench_capi's `--instructions` counts them (its `w7_run`
/// with `held`): a pipe, `deliverOn` a serial queue (W7b: the bounded form
/// with room to spare, a capacity of 2n under `fail`), a summing sink; the
/// queue held busy while the n values are put, then let go, so that one
/// drain delivers them all and the count is the same every run. Both
/// threads' instructions are counted. Returns the sum.
func w7Held(_ n: Int, bounded: Bool) -> Int {
    let queue = Queue(name: "bench.w7.swift")
    let pipe = ValuePipe<Int>()
    let hold = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let sum = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    sum.initialize(to: 0)
    defer { sum.deallocate() }
    let delivered: Signal<Int, NoError> = bounded
        ? pipe.signal() |> deliverOn(queue, capacity: 2 * n, overflow: .fail({ _ in preconditionFailure("W7b overflowed") }))
        : pipe.signal() |> deliverOn(queue)
    let last = n - 1
    let disposable = delivered.start(next: { value in
        sum.pointee &+= value
        if value == last {
            done.signal()
        }
    })
    queue.justDispatch {
        hold.wait()
    }
    for i in 0 ..< n {
        pipe.putNext(i)
    }
    hold.signal()
    done.wait()
    disposable.dispose()
    return sum.pointee
}

/// Counts W7 and W7b at 20,000 and 40,000 events ("W7 n", "W7 2n", ...),
/// each checked against its sum.
func measureW7() {
    for (label, bounded) in [("W7", false), ("W7b", true)] {
        _ = w7Held(100, bounded: bounded)
        for (suffix, n) in [("n", 20_000), ("2n", 40_000)] {
            cost_counted_begin()
            let sum = w7Held(n, bounded: bounded)
            cost_counted_end("\(label) \(suffix)")
            if sum != n * (n - 1) / 2 {
                print("{\"impl\":\"swift\",\"workload\":\"\(label)\",\"error\":\"sum \(sum), expected \(n * (n - 1) / 2)\"}")
                exit(1)
            }
        }
    }
}

/// The workloads whose C API count bench_capi's `--instructions` also
/// makes (issue 78: the C API at most 1.2 times the Swift API per unit),
/// as the timed suite runs them (SKWorkloads): each at two sizes, counted
/// under "LABEL n" and "LABEL 2n", the difference the cost of the units
/// added (building and disposing cancel), checked against its sum computed
/// plainly. The sizes are bench_capi's; a unit is W1's source event, a W3
/// or W3s delivery (the puts double, the sinks stay), a W5, W5z or W5s put.
func measureWorkloads() {
    func sumBelow(_ n: Int) -> Int { n * (n - 1) / 2 }
    func expectedW1(_ n: Int) -> Int {
        var sum = 0
        for i in 0 ..< n where (i + 1) % 2 == 0 {
            sum &+= (i + 1) * 2
        }
        return sum
    }
    func expectedW5(_ n: Int) -> Int {
        var latest = [0, 0], seen = [false, false], sum = 0
        for i in 0 ..< n {
            latest[i % 2] = i
            seen[i % 2] = true
            if seen[0] && seen[1] {
                sum &+= latest[0] &+ latest[1]
            }
        }
        return sum
    }
    func expectedW5s(_ n: Int) -> Int {
        var running = 0, sum = 0
        for i in 0 ..< n {
            running &+= i
            sum &+= running
        }
        return sum
    }
    let none = Probe.none
    let workloads: [(label: String, n: Int, run: (Int) -> Int, expected: (Int) -> Int)] = [
        ("W1", 50_000, { SKWorkloads.w1($0, none) }, expectedW1),
        ("W3", 20, { SKWorkloads.w3(sinks: 1_000, puts: $0, none) }, { 1_000 * sumBelow($0) }),
        ("W3s", 100, { SKWorkloads.w3share(sinks: 100, puts: $0, none) }, { 100 * sumBelow($0) }),
        ("W5", 10_000, { SKWorkloads.w5($0, none) }, expectedW5),
        ("W5z", 10_000, { SKWorkloads.w5zip($0, none) }, { sumBelow($0 - $0 % 2) }),
        ("W5s", 10_000, { SKWorkloads.w5scan($0, none) }, expectedW5s),
    ]
    for workload in workloads where only?.contains(workload.label) ?? true {
        _ = workload.run(10)
        for (suffix, n) in [("n", workload.n), ("2n", 2 * workload.n)] {
            cost_counted_begin()
            let sum = workload.run(n)
            cost_counted_end("\(workload.label) \(suffix)")
            if sum != workload.expected(n) {
                print("{\"impl\":\"swift\",\"workload\":\"\(workload.label)\",\"error\":\"sum \(sum), expected \(workload.expected(n))\"}")
                exit(1)
            }
        }
    }
}

// COST_ONLY=ROW[,ROW...]: those rows only (W7: W7 and W7b; W1, W3, W3s,
// W5, W5z, W5s: that workload), to profile one (Benchmarks/README.md,
// "Running").
let only: Set<String>? = getenv("COST_ONLY").map { Set(String(cString: $0).split(separator: ",").map(String.init)) }
if only?.contains("W7") ?? true {
    measureW7()
}
measureWorkloads()
var seen = Set<String>()
for row in rowsByHand + generatedCostRows() {
    if !seen.insert(row.name).inserted {
        print("{\"impl\":\"swift\",\"workload\":\"op:\(row.name)\",\"error\":\"two rows named \(row.name)\"}")
        exit(1)
    }
    if only?.contains(row.name) ?? true {
        measure(row)
    }
}
