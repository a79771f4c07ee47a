import Synchronization

/// One subscription to a `_Broadcaster` (the signal of a pipe or a promise):
/// the element of its bag, the subscriber (its callbacks and their state) and
/// the disposable `start` returns, in one object.
///
/// It keeps the guarantees of a `Subscriber`: after `dispose` (or the
/// broadcaster's `close`), no callback starts; the callbacks are released
/// once no call into them is in flight, by exactly one thread, outside any
/// lock. The state word (see `_SubscriptionFlags`) is guarded as a
/// subscriber's is (`_InFlightCalls`). Only a pipe's broadcaster delivers an
/// error or a completion (`terminate`); the caller's `error` and `completed`
/// callbacks are held (in `held`) until the subscription ends.
///
/// Thread-safety: `deliver` is called by the broadcaster only (outside its
/// lock), possibly from several threads at once; `backlog` (and the base's
/// `slot`) are guarded by the broadcaster's lock; `dispose` may be called from
/// any thread, any number of times.
@usableFromInline
final class _BroadcasterEntry<T, State>: _BroadcasterEntryBase, Disposable, @unchecked Sendable {
    // The callbacks are written at init (before the entry is published) and
    // then only by the single thread that releases them, after every call in
    // flight has returned (see `_InFlightCalls`): the state word orders the
    // accesses, so the dynamic exclusivity checks are switched off. The
    // value callback is called borrowed, without a retain (see
    // `_BorrowedCallback`).
    @exclusivity(unchecked) @usableFromInline var next: _BorrowedCallback<T>
    /// What the subscription holds until it ends: the owner of a promise
    /// (whose subscribers keep it alive) and the terminal callbacks, in a
    /// `_BroadcasterHeld`, or a caller's own `_BroadcasterTerminalReceiver`.
    /// Nil when there is nothing (a pipe subscription with a value callback
    /// only). Dropped by the thread that ends the subscription. One word
    /// (the receiver is found by a cast at the terminal event, which is
    /// rare, rather than kept as an existential: a word more in every
    /// subscription, which took the entry to the allocator's next chunk).
    @exclusivity(unchecked) @usableFromInline var held: AnyObject?
    /// Non-nil while the entry's replay is being delivered: the values
    /// published meanwhile wait here.
    /// (A box, not an optional array: the entry's deinit, which runs
    /// unspecialized, then destroys a plain reference.)
    @exclusivity(unchecked) @usableFromInline var backlog: _BroadcasterBacklog<T>?
    /// Held strongly: the broadcaster holds its entries only until they end.
    @usableFromInline let owner: _Broadcaster<T, State>

    @inlinable
    init(owner: _Broadcaster<T, State>, held: AnyObject?) {
        self.owner = owner
        self.held = held
        self.next = _BorrowedCallback(nil)
        super.init()
    }

    /// Calls the value callback, unless the subscription has ended.
    @inlinable
    func deliver(_ value: T) {
        if _InFlightCalls.enter(self.state) {
            self.next.call(value)
        }
        if _InFlightCalls.leave(self.state) != nil {
            // Released here (no lock is held).
            _ = self.next.take()
        }
    }

    /// Ends the subscription: no callback starts after this returns; the
    /// entry leaves the broadcaster.
    @inlinable
    func dispose() {
        if self.end() {
            self.owner.unsubscribe(self)
        }
    }

    /// Ends the subscription with a terminal event: no value callback
    /// starts after this, the value callback is released (once idle), then
    /// the `error` or `completed` callback runs, on the calling thread, and
    /// is released. Nothing if the subscription had already ended.
    @inlinable
    func terminate(_ terminal: _BroadcasterTerminal) {
        let previous = self.state.bitwiseOr(_SubscriptionFlags.terminatedFlag, ordering: .acquiringAndReleasing).oldValue
        if previous & _SubscriptionFlags.terminatedFlag != 0 {
            return
        }
        if _InFlightCalls.claimRelease(self.state, observed: previous | _SubscriptionFlags.terminatedFlag) != nil {
            _ = self.next.take()
        }
        let held = self.held
        self.held = nil
        if let held {
            _BroadcasterHeld.deliver(terminal, to: held)
        }
    }

    /// Marks the subscription ended and releases what it holds (the callbacks
    /// once idle). Returns false when it had already ended.
    @inlinable
    func end() -> Bool {
        let previous = self.state.bitwiseOr(_SubscriptionFlags.terminatedFlag, ordering: .acquiringAndReleasing).oldValue
        if previous & _SubscriptionFlags.terminatedFlag != 0 {
            return false
        }
        // Released here (no lock is held): the value callback now if no
        // call is in flight, else by the last one.
        if _InFlightCalls.claimRelease(self.state, observed: previous | _SubscriptionFlags.terminatedFlag) != nil {
            _ = self.next.take()
        }
        self.held = nil
        return true
    }
}
