import Synchronization
import _SwiftSignalKitShims

/// What `Signal.start` returns: disposing it terminates the subscriber without
/// an event and disposes the generator's disposable, exactly once, whichever
/// comes first (this dispose, or the subscriber's own termination: the
/// subscriber is handed this object as its disposable).
///
/// It does not keep the subscriber alive, as in the original (whose reference
/// is weak): the source (whatever the generator handed the subscriber to)
/// keeps a subscription alive, not its disposable. A chain whose source is
/// gone is therefore freed, callbacks included, even when its disposable is
/// dropped without `dispose()` (a strong reference here would close a cycle
/// through every operator's inner subscription: downstream subscriber →
/// upstream disposable → upstream subscriber → its callbacks → downstream
/// subscriber). The generator's disposable is held strongly until disposed,
/// so disposing after the subscriber is gone still cancels the source.
///
/// The reference is an unretained one that the subscriber's deinit clears,
/// both under a striped lock (no per-subscription allocation, unlike a Swift
/// `weak` reference and its side table). While `terminate` holds that lock
/// and finds the reference set, the subscriber's memory is valid (its deinit,
/// if it has begun, waits for the lock), and the runtime's conditional retain
/// (the runtime's `swift_tryRetain`, which loading a weak reference relies
/// on; called through the C shim `_sks_try_retain`) either gives a
/// strong reference or says the subscriber is being deinitialized (then there
/// is nothing left to terminate).
///
/// Not generic: `dispose` is called through `Disposable`, where generic code
/// would run unspecialized. The part that knows the subscriber's type is
/// `terminate`, a function without captures built (specialized) by `start`.
@usableFromInline
final class _SubscriberDisposable: _SubscriptionFlags, Disposable, CustomStringConvertible, @unchecked Sendable {
    /// Set in the state word by the first `dispose`.
    @usableFromInline static var disposedFlag: Int { 1 << 61 }
    /// Set in the state word once `start` has stored the generator's
    /// disposable in `upstream`. An operator may dispose a subscription while
    /// its generator still runs (`take` does when it completes, so that a
    /// synchronous loop upstream stops at once): whichever of `dispose` and
    /// `setUpstream` comes second disposes the upstream, exactly once.
    @usableFromInline static var upstreamSetFlag: Int { 1 << 60 }

    /// Guarded by the `subscription` stripe of this object.
    @exclusivity(unchecked) @usableFromInline var subscriber: Unmanaged<AnyObject>?
    /// Set once by `start` (`setUpstream`) when the generator returns; then
    /// touched only by the thread that sees both `disposedFlag` and
    /// `upstreamSetFlag` set second (and by deinit).
    @exclusivity(unchecked) @usableFromInline var upstream: (any Disposable)?
    /// Terminates the subscriber, if it is still there (see above).
    @usableFromInline let terminate: (_SubscriberDisposable) -> Void

    /// The upstream is set by `start` once the generator has returned, before
    /// this object can be reached by anyone else.
    @inlinable
    init<T, E>(subscriber: Subscriber<T, E>) {
        self.subscriber = Unmanaged.passUnretained(subscriber as AnyObject)
        self.upstream = nil
        self.terminate = { disposable in
            // Under the lock, only a conditional retain: no release (a deinit
            // would take the lock) and no user code.
            var retained: Unmanaged<AnyObject>?
            _stripedLock(for: disposable, .subscription) {
                if let subscriber = disposable.subscriber, _sks_try_retain(subscriber.toOpaque()) != 0 {
                    retained = subscriber
                }
            }
            if let retained {
                unsafeDowncast(retained.takeRetainedValue(), to: Subscriber<T, E>.self).dispose()
            }
        }
        super.init()
    }

    @usableFromInline
    func dispose() {
        let previous = self.state.bitwiseOr(_SubscriberDisposable.disposedFlag, ordering: .acquiringAndReleasing).oldValue
        if previous & _SubscriberDisposable.disposedFlag != 0 {
            // Another dispose won (or the subscriber's own termination
            // called back here). It disposes the upstream, but may not have
            // terminated the subscriber yet: another thread's dispose can
            // be preempted between the flag and `terminate`. This dispose
            // must not return before the subscriber is terminated (no
            // callback may start on this thread after it returns), so it
            // terminates it too, unless the mirrored flag already says it
            // is (always so when called back from the termination).
            if previous & _SubscriptionFlags.terminatedFlag == 0 {
                self.terminate(self)
            }
            return
        }
        // Terminates the subscriber first (no callback starts after this).
        self.terminate(self)
        if previous & _SubscriberDisposable.upstreamSetFlag != 0 {
            self.disposeUpstream()
        }
        // Otherwise the generator is still running: `setUpstream` disposes
        // what it returns.
    }

    /// Stores the generator's disposable (called once, by `start`, when the
    /// generator has returned); disposes it at once if the subscription was
    /// disposed meanwhile.
    @inlinable
    func setUpstream(_ upstream: any Disposable) {
        self.upstream = upstream
        let previous = self.state.bitwiseOr(_SubscriberDisposable.upstreamSetFlag, ordering: .acquiringAndReleasing).oldValue
        if previous & _SubscriberDisposable.disposedFlag != 0 {
            self.disposeUpstream()
        }
    }

    @usableFromInline
    func disposeUpstream() {
        let upstream = self.upstream
        self.upstream = nil
        upstream?.dispose()
    }

    @usableFromInline
    var description: String {
        return "_SubscriberDisposable(disposed: \(self.state.load(ordering: .relaxed) & _SubscriberDisposable.disposedFlag != 0))"
    }
}

