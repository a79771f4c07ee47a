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

    /// The line has exactly `count` arguments.
    static func arity(_ arguments: [String], _ count: Int, _ operation: MarbleCase.Operation) throws(MarbleTableError) {
        guard arguments.count == count else {
            throw MarbleTableError(message: "line \(operation.line): `\(operation.name)` takes \(count) argument(s), got \(arguments.count)")
        }
    }

    /// The input an argument names.
    static func input(_ arguments: [String], _ index: Int, _ inputs: [String: TestSignal<MarbleValue, MarbleFailure>], _ operation: MarbleCase.Operation) throws(MarbleTableError) -> MarbleSignal {
        try self.named([self.word(arguments, index, operation)], inputs, operation)[0]
    }

    /// The `index`-th signal of a signal function, a failing one for `!`,
    /// an empty one past them.
    static func pick(_ signals: [MarbleSignal?], _ index: Int, _ failures: MarbleFailures) -> MarbleSignal {
        guard index >= 0 && index < signals.count else {
            return MarbleSignal.complete()
        }
        return signals[index] ?? failures.fail(at: "\(index)")
    }

    /// The place a signal function's argument picks: a value's own; an
    /// error's (catch's), the first.
    static func index(_ value: MarbleValue) -> Int {
        value.int
    }

    static func index(_ error: MarbleFailure) -> Int {
        0
    }

    /// The upstream of an operator of a signal of signals: the value `i` the
    /// `i`-th named input. A bounded operator's keeps them in `bounded`, for
    /// its drop callback (droppedSignal).
    static func upstream(_ signal: MarbleSignal, _ names: [String], _ inputs: [String: TestSignal<MarbleValue, MarbleFailure>], _ operation: MarbleCase.Operation, _ bounded: MarbleBounded? = nil) throws(MarbleTableError) -> Signal<MarbleSignal, MarbleFailure> {
        let signals = try self.named(names, inputs, operation)
        bounded?.upstreamSignals = signals
        return signal |> map { value -> MarbleSignal in
            let index = value.int
            return index >= 0 && index < signals.count ? signals[index] : MarbleSignal.complete()
        }
    }

    /// groupBy's groups merged, each value as [key, value].
    static func groups(_ signal: Signal<(Int, MarbleSignal), MarbleFailure>) -> MarbleSignal {
        signal |> mergeMap { group in
            group.1 |> map { MarbleValue.list([group.0] + $0.ints) }
        }
    }

    /// The drop callback of a bounded operator of a signal of signals: a
    /// dropped signal recorded as the upstream's value that named it (its
    /// place among the inputs `upstream` kept in `bounded`).
    static func droppedSignal(_ bounded: MarbleBounded) -> (MarbleSignal, Int) -> Void {
        { dropped, count in
            bounded.onDrop(.int(bounded.upstreamSignals.firstIndex { $0 === dropped } ?? -1), count)
        }
    }

    /// A bounded operator's queue: the case's, or with `host F...` from
    /// argument `first` a host-drained queue drained at the frames F.
    static func hostQueue(_ arguments: [String], _ first: Int, _ operation: MarbleCase.Operation, _ bounded: MarbleBounded) throws(MarbleTableError) -> Queue {
        guard first < arguments.count else {
            return bounded.scheduler.queue
        }
        var frames: [Int] = []
        for index in first + 1 ..< arguments.count {
            frames.append(try self.integer(arguments, index, operation))
        }
        guard arguments[first] == "host", !frames.isEmpty else {
            throw MarbleTableError(message: "line \(operation.line): `\(operation.name)` is followed by nothing or by `host` and frames")
        }
        return try bounded.hostQueue(drainedAt: frames)
    }

    /// An operator of the table: those of the operator table from
    /// MarbleTableOperators.generated.swift (tools/api/operators.py), the
    /// others here (concatMap, which has no C function; zip and combineLatest,
    /// in Swift's arities).
    static func apply(_ operation: MarbleCase.Operation, to signal: MarbleSignal, inputs: [String: TestSignal<MarbleValue, MarbleFailure>], scheduler: TestScheduler, failures: MarbleFailures, bounded: MarbleBounded) throws(MarbleTableError) -> MarbleSignal {
        if let why = self.cannotFail(operation) {
            throw MarbleTableError(message: "line \(operation.line): `\(([operation.name] + operation.arguments).joined(separator: " "))`: \(why)", left: true)
        }
        if let made = try self.listed(operation, to: signal, inputs: inputs, scheduler: scheduler, failures: failures, bounded: bounded) {
            return made
        }
        let arguments = operation.arguments
        switch operation.name {
        // Combine, in Swift's arities (tools/api/exceptions.txt, marble-swift-hand)
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
        // mapToQueue, which has no C function: each value v selects the input
        // named by argument v+1 (0 the first named)
        case "concatMap":
            let signals = try self.namedOrFailing(arguments, inputs, operation)
            return signal |> mapToQueue { value in
                self.pick(signals, value.int, failures)
            }
        default:
            throw MarbleTableError(message: "line \(operation.line): unknown operator `\(operation.name)`")
        }
    }
}
