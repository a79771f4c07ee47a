#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
import SwiftSignalKit

// The sharing operators (Sources/SwiftSignalKit/Operators/Signal_Share.swift)
// in the model-based tester: one block each (see ModelOperator.swift). Equal
// `share` / `replay` nodes of a case are one shared signal: the model keys its
// sessions by the node (`ReferenceModel.behaveShared`), the runner its signals
// (`LibraryRunner.sharedSignal`).

extension ModelGenerator {
    /// A `share` or `replay` node used at two places of one operator (equal
    /// nodes of a case are one shared signal): a node of the tree is
    /// subscribed once, so only a second place gives the shared signal a
    /// second subscriber, which joins the running connection (merge,
    /// combineLatest, zip, withLatestFrom: both subscribe at start), connects
    /// anew after the first ended (then), joins and leaves over and over (a
    /// meta operator's inner signals), or joins from inside the connection's
    /// own delivery (the inner signal of a meta operator over it).
    fileprivate mutating func sharedTwice(depth: Int) -> ModelSignal {
        let source = self.signal(depth: depth - 1)
        let shared: ModelSignal = self.random.chance(50) ? .share(source) : .replay(self.random.below(4), source)
        // The second place sometimes through a map, to tell the two apart.
        let second: ModelSignal = self.random.chance(50) ? .map(self.random.pick(ModelMap.allCases), shared) : shared
        switch self.random.below(8) {
        case 0:
            return .merge([shared, second])
        case 1:
            return .combineLatest(shared, second)
        case 2:
            return .zip(shared, second)
        case 3:
            return .withLatestFrom(shared, second)
        case 4:
            return .then(shared, second)
        case 5:
            return .takeUntilSignal(shared, .skip(1 + self.random.below(2), second))
        case 6:
            return .meta(self.random.pick(ModelMeta.allCases), self.signal(depth: depth - 1), second)
        default:
            return .meta(self.random.pick(ModelMeta.allCases), shared, second)
        }
    }
}

// MARK: - share

extension ShareFamily {
    /// `share`: equal nodes in a case are one shared signal (see above).
    struct Share: UnaryModelOperator {
        var source: ModelSignal

        var description: String {
            return ".share(\(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            model.behaveShared(ModelSignal(self), replayCount: 0, self.source, node)
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.sharedSignal(ModelSignal(self)) {
                share(runner.build(self.source, token))
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            return runner.sharedSignal(ModelSignal(self)) {
                runner.over(self.source, "sk_signal_share") { sk_signal_share($0, $1) }
            }
        }

        /// `share` or `replay`, at two places of one operator (`sharedTwice`).
        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 41, weight: 2) { generator, depth in
                generator.sharedTwice(depth: depth)
            }]
        }
    }
}

extension ModelSignal {
    static func share(_ source: ModelSignal) -> ModelSignal {
        return ModelSignal(ShareFamily.Share(source: source))
    }
}

// MARK: - replay

extension ShareFamily {
    /// `replay(n)`: equal nodes in a case are one shared signal (see above);
    /// a subscriber that joins a running session first gets its last n
    /// values (none for 0 or less). Made by `Share`'s generation entry.
    struct Replay: UnaryModelOperator {
        let count: Int
        var source: ModelSignal

        var description: String {
            return ".replay(\(self.count), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            model.behaveShared(ModelSignal(self), replayCount: max(0, self.count), self.source, node)
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.sharedSignal(ModelSignal(self)) {
                runner.build(self.source, token) |> replay(self.count)
            }
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let count = max(0, self.count)
            return runner.sharedSignal(ModelSignal(self)) {
                runner.over(self.source, "sk_signal_replay") { sk_signal_replay($0, $1, count) }
            }
        }

        var weight: Int {
            return 1 + abs(self.count)
        }

        var simplerForms: [ModelSignal] {
            return [.share(self.source)] + ModelCheck.smaller(self.count).map { .replay($0, self.source) }
        }
    }
}

extension ModelSignal {
    static func replay(_ count: Int, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(ShareFamily.Replay(count: count, source: source))
    }
}

// MARK: - The family

/// The sharing operators. An operator added to the family: its block above this
/// one, then its type at the end of `operators`.
enum ShareFamily: ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] {
        return [
            Share.self,
            Replay.self,
        ]
    }
}
#endif
