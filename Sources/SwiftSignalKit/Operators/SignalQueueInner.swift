/// What the callbacks of one inner signal of a `_SignalQueueState` capture.
///
/// Thread-safety: immutable.
@usableFromInline
final class _SignalQueueInner<T, E>: @unchecked Sendable {
    @usableFromInline let state: _SignalQueueState<T, E>
    @usableFromInline let id: Int
    /// The inner subscription, known before the inner signal's start runs:
    /// a value that ends the downstream (a `take` completing it) ends the
    /// inner subscription at once, even inside its start (`_disposeEarly`).
    /// Written once, by the starting thread, before the start publishes it.
    @exclusivity(unchecked) @usableFromInline var upstream: _SubscriberLiveness?

    @inlinable
    init(state: _SignalQueueState<T, E>, id: Int) {
        self.state = state
        self.id = id
    }

    /// Called after each value: when delivering it ended the downstream,
    /// ends the inner subscription (it may still be inside its start, where
    /// nobody holds its disposable yet), so that it starts nothing more.
    @inlinable
    func endIfDownstreamEnded() {
        if self.state.subscriber.isTerminated, let upstream = self.upstream {
            _disposeEarly(upstream)
        }
    }
}
