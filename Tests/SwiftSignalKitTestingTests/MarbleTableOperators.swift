import SwiftSignalKit
import SwiftSignalKitTesting

/// The table's vocabulary: each operator and named function of
/// `Tests/marbles/README.md`, mapped onto the Swift API.
enum MarbleOperators {
    /// A function of one value (`is_even`, `lt:3`, `times:10`...).
    static func unary(_ name: String) throws(MarbleTableError) -> (Int) -> Int {
        let (base, argument) = try self.split(name)
        switch base {
        case "identity":
            return { $0 }
        case "times":
            let k = try self.required(argument, name)
            return { $0 * k }
        case "plus":
            let k = try self.required(argument, name)
            return { $0 + k }
        case "negate":
            return { -$0 }
        case "mod":
            let k = try self.required(argument, name)
            return { k == 0 ? 0 : $0 % k }
        default:
            throw MarbleTableError(message: "unknown function `\(name)`")
        }
    }

    /// A predicate (`is_even`, `is_odd`, `lt:K`, `gt:K`, `eq:K`, `ne:K`).
    static func predicate(_ name: String) throws(MarbleTableError) -> (Int) -> Bool {
        let (base, argument) = try self.split(name)
        switch base {
        case "is_even":
            return { $0 % 2 == 0 }
        case "is_odd":
            return { $0 % 2 != 0 }
        case "always":
            return { _ in true }
        case "never":
            return { _ in false }
        case "lt":
            let k = try self.required(argument, name)
            return { $0 < k }
        case "gt":
            let k = try self.required(argument, name)
            return { $0 > k }
        case "eq":
            let k = try self.required(argument, name)
            return { $0 == k }
        case "ne":
            let k = try self.required(argument, name)
            return { $0 != k }
        default:
            throw MarbleTableError(message: "unknown predicate `\(name)`")
        }
    }

    /// A function of two values (`add`, `mul`, `max`, `keep_first`).
    static func binary(_ name: String) throws(MarbleTableError) -> (Int, Int) -> Int {
        switch name {
        case "add":
            return { $0 + $1 }
        case "mul":
            return { $0 * $1 }
        case "max":
            return { Swift.max($0, $1) }
        case "sub":
            return { $0 - $1 }
        default:
            throw MarbleTableError(message: "unknown binary function `\(name)`")
        }
    }

    static func split(_ name: String) throws(MarbleTableError) -> (String, Int?) {
        guard let colon = name.firstIndex(of: ":") else {
            return (name, nil)
        }
        guard let value = Int(name[name.index(after: colon)...]) else {
            throw MarbleTableError(message: "`\(name)`: the part after `:` is not an integer")
        }
        return (String(name[..<colon]), value)
    }

    static func required(_ argument: Int?, _ name: String) throws(MarbleTableError) -> Int {
        guard let argument else {
            throw MarbleTableError(message: "`\(name)` needs an integer after `:`")
        }
        return argument
    }

    static func integer(_ arguments: [String], _ index: Int, _ operation: MarbleCase.Operation) throws(MarbleTableError) -> Int {
        guard index < arguments.count, let value = Int(arguments[index]) else {
            throw MarbleTableError(message: "line \(operation.line): `\(operation.name)` needs an integer as argument \(index + 1)")
        }
        return value
    }

    static func word(_ arguments: [String], _ index: Int, _ operation: MarbleCase.Operation) throws(MarbleTableError) -> String {
        guard index < arguments.count else {
            throw MarbleTableError(message: "line \(operation.line): `\(operation.name)` needs argument \(index + 1)")
        }
        return arguments[index]
    }

    static func value(_ arguments: [String], _ index: Int, _ operation: MarbleCase.Operation) throws(MarbleTableError) -> MarbleValue {
        guard index < arguments.count, let value = MarbleValue.parse(arguments[index]) else {
            throw MarbleTableError(message: "line \(operation.line): `\(operation.name)` needs a value as argument \(index + 1)")
        }
        return value
    }

