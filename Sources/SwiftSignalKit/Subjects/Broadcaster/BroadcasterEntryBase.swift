import Synchronization

/// What a broadcaster's bag holds: its subscriptions, as a non-generic type.
///
/// Thread-safety: as `_SubscriptionFlags`; `slot` is guarded by the
/// broadcaster's lock.
@usableFromInline
class _BroadcasterEntryBase: _SubscriptionFlags, @unchecked Sendable {
    /// Where the subscription is in its broadcaster's bag
    /// (`_BroadcasterSubscribers`), -1 when it is in none. Kept by the bag.
    @exclusivity(unchecked) @usableFromInline final var slot = -1

    /// A bit of the state word: the subscription is a `share` subscriber's
    /// (what it holds is its `_SharedSubscription`, see `_SharedPaths`),
    /// set before the entry is published. The links made to it while its
    /// value callback is made go on to that subscriber's, and an operator
    /// below that ends early disposes it as it would that subscriber's
    /// (`_disposeEarly`).
    @usableFromInline static var sharedMemberFlag: Int { 1 << 58 }

    /// A bit of the state word: the subscription's values go to a callback
    /// by address (`_BroadcasterEntry.raw`), not to its closure. Set before
    /// the entry is published; tested with `terminatedFlag` in one step, so
    /// that a closure's delivery tests nothing more.
    @usableFromInline static var rawCallbackFlag: Int { 1 << 60 }

    /// Sets `sharedMemberFlag`: only before the entry is published.
    @inlinable
    final func markSharedMember() {
        self.state.bitwiseOr(_BroadcasterEntryBase.sharedMemberFlag, ordering: .relaxed)
    }

    /// Whether `sharedMemberFlag` is set.
    @inlinable
    final var isSharedMember: Bool {
        return self.state.load(ordering: .relaxed) & _BroadcasterEntryBase.sharedMemberFlag != 0
    }

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
