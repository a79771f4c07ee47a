#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
import SwiftSignalKit

// The take operators of Sources/SwiftSignalKit/Operators/Signal_Take+First.swift
// in the model-based tester: one block each (see ModelOperator.swift).

// MARK: - first

extension TakeFirstFamily {
    /// `first`: `take(1)`.
    struct First: UnaryModelOperator {
        var source: ModelSignal

        var description: String {
            return ".first(\(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            model.behave(.take(1, self.source), node)
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return first(runner.build(self.source, token))
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return runner.over(self.source, "sk_signal_first") { sk_signal_first($0, $1) }
        }

        /// `first`, `elementAt` or `first(where:)`, a third each.
        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 33) { generator, depth in
                switch generator.random.below(3) {
                case 0:
                    return .first(generator.signal(depth: depth))
                case 1:
                    return .elementAt(generator.random.below(4) - 1, generator.signal(depth: depth))
                default:
                    return .firstWhere(generator.random.pick(ModelPredicate.allCases), generator.signal(depth: depth))
                }
            }]
        }
    }
}

extension ModelSignal {
    static func first(_ source: ModelSignal) -> ModelSignal {
        return ModelSignal(TakeFirstFamily.First(source: source))
    }
}

// MARK: - first(where:)

extension TakeFirstFamily {
    /// `first(where:)`: `take(1)` of `filter`. Made by `First`'s generation
    /// entry.
    struct FirstWhere: UnaryModelOperator {
        let predicate: ModelPredicate
        var source: ModelSignal

        var description: String {
            return ".firstWhere(\(self.predicate), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            model.behave(.take(1, .filter(self.predicate, self.source)), node)
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            let predicate = self.predicate
            return runner.build(self.source, token) |> first(where: { value in
                token.use()
                return predicate.test(value)
            })
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let predicate = self.predicate
            let ctx = runner.context("first_where's predicate", .predicate { predicate.test($0) })
            return runner.over(self.source, "sk_signal_first_where") {
                sk_signal_first_where($0, $1, CCallbackContext.predicate, ctx, CCallbackContext.release)
            }
        }

        var weight: Int {
            return self.predicate.rawValue
        }

        var simplerForms: [ModelSignal] {
            return [.first(self.source)] + ModelPredicate.allCases.filter { $0.rawValue < self.predicate.rawValue }
                .map { .firstWhere($0, self.source) }
        }
    }
}

extension ModelSignal {
    static func firstWhere(_ predicate: ModelPredicate, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(TakeFirstFamily.FirstWhere(predicate: predicate, source: source))
    }
}

// MARK: - elementAt

extension TakeFirstFamily {
    /// `elementAt(i)`: `take(1)` after `skip(i)`; nothing for a negative i.
    /// Made by `First`'s generation entry.
    struct ElementAt: UnaryModelOperator {
        let index: Int
        var source: ModelSignal

        var description: String {
            return ".elementAt(\(self.index), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            if self.index < 0 {
                model.behave(.filter(.never, self.source), node)
            } else {
                model.behave(.take(1, .skip(self.index, self.source)), node)
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> elementAt(self.index)
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            // A negative index: SIZE_MAX, never reached.
            let index = self.index < 0 ? Int(bitPattern: UInt.max) : self.index
            return runner.over(self.source, "sk_signal_element_at") { sk_signal_element_at($0, $1, index) }
        }
    }
}

extension ModelSignal {
    static func elementAt(_ index: Int, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(TakeFirstFamily.ElementAt(index: index, source: source))
    }
}

// MARK: - defaultIfEmpty

extension TakeFirstFamily {
    /// `defaultIfEmpty(v)`.
    struct DefaultIfEmpty: UnaryModelOperator {
        let value: Int
        var source: ModelSignal

        var description: String {
            return ".defaultIfEmpty(\(self.value), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let value = self.value
            var emitted = false
            model.start(self.source, under: node) { event in
                switch event {
                case .next:
                    emitted = true
                case .completed:
                    if !emitted {
                        node.send(.next(value))
                    }
                case .error:
                    break
                }
                node.send(event)
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> defaultIfEmpty(self.value)
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            var value = CLibraryRunner.value(self.value)
            return runner.over(self.source, "sk_signal_default_if_empty") { sk_signal_default_if_empty($0, $1, &value) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 34) { generator, depth in
                .defaultIfEmpty(generator.random.value(), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func defaultIfEmpty(_ value: Int, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(TakeFirstFamily.DefaultIfEmpty(value: value, source: source))
    }
}

// MARK: - takeUntil(signal)

extension TakeFirstFamily {
    /// `a |> takeUntil(b)`.
    struct TakeUntilSignal: ModelOperator {
        let source: ModelSignal
        let notifier: ModelSignal

        var description: String {
            return ".takeUntilSignal(\(self.source), \(self.notifier))"
        }

        var children: [ModelSignal] {
            return [self.source, self.notifier]
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .takeUntilSignal(children[0], children[1])
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            // The notifier first: a value completes; its completion changes
            // nothing.
            model.start(self.notifier, under: node) { event in
                switch event {
                case .next:
                    node.send(.completed)
                case .error:
                    node.send(event)
                case .completed:
                    break
                }
            }
            model.start(self.source, under: node) { event in
                node.send(event)
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> takeUntil(runner.build(self.notifier, token))
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return runner.over(self.source, self.notifier, "sk_signal_take_until_signal") { sk_signal_take_until_signal($0, $1, $2) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 38) { generator, depth in
                .takeUntilSignal(generator.signal(depth: depth), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func takeUntilSignal(_ source: ModelSignal, _ notifier: ModelSignal) -> ModelSignal {
        return ModelSignal(TakeFirstFamily.TakeUntilSignal(source: source, notifier: notifier))
    }
}

// MARK: - The family

/// The take operators that stop at one value or at a signal. An operator added
/// to the family: its block above this one, then its type at the end of
/// `operators`.
enum TakeFirstFamily: ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] {
        return [
            First.self,
            FirstWhere.self,
            ElementAt.self,
            DefaultIfEmpty.self,
            TakeUntilSignal.self,
        ]
    }
}
#endif
