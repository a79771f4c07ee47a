#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
import SwiftSignalKit

// `mergeMap` (Sources/SwiftSignalKit/Operators/Signal_Meta+MergeMap.swift) in
// the model-based tester (see ModelOperator.swift).

// MARK: - mergeMap

extension MergeMapFamily {
    /// `mergeMap(maxConcurrent:)`: outer, inner as in `meta`. Each outer
    /// value `v` waits (in order) until fewer than `maxConcurrent` inner
    /// signals run (a count below 1 counts as 1), then starts the inner
    /// pipeline with `v` added to its values. Inner signals are started by a
    /// loop, one start at a time: a value or an inner completion that comes
    /// while an inner signal is starting is handled once that start has
    /// returned. Any error ends everything; completes once the outer has
    /// completed and no inner signal runs or waits.
    struct MergeMap: ModelOperator {
        let maxConcurrent: Int
        let outer: ModelSignal
        let inner: ModelSignal

        var description: String {
            return ".mergeMap(\(self.maxConcurrent == Int.max ? "Int.max" : String(self.maxConcurrent)), \(self.outer), \(self.inner))"
        }

        var children: [ModelSignal] {
            return [self.outer, self.inner]
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .mergeMap(self.maxConcurrent, children[0], children[1])
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let maxConcurrent = max(1, self.maxConcurrent)
            let inner = self.inner
            var waiting: [Int] = []
            var active = 0
            var driving = false
            var outerDone = false

            func drive() {
                if driving || node.dead {
                    return
                }
                driving = true
                while !node.dead && active < maxConcurrent && !waiting.isEmpty {
                    let offset = waiting.removeFirst()
                    active += 1
                    model.start(inner, under: node) { event in
                        switch event {
                        case let .next(value):
                            node.send(.next(value &+ offset))
                        case .error:
                            node.send(event)
                        case .completed:
                            active -= 1
                            drive()
                        }
                    }
                }
                driving = false
                if active == 0 && outerDone && waiting.isEmpty {
                    node.send(.completed)
                }
            }

            model.start(self.outer, under: node) { event in
                switch event {
                case let .next(value):
                    waiting.append(value)
                    drive()
                case .error:
                    node.send(event)
                case .completed:
                    outerDone = true
                    drive()
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.outer, token) |> mergeMap(maxConcurrent: self.maxConcurrent, MetaFamily.buildInner(runner, token, self.inner))
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            // Int.max: SIZE_MAX; below 1: 1, as in Swift (C refuses 0).
            let maxConcurrent = self.maxConcurrent == Int.max ? Int(bitPattern: UInt.max) : max(1, self.maxConcurrent)
            let ctx = runner.context("mergeMap's function", .signal(MetaFamily.buildInnerC(runner, self.inner)))
            return runner.over(self.outer, "sk_signal_merge_map") { sk_signal_merge_map($0, $1, maxConcurrent, CCallbackContext.signal, ctx, CCallbackContext.release) }
        }

        var weight: Int {
            return min(abs(self.maxConcurrent), 20)
        }

        var simplerForms: [ModelSignal] {
            return [.meta(.mapToQueue, self.outer, self.inner)] + ModelCheck.smaller(self.maxConcurrent).map { .mergeMap($0, self.outer, self.inner) }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 39, weight: 2) { generator, depth in
                .mergeMap(generator.random.pick([Int.max, Int.max, 1, 2, 3, 0]), generator.signal(depth: depth), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func mergeMap(_ maxConcurrent: Int, _ outer: ModelSignal, _ inner: ModelSignal) -> ModelSignal {
        return ModelSignal(MergeMapFamily.MergeMap(maxConcurrent: maxConcurrent, outer: outer, inner: inner))
    }
}

// MARK: - The family

/// The meta operators that run inner signals side by side. An operator added to
/// the family: its block above this one, then its type at the end of
/// `operators`.
enum MergeMapFamily: ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] {
        return [
            MergeMap.self,
        ]
    }
}
#endif
