#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
import SwiftSignalKit

// The mapping operators (Sources/SwiftSignalKit/Operators/Signal_Mapping.swift)
// in the model-based tester: one block each (see ModelOperator.swift).

// MARK: - map

extension MappingFamily {
    /// `map` with one of the `ModelMap` functions.
    struct Map: UnaryModelOperator {
        let function: ModelMap
        var source: ModelSignal

        var description: String {
            return ".map(\(self.function), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let function = self.function
            model.start(self.source, under: node) { event in
                if case let .next(value) = event {
                    node.send(.next(function.apply(value)))
                } else {
                    node.send(event)
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            let function = self.function
            return runner.build(self.source, token) |> map { value in
                token.use()
                return function.apply(value)
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let function = self.function
            return runner.map(runner.build(self.source), "map's function") { function.apply($0) }
        }

        var weight: Int {
            return self.function.rawValue
        }

        var simplerForms: [ModelSignal] {
            return ModelMap.allCases.filter { $0.rawValue < self.function.rawValue }.map { .map($0, self.source) }
        }

        var passesTakeThrough: Bool {
            return true
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 0) { generator, depth in
                .map(generator.random.pick(ModelMap.allCases), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func map(_ function: ModelMap, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(MappingFamily.Map(function: function, source: source))
    }
}

// MARK: - filter

extension MappingFamily {
    /// `filter` with one of the `ModelPredicate`s.
    struct Filter: UnaryModelOperator {
        let predicate: ModelPredicate
        var source: ModelSignal

        var description: String {
            return ".filter(\(self.predicate), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let predicate = self.predicate
            model.start(self.source, under: node) { event in
                if case let .next(value) = event, !predicate.test(value) {
                    return
                }
                node.send(event)
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            let predicate = self.predicate
            return runner.build(self.source, token) |> filter { value in
                token.use()
                return predicate.test(value)
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let predicate = self.predicate
            let ctx = runner.context("filter's predicate", .predicate { predicate.test($0) })
            return runner.over(self.source, "sk_signal_filter") { sk_signal_filter($0, $1, CCallbackContext.predicate, ctx, CCallbackContext.release) }
        }

        var weight: Int {
            return self.predicate.rawValue
        }

        var simplerForms: [ModelSignal] {
            return ModelPredicate.allCases.filter { $0.rawValue < self.predicate.rawValue }.map { .filter($0, self.source) }
        }

        var passesTakeThrough: Bool {
            return true
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 1) { generator, depth in
                .filter(generator.random.pick(ModelPredicate.allCases), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func filter(_ predicate: ModelPredicate, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(MappingFamily.Filter(predicate: predicate, source: source))
    }
}

// MARK: - distinctUntilChanged

extension MappingFamily {
    /// `distinctUntilChanged`.
    struct DistinctUntilChanged: UnaryModelOperator {
        var source: ModelSignal

        var description: String {
            return ".distinctUntilChanged(\(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            var previous: Int?
            model.start(self.source, under: node) { event in
                if case let .next(value) = event {
                    if previous == value {
                        return
                    }
                    previous = value
                }
                node.send(event)
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> distinctUntilChanged
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return runner.over(self.source, "sk_signal_distinct_until_changed") { sk_signal_distinct_until_changed($0, $1) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 5) { generator, depth in
                .distinctUntilChanged(generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func distinctUntilChanged(_ source: ModelSignal) -> ModelSignal {
        return ModelSignal(MappingFamily.DistinctUntilChanged(source: source))
    }
}

// MARK: - mapError

extension MappingFamily {
    /// `mapError` with +100.
    struct MapError: UnaryModelOperator {
        var source: ModelSignal

        var description: String {
            return ".mapError(\(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            model.start(self.source, under: node) { event in
                if case let .error(error) = event {
                    node.send(.error(error &+ 100))
                } else {
                    node.send(event)
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> mapError { error in
                token.use()
                return error &+ 100
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            // The C API has no mapError: sk_signal_catch, its function returning
            // sk_signal_fail of the mapped error.
            let ctx = runner.context("mapError's function", .signal { error in
                var mapped = CLibraryRunner.value(error &+ 100)
                return runner.call("sk_signal_fail") { sk_signal_fail($0, &mapped) }
            })
            return runner.over(self.source, "sk_signal_catch") { sk_signal_catch($0, $1, CCallbackContext.signal, ctx, CCallbackContext.release) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 15) { generator, depth in
                .mapError(generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func mapError(_ source: ModelSignal) -> ModelSignal {
        return ModelSignal(MappingFamily.MapError(source: source))
    }
}

// MARK: - a map that fails

extension MappingFamily {
    /// A map whose function fails at one value (docs/misuse.md, "A callback
    /// that fails"): `increment`, except that the value `at` ends the
    /// stream with the error `failingMapError + at`, disposing the
    /// upstream, and nothing follows. The C API's function calls
    /// `sk_callback_fail`; SwiftSignalKit's map takes a function that
    /// cannot fail, so the Swift library runs it as the map to a signal that
    /// fails for that value (`mapToSignal`, each inner signal synchronous).
    struct FailingMap: UnaryModelOperator {
        let at: Int
        var source: ModelSignal

        var description: String {
            return ".failingMap(at: \(self.at), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let at = self.at
            model.start(self.source, under: node) { event in
                if case let .next(value) = event {
                    node.send(value == at ? .error(failingMapError + at) : .next(value &+ 1))
                } else {
                    node.send(event)
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            let at = self.at
            return runner.build(self.source, token) |> mapToSignal { value -> Signal<Int, Int> in
                token.use()
                return value == at ? .fail(failingMapError + at) : .single(value &+ 1)
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let at = self.at
            return runner.failableMap(runner.build(self.source), "a failing map's function") { value in
                return value == at ? (0, failingMapError + at) : (value &+ 1, nil)
            }
        }

        var weight: Int {
            return 1
        }

        var simplerForms: [ModelSignal] {
            return [.map(.increment, self.source)]
        }

        var passesTakeThrough: Bool {
            return true
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 45) { generator, depth in
                .failingMap(at: generator.random.below(4), generator.signal(depth: depth))
            }]
        }
    }
}

/// The error of `FailingMap` at the value 0 (at `v`: this plus `v`).
let failingMapError = 900

extension ModelSignal {
    static func failingMap(at: Int, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(MappingFamily.FailingMap(at: at, source: source))
    }
}

// MARK: - The family

/// The mapping operators. An operator added to the family: its block above this
/// one, then its type at the end of `operators`.
enum MappingFamily: ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] {
        return [
            Map.self,
            Filter.self,
            DistinctUntilChanged.self,
            MapError.self,
            FailingMap.self,
        ]
    }
}
#endif
