/// What a broadcaster subscription holds without using it (see
/// `_BroadcasterEntry.held`).
///
/// Thread-safety: immutable.
@usableFromInline
final class _BroadcasterHeld {
    @usableFromInline let keepAlive: AnyObject?
    @usableFromInline let callbacks: (() -> Void)?

    @inlinable
    init(keepAlive: AnyObject?, callbacks: (() -> Void)?) {
        self.keepAlive = keepAlive
        self.callbacks = callbacks
    }
}
