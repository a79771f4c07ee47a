/// What a broadcaster's bag holds: its subscriptions, as a non-generic type.
///
/// Thread-safety: as `_SubscriptionFlags`; `slot` is guarded by the
/// broadcaster's lock.
@usableFromInline
class _BroadcasterEntryBase: _SubscriptionFlags, @unchecked Sendable {
    /// Where the subscription is in its broadcaster's bag
    /// (`_BroadcasterSubscribers`), -1 when it is in none. Kept by the bag.
    @exclusivity(unchecked) @usableFromInline final var slot = -1

    @inlinable
    override init() {
        super.init()
    }

    /// Ends the subscription with `deliver` in place of its terminal
    /// callbacks (see `_BroadcasterEntry.terminate(delivering:)`).
    @usableFromInline
    func terminate(delivering deliver: @escaping () -> Void) -> Bool {
        return false
    }

    /// Releases the value callback (see `_BroadcasterEntry.releaseCallback`).
    @usableFromInline
    func releaseCallback() {
    }
}
