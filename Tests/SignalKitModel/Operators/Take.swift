#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
import SwiftSignalKit

// The take operators (Sources/SwiftSignalKit/Operators/Signal_Take.swift,
// Signal_Take+Skip.swift) in the model-based tester: one block each (see
// ModelOperator.swift). The others are in Take+First.swift.

// MARK: - take

extension TakeFamily {
    /// `take(n)`.
    struct Take: UnaryModelOperator {
        let count: Int
        var source: ModelSignal

        var description: String {
            return ".take(\(self.count), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            // Passes the first `count` values and completes once all of them
            // have been delivered: right after the count-th, or, when that one
            // arrived while an earlier one was still being delivered (from
            // inside its callback), once that earlier delivery is over. With a
            // count of 0 or less, passes nothing and ends with the upstream.
            let count = self.count
            var admitted = 0
            var delivered = 0
            model.start(self.source, under: node) { event in
                guard case let .next(value) = event else {
                    node.send(event)
                    return
                }
                if count <= 0 || admitted >= count {
                    return
                }
                admitted += 1
                node.send(.next(value))
                delivered += 1
                if delivered == count {
                    node.send(.completed)
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> take(self.count)
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let count = max(0, self.count)
            return runner.over(self.source, "sk_signal_take") { sk_signal_take($0, $1, count) }
        }

        var weight: Int {
            return abs(self.count)
        }

        var simplerForms: [ModelSignal] {
            return ModelCheck.smaller(self.count).map { .take($0, self.source) }
        }

        func loopsAreStopped(underTake: Bool) -> Bool {
            // A restart this take stops must stop on its own (the library may
            // start it where the model does not: see ModelKnownBugs).
            var chain = self.source
            while let inner = chain.modelOperator, inner.passesTakeThrough {
                chain = inner.children[0]
            }
            if chain.modelOperator?.loopsSynchronously == true {
                if ReferenceModel.run(ModelCase(signal: ModelSignal(self), script: []), primed: true) == nil {
                    return false
                }
            }
            return ModelCheck.loopsAreStopped(self.source, underTake: self.count > 0)
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 2, weight: 2) { generator, depth in
                .take(generator.random.below(4), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func take(_ count: Int, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(TakeFamily.Take(count: count, source: source))
    }
}

// MARK: - take(until:)

extension TakeFamily {
    /// `take(until:)` with one of the `ModelUntil` decisions.
    struct TakeUntil: UnaryModelOperator {
        let until: ModelUntil
        var source: ModelSignal

        var description: String {
            return ".takeUntil(\(self.until), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let until = self.until
            var done = false
            model.start(self.source, under: node) { event in
                guard case let .next(value) = event else {
                    node.send(event)
                    return
                }
                if done {
                    return
                }
                let decision = until.decide(value)
                if decision.passthrough {
                    node.send(.next(value))
                }
                if decision.complete {
                    done = true
                    node.send(.completed)
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            let until = self.until
            return runner.build(self.source, token) |> take(until: { value in
                token.use()
                let decision = until.decide(value)
                return SignalTakeAction(passthrough: decision.passthrough, complete: decision.complete)
            })
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let until = self.until
            let ctx = runner.context("takeUntil's decision", .until { until.decide($0) })
            return runner.over(self.source, "sk_signal_take_until") { sk_signal_take_until($0, $1, CCallbackContext.until, ctx, CCallbackContext.release) }
        }

        var weight: Int {
            return self.until.rawValue
        }

        var simplerForms: [ModelSignal] {
            return ModelUntil.allCases.filter { $0.rawValue < self.until.rawValue }.map { .takeUntil($0, self.source) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 4) { generator, depth in
                .takeUntil(generator.random.pick(ModelUntil.allCases), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func takeUntil(_ until: ModelUntil, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(TakeFamily.TakeUntil(until: until, source: source))
    }
}

// MARK: - last

/// What `last` emits (mapped from nil) when its upstream completed without a value.
let modelNilMarker = -1_000_000

extension TakeFamily {
    /// `last`, nil mapped to `modelNilMarker`.
    struct Last: UnaryModelOperator {
        var source: ModelSignal

        var description: String {
            return ".last(\(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            var last: Int?
            model.start(self.source, under: node) { event in
                switch event {
                case let .next(value):
                    last = value
                case .error:
                    node.send(event)
                case .completed:
                    node.send(.next(last ?? modelNilMarker))
                    node.send(.completed)
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> last |> map { value in
                token.use()
                return value ?? modelNilMarker
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            // sk_signal_last's nil is read as modelNilMarker (CLibraryRunner.int).
            let last = runner.over(self.source, "sk_signal_last") { sk_signal_last($0, $1) }
            return runner.map(last, "last's nil to modelNilMarker") { $0 }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 8) { generator, depth in
                .last(generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func last(_ source: ModelSignal) -> ModelSignal {
        return ModelSignal(TakeFamily.Last(source: source))
    }
}

// MARK: - skip

extension TakeFamily {
    /// `skip(n)`.
    struct Skip: UnaryModelOperator {
        let count: Int
        var source: ModelSignal

        var description: String {
            return ".skip(\(self.count), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let count = self.count
            var seen = 0
            model.start(self.source, under: node) { event in
                if case .next = event, seen < count {
                    seen += 1
                    return
                }
                node.send(event)
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> skip(self.count)
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let count = max(0, self.count)
            return runner.over(self.source, "sk_signal_skip") { sk_signal_skip($0, $1, count) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 28) { generator, depth in
                .skip(generator.random.below(4), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func skip(_ count: Int, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(TakeFamily.Skip(count: count, source: source))
    }
}

// MARK: - skipWhile

extension TakeFamily {
    /// `skipWhile` with one of the `ModelPredicate`s.
    struct SkipWhile: UnaryModelOperator {
        let predicate: ModelPredicate
        var source: ModelSignal

        var description: String {
            return ".skipWhile(\(self.predicate), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let predicate = self.predicate
            var passing = false
            model.start(self.source, under: node) { event in
                if case let .next(value) = event, !passing {
                    if predicate.test(value) {
                        return
                    }
                    passing = true
                }
                node.send(event)
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            let predicate = self.predicate
            return runner.build(self.source, token) |> skipWhile { value in
                token.use()
                return predicate.test(value)
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let predicate = self.predicate
            let ctx = runner.context("skipWhile's predicate", .predicate { predicate.test($0) })
            return runner.over(self.source, "sk_signal_skip_while") { sk_signal_skip_while($0, $1, CCallbackContext.predicate, ctx, CCallbackContext.release) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 29) { generator, depth in
                .skipWhile(generator.random.pick(ModelPredicate.allCases), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func skipWhile(_ predicate: ModelPredicate, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(TakeFamily.SkipWhile(predicate: predicate, source: source))
    }
}

// MARK: - takeWhile

extension TakeFamily {
    /// `takeWhile(inclusive:)` with one of the `ModelPredicate`s.
    struct TakeWhile: UnaryModelOperator {
        let predicate: ModelPredicate
        let inclusive: Bool
        var source: ModelSignal

        var description: String {
            return ".takeWhile(\(self.predicate), \(self.inclusive), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            // At the first value that fails: (that value,) the completion;
            // nothing is asked afterwards.
            let predicate = self.predicate
            let inclusive = self.inclusive
            var done = false
            model.start(self.source, under: node) { event in
                guard case let .next(value) = event else {
                    node.send(event)
                    return
                }
                if done {
                    return
                }
                if predicate.test(value) {
                    node.send(event)
                    return
                }
                done = true
                if inclusive {
                    node.send(event)
                }
                node.send(.completed)
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            let predicate = self.predicate
            return runner.build(self.source, token) |> takeWhile(inclusive: self.inclusive) { value in
                token.use()
                return predicate.test(value)
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let predicate = self.predicate
            let inclusive = self.inclusive
            let ctx = runner.context("takeWhile's predicate", .predicate { predicate.test($0) })
            return runner.over(self.source, "sk_signal_take_while") { sk_signal_take_while($0, $1, CCallbackContext.predicate, ctx, CCallbackContext.release, inclusive) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 30) { generator, depth in
                .takeWhile(generator.random.pick(ModelPredicate.allCases), generator.random.chance(50), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func takeWhile(_ predicate: ModelPredicate, _ inclusive: Bool, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(TakeFamily.TakeWhile(predicate: predicate, inclusive: inclusive, source: source))
    }
}

// MARK: - The family

/// The take operators. An operator added to the family: its block above this
/// one, then its type at the end of `operators`.
enum TakeFamily: ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] {
        return [
            Take.self,
            TakeUntil.self,
            Last.self,
            Skip.self,
            SkipWhile.self,
            TakeWhile.self,
        ]
    }
}
#endif
