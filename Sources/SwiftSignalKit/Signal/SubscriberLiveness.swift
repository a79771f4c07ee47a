import _SwiftSignalKitShims

/// What the composed stages of a fused chain check between stages: whether
/// the one subscriber of the chain has terminated (been disposed, or received
/// its terminal event), so that a stage whose function disposed the
/// subscription does not call the next one, as the separate subscribers of an
/// unfused chain would not.
///
/// Operator fusion: `map` and `filter` hold no state and call their function
/// on the emitting thread, so a chain of them needs no subscriber per stage.
/// Starting such a chain subscribes its first non-fused source once, with the
/// stages' functions composed into one value callback; errors and completion
/// go straight to the caller's callbacks. The events delivered are those of
/// the unfused chain; what is saved is a subscriber, its disposable and its
/// bookkeeping per stage, on every subscription and every value.
///
/// The reference is unretained: the composed callback that holds it is owned
/// by that subscriber, which holds its disposable for its whole life (or by
/// the broadcaster entry whose flags it reads, for a pipe or a promise).
///
/// `package`: the C layer's fused stages (SignalKitCAPI) receive it too.
@usableFromInline
package struct _SubscriberLiveness {
    /// The subscription's flags: those of the subscriber's disposable, to
    /// which the subscriber mirrors its termination, or the broadcaster
    /// entry that is the subscription of a pipe or a promise. Unretained:
    /// the object that owns the composed callback holds it for life.
    @usableFromInline let flags: Unmanaged<_SubscriptionFlags>

    @inlinable
    init(_ flags: _SubscriptionFlags) {
        self.flags = Unmanaged.passUnretained(flags)
    }

    /// Whether the stages must let no value through any more: the
    /// subscription was disposed, a stage failed, or its terminal event has
    /// been delivered (`_SubscriptionFlags.valuesEndedFlag`). A terminal
    /// event put on another thread while values are in flight ends them
    /// only once it is delivered, after those calls: the values they had
    /// taken in go through first.
    @inlinable
    package var isTerminated: Bool {
        return self.flags._withUnsafeGuaranteedRef { $0.valuesHaveEnded }
    }

    /// A stateful stage holds the subscription's terminal event behind the
    /// values queued in its gate (`_SubscriptionFlags.holdTerminal`).
    /// Nothing for a constant signal's subscription, whose flags are the
    /// one object all of them share (`_neverTerminated`, never written).
    @inlinable
    func holdTerminal() {
        self.flags._withUnsafeGuaranteedRef { flags in
            if flags !== _neverTerminated {
                flags.holdTerminal()
            }
        }
    }

    /// The stage has passed the terminal event on
    /// (`_SubscriptionFlags.releaseTerminal`); nothing for a constant
    /// signal's subscription, as `holdTerminal`.
    @inlinable
    func releaseTerminal() {
        self.flags._withUnsafeGuaranteedRef { flags in
            if flags !== _neverTerminated {
                flags.releaseTerminal()
            }
        }
    }

    /// Links the subscription to `downstream`'s, the subscriber of the
    /// operator that is starting it (see `_SubscriberDisposable.linkDownstream`).
    @inlinable
    package func linkDownstream<T, E>(_ downstream: Subscriber<T, E>) {
        self.linkDownstream(downstream.handle)
    }

    /// The same, given the downstream subscriber's handle.
    @inlinable
    func linkDownstream(_ downstream: _SubscriberDisposable?) {
        self.flags._withUnsafeGuaranteedRef { $0.linkDownstream(downstream) }
    }

    /// Ends the subscription with `deliver` as its terminal event, in place
    /// of the terminal callbacks it would call: no value call begins after
    /// this, and `deliver` runs once the value calls in flight have
    /// returned (this thread's own, if it is inside one, included), then
    /// the upstream is disposed, as the conventions' "Callbacks" rule
    /// orders a terminal event (see `_InFlightCalls`). For a fused stage
    /// whose function failed while it delivered a value (the C layer's
    /// sk_callback_fail). Returns false, doing nothing, when the
    /// subscription had already ended (its own terminal event, or a
    /// dispose, comes first) or cannot be ended (a constant signal's, which
    /// nothing can end while it runs: `canBeDisposed`). Not on the path of
    /// values: only the failing stage calls it.
    package func end(delivering deliver: @escaping () -> Void) -> Bool {
        let flags = self.flags.takeUnretainedValue()
        if let entry = flags as? _BroadcasterEntryBase {
            return entry.terminate(delivering: deliver)
        }
        guard let disposable = flags as? _SubscriberDisposable else {
            return false
        }
        // Under the lock, only a conditional retain (as `terminate`): the
        // subscriber may be in its deinit.
        var retained: Unmanaged<AnyObject>?
        _stripedLock(for: disposable, .subscription) {
            if let subscriber = disposable.subscriber, _sks_try_retain(subscriber.toOpaque()) != 0 {
                retained = subscriber
            }
        }
        guard let subscriber = retained?.takeRetainedValue() as? any _TerminableSubscriber else {
            return false
        }
        return subscriber.terminate(delivering: deliver)
    }

    /// Whether the subscription can be ended (`end(delivering:)`): false
    /// for a constant signal's, which nothing can end while it runs.
    package var canBeDisposed: Bool {
        return self.flags.takeUnretainedValue() is any Disposable
    }

    /// Ends the subscription with `error`, as its subscriber's `putError`
    /// does (the error callback, then the upstream disposed), for a fused
    /// stage that fails while it delivers a value (the C layer's
    /// combination, when the memory for its array is refused). `Source` is
    /// the type of the subscriber that started the subscription, the one of
    /// the stage's source signal. Returns false, doing nothing, when the
    /// subscription is not such a subscriber's (a broadcaster's or a
    /// constant signal's) or its subscriber is gone (it has ended); a
    /// subscription that has already terminated ignores the error, as
    /// `putError` does. Not on the path of values: only the failing stage
    /// calls it.
    package func putError<Source, E>(_ error: E, source: Subscriber<Source, E>.Type) -> Bool {
        guard let disposable = self.flags.takeUnretainedValue() as? _SubscriberDisposable else {
            return false
        }
        // Under the lock, only a conditional retain (as `terminate`): the
        // subscriber may be in its deinit.
        var retained: Unmanaged<AnyObject>?
        _stripedLock(for: disposable, .subscription) {
            if let subscriber = disposable.subscriber, _sks_try_retain(subscriber.toOpaque()) != 0 {
                retained = subscriber
            }
        }
        guard let subscriber = retained?.takeRetainedValue() as? Subscriber<Source, E> else {
            return false
        }
        subscriber.putError(error)
        return true
    }
}
