/// What the callbacks of one inner signal of a `_SignalQueueState` capture.
///
/// Reused: an inner signal that completed while it was starting leaves its
/// object to the state (`_SignalQueueState.spareInner`) when nothing else
/// holds it any more, and the next inner signal takes it, so that inner
/// signals that complete at once (a cached value, a generator that
/// completes in its start) make no allocation. A `single` kept in place
/// takes none: it is delivered without a subscription
/// (`_SignalQueueState.runSingle`).
///
/// Thread-safety: `id` and `upstream` are written only while the starting
/// thread holds the only reference (made or taken from the spare slot under
/// the state's lock) or, for `upstream`, once by that thread before the
/// start publishes it; read-only afterwards.
@usableFromInline
final class _SignalQueueInner<T, E>: @unchecked Sendable {
    /// The state, retained while the object is in use, not while it waits
    /// in the state's spare slot (it would keep the state alive in a cycle).
    @exclusivity(unchecked) @usableFromInline var heldState: Unmanaged<_SignalQueueState<T, E>>
    @exclusivity(unchecked) @usableFromInline var id: Int
    /// The inner subscription, known before the inner signal's start runs:
    /// a value that ends the downstream (a `take` completing it) ends the
    /// inner subscription at once, even inside its start (`_disposeEarly`).
    /// Written once, by the starting thread, before the start publishes it.
    @exclusivity(unchecked) @usableFromInline var upstream: _SubscriberLiveness?
    /// In the state's spare slot: `heldState` is not retained.
    @exclusivity(unchecked) @usableFromInline var parked = false

    @inlinable
    init(state: _SignalQueueState<T, E>, id: Int) {
        self.heldState = .passRetained(state)
        self.id = id
    }

    deinit {
        if !self.parked {
            self.heldState.release()
        }
    }

    /// Runs `body` with the state, unretained: this object holds it while
    /// it is in use, and the callbacks that call this hold this object.
    @inlinable @inline(__always)
    func withState<R>(_ body: (_SignalQueueState<T, E>) -> R) -> R {
        return self.heldState._withUnsafeGuaranteedRef(body)
    }

    /// Leaves the object to the state's spare slot: called by the state,
    /// under its lock, once nothing else holds the object.
    @inlinable
    func park() {
        self.upstream = nil
        self.parked = true
        self.heldState.release()
    }

    /// Takes the object out of the spare slot for the inner signal `id`
    /// (under the state's lock).
    @inlinable
    func unpark(_ id: Int) {
        _ = self.heldState.retain()
        self.parked = false
        self.id = id
    }

    /// Called after each value: when delivering it ended the downstream,
    /// ends the inner subscription (it may still be inside its start, where
    /// nobody holds its disposable yet), so that it starts nothing more.
    @inlinable
    func endIfDownstreamEnded() {
        if self.withState({ $0.subscriber.isTerminated }), let upstream = self.upstream {
            _disposeEarly(upstream)
        }
    }
}
