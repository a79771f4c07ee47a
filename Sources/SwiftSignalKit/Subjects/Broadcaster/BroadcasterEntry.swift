import Synchronization

/// One subscription to a `_Broadcaster` (the signal of a pipe or a promise):
/// the element of its bag, the subscriber (its callbacks and their state) and
/// the disposable `start` returns, in one object.
///
/// It keeps the guarantees of a `Subscriber`: after `dispose` (or the
/// broadcaster's `close`), no callback starts; a terminal event comes after
/// every value call; the callbacks are released once no call into them is in
/// flight, by exactly one thread, outside any lock. What is in flight is
/// counted by the broadcaster, per delivering thread, not per subscription
/// (see `_BroadcasterRetirement`): a value call is one load of the state
/// word's `terminatedFlag` and the call, with no atomic write. Only a pipe's
/// broadcaster delivers an error or a completion (`terminate`); the caller's
/// `error` and `completed` callbacks are held (in `held`) until the
/// subscription ends.
///
/// The state word's bits (see `_SubscriptionFlags`): `terminatedFlag`, set
/// once by whichever of `terminate`, `terminate(delivering:)` and `end`
/// comes first (that thread alone then writes `held`), and
/// `_InFlightCalls.droppedFlag`, set by a dispose, which drops a terminal
/// event still waiting for the calls in flight.
///
/// Thread-safety: `deliver` is called by the broadcaster only (outside its
/// lock, by a thread registered as delivering), possibly from several threads
/// at once; `backlog` (and the base's `slot`) are guarded by the
/// broadcaster's lock; `dispose` may be called from any thread, any number of
/// times.
/// A value callback that takes the value by address: a C function and its
/// context, called with the address of the value being delivered (valid
/// for the call), for a broadcaster's subscription (`_SignalPipeSource.start(raw:held:)`).
/// The C API's observers of a pipe are called so: a closure calling the C
/// function copied each value into a C struct of its own first, in a frame
/// of its own (14 instructions a delivery, C W3). The context is the
/// caller's; whatever must live while it is called is the subscription's
/// `held` object, released after the last call.
///
/// Thread-safety: immutable.
@usableFromInline
package struct _RawValueCallback {
    @usableFromInline let function: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer) -> Void
    @usableFromInline let context: UnsafeMutableRawPointer?

    @inlinable
    package init(function: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer) -> Void, context: UnsafeMutableRawPointer?) {
        self.function = function
        self.context = context
    }
}

@usableFromInline
class _BroadcasterEntry<T, State>: _BroadcasterEntryBase, Disposable, @unchecked Sendable {
    // The value callback is written at init (before the entry is published)
    // and then only by the single thread that releases it, once no thread
    // that could call it is delivering (see `_BroadcasterRetirement`): the
    // broadcaster's lock orders the accesses, so the dynamic exclusivity
    // checks are switched off. It is called borrowed, without a retain (see
    // `_BorrowedCallback`).
    @exclusivity(unchecked) @usableFromInline final var next: _BorrowedCallback<T>
    /// What the subscription holds until it ends: the owner of a promise
    /// (whose subscribers keep it alive) and the terminal callbacks, in a
    /// `_BroadcasterHeld`, or a caller's own `_BroadcasterTerminalReceiver`.
    /// Nil when there is nothing (a pipe subscription with a value callback
    /// only). Taken by the thread that ends the subscription (the one that
    /// set `terminatedFlag`). One word (the receiver is found by a cast at
    /// the terminal event, which is rare, rather than kept as an
    /// existential: a word more in every subscription, which took the entry
    /// to the allocator's next chunk).
    @exclusivity(unchecked) @usableFromInline final var held: AnyObject?
    /// Non-nil while the entry's replay is being delivered: the values
    /// published meanwhile wait here.
    /// (A box, not an optional array: the entry's deinit, which runs
    /// unspecialized, then destroys a plain reference.)
    @exclusivity(unchecked) @usableFromInline final var backlog: _BroadcasterBacklog<T>?
    /// Held strongly: the broadcaster holds its entries only until they end.
    @usableFromInline final let owner: _Broadcaster<T, State>

    @inlinable
    init(owner: _Broadcaster<T, State>, held: AnyObject?) {
        self.owner = owner
        self.held = held
        self.next = _BorrowedCallback(nil)
        super.init()
    }

