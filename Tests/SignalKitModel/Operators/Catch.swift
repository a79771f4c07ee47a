#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
import SwiftSignalKit

// The operators that resubscribe or recover (Sources/SwiftSignalKit/Operators/
// Signal_Catch.swift, Signal_Catch+Count.swift) in the model-based tester: one
// block each (see ModelOperator.swift).

extension CatchFamily {
    /// A loop (`restart`, `restartIfError`) over `source` stops: if one
    /// round, while it is being started, ends with the event that makes it
    /// resubscribe (`resubscribesOnCompletion`: the completion, otherwise
    /// an error), it emits a value first and the loop is `underTake` (which
    /// stops it); and the loops in `source` stop.
    fileprivate static func loopStops(_ source: ModelSignal, resubscribesOnCompletion: Bool, underTake: Bool) -> Bool {
        // What one round does while it is being started (the same for
        // every round, once a replaying pipe has a value).
        guard let round = ReferenceModel.run(ModelCase(signal: source, script: []), primed: true) else {
            return false
        }
        let loops = round.events.contains { observation in
            switch observation.event {
            case .completed:
                return resubscribesOnCompletion
            case .error:
                return !resubscribesOnCompletion
            case .next:
                return false
            }
        }
        if loops {
            let emits = round.events.contains { observation in
                if case .next = observation.event {
                    return true
                }
                return false
            }
            if !emits || !underTake {
                return false
            }
        }
        return ModelCheck.loopsAreStopped(source, underTake: false)
    }
}

// MARK: - restart

extension CatchFamily {
    /// `restart`: subscribes again each time it completes, while the
    /// subscription lives.
    struct Restart: UnaryModelOperator {
        var source: ModelSignal

        var description: String {
            return ".restart(\(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let source = self.source
            func round() {
                model.start(source, under: node) { event in
                    if event == .completed {
                        if !node.dead {
                            round()
                        }
                    } else {
                        node.send(event)
                    }
                }
            }
            round()
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return restart(runner.build(self.source, token))
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return runner.over(self.source, "sk_signal_restart") { sk_signal_restart($0, $1) }
        }

        func loopsAreStopped(underTake: Bool) -> Bool {
            return CatchFamily.loopStops(self.source, resubscribesOnCompletion: true, underTake: underTake)
        }

        var loopsSynchronously: Bool {
            return true
        }

        /// `restart` (60%) or `restartIfError` (40%): one that completes (or
        /// fails) synchronously needs a take directly above it (maybe
        /// through map or filter) to stop.
        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 12, weight: 2) { generator, depth in
                let loop: ModelSignal = generator.random.chance(60) ? .restart(generator.signal(depth: depth - 1)) : .restartIfError(generator.signal(depth: depth - 1))
                let body: ModelSignal
                switch generator.random.below(4) {
                case 0:
                    body = .map(generator.random.pick(ModelMap.allCases), loop)
                case 1:
                    body = .filter(generator.random.pick(ModelPredicate.allCases), loop)
                default:
                    body = loop
                }
                return generator.random.chance(85) ? .take(1 + generator.random.below(4), body) : body
            }]
        }
    }
}

extension ModelSignal {
    static func restart(_ source: ModelSignal) -> ModelSignal {
        return ModelSignal(CatchFamily.Restart(source: source))
    }
}

// MARK: - restartIfError

extension CatchFamily {
    /// `restartIfError`, the error type cast back: subscribes again each
    /// time it fails, while the subscription lives. Made by `Restart`'s
    /// generation entry.
    struct RestartIfError: UnaryModelOperator {
        var source: ModelSignal

        var description: String {
            return ".restartIfError(\(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let source = self.source
            func round() {
                model.start(source, under: node) { event in
                    if case .error = event {
                        if !node.dead {
                            round()
                        }
                    } else {
                        node.send(event)
                    }
                }
            }
            round()
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return restartIfError(runner.build(self.source, token)) |> castError(Int.self)
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return runner.over(self.source, "sk_signal_restart_if_error") { sk_signal_restart_if_error($0, $1) }
        }

        func loopsAreStopped(underTake: Bool) -> Bool {
            return CatchFamily.loopStops(self.source, resubscribesOnCompletion: false, underTake: underTake)
        }

        var loopsSynchronously: Bool {
            return true
        }
    }
}

extension ModelSignal {
    static func restartIfError(_ source: ModelSignal) -> ModelSignal {
        return ModelSignal(CatchFamily.RestartIfError(source: source))
    }
}

// MARK: - catch

extension CatchFamily {
    /// `catch`: on error, continues with the second pipeline.
    struct Catch: ModelOperator {
        let source: ModelSignal
        let alternative: ModelSignal

        var description: String {
            return ".catch(\(self.source), \(self.alternative))"
        }

        var children: [ModelSignal] {
            return [self.source, self.alternative]
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .catch(children[0], children[1])
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let alternative = self.alternative
            model.start(self.source, under: node) { event in
                if case .error = event {
                    model.start(alternative, under: node) { event in
                        node.send(event)
                    }
                } else {
                    node.send(event)
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            let alternativeSignal = runner.build(self.alternative, token)
            return runner.build(self.source, token) |> `catch` { (_: Int) -> Signal<Int, Int> in
                token.use()
                return alternativeSignal
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let alternative = self.alternative
            let ctx = runner.context("catch's function", .signal { _ in runner.build(alternative) })
            return runner.over(self.source, "sk_signal_catch") { sk_signal_catch($0, $1, CCallbackContext.signal, ctx, CCallbackContext.release) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 14) { generator, depth in
                .catch(generator.signal(depth: depth), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func `catch`(_ source: ModelSignal, _ alternative: ModelSignal) -> ModelSignal {
        return ModelSignal(CatchFamily.Catch(source: source, alternative: alternative))
    }
}

// MARK: - retry

extension CatchFamily {
    /// `retry(count:)`, without a delay: subscribes again at once each time
    /// it fails, at most `count` times (none for 0 or less); the error after
    /// the last retry, the values and the completion pass through.
    struct Retry: UnaryModelOperator {
        let count: Int
        var source: ModelSignal

        var description: String {
            return ".retry(\(self.count), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let source = self.source
            let count = self.count
            var retries = 0
            func round() {
                model.start(source, under: node) { event in
                    if case .error = event, retries < count {
                        retries += 1
                        if !node.dead {
                            round()
                        }
                    } else {
                        node.send(event)
                    }
                }
            }
            round()
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> retry(count: self.count)
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            // At once (no queue, no delay).
            let count = max(0, self.count)
            return runner.over(self.source, "sk_signal_retry_count") { sk_signal_retry_count($0, $1, count, 0, nil) }
        }

        var weight: Int {
            return abs(self.count)
        }

        var simplerForms: [ModelSignal] {
            return ModelCheck.smaller(self.count).map { .retry($0, self.source) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 43) { generator, depth in
                .retry(generator.random.below(5) - 1, generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func retry(_ count: Int, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(CatchFamily.Retry(count: count, source: source))
    }
}

// MARK: - The family

/// The operators that resubscribe or recover. An operator added to the family:
/// its block above this one, then its type at the end of `operators`.
enum CatchFamily: ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] {
        return [
            Restart.self,
            RestartIfError.self,
            Catch.self,
            Retry.self,
        ]
    }
}
#endif
