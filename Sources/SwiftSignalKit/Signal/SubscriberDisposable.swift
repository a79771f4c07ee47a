#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
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
    /// The subscription of the operator that is starting this one as its
    /// upstream (see `linkDownstream`), unretained, and the thread that runs
    /// this subscription's start. Written once, before the generator runs
    /// (so before anyone else can reach this object); the link is followed
    /// only by that thread while the start runs (`downstreamHasEnded`).
    @exclusivity(unchecked) @usableFromInline var downstream: Unmanaged<_SubscriberDisposable>?
    @exclusivity(unchecked) @usableFromInline var startingThread: UInt = 0

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

    /// Links this subscription to `downstream`, the subscription of the
    /// operator that is starting this one as its upstream (from its
    /// generator, or from a callback of an upstream of its own: an inner
    /// signal, a `catch` alternative, a `then` part). Called by
    /// `Signal.start(downstream:)` before this subscription's generator runs,
    /// on the thread that runs it.
    ///
    /// While this subscription's start runs, the operator that links it
    /// holds `downstream`'s subscriber (it is starting its upstream for it),
    /// so the unretained link is valid there; and while `downstream` is still
    /// starting on the same thread, its own link is valid too. That chain is
    /// how an operator still starting its inputs learns that the
    /// subscription ended further down, through any operators in between
    /// (`Subscriber.isEnded`).
    @usableFromInline
    override func linkDownstream(_ downstream: _SubscriberDisposable?) {
        guard let downstream else {
            return
        }
        self.downstream = Unmanaged.passUnretained(downstream)
        self.startingThread = _currentThread()
    }

    /// Whether a subscription downstream of this one has terminated, seen
    /// from the thread that runs this subscription's start, while it runs:
    /// follows the links (`linkDownstream`) for as long as each subscription
    /// on the way is still starting on this thread (then the next one is
    /// alive: see above). False anywhere else (another thread, or once the
    /// start has returned): there the ordinary disposal reaches this
    /// subscription.
    @usableFromInline
    final func downstreamHasEnded() -> Bool {
        let thread = _currentThread()
        var node = Unmanaged.passUnretained(self)
        while true {
            let link = node._withUnsafeGuaranteedRef { node -> Unmanaged<_SubscriberDisposable>? in
                if node.startingThread != thread || node.state.load(ordering: .relaxed) & _SubscriberDisposable.upstreamSetFlag != 0 {
                    return nil
                }
                return node.downstream
            }
            guard let link else {
                return false
            }
            if link._withUnsafeGuaranteedRef({ $0.isTerminated }) {
                return true
            }
            node = link
        }
    }

    /// Whether a subscription downstream of this one has terminated,
    /// following the links (`linkDownstream`) as far as they go, from any
    /// thread and at any time; the caller has pinned this subscription's
    /// subscriber (`_PinnableSubscriber`). Each link is safe to follow while
    /// the subscriber of the subscription it starts from is pinned: that
    /// subscriber's callbacks are the linking operator's, which hold its own
    /// subscriber, which holds the linked subscription. So each subscriber
    /// on the way is pinned in turn (its callbacks registered as in use)
    /// until the walk is over. A subscription whose subscriber has
    /// terminated or is gone counts as ended. Runs only while a terminal
    /// event is being delivered on this thread (`_TerminalDelivery`).
    @usableFromInline
    final func downstreamTerminatedPinned() -> Bool {
        var pinned: [any _PinnableSubscriber] = []
        defer {
            for subscriber in pinned.reversed() {
                subscriber.unpinCallbacks()
            }
        }
        var node = self
        while true {
            guard let link = node.downstream else {
                return false
            }
            let next = link.takeUnretainedValue()
            if next.isTerminated {
                return true
            }
            var retained: Unmanaged<AnyObject>?
            _stripedLock(for: next, .subscription) {
                if let subscriber = next.subscriber, _sks_try_retain(subscriber.toOpaque()) != 0 {
                    retained = subscriber
                }
            }
            guard let subscriber = retained?.takeRetainedValue() as? any _PinnableSubscriber, subscriber.pinCallbacks() else {
                return true
            }
            pinned.append(subscriber)
            node = next
        }
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


/// The calling thread as a word (never 0).
@inlinable
func _currentThread() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}
