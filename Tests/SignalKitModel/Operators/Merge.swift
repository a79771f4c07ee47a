#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
import SwiftSignalKit

// The merging operator (Sources/SwiftSignalKit/Operators/Signal_Merge.swift)
// in the model-based tester (see ModelOperator.swift).

// MARK: - merge

extension MergeFamily {
    /// `merge` of a list: every input's values; completes once all have
    /// completed; the first error ends it.
    struct Merge: ModelOperator {
        let sources: [ModelSignal]

        var description: String {
            return ".merge(\(modelDescription(self.sources)))"
        }

        var children: [ModelSignal] {
            return self.sources
        }

        func withChildren(_ children: [ModelSignal]) -> ModelSignal {
            return .merge(children)
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            let sources = self.sources
            if sources.isEmpty {
                node.send(.completed)
            }
            var completed = 0
            for source in sources {
                model.start(source, under: node) { event in
                    if event == .completed {
                        completed += 1
                        if completed == sources.count {
                            node.send(.completed)
                        }
                    } else {
                        node.send(event)
                    }
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return merge(self.sources.map { runner.build($0, token) })
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return runner.over(self.sources, "sk_signal_merge") { sk_signal_merge($0, $1, $2) }
        }

        /// The list less one input, for each input.
        var simplerForms: [ModelSignal] {
            return self.sources.indices.map { index in
                var removed = self.sources
                removed.remove(at: index)
                return .merge(removed)
            }
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 23, weight: 2) { generator, depth in
                .merge(generator.signals(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func merge(_ sources: [ModelSignal]) -> ModelSignal {
        return ModelSignal(MergeFamily.Merge(sources: sources))
    }
}

// MARK: - The family

/// The merging operators. An operator added to the family: its block above this
/// one, then its type at the end of `operators`.
enum MergeFamily: ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] {
        return [
            Merge.self,
        ]
    }
}
#endif
