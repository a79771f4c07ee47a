import Synchronization

/// One subscription to a `_Broadcaster`: the element of its bag, the holder of
/// the subscriber, and the disposable the generator returns (disposing it
/// removes the subscription).
///
/// Thread-safety: `deliver` is called by the broadcaster only (outside its
/// lock); `backlog` and `key` are guarded by the broadcaster's lock (`key` is
/// written before the entry is published); `dispose` may be called from any
/// thread, any number of times.
@usableFromInline
final class _BroadcasterEntry<T, State>: _BroadcasterEntryBase, Disposable, @unchecked Sendable {
    /// A constant, so that a delivery reads it without retaining it.
    @usableFromInline let subscriber: Subscriber<T, NoError>
    /// Non-nil while the entry's replay is being delivered: the values
    /// published meanwhile wait here.
    /// (A box, not an optional array: the entry's deinit, which runs
    /// unspecialized, then destroys a plain reference.)
    @exclusivity(unchecked) @usableFromInline var backlog: _BroadcasterBacklog<T>?
    @exclusivity(unchecked) @usableFromInline var key = 0
    // Set at init, never changed (`keepAlive` is dropped by `dispose`, which
    // runs its body once). The owner is held strongly: it holds its entries
    // only until they are disposed, or until it is closed.
    @usableFromInline let owner: _Broadcaster<T, State>
    @exclusivity(unchecked) @usableFromInline var keepAlive: AnyObject?
    @usableFromInline let disposed = Synchronization.Atomic<Bool>(false)

    @inlinable
    init(_ subscriber: Subscriber<T, NoError>, owner: _Broadcaster<T, State>, keepAlive: AnyObject?) {
        self.subscriber = subscriber
        self.owner = owner
        self.keepAlive = keepAlive
        super.init()
    }

    @inlinable
    func deliver(_ value: T) {
        self.subscriber.putNext(value)
    }

    @inlinable
    func dispose() {
        if self.disposed.exchange(true, ordering: .acquiringAndReleasing) {
            return
        }
        self.owner.unsubscribe(self.key)
        let keepAlive = self.keepAlive
        self.keepAlive = nil
        withExtendedLifetime(keepAlive) {}
    }
}
