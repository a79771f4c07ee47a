#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
import SwiftSignalKit

// The meta operators (Sources/SwiftSignalKit/Operators/Signal_Meta.swift,
// Signal_Meta+Concat.swift) in the model-based tester: one block each (see
// ModelOperator.swift). `mergeMap` is in Meta+MergeMap.swift.

extension MetaFamily {
    /// The inner pipeline for the outer value `offset` (`meta`, `mergeMap`):
    /// `inner` with `offset` added to each of its values.
    static func buildInner(_ runner: LibraryRunner, _ token: ModelToken, _ inner: ModelSignal) -> (Int) -> Signal<Int, Int> {
        return { offset in
            token.use()
            return runner.build(inner, token) |> map { value in
                token.use()
                return value &+ offset
            }
        }
    }

    /// The same through the C API: the inner pipeline's C signal (+1) with
    /// `offset` added (sk_signal_map).
    static func buildInnerC(_ runner: CLibraryRunner, _ inner: ModelSignal) -> (Int) -> OpaquePointer? {
        return { offset in
            runner.map(runner.build(inner), "the inner signal's offset") { $0 &+ offset }
        }
    }
}

// MARK: - ignoreValues

/// A value of any type from a value that cannot exist: the values of
/// `ignoreValues`, mapped back to `Int`.
func modelAbsurd<A>(_ never: Never) -> A {
}

extension MetaFamily {
    /// `ignoreValues`, its values (there are none) mapped back to `Int`.
    struct IgnoreValues: UnaryModelOperator {
        var source: ModelSignal

