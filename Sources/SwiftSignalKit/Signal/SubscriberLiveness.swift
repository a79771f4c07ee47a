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

    @inlinable
    package var isTerminated: Bool {
        return self.flags._withUnsafeGuaranteedRef { $0.isTerminated }
    }

    /// Links the subscription to `downstream`'s, the subscriber of the
    /// operator that is starting it (see `_SubscriberDisposable.linkDownstream`).
    @inlinable
    func linkDownstream<T, E>(_ downstream: Subscriber<T, E>) {
        self.linkDownstream(downstream.handle)
    }

    /// The same, given the downstream subscriber's handle.
    @inlinable
    func linkDownstream(_ downstream: _SubscriberDisposable?) {
        self.flags._withUnsafeGuaranteedRef { $0.linkDownstream(downstream) }
    }
}