    /// The signal functions' inputs, in order, where `!` (nil) stands for
    /// the function failing (README.md's "Functions").
    static func namedOrFailing(_ arguments: [String], _ inputs: [String: TestSignal<MarbleValue, MarbleFailure>], _ operation: MarbleCase.Operation) throws(MarbleTableError) -> [MarbleSignal?] {
        var signals: [MarbleSignal?] = []
        for name in arguments {
            if name == "!" {
                signals.append(nil)
                continue
            }
            signals.append(try self.named([name], inputs, operation)[0])
        }
        return signals
    }

    /// The operators whose signal function may fail where the case says so
    /// (`!` in place of an input): Swift's way for such a function to fail
    /// is to return a failing signal, which those start at once.
    static let failingSignalFunctions: Set<String> = ["switchMap", "mergeMap", "mergeMapBounded", "catch", "deferred"]

    /// Why the Swift runner cannot play an operation whose callback fails
    /// (`!`), or nil when it can.
    static func cannotFail(_ operation: MarbleCase.Operation) -> String? {
        guard operation.arguments.contains(where: { $0.contains("!") }) else {
            return nil
        }
        if self.failingSignalFunctions.contains(operation.name) {
            return nil
        }
        if operation.name == "concatMap" {
            return "mapToQueue starts a signal in its turn: a failing one would wait for the inner before it, where the function's failure ends the stream at once"
        }
        return "Swift's closures cannot fail (they cannot throw)"
    }

    /// The inputs an operator names, in order.
    static func named(_ arguments: [String], _ inputs: [String: TestSignal<MarbleValue, MarbleFailure>], _ operation: MarbleCase.Operation) throws(MarbleTableError) -> [MarbleSignal] {
        var signals: [MarbleSignal] = []
        for name in arguments {
            guard let input = inputs[name] else {
                throw MarbleTableError(message: "line \(operation.line): `\(operation.name)` names no input `\(name)`")
            }
            signals.append(input.signal)
        }
        return signals
    }

    /// The table's values of the signal an operator gives: its own when it
    /// gives MarbleValues, else an optional's (none: `[]`), a pair's, an
    /// array's, none (`ignoreValues`), or with the error type made the table's
    /// (`restartIfError`).
    static func marble(_ signal: MarbleSignal) -> MarbleSignal {
        signal
    }

    static func marble(_ signal: Signal<MarbleValue?, MarbleFailure>) -> MarbleSignal {
        signal |> map { $0 ?? .list([]) }
    }

    static func marble(_ signal: Signal<(MarbleValue, MarbleValue), MarbleFailure>) -> MarbleSignal {
        signal |> map { MarbleValue.pair($0.0, $0.1) }
    }

    static func marble(_ signal: Signal<[MarbleValue], MarbleFailure>) -> MarbleSignal {
        signal |> map { MarbleValue.list($0.flatMap(\.ints)) }
    }

    static func marble(_ signal: Signal<Never, MarbleFailure>) -> MarbleSignal {
        signal |> map { (never: Never) -> MarbleValue in }
    }

    static func marble(_ signal: Signal<MarbleValue, NoError>) -> MarbleSignal {
        signal |> castError(MarbleFailure.self)
    }

