// GENERATED FILE, DO NOT EDIT: written by tools/api/operators.py from
// tools/api/operators.md (`make api-update`). The marble table's operators
// whose C function has a standard shape, each a call of the row's Swift
// operator with the case's arguments in the shape's order;
// MarbleTableOperators.swift's `apply` calls `standard` first and builds the
// others by hand.
import SwiftSignalKit
import SwiftSignalKitTesting

extension MarbleOperators {
    /// The signal of a marble operator of a standard shape, or nil for another name.
    static func standard(_ operation: MarbleCase.Operation, to signal: MarbleSignal, inputs: [String: TestSignal<MarbleValue, MarbleFailure>], scheduler: TestScheduler) throws(MarbleTableError) -> MarbleSignal? {
        let arguments = operation.arguments
        switch operation.name {
        case "map":
            let f = try self.unary(self.word(arguments, 0, operation))
            return self.marble(signal |> map { MarbleValue.int(f($0.int)) })
        case "filter":
            let f = try self.predicate(self.word(arguments, 0, operation))
            return self.marble(signal |> filter { f($0.int) })
        case "distinctUntilChanged":
            return self.marble(signal |> distinctUntilChanged)
        case "beforeNext":
            return self.marble(signal |> beforeNext { _ in })
        case "take":
            let n = try self.integer(arguments, 0, operation)
            return self.marble(signal |> take(n))
        case "takeUntil":
            let other = try self.named(arguments, inputs, operation)
            guard other.count == 1 else {
                throw MarbleTableError(message: "line \(operation.line): `takeUntil` names one input")
            }
            return self.marble(signal |> takeUntil(other[0]))
        case "skip":
            let n = try self.integer(arguments, 0, operation)
            return self.marble(signal |> skip(n))
        case "skipWhile":
            let f = try self.predicate(self.word(arguments, 0, operation))
            return self.marble(signal |> skipWhile { f($0.int) })
        case "first":
            return self.marble(signal |> first)
        case "firstWhere":
            let f = try self.predicate(self.word(arguments, 0, operation))
            return self.marble(signal |> first(where: { f($0.int) }))
        case "elementAt":
            let n = try self.integer(arguments, 0, operation)
            return self.marble(signal |> elementAt(n))
        case "defaultIfEmpty":
            let v = try self.value(arguments, 0, operation)
            return self.marble(signal |> defaultIfEmpty(v))
        case "last":
            return self.marble(signal |> last)
        case "withLatestFrom":
            let other = try self.named(arguments, inputs, operation)
            guard other.count == 1 else {
                throw MarbleTableError(message: "line \(operation.line): `withLatestFrom` names one input")
            }
            return self.marble(signal |> withLatestFrom(other[0]))
        case "merge":
            let signals = try self.named(arguments, inputs, operation)
            return self.marble(merge(signals))
        case "concat":
            let signals = try self.named(arguments, inputs, operation)
            return self.marble(concat(signals))
        case "then":
            let other = try self.named(arguments, inputs, operation)
            guard other.count == 1 else {
                throw MarbleTableError(message: "line \(operation.line): `then` names one input")
            }
            return self.marble(signal |> then(other[0]))
        case "startWith":
            let v = try self.value(arguments, 0, operation)
            return self.marble(signal |> startWith(v))
        case "ignoreValues":
            return self.marble(signal |> ignoreValues)
        case "share":
            return self.marble(signal |> share)
        case "replay":
            let n = try self.integer(arguments, 0, operation)
            return self.marble(signal |> replay(n))
        case "restart":
            return self.marble(signal |> restart)
        case "restartIfError":
            return self.marble(signal |> restartIfError)
        case "reduce":
            let f = try self.binary(self.word(arguments, 0, operation))
            let initial = try self.integer(arguments, 1, operation)
            return self.marble(signal |> reduceLeft(value: MarbleValue.int(initial)) { .int(f($0.int, $1.int)) })
        case "scan":
            let f = try self.binary(self.word(arguments, 0, operation))
            let initial = try self.integer(arguments, 1, operation)
            return self.marble(signal |> scan(MarbleValue.int(initial)) { .int(f($0.int, $1.int)) })
        case "pairwise":
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
            return self.marble(signal |> deliverOn(scheduler.queue))
        case "runOn":
            return self.marble(signal |> runOn(scheduler.queue))
        case "delay":
            let frames = try self.integer(arguments, 0, operation)
            return self.marble(signal |> delay(scheduler.seconds(frames), queue: scheduler.queue))
        case "debounce":
            let frames = try self.integer(arguments, 0, operation)
            return self.marble(signal |> debounce(scheduler.seconds(frames), queue: scheduler.queue))
        case "throttle":
            let frames = try self.integer(arguments, 0, operation)
            return self.marble(signal |> throttle(scheduler.seconds(frames), queue: scheduler.queue))
        case "bufferCount":
            let n = try self.integer(arguments, 0, operation)
            return self.marble(signal |> buffer(count: n))
        case "bufferTime":
            let frames = try self.integer(arguments, 0, operation)
            return self.marble(signal |> buffer(timeSpan: scheduler.seconds(frames), queue: scheduler.queue))
        case "sample":
            let other = try self.named(arguments, inputs, operation)
            guard other.count == 1 else {
                throw MarbleTableError(message: "line \(operation.line): `sample` names one input")
            }
            return self.marble(signal |> sample(other[0]))
        case "sampleTime":
            let frames = try self.integer(arguments, 0, operation)
            return self.marble(signal |> sample(period: scheduler.seconds(frames), queue: scheduler.queue))
        default:
            return nil
        }
    }
}
