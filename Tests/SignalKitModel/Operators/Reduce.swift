#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
import SwiftSignalKit

// The reducing operators (Sources/SwiftSignalKit/Operators/Signal_Reduce.swift,
// Signal_Reduce+Scan.swift) in the model-based tester: one block each (see
// ModelOperator.swift).

extension ReduceFamily {
    /// Folds the values with + (emitting the sum after an even value when
    /// `emitting`); at the completion, emits the sum and completes. One event
    /// at a time: one that arrives while another is being handled (from
    /// inside the callback of an emitted value) waits until it is done.
    fileprivate static func behaveReduce(_ model: ReferenceModel, _ initial: Int, emitting: Bool, _ source: ModelSignal, _ node: ReferenceModel.Node) {
        var sum = initial
        var waiting: [ModelEvent] = []
        var handling = false
        var stopped = false
        model.start(source, under: node) { event in
            waiting.append(event)
            if handling {
                return
            }
            handling = true
            while !stopped && !waiting.isEmpty {
                switch waiting.removeFirst() {
                case let .next(value):
                    sum = sum &+ value
                    if emitting && value % 2 == 0 {
                        node.send(.next(sum))
                    }
                case let .error(error):
                    stopped = true
                    node.send(.error(error))
                case .completed:
                    stopped = true
                    node.send(.next(sum))
                    node.send(.completed)
                }
            }
            handling = false
        }
    }
}

// MARK: - reduceLeft

extension ReduceFamily {
    /// `reduceLeft(value:f:)` with +.
    struct ReduceLeft: UnaryModelOperator {
        let initial: Int
        var source: ModelSignal

        var description: String {
            return ".reduceLeft(\(self.initial), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            ReduceFamily.behaveReduce(model, self.initial, emitting: false, self.source, node)
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> reduceLeft(value: self.initial, f: { sum, value in
                token.use()
                return sum &+ value
            })
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            var initial = CLibraryRunner.value(self.initial)
            let ctx = runner.context("reduceLeft's function", .fold { $0 &+ $1 })
            return runner.over(self.source, "sk_signal_reduce_left") { sk_signal_reduce_left($0, $1, &initial, CCallbackContext.fold, ctx, CCallbackContext.release) }
        }

        var weight: Int {
            return abs(self.initial)
        }

        var simplerForms: [ModelSignal] {
            return ModelCheck.smaller(self.initial).map { .reduceLeft($0, self.source) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 6) { generator, depth in
                .reduceLeft(generator.random.value(), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func reduceLeft(_ initial: Int, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(ReduceFamily.ReduceLeft(initial: initial, source: source))
    }
}

// MARK: - reduceLeft, emitting

extension ReduceFamily {
    /// `reduceLeft(value:f:)` with + that also emits the running sum after an even value.
    struct ReduceLeftEmitting: UnaryModelOperator {
        let initial: Int
        var source: ModelSignal

        var description: String {
            return ".reduceLeftEmitting(\(self.initial), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            ReduceFamily.behaveReduce(model, self.initial, emitting: true, self.source, node)
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> reduceLeft(value: self.initial, f: { sum, value, emit in
                token.use()
                let updated = sum &+ value
                if value % 2 == 0 {
                    emit(updated)
                }
                return updated
            })
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return nil // see cAPIGap
        }

        static var cAPIGap: String? {
            return "sk_reduce_fn cannot emit a value while it folds (the Swift f is given `emit`)"
        }

        var weight: Int {
            return abs(self.initial)
        }

        var simplerForms: [ModelSignal] {
            return [.reduceLeft(self.initial, self.source)] + ModelCheck.smaller(self.initial).map { .reduceLeftEmitting($0, self.source) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 7) { generator, depth in
                .reduceLeftEmitting(generator.random.value(), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func reduceLeftEmitting(_ initial: Int, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(ReduceFamily.ReduceLeftEmitting(initial: initial, source: source))
    }
}

// MARK: - scan

extension ReduceFamily {
    /// `scan` with +, from the initial value: each value's running sum. One
    /// event at a time, as `reduceLeft`: one that arrives while another is
    /// being handled waits until it is done.
    struct Scan: UnaryModelOperator {
        let initial: Int
        var source: ModelSignal

        var description: String {
            return ".scan(\(self.initial), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            var sum = self.initial
            var waiting: [ModelEvent] = []
            var handling = false
            var stopped = false
            model.start(self.source, under: node) { event in
                waiting.append(event)
                if handling {
                    return
                }
                handling = true
                while !stopped && !waiting.isEmpty {
                    let next = waiting.removeFirst()
                    switch next {
                    case let .next(value):
                        sum = sum &+ value
                        node.send(.next(sum))
                    case .error, .completed:
                        stopped = true
                        node.send(next)
                    }
                }
                handling = false
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> scan(self.initial) { sum, value in
                token.use()
                return sum &+ value
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            var initial = CLibraryRunner.value(self.initial)
            let ctx = runner.context("scan's function", .fold { $0 &+ $1 })
            return runner.over(self.source, "sk_signal_scan") { sk_signal_scan($0, $1, &initial, CCallbackContext.fold, ctx, CCallbackContext.release) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 27) { generator, depth in
                .scan(generator.random.value(), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func scan(_ initial: Int, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(ReduceFamily.Scan(initial: initial, source: source))
    }
}

// MARK: - pairwise

extension ReduceFamily {
    /// `pairwise`, each pair combined with `modelCombine`.
    struct Pairwise: UnaryModelOperator {
        var source: ModelSignal

        var description: String {
            return ".pairwise(\(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            // One value at a time, as scan: a value that arrives from inside
            // the delivery of a pair waits until that delivery is over (the
            // library's serial gate), then pairs with the value before it.
            var previous: Int?
            var waiting: [ModelEvent] = []
            var handling = false
            var stopped = false
            model.start(self.source, under: node) { event in
                waiting.append(event)
                if handling {
                    return
                }
                handling = true
                while !stopped && !waiting.isEmpty {
                    let next = waiting.removeFirst()
                    switch next {
                    case let .next(value):
                        let before = previous
                        previous = value
                        if let before {
                            node.send(.next(modelCombine([before, value])))
                        }
                    case .error, .completed:
                        stopped = true
                        node.send(next)
                    }
                }
                handling = false
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> pairwise |> map { pair in
                token.use()
                return modelCombine([pair.0, pair.1])
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return runner.combined(runner.over(self.source, "sk_signal_pairwise") { sk_signal_pairwise($0, $1) }, "pairwise's combination")
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 32) { generator, depth in
                .pairwise(generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func pairwise(_ source: ModelSignal) -> ModelSignal {
        return ModelSignal(ReduceFamily.Pairwise(source: source))
    }
}

// MARK: - The family

/// The reducing operators. An operator added to the family: its block above
/// this one, then its type at the end of `operators`.
enum ReduceFamily: ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] {
        return [
            ReduceLeft.self,
            ReduceLeftEmitting.self,
            Scan.self,
            Pairwise.self,
        ]
    }
}
#endif
