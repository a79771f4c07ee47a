/// What a broadcaster subscription holds until it ends besides its value
/// callback (see `_BroadcasterEntry.held`), and receives the terminal event
/// of a pipe (`_Broadcaster.terminate`), at most once: a `_BroadcasterHeld`
/// (the owner to keep alive and the subscriber's `error` and `completed`
/// callbacks), or an object of the subscriber's own that takes their place
/// (the C layer's subscription handle), so that none is made per
/// subscription.
///
/// Thread-safety: `receiveTerminal` is called once, by the thread that ends
/// the subscription with the terminal event.
@usableFromInline
package protocol _BroadcasterTerminalReceiver: AnyObject {
    /// The subscription's terminal event: a completion, or an error that
    /// travels as `Any` (the broadcaster does not know the signal's error
    /// type): cast it back to the signal's.
    func receiveTerminal(_ terminal: _BroadcasterTerminal)
}

/// What a subscription holds (`_BroadcasterEntry.held`) when an operator's
/// subscription stands behind it (a `share` subscription's): the links made
/// to the entry while its value callback is made go to it (see
/// `_BroadcasterEntry.linkDownstream`).
@usableFromInline
protocol _BroadcasterDownstreamLinking: AnyObject {
    func linkDownstream(_ downstream: _SubscriberDisposable?)
}

/// What the broadcaster makes to hold the owner to keep alive and, in the
/// subclass `_BroadcasterHeldCallbacks`, the subscriber's `error` and
/// `completed` callbacks: one object for all of them (the callbacks used to
/// be wrapped in a closure of their own, a second object per subscription
/// with an error or completion callback).
///
/// Thread-safety: immutable.
@usableFromInline
class _BroadcasterHeld: _BroadcasterTerminalReceiver {
    @usableFromInline let keepAlive: AnyObject?

    @inlinable
    init(keepAlive: AnyObject?) {
        self.keepAlive = keepAlive
    }

    /// No callbacks here: nothing to call.
    @usableFromInline
    func receiveTerminal(_ terminal: _BroadcasterTerminal) {}

    /// Gives `terminal` to what a subscription held (`_BroadcasterEntry.held`):
    /// a `_BroadcasterHeld`, or a caller's own receiver (found by a cast:
    /// the entry keeps one word, not an existential).
    @usableFromInline
    static func deliver(_ terminal: _BroadcasterTerminal, to held: AnyObject) {
        if let held = held as? _BroadcasterHeld {
            held.receiveTerminal(terminal)
        } else if let receiver = held as? any _BroadcasterTerminalReceiver {
            receiver.receiveTerminal(terminal)
        }
    }
}

/// `_BroadcasterHeld` with the subscriber's terminal callbacks (either may
/// be nil), for a pipe's errors of type `E`.
///
/// Thread-safety: immutable.
@usableFromInline
final class _BroadcasterHeldCallbacks<E>: _BroadcasterHeld {
    @usableFromInline let error: ((E) -> Void)?
    @usableFromInline let completed: (() -> Void)?

    @inlinable
    init(keepAlive: AnyObject?, error: ((E) -> Void)?, completed: (() -> Void)?) {
        self.error = error
        self.completed = completed
        super.init(keepAlive: keepAlive)
    }

    @usableFromInline
    override func receiveTerminal(_ terminal: _BroadcasterTerminal) {
        switch terminal {
        case .completed:
            self.completed?()
        case let .failed(failure):
            // A pipe's error is of its signal's type `E`.
            if let failure = failure as? E {
                self.error?(failure)
            }
        }
    }
}
