/// What the callbacks of one inner signal of a `SignalQueueState` capture.
///
/// Thread-safety: immutable.
@usableFromInline
final class SignalQueueInner<T, E>: @unchecked Sendable {
    @usableFromInline let state: SignalQueueState<T, E>
    @usableFromInline let id: Int

    @inlinable
    init(state: SignalQueueState<T, E>, id: Int) {
        self.state = state
        self.id = id
    }
}
