// The cost table's Swift rows (issue 41; Benchmarks/README.md, "Per-operator
// cost"), run by `make bench-check` under callgrind (Benchmarks/run.py, one
// process): one operator between a pipe and a plain subscriber
// (`start(next:)`), the shape a user writes, for every operator of the
// operator table with a Swift name. The rows of a standard shape are
// generated (Operators.generated.swift, by tools/api/operators.py from the
// table's Swift names, the shape read from the C function); the others are
// below (the reason for each generated row written here is in
// operators.py's COST_SWIFT_BY_HAND). What each operator is given is
// CostRows.h's, as for the C and C++ programs. Each row runs at 2,000 and
// 4,000 puts, counted under the labels "op:ROW n" and "op:ROW 2n"; its
// allocations and deliveries per put are printed as JSON lines.
import CostRows
import Glibc
import MallocCounter
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

/// catch's function: the pipe never fails, so it is never called (a
/// generic function: a closure over NoError, which has no values, would be
/// code that never runs).
func recoverWithZero<E>(_ error: E) -> Signal<Int, NoError> {
    .single(0)
}

let rowsByHand: [(String, (CostArguments) -> Disposable)] = [
    ("bare", { a in a.start(a.source) }),
    ("buffer_count_100", { a in a.start(a.source |> buffer(count: 100)) }),
    ("combine_latest", { a in a.start(combineLatest(a.source, a.source)) }),
    ("zip", { a in a.start(zip(a.source, a.source)) }),
    ("take_while", { a in a.start(a.source |> takeWhile(a.predicate)) }),
    ("take_until", { a in a.start(a.source |> take(until: { _ in SignalTakeAction(passthrough: true, complete: false) })) }),
    ("map_to_signal", { a in a.start(a.source |> mapToSignal { Signal<Int, NoError>.single($0) }) }),
    ("merge_map", { a in a.start(a.source |> mergeMap(maxConcurrent: 2) { Signal<Int, NoError>.single($0) }) }),
    ("catch", { a in a.start(a.source |> `catch`(recoverWithZero)) }),
    ("retry", { a in a.start(a.source |> retry(COST_SECONDS, maxDelay: 1, onQueue: a.queue)) }),
    ("retry_count", { a in a.start(a.source |> retry(count: 3)) }),
    ("timeout", { a in a.start(a.source |> timeout(3600, queue: a.queue, alternate: a.other)) }),
    ("deferred", { a in
        let source = a.source
        return a.start(deferred { source })
    }),
    ("on_backpressure_buffer", { a in a.start(a.source |> onBackpressureBuffer(capacity: 1000, overflow: .dropNewest)) }),
    ("deliver_on_bounded", { a in a.start(a.source |> deliverOn(a.queue, capacity: 1 << 20, overflow: .dropNewest)) }),
    ("zip_bounded", { a in a.start(zip(a.source, a.source, capacity: 1 << 20, overflow: .dropNewest)) }),
    ("merge_map_bounded", { a in
        a.start(a.source |> mergeMap(maxConcurrent: 2, capacity: 1 << 20, overflow: .dropNewest) { Signal<Int, NoError>.single($0) })
    }),
    ("queue_bounded", { a in a.start(a.signals |> mergeMap(maxConcurrent: 1, capacity: 1 << 20, overflow: .dropNewest) { $0 }) }),
    ("buffer_time_bounded", { a in
        a.start(a.source |> buffer(timeSpan: COST_SECONDS, queue: a.queue, capacity: 1 << 20, overflow: .dropNewest))
    }),
    ("switch_to_latest", { a in a.start(a.signals |> switchToLatest) }),
    ("queue", { a in a.start(a.signals |> queue) }),
    ("throttled", { a in a.start(a.signals |> throttled) }),
    ("last", { a in a.start(last(signal: a.source)) }),
    ("reduce_left", { a in a.start(a.source |> reduceLeft(value: 0, f: a.fold)) }),
]

/// One row: build, start, `puts` puts, dispose; the values delivered.
func costRow(_ row: String, _ build: (CostArguments) -> Disposable, puts: Int) -> Int {
    let a = CostArguments(row)
    let disposable = build(a)
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
    if cost_signal_valued(row) {
        let one = Signal<Int, NoError>.single(1)
        for _ in 0 ..< puts {
            a.signalPipe.putNext(one)
        }
    } else {
        for i in 0 ..< puts {
            a.pipe.putNext(i)
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

func measure(_ row: String, _ build: (CostArguments) -> Disposable) {
    let puts = Int(COST_PUTS)
    let labelN = "op:\(row) n"
    let label2N = "op:\(row) 2n"
    _ = costRow(row, build, puts: 100)
    let s0 = allocations()
    cost_counted_begin()
    let a = costRow(row, build, puts: puts)
    cost_counted_end(labelN)
    let s1 = allocations()
    cost_counted_begin()
    let b = costRow(row, build, puts: 2 * puts)
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

var seen = Set<String>()
for (row, build) in rowsByHand + generatedCostRows() {
    if !seen.insert(row).inserted {
        print("{\"impl\":\"swift\",\"workload\":\"op:\(row)\",\"error\":\"two rows named \(row)\"}")
        exit(1)
    }
    measure(row, build)
}