        var description: String {
            return ".ignoreValues(\(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            model.start(self.source, under: node) { event in
                if event.isTerminal {
                    node.send(event)
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> ignoreValues |> map(modelAbsurd)
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return runner.over(self.source, "sk_signal_ignore_values") { sk_signal_ignore_values($0, $1) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 9) { generator, depth in
                .ignoreValues(generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func ignoreValues(_ source: ModelSignal) -> ModelSignal {
        return ModelSignal(MetaFamily.IgnoreValues(source: source))
    }
}

// MARK: - then

extension MetaFamily {
    /// `first |> then(second)`.
    struct Then: ModelOperator {
        let first: ModelSignal
        let second: ModelSignal

        var description: String {
            return ".then(\(self.first), \(self.second))"
        }

        var children: [ModelSignal] {
            return [self.first, self.second]
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .then(children[0], children[1])
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let second = self.second
            model.start(self.first, under: node) { event in
                if event == .completed {
                    model.start(second, under: node) { event in
                        node.send(event)
                    }
                } else {
                    node.send(event)
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.first, token) |> then(runner.build(self.second, token))
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return runner.over(self.first, self.second, "sk_signal_then") { sk_signal_then($0, $1, $2) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 10, weight: 2) { generator, depth in
                .then(generator.signal(depth: depth), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func then(_ first: ModelSignal, _ second: ModelSignal) -> ModelSignal {
        return ModelSignal(MetaFamily.Then(first: first, second: second))
    }
}

// MARK: - mapToSignal, mapToQueue, mapToThrottled, switchToLatest, queue, throttled

/// The meta operators: how the inner signals of an outer signal are run.
enum ModelMeta: Int, CaseIterable, CustomStringConvertible {
    case mapToSignal
    case mapToQueue
    case mapToThrottled
    /// `map` to signals, then `switchToLatest`.
    case switchToLatest
    /// `map` to signals, then `queue`.
    case queue
    /// `map` to signals, then `throttled`.
    case throttled

    /// Inner signals wait for the running one (instead of replacing it).
    var queues: Bool {
        switch self {
        case .mapToSignal, .switchToLatest:
            return false
        case .mapToQueue, .mapToThrottled, .queue, .throttled:
            return true
        }
    }

    /// Only the latest waiting inner signal is kept.
    var throttles: Bool {
        return self == .mapToThrottled || self == .throttled
    }

    var description: String {
        switch self {
        case .mapToSignal:
            return ".mapToSignal"
        case .mapToQueue:
            return ".mapToQueue"
        case .mapToThrottled:
            return ".mapToThrottled"
        case .switchToLatest:
            return ".switchToLatest"
        case .queue:
            return ".queue"
        case .throttled:
            return ".throttled"
        }
    }
}

extension MetaFamily {
    /// Outer, inner: each outer value `v` gives the inner pipeline with `v`
    /// added to each of its values, run as `kind` says. Switch mode: a new
    /// inner signal disposes the running one, then starts. Queue mode: inner
    /// signals run one after another, the others waiting in order
    /// (throttled: only the latest one waits). Completes once the outer has
    /// completed and no inner signal runs or waits; any error ends
    /// everything.
    struct Meta: ModelOperator {
        let kind: ModelMeta
        let outer: ModelSignal
        let inner: ModelSignal

        var description: String {
            return ".meta(\(self.kind), \(self.outer), \(self.inner))"
        }

        var children: [ModelSignal] {
            return [self.outer, self.inner]
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .meta(self.kind, children[0], children[1])
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let kind = self.kind
            let inner = self.inner
            var waiting: [Int] = []
            var running = false
            var current: ReferenceModel.Node?
            var generation = 0
            var outerCompleted = false
            // The current inner signal's start has not returned yet.
            var starting = false

            func run(_ offset: Int) {
                running = true
                generation += 1
                let mine = generation
                // `current` is the new inner signal from the moment it starts: a
                // value it emits while starting may replace it already.
                starting = true
                defer {
                    if mine == generation {
                        starting = false
                    }
                }
                model.start(inner, under: node, created: { current = $0 }) { event in
                    if mine != generation {
                        // Replaced (switch mode), maybe still subscribed while
                        // its successor starts.
                        return
                    }
                    switch event {
                    case let .next(value):
                        node.send(.next(value &+ offset))
                    case .error:
                        node.send(event)
                    case .completed:
                        running = false
                        current = nil
                        if !waiting.isEmpty {
                            run(waiting.removeFirst())
                        } else if outerCompleted {
                            node.send(.completed)
                        }
                    }
                }
            }

            model.start(self.outer, under: node) { event in
                switch event {
                case let .next(value):
                    if kind.queues {
                        if running {
                            if kind.throttles {
                                waiting = [value]
                            } else {
                                waiting.append(value)
                            }
                        } else {
                            run(value)
                        }
                    } else {
                        // The new inner signal starts, then the one it replaces
                        // is disposed (as in the original); events of the
                        // replaced one are dropped meanwhile.
                        // One replaced while still starting (the new value came
                        // from inside its start) is disposed at once instead:
                        // nobody holds its subscription yet.
                        let previous = current
                        current = nil
                        if starting {
                            previous?.kill()
                            run(value)
                        } else {
                            run(value)
                            previous?.kill()
                        }
                    }
                case .error:
                    node.send(event)
                case .completed:
                    outerCompleted = true
                    if !running {
                        node.send(.completed)
                    }
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            let outerSignal = runner.build(self.outer, token)
            let f = MetaFamily.buildInner(runner, token, self.inner)
            switch self.kind {
            case .mapToSignal:
                return outerSignal |> mapToSignal(f)
            case .mapToQueue:
                return outerSignal |> mapToQueue(f)
            case .mapToThrottled:
                return outerSignal |> mapToThrottled(f)
            case .switchToLatest:
                return outerSignal |> map(f) |> switchToLatest
            case .queue:
                return outerSignal |> map(f) |> queue
            case .throttled:
                return outerSignal |> map(f) |> throttled
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let ctx = runner.context("\(self.kind)'s function", .signal(MetaFamily.buildInnerC(runner, self.inner)))
            if self.kind == .mapToSignal {
                return runner.over(self.outer, "sk_signal_map_to_signal") { sk_signal_map_to_signal($0, $1, CCallbackContext.signal, ctx, CCallbackContext.release) }
            }
            // The others: a map to signal values, then the operator over them.
            let signals = runner.over(self.outer, "sk_signal_map") { sk_signal_map($0, $1, CCallbackContext.map, ctx, CCallbackContext.release) }
            switch self.kind {
            case .mapToSignal, .switchToLatest:
                return runner.over(signals, "sk_signal_switch_to_latest") { sk_signal_switch_to_latest($0, $1) }
            case .mapToQueue, .queue:
                return runner.over(signals, "sk_signal_queue") { sk_signal_queue($0, $1) }
            case .mapToThrottled, .throttled:
                return runner.over(signals, "sk_signal_throttled") { sk_signal_throttled($0, $1) }
            }
        }

        var weight: Int {
            return self.kind.rawValue
        }

        var simplerForms: [ModelSignal] {
            return ModelMeta.allCases.filter { $0.rawValue < self.kind.rawValue }.map { .meta($0, self.outer, self.inner) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 16, weight: 3) { generator, depth in
                .meta(generator.random.pick(ModelMeta.allCases), generator.signal(depth: depth), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func meta(_ kind: ModelMeta, _ outer: ModelSignal, _ inner: ModelSignal) -> ModelSignal {
        return ModelSignal(MetaFamily.Meta(kind: kind, outer: outer, inner: inner))
    }
}

// MARK: - deferred

extension MetaFamily {
    /// `deferred`: the signal built at each subscription.
    struct Deferred: UnaryModelOperator {
        var source: ModelSignal

        var description: String {
            return ".deferred(\(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            model.start(self.source, under: node) { event in
                node.send(event)
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            let source = self.source
            return deferred {
                token.use()
                return runner.build(source, token)
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let source = self.source
            let ctx = runner.context("deferred's function", .deferred { runner.build(source) })
            return runner.call("sk_signal_deferred") { sk_signal_deferred($0, CCallbackContext.deferred, ctx, CCallbackContext.release) }
        }

        /// `deferred` or `roundTrip` (Materialize.swift), half each: both
        /// are the identity.
        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 25) { generator, depth in
                generator.random.chance(50) ? .deferred(generator.signal(depth: depth)) : .roundTrip(generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func deferred(_ source: ModelSignal) -> ModelSignal {
        return ModelSignal(MetaFamily.Deferred(source: source))
    }
}

// MARK: - startWith

extension MetaFamily {
    /// `startWith(v)`: `then` of a single value.
    struct StartWith: UnaryModelOperator {
        let value: Int
        var source: ModelSignal

        var description: String {
            return ".startWith(\(self.value), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            model.behave(.then(.just([self.value]), self.source), node)
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> startWith(self.value)
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            var value = CLibraryRunner.value(self.value)
            return runner.over(self.source, "sk_signal_start_with") { sk_signal_start_with($0, $1, &value) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 31) { generator, depth in
                .startWith(generator.random.value(), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func startWith(_ value: Int, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(MetaFamily.StartWith(value: value, source: source))
    }
}

// MARK: - concat

extension MetaFamily {
    /// `concat` of a list: `then` after `then`, left to right.
    struct Concat: ModelOperator {
        let sources: [ModelSignal]

        var description: String {
            return ".concat(\(modelDescription(self.sources)))"
        }

        var children: [ModelSignal] {
            return self.sources
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .concat(children)
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            guard var chain = self.sources.first else {
                node.send(.completed)
                return
            }
            for next in self.sources.dropFirst() {
                chain = .then(chain, next)
            }
            model.behave(chain, node)
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return concat(self.sources.map { runner.build($0, token) })
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return runner.over(self.sources, "sk_signal_concat") { sk_signal_concat($0, $1, $2) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 37) { generator, depth in
                .concat(generator.signals(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func concat(_ sources: [ModelSignal]) -> ModelSignal {
        return ModelSignal(MetaFamily.Concat(sources: sources))
    }
}

// MARK: - The family

/// The meta operators. An operator added to the family: its block above this
/// one, then its type at the end of `operators`.
enum MetaFamily: ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] {
        return [
            IgnoreValues.self,
            Then.self,
            Meta.self,
            Deferred.self,
            StartWith.self,
            Concat.self,
        ]
    }
}
#endif
