// GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from
// tools/api/operators.md (`make api-update`). The marble table's operators,
// each a call of the row's Swift operator spelled from its shape
// (tools/api/shapes.py) with the case's arguments; MarbleTableOperators.swift's
// `apply` calls `listed` first and builds the others by hand (concatMap, and
// the marble-swift-hand lines of tools/api/exceptions.txt).
import SwiftSignalKit
import SwiftSignalKitTesting

extension MarbleOperators {
    /// The signal of a marble operator of the operator table, or nil for another name.
    static func listed(_ operation: MarbleCase.Operation, to signal: MarbleSignal, inputs: [String: TestSignal<MarbleValue, MarbleFailure>], scheduler: TestScheduler, failures: MarbleFailures, bounded: MarbleBounded) throws(MarbleTableError) -> MarbleSignal? {
        let arguments = operation.arguments
        switch operation.name {
        case "map":
            try self.arity(arguments, 1, operation)
            let f0 = try self.unary(self.word(arguments, 0, operation))
            return self.marble(signal |> map { MarbleValue.int(f0($0.int)) })
        case "filter":
            try self.arity(arguments, 1, operation)
            let p0 = try self.predicate(self.word(arguments, 0, operation))
            return self.marble(signal |> filter { p0($0.int) })
        case "distinctUntilChanged":
            try self.arity(arguments, 0, operation)
            return self.marble(signal |> distinctUntilChanged)
        case "beforeNext":
            return self.marble(signal |> beforeNext { _ in })
        case "take":
            try self.arity(arguments, 1, operation)
            let n0 = try self.integer(arguments, 0, operation)
            return self.marble(signal |> take(n0))
        case "takeUntilAction":
            try self.arity(arguments, 2, operation)
            let pass0 = try self.predicate(self.word(arguments, 0, operation))
            let complete0 = try self.predicate(self.word(arguments, 0 + 1, operation))
            return self.marble(signal |> take(until: { SignalTakeAction(passthrough: pass0($0.int), complete: complete0($0.int)) }))
        case "takeUntil":
            try self.arity(arguments, 1, operation)
            let other0 = try self.input(arguments, 0, inputs, operation)
            return self.marble(signal |> takeUntil(other0))
        case "takeWhile":
            try self.arity(arguments, 1, operation)
            let p0 = try self.predicate(self.word(arguments, 0, operation))
            return self.marble(signal |> takeWhile(inclusive: false) { p0($0.int) })
        case "takeWhileInclusive":
            try self.arity(arguments, 1, operation)
            let p0 = try self.predicate(self.word(arguments, 0, operation))
            return self.marble(signal |> takeWhile(inclusive: true) { p0($0.int) })
        case "skip":
            try self.arity(arguments, 1, operation)
            let n0 = try self.integer(arguments, 0, operation)
            return self.marble(signal |> skip(n0))
        case "skipWhile":
            try self.arity(arguments, 1, operation)
            let p0 = try self.predicate(self.word(arguments, 0, operation))
            return self.marble(signal |> skipWhile { p0($0.int) })
        case "first":
            try self.arity(arguments, 0, operation)
            return self.marble(signal |> first)
        case "firstWhere":
            try self.arity(arguments, 1, operation)
            let p0 = try self.predicate(self.word(arguments, 0, operation))
            return self.marble(signal |> first(where: { p0($0.int) }))
        case "elementAt":
            try self.arity(arguments, 1, operation)
            let n0 = try self.integer(arguments, 0, operation)
            return self.marble(signal |> elementAt(n0))
        case "defaultIfEmpty":
            try self.arity(arguments, 1, operation)
            let v0 = try self.value(arguments, 0, operation)
            return self.marble(signal |> defaultIfEmpty(v0))
        case "last":
            try self.arity(arguments, 0, operation)
            return self.marble(signal |> last)
        case "zipBounded":
            let signals2 = try self.named(Array(arguments.dropFirst(2)), inputs, operation)
            let n0 = try self.integer(arguments, 0, operation)
            let o1 = try bounded.overflow(self.word(arguments, 1, operation), operation)
            return self.marble(zip(signals2, capacity: n0, overflow: o1, onDrop: bounded.onDrop))
        case "withLatestFrom":
            try self.arity(arguments, 1, operation)
            let other0 = try self.input(arguments, 0, inputs, operation)
            return self.marble(signal |> withLatestFrom(other0))
        case "merge":
            let signals0 = try self.named(Array(arguments.dropFirst(0)), inputs, operation)
            return self.marble(merge(signals0))
        case "concat":
            let signals0 = try self.named(Array(arguments.dropFirst(0)), inputs, operation)
            return self.marble(concat(signals0))
        case "then":
            try self.arity(arguments, 1, operation)
            let other0 = try self.input(arguments, 0, inputs, operation)
            return self.marble(signal |> then(other0))
        case "startWith":
            try self.arity(arguments, 1, operation)
            let v0 = try self.value(arguments, 0, operation)
            return self.marble(signal |> startWith(v0))
        case "switchMap":
            let inner0 = try self.namedOrFailing(Array(arguments.dropFirst(0)), inputs, operation)
            return self.marble(signal |> mapToSignal { self.pick(inner0, self.index($0), failures) })
        case "switchToLatest":
            let upstream = try self.upstream(signal, Array(arguments.dropFirst(0)), inputs, operation)
            return self.marble(upstream |> switchToLatest)
        case "mergeMap":
            let n0 = try self.integer(arguments, 0, operation)
            let inner1 = try self.namedOrFailing(Array(arguments.dropFirst(1)), inputs, operation)
            return self.marble(signal |> mergeMap(maxConcurrent: n0) { self.pick(inner1, self.index($0), failures) })
        case "mergeMapBounded":
            let n0 = try self.integer(arguments, 0, operation)
            let n1 = try self.integer(arguments, 1, operation)
            let o2 = try bounded.overflow(self.word(arguments, 2, operation), operation)
            let inner3 = try self.namedOrFailing(Array(arguments.dropFirst(3)), inputs, operation)
            return self.marble(signal |> mergeMap(maxConcurrent: n0, capacity: n1, overflow: o2, onDrop: bounded.onDrop) { self.pick(inner3, self.index($0), failures) })
        case "queue":
            let upstream = try self.upstream(signal, Array(arguments.dropFirst(0)), inputs, operation)
            return self.marble(upstream |> queue)
        case "queueBounded":
            let upstream = try self.upstream(signal, Array(arguments.dropFirst(2)), inputs, operation, bounded)
            let n0 = try self.integer(arguments, 0, operation)
            let o1 = try bounded.overflow(self.word(arguments, 1, operation), operation)
            return self.marble(upstream |> mergeMap(maxConcurrent: 1, capacity: n0, overflow: o1, onDrop: self.droppedSignal(bounded)) { $0 })
        case "throttled":
            let upstream = try self.upstream(signal, Array(arguments.dropFirst(0)), inputs, operation)
            return self.marble(upstream |> throttled)
        case "deferred":
            try self.arity(arguments, 1, operation)
            let made0 = try self.namedOrFailing([self.word(arguments, 0, operation)], inputs, operation)
            return self.marble(deferred { self.pick(made0, 0, failures) })
        case "ignoreValues":
            try self.arity(arguments, 0, operation)
            return self.marble(signal |> ignoreValues)
        case "groupBy":
            try self.arity(arguments, 1, operation)
            let f0 = try self.unary(self.word(arguments, 0, operation))
            return self.groups(signal |> groupBy { f0($0.int) })
        case "share":
            try self.arity(arguments, 0, operation)
            return self.marble(signal |> share)
        case "replay":
            try self.arity(arguments, 1, operation)
            let n0 = try self.integer(arguments, 0, operation)
            return self.marble(signal |> replay(n0))
        case "catch":
            let inner0 = try self.namedOrFailing(Array(arguments.dropFirst(0)), inputs, operation)
            return self.marble(signal |> `catch` { self.pick(inner0, self.index($0), failures) })
        case "restart":
            try self.arity(arguments, 0, operation)
            return self.marble(signal |> restart)
        case "restartIfError":
            try self.arity(arguments, 0, operation)
            return self.marble(signal |> restartIfError)
        case "retryBackoff":
            try self.arity(arguments, 2, operation)
            let t0 = try self.integer(arguments, 0, operation)
            let t1 = try self.integer(arguments, 1, operation)
            return self.marble(signal |> retry(scheduler.seconds(t0), maxDelay: scheduler.seconds(t1), onQueue: scheduler.queue))
        case "retry":
            let n0 = try self.integer(arguments, 0, operation)
            if arguments.count > 1 {
                let t1 = try self.integer(arguments, 1, operation)
                return self.marble(signal |> retry(count: n0, delay: scheduler.seconds(t1), queue: scheduler.queue))
            }
            return self.marble(signal |> retry(count: n0))
        case "retryDelay":
            let n0 = try self.integer(arguments, 0, operation)
            if arguments.count > 1 {
                let t1 = try self.integer(arguments, 1, operation)
                return self.marble(signal |> retry(count: n0, delay: scheduler.seconds(t1), queue: scheduler.queue))
            }
            return self.marble(signal |> retry(count: n0))
        case "reduce":
            try self.arity(arguments, 2, operation)
            let i1 = try self.integer(arguments, 1, operation)
            let b0 = try self.binary(self.word(arguments, 0, operation))
            return self.marble(signal |> reduceLeft(value: MarbleValue.int(i1)) { .int(b0($0.int, $1.int)) })
        case "scan":
            try self.arity(arguments, 2, operation)
            let i1 = try self.integer(arguments, 1, operation)
            let b0 = try self.binary(self.word(arguments, 0, operation))
            return self.marble(signal |> scan(MarbleValue.int(i1)) { .int(b0($0.int, $1.int)) })
        case "pairwise":
            try self.arity(arguments, 0, operation)
            return self.marble(signal |> pairwise)
        case "afterNext":
            return self.marble(signal |> afterNext { _ in })
        case "beforeStarted":
            return self.marble(signal |> beforeStarted {})
        case "beforeCompleted":
            return self.marble(signal |> beforeCompleted {})
        case "afterCompleted":
            return self.marble(signal |> afterCompleted {})
        case "afterDisposed":
            return self.marble(signal |> afterDisposed {})
        case "deliverOn":
            try self.arity(arguments, 0, operation)
            return self.marble(signal |> deliverOn(scheduler.queue))
        case "deliverOnBounded":
            let queue2 = try self.hostQueue(arguments, 2, operation, bounded)
            let n0 = try self.integer(arguments, 0, operation)
            let o1 = try bounded.overflow(self.word(arguments, 1, operation), operation)
            return self.marble(signal |> deliverOn(queue2, capacity: n0, overflow: o1, onDrop: bounded.onDrop))
        case "onBackpressureBuffer":
            try self.arity(arguments, 2, operation)
            let n0 = try self.integer(arguments, 0, operation)
            let o1 = try bounded.overflow(self.word(arguments, 1, operation), operation)
            return self.marble(signal |> onBackpressureBuffer(capacity: n0, overflow: o1, onDrop: bounded.onDrop))
        case "runOn":
            try self.arity(arguments, 0, operation)
            return self.marble(signal |> runOn(scheduler.queue))
        case "delay":
            try self.arity(arguments, 1, operation)
            let t0 = try self.integer(arguments, 0, operation)
            return self.marble(signal |> delay(scheduler.seconds(t0), queue: scheduler.queue))
        case "timeout":
            try self.arity(arguments, 2, operation)
            let t0 = try self.integer(arguments, 0, operation)
            let other1 = try self.input(arguments, 1, inputs, operation)
            return self.marble(signal |> timeout(scheduler.seconds(t0), queue: scheduler.queue, alternate: other1))
        case "debounce":
            try self.arity(arguments, 1, operation)
            let t0 = try self.integer(arguments, 0, operation)
            return self.marble(signal |> debounce(scheduler.seconds(t0), queue: scheduler.queue))
        case "throttle":
            try self.arity(arguments, 1, operation)
            let t0 = try self.integer(arguments, 0, operation)
            return self.marble(signal |> throttle(scheduler.seconds(t0), queue: scheduler.queue))
        case "bufferCount":
            try self.arity(arguments, 1, operation)
            let n0 = try self.integer(arguments, 0, operation)
            return self.marble(signal |> buffer(count: n0))
        case "bufferTime":
            try self.arity(arguments, 1, operation)
            let t0 = try self.integer(arguments, 0, operation)
            return self.marble(signal |> buffer(timeSpan: scheduler.seconds(t0), queue: scheduler.queue))
        case "bufferTimeBounded":
            let t0 = try self.integer(arguments, 0, operation)
            let queue3 = try self.hostQueue(arguments, 3, operation, bounded)
            let n1 = try self.integer(arguments, 1, operation)
            let o2 = try bounded.overflow(self.word(arguments, 2, operation), operation)
            return self.marble(signal |> buffer(timeSpan: scheduler.seconds(t0), queue: queue3, capacity: n1, overflow: o2, onDrop: bounded.onDrop))
        case "sample":
            try self.arity(arguments, 1, operation)
            let other0 = try self.input(arguments, 0, inputs, operation)
            return self.marble(signal |> sample(other0))
        case "sampleTime":
            try self.arity(arguments, 1, operation)
            let t0 = try self.integer(arguments, 0, operation)
            return self.marble(signal |> sample(period: scheduler.seconds(t0), queue: scheduler.queue))
        default:
            return nil
        }
    }
}
