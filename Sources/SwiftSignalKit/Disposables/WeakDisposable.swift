/// What an operator's generator returns when its state object is itself the
/// disposable: disposing it disposes the state, but it holds the state
/// weakly.
///
/// The state captures the downstream subscriber, and the subscriber holds what
/// its generator returned: a strong reference here would close a cycle that
/// keeps an undisposed subscription alive after its sources have let go of it.
/// The state lives as long as something can still deliver through it (the
/// upstream and inner subscriptions' callbacks capture it), as a subscriber
/// lives as long as its source holds it (see `_SubscriberDisposable`).
///
/// Thread-safety: `dispose` may be called from any thread, any number of
/// times; the state's own `dispose` decides what repeated calls do.
@usableFromInline
final class _WeakDisposable: Disposable, @unchecked Sendable {
    @usableFromInline weak var target: (AnyObject & Disposable)?

    @inlinable
    init(_ target: AnyObject & Disposable) {
        self.target = target
    }

    @inlinable
    func dispose() {
        self.target?.dispose()
    }
}
