#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SignalKitHeader
import SwiftSignalKit

// The bounded buffer (Sources/SwiftSignalKit/Operators/SignalBoundedBuffer.swift)
// in the model-based tester: `onBackpressureBuffer` with its three drop
// policies. (`deliverOn` needs a queue, which the model's synchronous cases
// have not; the error and block policies, whose error values the C API
// spells as strings, are tested on their own: Signal_BackpressureTests and
// Tests/C/test_operators_dispatch.c.)

// MARK: - onBackpressureBuffer

extension DispatchFamily {
    /// The drop policies the model knows.
    enum DropPolicy: Int, Hashable, Sendable, CaseIterable {
        case dropNewest, dropOldest, latest
    }

    /// `onBackpressureBuffer(capacity:overflow:)` with a drop policy.
    struct OnBackpressureBuffer: UnaryModelOperator {
        var source: ModelSignal
        let capacity: Int
        let policy: DropPolicy

        var description: String {
            return ".onBackpressureBuffer(\(self.capacity), .\(self.policy), \(self.source))"
        }

        func behave(_ model: ReferenceModel, _ node: ReferenceModel.Node) {
            // A value that arrives while none is being delivered passes at
            // once; one arriving from inside a delivery waits in a buffer of
            // `capacity`, the policy deciding when it is full, and is
            // delivered once that delivery is over. The terminal event waits
            // behind the values.
            let capacity = max(1, self.capacity)
            let policy = self.policy
            var pending: [Int] = []
            var terminal: ModelEvent?
            var delivering = false
            var closed = false
            func drain() {
                while true {
                    if !pending.isEmpty {
                        node.send(.next(pending.removeFirst()))
                        continue
                    }
                    if let end = terminal {
                        terminal = nil
                        node.send(end)
                        return
                    }
                    delivering = false
                    return
                }
            }
            model.start(self.source, under: node) { event in
                if closed {
                    return
                }
                guard case let .next(value) = event else {
                    closed = true
                    if delivering {
                        terminal = event
                    } else {
                        delivering = true
                        node.send(event)
                    }
                    return
                }
                if !delivering {
                    delivering = true
                    node.send(.next(value))
                    drain()
                    return
                }
                if pending.count < capacity {
                    pending.append(value)
                    return
                }
                switch policy {
                case .dropNewest:
                    break
                case .dropOldest:
                    pending.removeFirst()
                    pending.append(value)
                case .latest:
                    pending[pending.count - 1] = value
                }
            }
        }

        func overflow() -> SignalOverflow<Int> {
            switch self.policy {
            case .dropNewest: return .dropNewest
            case .dropOldest: return .dropOldest
            case .latest: return .latest
            }
        }

        func build(_ runner: LibraryRunner, _ token: ModelToken) -> Signal<Int, Int> {
            return runner.build(self.source, token) |> onBackpressureBuffer(capacity: self.capacity, overflow: self.overflow())
        }

        func buildC(_ runner: CLibraryRunner) -> OpaquePointer? {
            let capacity = max(1, self.capacity)
            let policy: sk_overflow
            switch self.policy {
            case .dropNewest: policy = SK_OVERFLOW_DROP_NEWEST
            case .dropOldest: policy = SK_OVERFLOW_DROP_OLDEST
            case .latest: policy = SK_OVERFLOW_LATEST
            }
            return runner.over(self.source, "sk_signal_on_backpressure_buffer") {
                sk_signal_on_backpressure_buffer($0, $1, capacity, policy, nil, nil, nil)
            }
        }

        var weight: Int {
            return self.capacity + self.policy.rawValue
        }

        var simplerForms: [ModelSignal] {
            var forms = ModelCheck.smaller(self.capacity).filter { $0 >= 1 }.map {
                ModelSignal.onBackpressureBuffer($0, self.policy, self.source)
            }
            if self.policy != .dropNewest {
                forms.append(.onBackpressureBuffer(self.capacity, .dropNewest, self.source))
            }
            return forms
        }

        static var generation: [ModelGeneration] {
            return [ModelGeneration(order: 44) { generator, depth in
                .onBackpressureBuffer(1 + generator.random.below(3), generator.random.pick(DropPolicy.allCases), generator.signal(depth: depth))
            }]
        }
    }
}

extension ModelSignal {
    static func onBackpressureBuffer(_ capacity: Int, _ policy: DispatchFamily.DropPolicy, _ source: ModelSignal) -> ModelSignal {
        return ModelSignal(DispatchFamily.OnBackpressureBuffer(source: source, capacity: capacity, policy: policy))
    }
}

enum DispatchFamily: ModelOperatorFamily {
    static var operators: [any ModelOperator.Type] {
        return [
            OnBackpressureBuffer.self,
        ]
    }
}
#endif
