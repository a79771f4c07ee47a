#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
import SwiftSignalKit

// The operators over events as values (Sources/SwiftSignalKit/Operators/
// Signal_Materialize.swift) in the model-based tester: one block each (see
// ModelOperator.swift).

// MARK: - dematerialize

/// What `dematerialize` values become: a value stays itself; an error `e`
/// becomes `modelErrorMarker + e`, the completion `modelCompletionMarker`.
let modelErrorMarker = 10_000
let modelCompletionMarker = -10_000

extension MaterializeFamily {
    /// `dematerialize`, each event as a value (see `modelErrorMarker`).
    struct Dematerialize: UnaryModelOperator {
        var source: ModelSignal

        var description: String {
            return ".dematerialize(\(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            model.start(self.source, under: node) { event in
                switch event {
                case let .next(value):
                    node.send(.next(value))
                case let .error(error):
                    node.send(.next(modelErrorMarker &+ error))
                    node.send(.completed)
                case .completed:
                    node.send(.next(modelCompletionMarker))
                    node.send(.completed)
                }
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return dematerialize(signal: runner.build(self.source, token)) |> map { event -> Int in
                token.use()
                switch event {
                case let .Next(value):
                    return value
                case let .Error(error):
                    return modelErrorMarker &+ error
                case .Completion:
                    return modelCompletionMarker
                }
            } |> castError(Int.self)
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return nil // see cAPIGap
        }

        static var cAPIGap: String? {
            return "the C API has no dematerialize (nor materialize)"
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 26) { generator, depth in
                .dematerialize(generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func dematerialize(_ source: ModelSignal) -> ModelSignal {
        return ModelSignal(MaterializeFamily.Dematerialize(source: source))
    }
}

// MARK: - materialize(dematerialize(s))

extension MaterializeFamily {
    /// `materialize(dematerialize(s))`: the identity. Made by `deferred`'s
    /// generation entry (Meta.swift).
    struct RoundTrip: UnaryModelOperator {
        var source: ModelSignal

        var description: String {
            return ".roundTrip(\(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            model.start(self.source, under: node) { event in
                node.send(event)
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return materialize(signal: dematerialize(signal: runner.build(self.source, token)))
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            // The C API has no materialize nor dematerialize: the identity is the
            // source itself.
            return runner.build(self.source)
        }
    }
}

extension ModelSignal {
    static func roundTrip(_ source: ModelSignal) -> ModelSignal {
        return ModelSignal(MaterializeFamily.RoundTrip(source: source))
    }
}

// MARK: - The family

/// The operators over events as values. An operator added to the family: its
/// block above this one, then its type at the end of `operators`.
enum MaterializeFamily: ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] {
        return [
            Dematerialize.self,
            RoundTrip.self,
        ]
    }
}
#endif