    /// Calls the value callback, unless the subscription has ended. Only on
    /// a thread registered as delivering (see `_BroadcasterRetirement`):
    /// that registration, not the entry, keeps the callback alive for the
    /// call. When the subscription ended during the call (the callback
    /// disposed it, or failed), its ending need not wait for this thread's
    /// other deliveries (`_Broadcaster.endedDuringCall`).
    @inlinable @inline(__always)
    final func deliver(_ value: T) {
        if _slowPath(self.state.load(ordering: .relaxed) & _BroadcasterEntryBase.rawCallbackFlag != 0) {
            _withUnprotectedUnsafePointer(to: value) { self.deliver(value, at: $0) }
            return
        }
        self.deliverToClosure(value)
    }

    /// `deliver(_:)` to a subscription with a closure (a broadcaster that
    /// has none by address: `_Broadcaster.hasRawEntries` false).
    @inlinable @inline(__always)
    final func deliverToClosure(_ value: T) {
        if self.state.load(ordering: .acquiring) & _SubscriptionFlags.terminatedFlag == 0 {
            _explore(.callEntered)
            self.next.call(value)
            _explore(.callLeaving)
            if _slowPath(self.state.load(ordering: .relaxed) & _SubscriptionFlags.terminatedFlag != 0) {
                self.owner.endedDuringCall(self)
            }
        }
    }

    /// `deliver(_:)` with the value's address at hand (`address`: a
    /// subscription with a callback by address is called with it), for a
    /// delivery to many subscriptions (`_Broadcaster.run(_:over:)`), which
    /// takes it once.
    @inlinable @inline(__always)
    final func deliver(_ value: T, at address: UnsafePointer<T>) {
        let state = self.state.load(ordering: .acquiring)
        if state & (_SubscriptionFlags.terminatedFlag | _BroadcasterEntryBase.rawCallbackFlag) == 0 {
            _explore(.callEntered)
            self.next.call(value)
            _explore(.callLeaving)
            if _slowPath(self.state.load(ordering: .relaxed) & _SubscriptionFlags.terminatedFlag != 0) {
                self.owner.endedDuringCall(self)
            }
        } else if state & _SubscriptionFlags.terminatedFlag == 0 {
            _explore(.callEntered)
            // Invariant: `rawCallbackFlag` is set only in a raw entry.
            let raw = unsafeDowncast(self, to: _BroadcasterRawEntry<T, State>.self).raw
            raw.function(raw.context, UnsafeRawPointer(address))
            _explore(.callLeaving)
            if _slowPath(self.state.load(ordering: .relaxed) & _SubscriptionFlags.terminatedFlag != 0) {
                self.owner.endedDuringCall(self)
            }
        }
    }


    /// Passes the link to what the subscription holds when it is a `share`
    /// subscriber's (`sharedMemberFlag`: its `_SharedSubscription`), so that
    /// the walks of `Subscriber.isEnded` go on through it; a plain
    /// subscription keeps no link (`_SubscriptionFlags.linkDownstream`).
    /// Called while the value callback is being made (`makeNext`), before
    /// the entry is published: `held` is still the subscriber's own.
    @usableFromInline
    final override func linkDownstream(_ downstream: _SubscriberDisposable?) {
        if self.isSharedMember {
            (self.held as? any _BroadcasterDownstreamLinking)?.linkDownstream(downstream)
        }
    }

    /// Ends the subscription: no callback starts after this returns; the
    /// entry leaves the broadcaster.
    @inlinable
    final func dispose() {
        _ = self.end(removing: true)
    }

    /// Ends the subscription with a terminal event: no value callback
    /// starts after this, then the `error` or `completed` callback runs,
    /// once the threads delivering when it was called have returned (see
    /// `_BroadcasterRetirement`): at once, on the calling thread, when none
    /// is; else on the one that returns last. The values those threads had
    /// taken in go through the fused stages first: `valuesEndedFlag` is set
    /// when the event is delivered (`_BroadcasterRetirement.finish`). The
    /// callbacks are released after it. Nothing if the subscription had
    /// already ended.
    @inlinable
    final func terminate(_ terminal: _BroadcasterTerminal) {
        if let ending = self.takeEnding(terminal) {
            self.owner.retire(self, removing: false, ending: ending)
        }
    }

