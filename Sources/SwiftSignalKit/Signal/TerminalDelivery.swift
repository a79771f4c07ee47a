import _SwiftSignalKitShims

/// Whether the calling thread is delivering a terminal event: a subscriber's
/// error or completion callback is running on it (`Subscriber.putError`,
/// `putCompletion`), maybe several nested.
///
/// While a subscriber's terminal callback runs, the subscription has ended
/// but its upstream is still there: it is disposed once the callback has
/// returned (the order of SwiftSignalKit, which `afterDisposed` and the C
/// layer's tests rely on). Code run by that callback (a `last` emitting its
/// value, a `catch` or `then` starting its next signal, the user's own
/// callback) may put a value into a source of that upstream; an operator up
/// there that would start something for it (a meta operator's inner signal)
/// must see that the subscription has ended (`Subscriber.isEnded`). The
/// links it follows to learn so are safe to follow only from code that
/// holds the subscribers on the way (see
/// `_SubscriberDisposable.downstreamTerminatedPinned`), and are worth
/// following only while a terminal event is being delivered on this thread:
/// this count says when.
///
/// Thread-safety: a per-thread count; each thread sees only its own.
@usableFromInline
enum _TerminalDelivery {
    @inlinable
    static func begin() {
        _sks_terminal_delivery_begin()
    }

    @inlinable
    static func end() {
        _sks_terminal_delivery_end()
    }

    @inlinable
    static var isActive: Bool {
        return _sks_terminal_delivery_active() != 0
    }
}

/// A subscriber whose callbacks can be held for a while without knowing its
/// types: what `_SubscriberDisposable.downstreamTerminatedPinned` needs of
/// each subscriber on its way. `pinCallbacks` registers a call in flight
/// (the callbacks are not released until `unpinCallbacks`) and returns
/// true, or returns false when the subscriber has terminated (nothing is
/// left to undo then).
@usableFromInline
protocol _PinnableSubscriber: AnyObject {
    func pinCallbacks() -> Bool
    func unpinCallbacks()
}

/// A subscriber that can be ended with a terminal event of the caller's own
/// without knowing its types (`_SubscriberLiveness.end(delivering:)`).
@usableFromInline
protocol _TerminableSubscriber: AnyObject {
    func terminate(delivering deliver: @escaping () -> Void) -> Bool
}

extension Subscriber: _TerminableSubscriber {}

extension Subscriber: _PinnableSubscriber {
    @usableFromInline
    func pinCallbacks() -> Bool {
        if _InFlightCalls.enter(self.state) {
            return true
        }
        self.unpinCallbacks()
        return false
    }

    @usableFromInline
    func unpinCallbacks() {
        if let claimed = _InFlightCalls.leave(self.state) {
            self.finish(claimed)
        }
    }

    /// `isEnded`'s answer while a terminal event is being delivered on this
    /// thread: whether a subscription downstream of this one has terminated
    /// (its terminal callback may be the one running, with the upstream not
    /// yet disposed), following the links with each subscriber on the way
    /// pinned. Not inlined: it runs only then.
    @usableFromInline
    func downstreamTerminatedWhileDelivering() -> Bool {
        guard self.pinCallbacks() else {
            return true
        }
        defer {
            self.unpinCallbacks()
        }
        guard let handle = self.handle else {
            return false
        }
        return handle.downstreamTerminatedPinned()
    }
}
