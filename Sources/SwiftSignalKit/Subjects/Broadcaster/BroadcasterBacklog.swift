/// The values published while a subscription's replay is being delivered.
///
/// Thread-safety: guarded by the broadcaster's lock.
@usableFromInline
final class _BroadcasterBacklog<T> {
    @exclusivity(unchecked) @usableFromInline var values: [T] = []

    @inlinable
    init() {
    }
}