    /// Marks the subscription ended by `terminal` and takes what it holds
    /// into the ending that delivers it; nil when it had already ended.
    @inlinable
    final func takeEnding(_ terminal: _BroadcasterTerminal) -> _BroadcasterEnding? {
        let previous = self.state.bitwiseOr(_SubscriptionFlags.terminatedFlag, ordering: .acquiringAndReleasing).oldValue
        if previous & _SubscriptionFlags.terminatedFlag != 0 {
            return nil
        }
        let held = self.held
        self.held = nil
        return _BroadcasterEnding(terminal: held == nil ? nil : terminal, held: held, deliver: nil)
    }

    /// `terminate` for a subscription that was never in the bag (made
    /// after the broadcaster ended, `_Broadcaster.subscribeAfterEnd`): no
    /// other thread can be calling it, so the terminal event is delivered
    /// at once, on the calling thread, and the callbacks released after
    /// it, whatever other threads are delivering. (Through `terminate`, it
    /// waited for them: delivered later on one of their threads, also
    /// after the caller's dispose of it had returned, which could not drop
    /// it, the start having returned an empty disposable.)
    @inlinable
    final func terminateUnlisted(_ terminal: _BroadcasterTerminal) {
        guard let ending = self.takeEnding(terminal) else {
            return
        }
        ending.run()
        self.markValuesEndedUnlessHeld()
        self.releaseCallback()
    }

    /// Ends the subscription with `deliver` in place of its terminal
    /// callbacks (a fused stage over the pipe that fails, see
    /// `Subscriber.terminate(delivering:)`), ordered after the value calls
    /// in flight as `terminate` is. False when it had already ended.
    @usableFromInline
    final override func terminate(delivering deliver: @escaping () -> Void) -> Bool {
        // A failing stage: nothing passes after it (`valuesEndedFlag` at once).
        let previous = self.state.bitwiseOr(_SubscriptionFlags.terminatedFlag | _SubscriptionFlags.valuesEndedFlag, ordering: .acquiringAndReleasing).oldValue
        if previous & _SubscriptionFlags.terminatedFlag != 0 {
            return false
        }
        let held = self.held
        self.held = nil
        // No longer in the broadcaster's bag: a pipe's own end would find it.
        self.owner.retire(self, removing: true, ending: _BroadcasterEnding(terminal: nil, held: held, deliver: deliver))
        return true
    }

    /// Marks the subscription ended and releases what it holds (the value
    /// callback once the threads delivering have returned), taking it out
    /// of the bag when `removing`. Returns false when it had already ended;
    /// a terminal event still waiting for the calls in flight is dropped
    /// then (nothing starts after a dispose on its thread).
    @inlinable
    final func end(removing: Bool) -> Bool {
        let previous = self.state.bitwiseOr(_SubscriptionFlags.terminatedFlag | _InFlightCalls.droppedFlag | _SubscriptionFlags.valuesEndedFlag, ordering: .acquiringAndReleasing).oldValue
        if previous & _SubscriptionFlags.terminatedFlag != 0 {
            if previous & _InFlightCalls.droppedFlag == 0 {
                self.owner.dropEnding(of: self)
            }
            return false
        }
        let held = self.held
        self.held = nil
        self.owner.retire(self, removing: removing)
        // Released after the broadcaster's lock (what it holds is the
        // caller's: the owner of a promise, terminal callbacks).
        withExtendedLifetime(held) {}
        return true
    }

    /// Releases the value callback: run once, by the thread that retired
    /// the entry or the last of the threads delivering then (see
    /// `_BroadcasterRetirement`), outside every lock.
    @inlinable
    final override func releaseCallback() {
        _ = self.next.take()
    }
}

/// A subscription whose values go to a callback by address
/// (`_RawValueCallback`, `rawCallbackFlag`): a subclass, so that the
/// callback's two words are in these subscriptions alone (the others keep
/// their size, and their allocator's chunk). `owner` (what the callback's
/// context needs) is released after the last call, as a closure's context
/// is: it is held in `next`'s place, by a closure never called
/// (`releaseCallback` lets it go).
///
/// Thread-safety: as `_BroadcasterEntry`; `raw` is immutable.
@usableFromInline
final class _BroadcasterRawEntry<T, State>: _BroadcasterEntry<T, State>, @unchecked Sendable {
    @usableFromInline let raw: _RawValueCallback

    @inlinable
    init(owner: _Broadcaster<T, State>, held: AnyObject, raw: _RawValueCallback) {
        self.raw = raw
        super.init(owner: owner, held: held)
        self.next = _BorrowedCallback({ _ in _fixLifetime(held) })
        self.state.bitwiseOr(_BroadcasterEntryBase.rawCallbackFlag, ordering: .relaxed)
    }
}
