/// What a broadcaster's bag holds: its subscriptions, as a non-generic type.
///
/// Thread-safety: no state of its own.
@usableFromInline
class _BroadcasterEntryBase: @unchecked Sendable {
    @inlinable
    init() {
    }
}
