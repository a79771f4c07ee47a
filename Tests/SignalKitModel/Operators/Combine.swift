#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
import SwiftSignalKit

// The combining operators (Sources/SwiftSignalKit/Operators/Signal_Combine.swift,
// Signal_Combine+Arity.swift, Signal_Combine+Zip.swift) in the model-based
// tester: one block each (see ModelOperator.swift). The values an operator
// pairs become one with `modelCombine`.

extension CombineFamily {
    /// `combineLatest`: latest values of each input; emits the combination
    /// once all have one; completes when all have completed; the first error
    /// ends it. Inputs are started in order (not at all once it has ended).
    fileprivate static func behaveCombine(_ model: ReferenceModel, _ inputs: [ModelSignal], initial: [Int?], _ node: ReferenceModel.Node) {
        if inputs.isEmpty {
            node.send(.next(modelCombine([])))
            node.send(.completed)
            return
        }
        var latest = initial
        var completed = 0
        if latest.allSatisfy({ $0 != nil }) {
            // With initial values: their combination first, before any
            // input starts.
            node.send(.next(modelCombine(latest.map { $0! })))
        }
        for (index, input) in inputs.enumerated() {
            model.start(input, under: node) { event in
                switch event {
                case let .next(value):
                    latest[index] = value
                    if latest.allSatisfy({ $0 != nil }) {
                        node.send(.next(modelCombine(latest.map { $0! })))
                    }
                case .error:
                    node.send(event)
                case .completed:
                    completed += 1
                    if completed == inputs.count {
                        node.send(.completed)
                    }
                }
            }
        }
    }
}

// MARK: - combineLatest

extension CombineFamily {
    /// The two-signal `combineLatest`.
    struct CombineLatest: ModelOperator {
        let first: ModelSignal
        let second: ModelSignal

        var description: String {
            return ".combineLatest(\(self.first), \(self.second))"
        }

