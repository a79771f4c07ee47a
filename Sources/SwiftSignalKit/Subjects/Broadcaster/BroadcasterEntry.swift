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
        if let claimed = _InFlightCalls.leave(self.state) {
            self.finish(claimed)
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
    /// starts after this, then the `error` or `completed` callback runs,
    /// once the value calls in flight have returned (see `_InFlightCalls`):
    /// at once, on the calling thread, when none is; else on the thread
    /// whose call returns last. The callbacks are released after it.
    /// Nothing if the subscription had already ended.
    @inlinable
    func terminate(_ terminal: _BroadcasterTerminal) {
        guard let previous = _InFlightCalls.beginTermination(self.state) else {
            return
        }
        let held = self.held
        if _slowPath(previous & _InFlightCalls.countMask != 0) {
            guard let held else {
                self.endTermination()
                return
            }
            self.deferTerminal(_BroadcasterPendingTerminal(held: held, deliver: {
                _BroadcasterHeld.deliver(terminal, to: held)
            }))
            return
        }
        self.held = nil
        self.endTermination()
        if let held {
            _BroadcasterHeld.deliver(terminal, to: held)
        }
    }

    /// Ends the subscription with `deliver` in place of its terminal
    /// callbacks (a fused stage over the pipe that fails, see
    /// `Subscriber.terminate(delivering:)`), ordered after the value calls
    /// in flight as `terminate` is. False when it had already ended.
    @usableFromInline
    override func terminate(delivering deliver: @escaping () -> Void) -> Bool {
        guard let previous = _InFlightCalls.beginTermination(self.state) else {
            return false
        }
        let pending = _BroadcasterPendingTerminal(held: self.held, deliver: deliver)
        if previous & _InFlightCalls.countMask != 0 {
            self.deferTerminal(pending)
        } else {
            self.held = nil
            self.endTermination()
            pending.deliver()
        }
        // No longer in the broadcaster's bag: a pipe's own end would find it.
        self.owner.unsubscribe(self)
        return true
    }

    /// The terminating call ends (the value callback released if idle).
    @inlinable
    func endTermination() {
        if let claimed = _InFlightCalls.leave(self.state) {
            self.finish(claimed)
        }
    }

    /// Leaves `pending` in `held` (which nothing else reads until the
    /// delivery is claimed) for the thread whose call ends last. Off the
    /// path of values.
    @usableFromInline @inline(never)
    func deferTerminal(_ pending: _BroadcasterPendingTerminal) {
        // Stored before the flag: the winner of the delivery reads it.
        self.held = pending
        guard _InFlightCalls.deferTerminal(self.state) else {
            // A dispose came meanwhile: no event; what was held goes.
            self.held = nil
            self.endTermination()
            return
        }
        if let claimed = _InFlightCalls.leave(self.state) {
            self.finish(claimed)
        }
    }

    /// What the thread that won a claim does: delivers the pending terminal
    /// event, or releases the value callback (no lock is held).
    @usableFromInline @inline(never)
    func finish(_ claimed: Int) {
        if _slowPath(claimed & _InFlightCalls.pendingFlag != 0) {
            self.deliverPendingTerminal()
        } else {
            _ = self.next.take()
        }
    }

    /// Delivers the terminal event that waited (`deferTerminal`), then ends
    /// the delivery's call. Run once, by the thread that claimed it.
    @usableFromInline @inline(never)
    func deliverPendingTerminal() {
        let pending = self.held as? _BroadcasterPendingTerminal
        self.held = nil
        pending?.deliver()
        self.endTermination()
    }

    /// Marks the subscription ended and releases what it holds (the callbacks
    /// once idle). Returns false when it had already ended; a terminal event
    /// still waiting for the calls in flight is dropped then (nothing starts
    /// after a dispose on its thread).
    @inlinable
    func end() -> Bool {
        let previous = self.state.bitwiseOr(_SubscriptionFlags.terminatedFlag, ordering: .acquiringAndReleasing).oldValue
        if previous & _SubscriptionFlags.terminatedFlag != 0 {
            if let current = _InFlightCalls.cancelPending(self.state) {
                self.droppedPendingTerminal(current)
            }
            return false
        }
        // Released here (no lock is held): the value callback now if no
        // call is in flight, else by the last one.
        if let claimed = _InFlightCalls.claim(self.state, observed: previous | _SubscriptionFlags.terminatedFlag) {
            self.finish(claimed)
        }
        self.held = nil
        return true
    }

    /// A dispose took the pending terminal event away (`current`, the word
    /// after): what held it goes, unrun. Off the path of values.
    @usableFromInline @inline(never)
    func droppedPendingTerminal(_ current: Int) {
        let pending = self.held
        self.held = nil
        if let claimed = _InFlightCalls.claim(self.state, observed: current) {
            self.finish(claimed)
        }
        _ = pending
    }
}

/// A terminal event of a `_BroadcasterEntry` that waits for the value calls
/// in flight (`_BroadcasterEntry.deferTerminal`), with what the entry held:
/// made only then, off the path of values.
///
/// Thread-safety: immutable; `deliver` is called once.
@usableFromInline
final class _BroadcasterPendingTerminal {
    @usableFromInline let held: AnyObject?
    @usableFromInline let deliver: () -> Void

    @inlinable
    init(held: AnyObject?, deliver: @escaping () -> Void) {
        self.held = held
        self.deliver = deliver
    }
}
