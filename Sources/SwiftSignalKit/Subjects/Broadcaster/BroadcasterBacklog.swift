/// The values published while a subscription's replay is being delivered.
///
/// Thread-safety: guarded by the broadcaster's lock.
@usableFromInline
final class _BroadcasterBacklog<T> {
    @exclusivity(unchecked) @usableFromInline var values: [T] = []
    /// A terminal event that came while the replay was being delivered: the
    /// subscribing thread delivers it after the backlog.
    @exclusivity(unchecked) @usableFromInline var terminal: _BroadcasterTerminal?

    @inlinable
    init() {
    }
}