        var children: [ModelSignal] {
            return [self.first, self.second]
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .combineLatest(children[0], children[1])
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            CombineFamily.behaveCombine(model, [self.first, self.second], initial: [nil, nil], node)
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return combineLatest(runner.build(self.first, token), runner.build(self.second, token)) |> map { pair in
                token.use()
                return modelCombine([pair.0, pair.1])
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let combined = runner.over([self.first, self.second], "sk_signal_combine_latest") { sk_signal_combine_latest($0, $1, $2, nil) }
            return runner.combined(combined, "combineLatest's combination")
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 19) { generator, depth in
                .combineLatest(generator.signal(depth: depth), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func combineLatest(_ first: ModelSignal, _ second: ModelSignal) -> ModelSignal {
        return ModelSignal(CombineFamily.CombineLatest(first: first, second: second))
    }
}

// MARK: - combineLatest with initial values

extension CombineFamily {
    /// `combineLatest(s1, v1, s2, v2)`.
    struct CombineLatestWithInitial: ModelOperator {
        let first: ModelSignal
        let firstInitial: Int
        let second: ModelSignal
        let secondInitial: Int

        var description: String {
            return ".combineLatestWithInitial(\(self.first), \(self.firstInitial), \(self.second), \(self.secondInitial))"
        }

        var children: [ModelSignal] {
            return [self.first, self.second]
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .combineLatestWithInitial(children[0], self.firstInitial, children[1], self.secondInitial)
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            CombineFamily.behaveCombine(model, [self.first, self.second], initial: [self.firstInitial, self.secondInitial], node)
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return combineLatest(runner.build(self.first, token), self.firstInitial, runner.build(self.second, token), self.secondInitial) |> map { pair in
                token.use()
                return modelCombine([pair.0, pair.1])
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return nil // see cAPIGap
        }

        static var cAPIGap: String? {
            return "sk_signal_combine_latest takes no initial values"
        }

        var weight: Int {
            return abs(self.firstInitial) + abs(self.secondInitial)
        }

        var simplerForms: [ModelSignal] {
            return [.combineLatest(self.first, self.second)]
                + ModelCheck.smaller(self.firstInitial).map { .combineLatestWithInitial(self.first, $0, self.second, self.secondInitial) }
                + ModelCheck.smaller(self.secondInitial).map { .combineLatestWithInitial(self.first, self.firstInitial, self.second, $0) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 20) { generator, depth in
                .combineLatestWithInitial(generator.signal(depth: depth), generator.random.value(), generator.signal(depth: depth), generator.random.value())
            }]
        }
    }
}

extension ModelSignal {
    static func combineLatestWithInitial(_ first: ModelSignal, _ firstInitial: Int, _ second: ModelSignal, _ secondInitial: Int) -> ModelSignal {
        return ModelSignal(CombineFamily.CombineLatestWithInitial(first: first, firstInitial: firstInitial, second: second, secondInitial: secondInitial))
    }
}

// MARK: - combineLatest of three

extension CombineFamily {
    /// The three-signal `combineLatest`.
    struct CombineLatest3: ModelOperator {
        let first: ModelSignal
        let second: ModelSignal
        let third: ModelSignal

        var description: String {
            return ".combineLatest3(\(self.first), \(self.second), \(self.third))"
        }

        var children: [ModelSignal] {
            return [self.first, self.second, self.third]
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .combineLatest3(children[0], children[1], children[2])
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            CombineFamily.behaveCombine(model, [self.first, self.second, self.third], initial: [nil, nil, nil], node)
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return combineLatest(runner.build(self.first, token), runner.build(self.second, token), runner.build(self.third, token)) |> map { triple in
                token.use()
                return modelCombine([triple.0, triple.1, triple.2])
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let combined = runner.over([self.first, self.second, self.third], "sk_signal_combine_latest") { sk_signal_combine_latest($0, $1, $2, nil) }
            return runner.combined(combined, "combineLatest3's combination")
        }

        var simplerForms: [ModelSignal] {
            return [.combineLatest(self.first, self.second), .combineLatest(self.first, self.third), .combineLatest(self.second, self.third)]
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 21) { generator, depth in
                .combineLatest3(generator.signal(depth: depth), generator.signal(depth: depth), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func combineLatest3(_ first: ModelSignal, _ second: ModelSignal, _ third: ModelSignal) -> ModelSignal {
        return ModelSignal(CombineFamily.CombineLatest3(first: first, second: second, third: third))
    }
}

// MARK: - combineLatest of an array

extension CombineFamily {
    /// The array `combineLatest`.
    struct CombineLatestArray: ModelOperator {
        let sources: [ModelSignal]

        var description: String {
            return ".combineLatestArray(\(modelDescription(self.sources)))"
        }

        var children: [ModelSignal] {
            return self.sources
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .combineLatestArray(children)
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            CombineFamily.behaveCombine(model, self.sources, initial: self.sources.map { _ in nil }, node)
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return combineLatest(self.sources.map { runner.build($0, token) }) |> map { values in
                token.use()
                return modelCombine(values)
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let combined = runner.over(self.sources, "sk_signal_combine_latest") { sk_signal_combine_latest($0, $1, $2, nil) }
            return runner.combined(combined, "combineLatestArray's combination")
        }

        /// The array less one input, for each input.
        var simplerForms: [ModelSignal] {
            return self.sources.indices.map { index in
                var removed = self.sources
                removed.remove(at: index)
                return .combineLatestArray(removed)
            }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 22) { generator, depth in
                .combineLatestArray(generator.signals(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func combineLatestArray(_ sources: [ModelSignal]) -> ModelSignal {
        return ModelSignal(CombineFamily.CombineLatestArray(sources: sources))
    }
}

// MARK: - zip

extension CombineFamily {
    /// The two-signal `zip`: the n-th values of both make the n-th pair;
    /// completes when an input has completed and none of its values waits.
    /// The inputs start in order (the second not at all once the zip has
    /// ended).
    struct Zip: ModelOperator {
        let first: ModelSignal
        let second: ModelSignal

        var description: String {
            return ".zip(\(self.first), \(self.second))"
        }

        var children: [ModelSignal] {
            return [self.first, self.second]
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .zip(children[0], children[1])
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            var queues: [[Int]] = [[], []]
            var done = [false, false]
            for (index, input) in [self.first, self.second].enumerated() {
                model.start(input, under: node) { event in
                    let other = 1 - index
                    switch event {
                    case let .next(value):
                        if queues[other].isEmpty {
                            queues[index].append(value)
                            return
                        }
                        let partner = queues[other].removeFirst()
                        let pair = index == 0 ? [value, partner] : [partner, value]
                        let complete = done[other] && queues[other].isEmpty
                        node.send(.next(modelCombine(pair)))
                        if complete {
                            node.send(.completed)
                        }
                    case .error:
                        node.send(event)
                    case .completed:
                        done[index] = true
                        if queues[index].isEmpty {
                            node.send(.completed)
                        }
                    }
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return zip(runner.build(self.first, token), runner.build(self.second, token)) |> map { pair in
                token.use()
                return modelCombine([pair.0, pair.1])
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let zipped = runner.over([self.first, self.second], "sk_signal_zip") { sk_signal_zip($0, $1, $2) }
            return runner.combined(zipped, "zip's combination")
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 35) { generator, depth in
                .zip(generator.signal(depth: depth), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func zip(_ first: ModelSignal, _ second: ModelSignal) -> ModelSignal {
        return ModelSignal(CombineFamily.Zip(first: first, second: second))
    }
}

// MARK: - withLatestFrom

extension CombineFamily {
    /// `source |> withLatestFrom(other)`: `other` first; its completion
    /// changes nothing.
    struct WithLatestFrom: ModelOperator {
        let source: ModelSignal
        let other: ModelSignal

        var description: String {
            return ".withLatestFrom(\(self.source), \(self.other))"
        }

        var children: [ModelSignal] {
            return [self.source, self.other]
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .withLatestFrom(children[0], children[1])
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            var latest: Int?
            model.start(self.other, under: node) { event in
                switch event {
                case let .next(value):
                    latest = value
                case .error:
                    node.send(event)
                case .completed:
                    break
                }
            }
            model.start(self.source, under: node) { event in
                guard case let .next(value) = event else {
                    node.send(event)
                    return
                }
                if let latest {
                    node.send(.next(modelCombine([value, latest])))
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> withLatestFrom(runner.build(self.other, token)) |> map { pair in
                token.use()
                return modelCombine([pair.0, pair.1])
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let pairs = runner.over(self.source, self.other, "sk_signal_with_latest_from") { sk_signal_with_latest_from($0, $1, $2) }
            return runner.combined(pairs, "withLatestFrom's combination")
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 36) { generator, depth in
                .withLatestFrom(generator.signal(depth: depth), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func withLatestFrom(_ source: ModelSignal, _ other: ModelSignal) -> ModelSignal {
        return ModelSignal(CombineFamily.WithLatestFrom(source: source, other: other))
    }
}

// MARK: - The family

/// The combining operators. An operator added to the family: its block above
/// this one, then its type at the end of `operators`.
enum CombineFamily: ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] {
        return [
            CombineLatest.self,
            CombineLatestWithInitial.self,
            CombineLatest3.self,
            CombineLatestArray.self,
            Zip.self,
            WithLatestFrom.self,
        ]
    }
}
#endif
