/// What a broadcaster's bag holds: its subscriptions, as a non-generic type.
///
/// Thread-safety: as `_SubscriptionFlags` (no state of its own).
@usableFromInline
class _BroadcasterEntryBase: _SubscriptionFlags, @unchecked Sendable {
    @inlinable
    override init() {
        super.init()
    }
}
