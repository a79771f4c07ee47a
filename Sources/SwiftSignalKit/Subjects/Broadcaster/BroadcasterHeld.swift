/// What a broadcaster subscription holds besides its value callback (see
/// `_BroadcasterEntry.held`): used at most once, for a terminal event.
///
/// Thread-safety: immutable.
@usableFromInline
final class _BroadcasterHeld {
    @usableFromInline let keepAlive: AnyObject?
    /// Calls the subscriber's `error` or `completed` callback for a
    /// terminal event of a pipe (`_Broadcaster.terminate`); holds them until
    /// then.
    @usableFromInline let callbacks: ((_BroadcasterTerminal) -> Void)?

    @inlinable
    init(keepAlive: AnyObject?, callbacks: ((_BroadcasterTerminal) -> Void)?) {
        self.keepAlive = keepAlive
        self.callbacks = callbacks
    }
}