    /// An operator of the table: those of a standard shape from
    /// MarbleTableOperators.generated.swift (tools/api/operators.py), the
    /// others here.
    static func apply(_ operation: MarbleCase.Operation, to signal: MarbleSignal, inputs: [String: TestSignal<MarbleValue, MarbleFailure>], scheduler: TestScheduler, failures: MarbleFailures, bounded: MarbleBounded) throws(MarbleTableError) -> MarbleSignal {
        if let why = self.cannotFail(operation) {
            throw MarbleTableError(message: "line \(operation.line): `\(([operation.name] + operation.arguments).joined(separator: " "))`: \(why)", left: true)
        }
        if let made = try self.standard(operation, to: signal, inputs: inputs, scheduler: scheduler) {
            return made
        }
        let arguments = operation.arguments
        /// The `index`-th signal of a signal function, a failing one for
        /// `!`, an empty one past them.
        func pick(_ signals: [MarbleSignal?], _ index: Int) -> MarbleSignal {
            guard index >= 0 && index < signals.count else {
                return MarbleSignal.complete()
            }
            return signals[index] ?? failures.fail(at: "\(index)")
        }
        switch operation.name {
        // Take
        case "takeWhile":
            let f = try self.predicate(self.word(arguments, 0, operation))
            return signal |> takeWhile { f($0.int) }
        case "takeWhileInclusive":
            let f = try self.predicate(self.word(arguments, 0, operation))
            return signal |> takeWhile(inclusive: true) { f($0.int) }
        case "takeUntilAction":
            // Pass a value when the first predicate holds, complete after it
            // when the second does.
            let pass = try self.predicate(self.word(arguments, 0, operation))
            let complete = try self.predicate(self.word(arguments, 1, operation))
            return signal |> take(until: { SignalTakeAction(passthrough: pass($0.int), complete: complete($0.int)) })
        // Combine (these build a signal from the inputs they name)
        case "zip":
            let signals = try self.named(arguments, inputs, operation)
            if signals.count == 2 {
                return zip(signals[0], signals[1]) |> map { MarbleValue.pair($0.0, $0.1) }
            }
            return zip(signals) |> map { MarbleValue.list($0.flatMap(\.ints)) }
        case "zip3":
            let signals = try self.named(arguments, inputs, operation)
            guard signals.count == 3 else {
                throw MarbleTableError(message: "line \(operation.line): `zip3` names three inputs")
            }
            return zip(signals[0], signals[1], signals[2]) |> map { MarbleValue.list($0.0.ints + $0.1.ints + $0.2.ints) }
        case "combineLatest":
            let signals = try self.named(arguments, inputs, operation)
            if signals.count == 2 {
                return combineLatest(signals[0], signals[1]) |> map { MarbleValue.pair($0.0, $0.1) }
            }
            return combineLatest(signals) |> map { MarbleValue.list($0.flatMap(\.ints)) }
        // Meta: each value v selects the input named by argument v+1 (0 the first named)
        case "switchMap", "concatMap":
            let signals = try self.namedOrFailing(arguments, inputs, operation)
            let select: (MarbleValue) -> MarbleSignal = { value in
                pick(signals, value.int)
            }
            if operation.name == "switchMap" {
                return signal |> mapToSignal(select)
            }
            return signal |> mapToQueue(select)
        case "switchToLatest", "queue", "throttled":
            // A signal of signals: each value `i` the `i`-th named input.
            let signals = try self.named(arguments, inputs, operation)
            let inner = signal |> map { value -> MarbleSignal in
                let index = value.int
                return index >= 0 && index < signals.count ? signals[index] : MarbleSignal.complete()
            }
            switch operation.name {
            case "switchToLatest":
                return inner |> switchToLatest
            case "queue":
                return inner |> SwiftSignalKit.queue
            default:
                return inner |> throttled
            }
        case "mergeMap":
            let limit = try self.integer(arguments, 0, operation)
            let signals = try self.namedOrFailing(Array(arguments.dropFirst()), inputs, operation)
            return signal |> mergeMap(maxConcurrent: limit) { value in
                pick(signals, value.int)
            }
        // Sharing
        case "groupBy":
            // Each group's values as [key, value], merged.
            let f = try self.unary(self.word(arguments, 0, operation))
            return signal |> groupBy { f($0.int) } |> mergeMap { group in
                group.1 |> map { MarbleValue.list([group.0] + $0.ints) }
            }
        // Errors
        case "retry":
            return signal |> retry(count: try self.integer(arguments, 0, operation))
        case "catch":
            let fallback = try self.namedOrFailing(arguments, inputs, operation)
            guard fallback.count == 1 else {
                throw MarbleTableError(message: "line \(operation.line): `catch` names one input")
            }
            return signal |> `catch` { _ in pick(fallback, 0) }
        case "retryBackoff":
            let increment = try self.integer(arguments, 0, operation)
            let most = try self.integer(arguments, 1, operation)
            return signal |> retry(scheduler.seconds(increment), maxDelay: scheduler.seconds(most), onQueue: scheduler.queue)
                |> castError(MarbleFailure.self)
        case "timeout":
            let frames = try self.integer(arguments, 0, operation)
            let alternate = try self.named(Array(arguments.dropFirst()), inputs, operation)
            guard alternate.count == 1 else {
                throw MarbleTableError(message: "line \(operation.line): `timeout` names one input")
            }
            return signal |> timeout(scheduler.seconds(frames), queue: scheduler.queue, alternate: alternate[0])
        case "deferred":
            let made = try self.namedOrFailing(arguments, inputs, operation)
            guard made.count == 1 else {
                throw MarbleTableError(message: "line \(operation.line): `deferred` names one input")
            }
            return deferred { pick(made, 0) }
        case "retryDelay":
            let count = try self.integer(arguments, 0, operation)
            let frames = try self.integer(arguments, 1, operation)
            return signal |> retry(count: count, delay: scheduler.seconds(frames), queue: scheduler.queue)
        // Timing (durations in frames)
        // The bounded operators: each dropped value goes to the case's
        // drop recording (README.md's `dropped`).
        case "bufferTimeBounded":
            let frames = try self.integer(arguments, 0, operation)
            let capacity = try self.integer(arguments, 1, operation)
            let overflow = try bounded.overflow(self.word(arguments, 2, operation), operation)
            return signal |> buffer(timeSpan: scheduler.seconds(frames), queue: scheduler.queue, capacity: capacity, overflow: overflow, onDrop: bounded.onDrop)
                |> map { MarbleValue.list($0.flatMap(\.ints)) }
        case "queueBounded":
            let capacity = try self.integer(arguments, 0, operation)
            let overflow = try bounded.overflow(self.word(arguments, 1, operation), operation)
            let signals = try self.named(Array(arguments.dropFirst(2)), inputs, operation)
            let inner = signal |> map { value -> MarbleSignal in
                let index = value.int
                return index >= 0 && index < signals.count ? signals[index] : MarbleSignal.complete()
            }
            // A dropped signal is recorded as the upstream's value that
            // named it (its place among the inputs).
            return inner |> mergeMap(maxConcurrent: 1, capacity: capacity, overflow: overflow, onDrop: { dropped, count in
                bounded.onDrop(.int(signals.firstIndex { $0 === dropped } ?? -1), count)
            }) { $0 }
        case "mergeMapBounded":
            let limit = try self.integer(arguments, 0, operation)
            let capacity = try self.integer(arguments, 1, operation)
            let overflow = try bounded.overflow(self.word(arguments, 2, operation), operation)
            let signals = try self.namedOrFailing(Array(arguments.dropFirst(3)), inputs, operation)
            return signal |> mergeMap(maxConcurrent: limit, capacity: capacity, overflow: overflow, onDrop: bounded.onDrop) { value in
                pick(signals, value.int)
            }
        case "zipBounded":
            let capacity = try self.integer(arguments, 0, operation)
            let overflow = try bounded.overflow(self.word(arguments, 1, operation), operation)
            let signals = try self.named(Array(arguments.dropFirst(2)), inputs, operation)
            return zip(signals, capacity: capacity, overflow: overflow, onDrop: bounded.onDrop) |> map { MarbleValue.list($0.flatMap(\.ints)) }
        case "deliverOnBounded", "onBackpressureBuffer":
            let capacity = try self.integer(arguments, 0, operation)
            let overflow = try bounded.overflow(self.word(arguments, 1, operation), operation)
            if operation.name == "onBackpressureBuffer" {
                guard arguments.count == 2 else {
                    throw MarbleTableError(message: "line \(operation.line): `onBackpressureBuffer` takes a capacity and a policy")
                }
                return signal |> onBackpressureBuffer(capacity: capacity, overflow: overflow, onDrop: bounded.onDrop)
            }
            // `host F...`: a host-drained queue, drained at those frames,
            // instead of the case's virtual queue.
            var queue = scheduler.queue
            if arguments.count > 2 {
                var frames: [Int] = []
                for index in 3 ..< arguments.count {
                    frames.append(try self.integer(arguments, index, operation))
                }
                guard arguments[2] == "host", !frames.isEmpty else {
                    throw MarbleTableError(message: "line \(operation.line): `deliverOnBounded N P` is followed by nothing or by `host` and frames")
                }
                queue = try bounded.hostQueue(drainedAt: frames)
            }
            return signal |> deliverOn(queue, capacity: capacity, overflow: overflow, onDrop: bounded.onDrop)
        default:
            throw MarbleTableError(message: "line \(operation.line): unknown operator `\(operation.name)`")
        }
    }
}
