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
/// It holds what the subscriber would otherwise hold for it: the objects
/// given to `Subscriber.keepAlive` (`keptObjects`). The subscriber holds this
/// object too, so they live while either the subscriber or this disposable
/// is reachable and the subscription has not ended (the promise of
/// `keepAlive`; in the original, whose subscriber holds them, they went with
/// the subscriber even while its disposable was held). They are released
/// when the subscriber terminates, when this is disposed (the subscriber may
/// be gone by then), or with this object. Nothing holds the subscriber
/// through them, so no cycle is added.
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
    /// Set in the state word once `keep` has stored an object (a dispose
    /// then takes them).
    @usableFromInline static var keptObjectsFlag: Int { 1 << 59 }
    /// Set in the state word of the object that stands for a `share`
    /// session (`init(session:)`), to which the session's upstream
    /// subscription links: a walk that reaches it asks the session whether
    /// all its subscribers have ended (`sharedSessionHasEnded`).
    @usableFromInline static var sharedSessionFlag: Int { 1 << 58 }

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
    /// The objects kept alive for the subscription (`Subscriber.keepAlive`).
    /// Guarded by the `keepAlive` stripe of this object; set by `keep` only
    /// while the subscriber has not terminated. Costs no memory: it takes
    /// the object from 80 to 88 bytes, and glibc's malloc gives 88 usable
    /// bytes to either (checked with `malloc_usable_size`); the subscriber
    /// keeps its own field for subscribers made without a `start`.
    @exclusivity(unchecked) @usableFromInline var keptObjects: [AnyObject]?

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
    ///
    /// A `share` session's upstream links to the object that stands for the
    /// session (`init(session:)`), not to a subscriber of it: the connection
    /// outlives the subscriber that connected it, and has several.
    @usableFromInline
    override func linkDownstream(_ downstream: _SubscriberDisposable?) {
        guard let downstream else {
            return
        }
        self.downstream = Unmanaged.passUnretained(downstream)
        self.startingThread = _currentThread()
    }

    /// The object that stands for a `share` session in the walks: the
    /// session's upstream subscription links to it, and a walk that reaches
    /// it ends there with the session's answer (have all its subscribers
    /// ended?). `session` is held unretained: its deinit clears the
    /// reference under the striped lock, as a subscriber's does. It never
    /// starts, terminates or disposes anything.
    @usableFromInline
    init(session: any _SharedSessionLiveness) {
        self.subscriber = Unmanaged.passUnretained(session as AnyObject)
        self.upstream = nil
        self.terminate = { _ in }
        super.init()
        self.state.bitwiseOr(_SubscriberDisposable.sharedSessionFlag | _SubscriberDisposable.upstreamSetFlag, ordering: .relaxed)
    }

    /// Whether this object stands for a `share` session (`init(session:)`).
    @inlinable
    final var isSharedSession: Bool {
        return self.state.load(ordering: .relaxed) & _SubscriberDisposable.sharedSessionFlag != 0
    }

    /// Whether this subscription's start is running on the calling thread.
    @inlinable
    final var isStartingOnThisThread: Bool {
        return self.startingThread == _currentThread()
            && self.state.load(ordering: .relaxed) & _SubscriberDisposable.upstreamSetFlag == 0
    }

    /// For the object of a `share` session: whether the session's upstream
    /// should start nothing more. While the upstream's start runs on this
    /// thread (`upstreamStarting`), as for any operator's upstream: once
    /// the subscriber that connected it has ended; after that, once all
    /// the session's subscribers have ended (or none is left, or it is
    /// gone). Reads `Subscriber.isEnded`, outside the session's lock.
    @usableFromInline
    final func sharedSessionHasEnded(upstreamStarting: Bool) -> Bool {
        var retained: Unmanaged<AnyObject>?
        _stripedLock(for: self, .subscription) {
            if let session = self.subscriber, _sks_try_retain(session.toOpaque()) != 0 {
                retained = session
            }
        }
        guard let session = retained?.takeRetainedValue() as? any _SharedSessionLiveness else {
            return true
        }
        return session.hasEnded(upstreamStarting: upstreamStarting)
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
            if link._withUnsafeGuaranteedRef({ $0.isSharedSession }) {
                // `node` is the session's upstream, still starting here.
                return link._withUnsafeGuaranteedRef { $0.sharedSessionHasEnded(upstreamStarting: true) }
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
    /// terminated or is gone counts as ended. A `share` session's object
    /// (`init(session:)`) ends the walk with the session's answer; the
    /// session is alive there, as the pinned subscriber before it is the
    /// session's upstream's, whose callbacks hold the session. Runs only while a terminal
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
            if next.isSharedSession {
                return next.sharedSessionHasEnded(upstreamStarting: node.isStartingOnThisThread)
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
        // The fused stages let nothing through from here (`valuesEndedFlag`).
        self.dispose(marking: _SubscriptionFlags.valuesEndedFlag)
    }

    /// The disposal a subscriber's termination makes once its terminal event
    /// is delivered (`Subscriber.endTermination`): the upstream goes, but a
    /// stateful stage may still hold the event behind values queued in its
    /// gate, so `valuesEndedFlag` is left to the delivery
    /// (`Subscriber.markValuesEndedUnlessHeld`).
    @usableFromInline
    func disposeAfterTermination() {
        self.dispose(marking: 0)
    }

    /// `dispose`, setting `marking` (`valuesEndedFlag` or nothing) with the
    /// disposed flag.
    @inlinable
    func dispose(marking: Int) {
        let previous = self.state.bitwiseOr(_SubscriberDisposable.disposedFlag | marking, ordering: .acquiringAndReleasing).oldValue
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
        if previous & _SubscriberDisposable.keptObjectsFlag != 0 {
            // The subscriber's release takes them when it is still there;
            // when it is gone (nothing but this object held the
            // subscription), this is the one place that can. An object kept
            // after `previous` was read was kept by a subscriber still
            // alive, whose termination above takes it.
            self.releaseKeptObjects()
        }
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

    /// Stores an object to keep alive (`Subscriber.keepAlive`, inside a call
    /// window of the subscriber, so before its termination releases them).
    @usableFromInline
    func keep(_ object: AnyObject) {
        _stripedLock(for: self, .keepAlive) {
            if self.keptObjects == nil {
                self.keptObjects = [object]
            } else {
                self.keptObjects!.append(object)
            }
        }
        self.state.bitwiseOr(_SubscriberDisposable.keptObjectsFlag, ordering: .releasing)
    }

    /// Releases the kept objects, if any are left: the first caller (the
    /// subscriber's release or a dispose) takes them under the lock and
    /// releases them after it, so that their deinits may use the
    /// subscription.
    @usableFromInline
    func releaseKeptObjects() {
        var objects: [AnyObject]?
        _stripedLock(for: self, .keepAlive) {
            objects = self.keptObjects
            self.keptObjects = nil
        }
        _ = objects
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


/// What a `share` session answers a walk that reaches it (see
/// `_SubscriberDisposable.init(session:)`).
@usableFromInline
protocol _SharedSessionLiveness: AnyObject {
    /// Whether the session's upstream should start nothing more (see
    /// `_SubscriberDisposable.sharedSessionHasEnded`). Called outside every
    /// lock of the library.
    func hasEnded(upstreamStarting: Bool) -> Bool
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
