import Synchronization

/// The state word of a subscription, as a non-generic object, so that the
/// composed stages of a fused chain (see `_SubscriberLiveness`) can read
/// whether it has terminated without knowing its type.
///
/// `terminatedFlag` is set once the subscription has received its terminal
/// event or been disposed; the subclasses use the other bits as they need
/// (`_SubscriberDisposable` a disposed flag, `_BroadcasterEntry` the
/// dropped flag of a dispose).
///
/// Thread-safety: the word is atomic; it may be read from any thread.
@usableFromInline
class _SubscriptionFlags: @unchecked Sendable {
    @usableFromInline static var terminatedFlag: Int { _InFlightCalls.terminatedFlag }

    @usableFromInline let state = Synchronization.Atomic<Int>(0)

    @inlinable
    init() {
    }

    @inlinable
    final var isTerminated: Bool {
        return self.state.load(ordering: .acquiring) & _SubscriptionFlags.terminatedFlag != 0
    }

    /// Records that this subscription is the upstream of `downstream`, an
    /// operator's subscription that is starting it (see
    /// `_SubscriberDisposable.linkDownstream`). Only a generator's
    /// subscription keeps the link: a broadcaster's or a constant signal's
    /// starts nothing, so it has nothing to stop.
    @usableFromInline
    func linkDownstream(_ downstream: _SubscriberDisposable?) {
    }
}

/// The flags of a subscription that nothing can end while its callbacks run
/// (see the constant signals in `Signal.swift`): never terminated, never
/// written.
@usableFromInline
let _neverTerminated = _SubscriptionFlags()
