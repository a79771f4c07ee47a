#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import _SwiftSignalKitShims

/// The receiving end of a signal: a generator pushes events into it.
///
/// A subscriber delivers any number of values followed by at most one terminal
/// event (an error or a completion). After the terminal event, or after the
/// subscription is disposed, every further event is dropped, the callbacks are
/// released (once no call into them is still running) and the upstream
/// disposable is disposed.
///
/// Thread-safety: `putNext`, `putError`, `putCompletion` and `keepAlive` may be
/// called from any thread, concurrently. The callbacks run on the calling
/// thread, never under a lock, so a callback may emit into or dispose any
/// subscription, its own included. Values pushed concurrently from several
/// threads reach the callback concurrently: a generator that emits from several
/// threads serializes them itself if its consumer needs ordering. The
/// terminal callback never overlaps a value callback: put while values are
/// being delivered on other threads, it runs after them, on the thread whose
/// call returns last (see `_InFlightCalls`); put from inside a value
/// callback of this subscriber, on its thread, it runs at once, nested, as
/// in the original.
///
/// The per-value path takes no lock: the thread that delivers the values
/// counts its calls in flight with plain stores (`withValueCall`), any
/// other thread with an atomic increment and decrement; the count guards
/// the callbacks against being released while a call is in flight.
public final class Subscriber<T, E>: CustomStringConvertible, @unchecked Sendable {
    // State word: see `_InFlightCalls` (the count of calls in flight, the
    // terminated and released flags), plus two flags of the subscriber's own.
    @usableFromInline static var terminatedFlag: Int { _InFlightCalls.terminatedFlag }
    @usableFromInline static var hasDisposableFlag: Int { 1 << 60 }
    /// Set once `keepAlive` has stored an object (the release then takes them,
    /// from the handle or from `keepAliveObjects`).
    @usableFromInline static var keepAliveFlag: Int { 1 << 59 }
    /// Set by the end of the termination (`endTermination`, or a dispose
    /// that dropped the waiting event), in the same atomic step that reads
    /// `hasDisposableFlag`: whichever of the two comes second disposes the
    /// handle (see `assignDisposable`).
    @usableFromInline static var terminationEndedFlag: Int { Int.min }

    @usableFromInline let state = Synchronization.Atomic<Int>(0)
    // The stored properties below are never accessed concurrently in
    // conflicting ways: the state word orders every access (as each comment
    // says), so the runtime's dynamic exclusivity checks are switched off for
    // them (they cost a call into the runtime on every access).
    //
    // Written only at init and by the single thread that releases them, after
    // every call in flight has returned (see `releaseIfIdle`). The value
    // callback is called borrowed, without a retain (see `_BorrowedCallback`).
    @exclusivity(unchecked) @usableFromInline var next: _BorrowedCallback<T>
    @exclusivity(unchecked) @usableFromInline var error: ((E) -> Void)?
    @exclusivity(unchecked) @usableFromInline var completed: (() -> Void)?
    // The objects `keepAlive` keeps for a subscriber that no `start` made
    // (one made with `init` by the caller, which has no handle): a started
    // subscriber keeps them in its handle (see `keepAlive`). Guarded by the
    // `keepAlive` stripe of this subscriber.
    @exclusivity(unchecked) @usableFromInline var keepAliveObjects: [AnyObject]?
    // The disposable `start` hands out for this subscriber, which refers to it
    // unretained: held for the subscriber's whole life, so that its deinit can
    // tell it (see `_SubscriberDisposable`). Written once by `start` before the
    // generator runs; disposed on termination once `hasDisposableFlag` is set
    // (by `assignDisposable`, after the generator has returned).
    @exclusivity(unchecked) @usableFromInline var handle: _SubscriberDisposable?
    /// The value calls' bias (see `withValueCall`): 0 before the first
    /// value, then the token (`_sks_thread_token`, a multiple of 8) of the
    /// thread that delivered it, whose calls then go uncounted; 2 while a
    /// terminating thread revokes it, 1 once revoked or never to be biased.
    @usableFromInline let callBias = Synchronization.Atomic<UInt>(0)
    /// The owner's value calls in flight, uncounted in the state word (its
    /// depth of nested calls). Stored by the owner alone.
    @usableFromInline let biasedCalls = Synchronization.Atomic<UInt>(0)
    /// How many of the owner's calls the revocation counted in the state
    /// word: written by the terminating thread before its releasing store
    /// of `callBias` 1, read by the owner after its load of that 1.
    @exclusivity(unchecked) @usableFromInline var adoptedCalls: UInt = 0

    /// Makes a subscriber that calls `next` for each value, then `error` or
    /// `completed` at most once; a `nil` callback ignores its events.
    @inlinable
    public init(next: ((T) -> Void)! = nil, error: ((E) -> Void)! = nil, completed: (() -> Void)! = nil) {
        self.next = _BorrowedCallback(next)
        self.error = error
        self.completed = completed
    }

    deinit {
        if let handle = self.handle {
            _stripedLock(for: handle, .subscription) {
                handle.subscriber = nil
            }
        }
    }

    /// The subscriber's value and error types, and whether it has terminated.
    public var description: String {
        let state = self.state.load(ordering: .relaxed)
        return "Subscriber<\(T.self), \(E.self)>(terminated: \(state & Subscriber.terminatedFlag != 0))"
    }

    /// Whether the subscriber has received its terminal event or been
    /// disposed (nothing more will be delivered). The resubscribing loops
    /// (`restart`, `retry`, ...) read it to stop as soon as their downstream
    /// is done.
    @inlinable
    var isTerminated: Bool {
        return self.state.load(ordering: .acquiring) & Subscriber.terminatedFlag != 0
    }

    /// Whether nothing more should be started for this subscriber: it has
    /// terminated, or a subscription downstream of it has ended (a `take`
    /// completed it, an error reached it) while its start is running on
    /// this thread or while that subscription's terminal event is being
    /// delivered (its upstream is disposed right after: `_TerminalDelivery`),
    /// through any operators in between that started their upstream with
    /// `Signal.start(downstream:)` (`_SubscriberDisposable.linkDownstream`).
    /// What the operators that start several signals read before starting
    /// the next one (`merge`, `combineLatest`, `then`, `catch`, the meta
    /// operators, the resubscribing loops), never under a lock of theirs.
    /// Reads no lock and calls no user code, but while a terminal event is
    /// being delivered on this thread: then it pins the subscribers on the
    /// links (a striped lock each, briefly), and unpinning one that
    /// terminated meanwhile releases its callbacks, as the return of any
    /// call into them would. A subscriber that no operator linked costs one
    /// more load.
    @inlinable
    var isEnded: Bool {
        if self.isTerminated {
            return true
        }
        guard let handle = self.handle, handle.downstream != nil else {
            return false
        }
        if handle.downstreamHasEnded() {
            return true
        }
        // A subscription below may have terminated and be delivering its
        // terminal event, its upstream (this one among them) not yet
        // disposed: see `_TerminalDelivery`.
        return _TerminalDelivery.isActive && self.downstreamTerminatedWhileDelivering()
    }

    /// Delivers a value, unless the subscriber has terminated or been disposed.
    @inlinable
    public func putNext(_ next: T) {
        self.putNextInlined(next)
    }

    /// `putNext`, always inlined into its caller: for the C layer's per-value
    /// entry point (`sk_subscriber_put_next`), where a call of its own costs
    /// a frame and the moves of the value around it. Swift callers use
    /// `putNext`, which the compiler inlines or not as it sees fit.
    @inlinable @inline(__always)
    package func putNextInlined(_ next: T) {
        self.withValueCall {
            self.next.call(next)
        }
    }

    /// Delivers `value` through `next`, the downstream's composed value
    /// callback of a delivering signal (`Signal.init(delivering:)`), as
    /// `putNext` delivers through the subscriber's own: nothing once the
    /// subscriber has terminated, and the call counted in flight, so that a
    /// terminal event put meanwhile on another thread (a stage below whose
    /// function failed: `_SubscriberLiveness.end(delivering:)`) waits for
    /// it. Without the count such an event ran while the call did, and a
    /// call that had passed the check reached the callbacks after it.
    @inlinable @inline(__always)
    func putNext(_ value: T, through next: _FusedNext<T>) {
        self.withValueCall {
            next(value)
        }
    }

    /// Runs `call`, a value call, unless the subscriber has terminated: in
    /// flight for the terminal event and the release (`_InFlightCalls`),
    /// and named on this thread (see `waitsForCalls`).
    ///
    /// Biased to the thread that delivers the values (INTERNALS.md, "A
    /// subscriber's value calls biased to their thread"): the first value's
    /// thread owns the calls (`acquireCallBias`, one compare-and-swap in
    /// the subscription's life) and counts its own in `biasedCalls` with
    /// plain stores, a compiler barrier and a load of `callBias`, where
    /// each call made two atomic read-modify-writes of the state word (in
    /// W5, most of a put's time). Every other thread's calls are counted
    /// in the state word. A termination revokes the bias first
    /// (`endCallBias`): on the owner's own thread with a store; on another
    /// with the heavy fence, after which it reads `biasedCalls` and counts
    /// those calls in the state word (`adoptedCalls`), so that the terminal
    /// event waits for them as for any other, and the release too. The
    /// owner that finds its bias gone after a call (or before one: no call
    /// then) ends that call in the state word if the revocation counted it
    /// (`biasedCallEnded`).
    @inlinable @inline(__always)
    func withValueCall(_ call: () -> Void) {
        let me = UInt(_sks_thread_token())
        if _fastPath(self.callBias.load(ordering: .relaxed) == me) {
            let depth = self.biasedCalls.load(ordering: .relaxed) &+ 1
            self.biasedCalls.store(depth, ordering: .relaxed)
            _sks_light_fence()
            _explore(.callEntered)
            if _fastPath(self.callBias.load(ordering: .relaxed) == me) {
                let slot = _sks_call_push(Unmanaged.passUnretained(self).toOpaque())
                call()
                _sks_call_pop(slot)
                _explore(.callLeaving)
                self.biasedCalls.store(depth &- 1, ordering: .releasing)
                _sks_light_fence()
                if _fastPath(self.callBias.load(ordering: .relaxed) == me) {
                    return
                }
            } else {
                // Revoked before the call (the subscriber terminates): none.
                self.biasedCalls.store(depth &- 1, ordering: .releasing)
            }
            self.biasedCallEnded(depth)
            return
        }
        if _slowPath(self.callBias.load(ordering: .relaxed) == 0) {
            self.acquireCallBias(me)
        }
        if _InFlightCalls.enter(self.state) {
            let slot = _sks_call_push(Unmanaged.passUnretained(self).toOpaque())
            call()
            _sks_call_pop(slot)
        }
        if let claimed = _InFlightCalls.leave(self.state) {
            self.finish(claimed)
        }
    }

    /// The first value call: biases the calls to this thread (`me`), unless
    /// biases are paused or the kernel has no heavy fence (`_biasAllowed`:
    /// then never). This call itself is counted in the state word. A
    /// termination that loaded `callBias` before this thread stored its
    /// token revokes nothing, so this thread then looks at the state word
    /// (both sides sequentially consistent: one of the two loads sees the
    /// other's write) and gives the bias up if it finds the subscriber
    /// terminated.
    @usableFromInline @inline(never)
    func acquireCallBias(_ me: UInt) {
        guard _biasAllowed() else {
            _ = self.callBias.compareExchange(expected: 0, desired: 1, ordering: .relaxed)
            return
        }
        guard self.callBias.compareExchange(expected: 0, desired: me, ordering: .sequentiallyConsistent).exchanged else {
            return
        }
        if self.state.load(ordering: .sequentiallyConsistent) & Subscriber.terminatedFlag != 0 {
            // No call of this thread went uncounted: nothing to hand over
            // (a termination revoking it meanwhile finds none in flight).
            _ = self.callBias.compareExchange(expected: me, desired: 1, ordering: .sequentiallyConsistent)
        }
    }

    /// The owner's call at `depth` (1 for the outermost) found the bias
    /// revoked, after the call or before it (then it made none): once the
    /// revocation is decided, ends the call in the state word if the
    /// revocation counted it (the outermost `adoptedCalls` calls in flight
    /// then were; their leaves come last, innermost first).
    @usableFromInline @inline(never)
    func biasedCallEnded(_ depth: UInt) {
        while self.callBias.load(ordering: .acquiring) == 2 {
            sched_yield()
        }
        if depth <= self.adoptedCalls, let claimed = _InFlightCalls.leave(self.state) {
            self.finish(claimed)
        }
    }

    /// A termination's end of the calls' bias (`callBias` was `bias`, a
    /// token or 2): the owner's calls in flight are counted in the state
    /// word before the termination decides anything. On the owner's
    /// thread, they are its own calls further up its stack. On another,
    /// the heavy fence first: of the owner's store of `biasedCalls` then
    /// load of `callBias`, and this thread's store of `callBias` then load
    /// of `biasedCalls`, one load sees the other's store, so a call the
    /// owner began either is counted here or sees the revocation and does
    /// not run. Returns `previous` with the calls counted.
    @usableFromInline @inline(never)
    func endCallBias(_ bias: UInt, _ previous: Int) -> Int {
        var adopted: UInt = 0
        if bias == UInt(_sks_thread_token()) {
            adopted = self.biasedCalls.load(ordering: .relaxed)
        } else {
            guard bias != 2, self.callBias.compareExchange(expected: bias, desired: 2, ordering: .sequentiallyConsistent).exchanged else {
                // The owner gave the bias up (`acquireCallBias`): none of
                // its calls went uncounted.
                return previous
            }
            _sks_heavy_fence()
            adopted = self.biasedCalls.load(ordering: .acquiring)
            _noteBiasRevoked()
        }
        #if SIGNALKIT_PLANT_CALL_BIAS_BUG
        // Planted (`make explore-measure`): the owner's calls in flight
        // are not counted; the terminal event and the release do not wait.
        adopted = 0
        #endif
        self.adoptedCalls = adopted
        if adopted > 0 {
            self.state.wrappingAdd(Int(adopted), ordering: .acquiringAndReleasing)
        }
        self.callBias.store(1, ordering: .releasing)
        return previous &+ Int(adopted)
    }

    /// Delivers an error as the terminal event, then disposes the upstream.
    /// While values are being delivered on other threads, the error is
    /// delivered by the thread whose call returns last, right after it
    /// returns (see `_InFlightCalls`); put from inside a value callback of
    /// this subscriber, on its thread, it runs at once, nested (see the
    /// type's comment).
    @inlinable
    public func putError(_ error: E) {
        guard let previous = self.beginTermination() else {
            return
        }
        if _slowPath(previous & _InFlightCalls.countMask != 0) && self.deferError(previous, error) {
            return
        }
        if let callback = self.error {
            _TerminalDelivery.begin()
            callback(error)
            _TerminalDelivery.end()
        }
        self.markValuesEndedUnlessHeld()
        self.endTermination(previous)
    }

    /// Delivers the completion as the terminal event, then disposes the
    /// upstream; after the value calls in flight, as `putError`.
    @inlinable
    public func putCompletion() {
        guard let previous = self.beginTermination() else {
            return
        }
        if _slowPath(previous & _InFlightCalls.countMask != 0) && self.deferCompletion(previous) {
            return
        }
        if let callback = self.completed {
            _TerminalDelivery.begin()
            callback()
            _TerminalDelivery.end()
        }
        self.markValuesEndedUnlessHeld()
        self.endTermination(previous)
    }

    /// Keeps `object` alive until the subscriber terminates or is disposed.
    ///
    /// While the subscription is live, `object` lives as long as the
    /// subscriber or the disposable its `start` returned is held by anyone:
    /// a generator that hands its subscriber to nothing (it returns
    /// `EmptyDisposable`, or a disposable that does not capture it) keeps
    /// `object` alive through the caller's disposable. (In the version of
    /// the original that this port follows, whose disposable refers to the
    /// subscriber weakly, `object` went with the subscriber: at the end of
    /// `start` in that case, the subscription still live.) When
    /// neither is held any more, the subscription can receive nothing and
    /// can no longer be disposed: `object` is released with it, without a
    /// dispose, as the original releases an unreferenced subscriber. Called
    /// after the termination, it releases `object` at once. Kept objects
    /// are released exactly once, on the thread that terminates or disposes
    /// the subscription (or drops its last reference), under no lock: their
    /// deinits may use it.
    public func keepAlive(_ object: AnyObject) {
        var dropped: AnyObject? = object
        if _InFlightCalls.enter(self.state) {
            // In the handle, not here: the handle refers to the subscriber
            // unretained (see `_SubscriberDisposable`), so the subscriber
            // alone may be gone while its disposable, and so the
            // subscription, is held and live.
            if let handle = self.handle {
                handle.keep(object)
            } else {
                _stripedLock(for: self, .keepAlive) {
                    if self.keepAliveObjects == nil {
                        self.keepAliveObjects = [object]
                    } else {
                        self.keepAliveObjects!.append(object)
                    }
                }
            }
            // Inside the call's window: the thread that releases (count 0)
            // sees the flag.
            self.state.bitwiseOr(Subscriber.keepAliveFlag, ordering: .relaxed)
            dropped = nil
        }
        if let claimed = _InFlightCalls.leave(self.state) {
            self.finish(claimed)
        }
        _ = dropped
    }

    /// Marks the subscriber terminated and registers a call in flight. Returns
    /// the previous state, or nil when it had already terminated. The
    /// handle's `terminatedFlag` is set here; its `valuesEndedFlag`, which
    /// the fused stages read, when the terminal event is delivered (or at
    /// once by a dispose or a failing stage: `markValuesEnded`).
    @inlinable
    func beginTermination() -> Int? {
        guard var previous = _InFlightCalls.beginTermination(self.state) else {
            return nil
        }
        // After the word's termination (sequentially consistent, as this
        // load: see `acquireCallBias`), the owner's uncounted calls are
        // counted.
        let bias = self.callBias.load(ordering: .sequentiallyConsistent)
        if _slowPath(bias > 1) {
            previous = self.endCallBias(bias, previous)
        }
        // Mirrored where fused stages look (see `_SubscriberLiveness`).
        self.handle?.state.bitwiseOr(_SubscriptionFlags.terminatedFlag, ordering: .releasing)
        _explore(.terminating)
        return previous
    }

    /// Sets the handle's `valuesEndedFlag` (`_SubscriptionFlags`): the fused
    /// stages of the subscription let no value through after this. At a
    /// dispose and a failing stage's end. Off the path of values.
    @inlinable
    func markValuesEnded() {
        self.handle?.markValuesEnded()
    }

    /// The same once the terminal event has been delivered (the callback has
    /// returned: a value a stage passes after that, on this thread, comes
    /// after the event), unless a stateful stage holds the event behind the
    /// values queued in its gate: then that stage sets it when it passes
    /// the event on (`_SubscriptionFlags.markValuesEndedUnlessHeld`).
    @inlinable
    func markValuesEndedUnlessHeld() {
        self.handle?.markValuesEndedUnlessHeld()
    }

    /// `putError`'s way when calls are in flight (`previous` counts some):
    /// defers the error and returns true, unless it need not wait
    /// (`waitsForCalls`). Out of line, so that `putError`'s frame stays as
    /// small as it was: an error travels back through every level of a
    /// deeply nested chain on the stack (see the C layer's `stackRefusal`).
    @usableFromInline @inline(never)
    func deferError(_ previous: Int, _ error: E) -> Bool {
        guard self.waitsForCalls(previous) else {
            return false
        }
        if let callback = self.error {
            self.deferTerminal(previous, { callback(error) })
        } else {
            self.deferTerminal(previous, nil)
        }
        return true
    }

    /// `putCompletion`'s way when calls are in flight, as `deferError`.
    @usableFromInline @inline(never)
    func deferCompletion(_ previous: Int) -> Bool {
        guard self.waitsForCalls(previous) else {
            return false
        }
        self.deferTerminal(previous, self.completed)
        return true
    }

    /// Whether a terminal event must wait for the calls in flight that
    /// `previous` (the word before `beginTermination`, which counts some)
    /// shows: unless every one of them is a value call running on this
    /// thread, further up its stack (a callback that ends its own
    /// subscription, maybe through other operators), which SwiftSignalKit
    /// answers with the terminal event at once, nested in that call; the
    /// model's cases check that order. The thread keeps its innermost
    /// `_SKS_CALL_SLOTS` (8) value calls (`_sks_call_push`): a call of this
    /// subscriber further out counts as another thread's, so the event
    /// then waits for it to return, still on this thread. Off the path of
    /// values.
    @usableFromInline @inline(never)
    func waitsForCalls(_ previous: Int) -> Bool {
        let calls = UInt(previous & _InFlightCalls.countMask)
        return _sks_calls_on_this_thread_reach(Unmanaged.passUnretained(self).toOpaque(), calls) == 0
    }

    /// The terminal event must wait for the calls in flight (`previous`, the
    /// word before `beginTermination`, counts some): `deliver` (the terminal
    /// callback bound to its event, nil for none) is left in the `completed`
    /// slot, which nothing else reads until the delivery is claimed, and the
    /// thread whose call ends last delivers it (`deliverPendingTerminal`),
    /// this one if they have all returned already. Off the path of values.
    @usableFromInline @inline(never)
    func deferTerminal(_ previous: Int, _ deliver: (() -> Void)?) {
        // Without a terminal callback the termination still waits for the
        // calls in flight: the values they had taken in reach the value
        // callback first, and the upstream is disposed after them.
        self.completed = deliver ?? {}
        guard _InFlightCalls.deferTerminal(self.state) else {
            // A dispose came meanwhile: no event (the release drops it).
            self.endTermination(previous)
            return
        }
        if let claimed = _InFlightCalls.leave(self.state) {
            self.finish(claimed)
        }
    }

    /// What the thread that won a claim does (`_InFlightCalls.claim`):
    /// delivers the pending terminal event, or releases the callbacks.
    @usableFromInline @inline(never)
    func finish(_ claimed: Int) {
        if _slowPath(claimed & _InFlightCalls.pendingFlag != 0) {
            self.deliverPendingTerminal(claimed)
        } else {
            self.release(claimed)
        }
    }

    /// Delivers the terminal event that waited for the calls in flight
    /// (`deferTerminal`), then ends the termination as `putError` and
    /// `putCompletion` do. Run once, by the thread that claimed it.
    @usableFromInline @inline(never)
    func deliverPendingTerminal(_ claimed: Int) {
        let deliver = self.completed
        self.completed = nil
        if let deliver {
            _TerminalDelivery.begin()
            deliver()
            _TerminalDelivery.end()
        }
        self.markValuesEndedUnlessHeld()
        self.endTermination(claimed)
    }

    /// Ends the subscription with `deliver` in place of its terminal
    /// callbacks, as `putError` would (no value call begins after this;
    /// `deliver` runs after the calls in flight, then the upstream is
    /// disposed): for a fused stage that fails (the C layer's
    /// sk_callback_fail), whose error goes to callbacks of its own. Returns
    /// false, doing nothing, when the subscriber had already terminated.
    @usableFromInline
    func terminate(delivering deliver: @escaping () -> Void) -> Bool {
        guard let previous = self.beginTermination() else {
            return false
        }
        // A failing stage: nothing passes after it, not even the values
        // the calls in flight had taken in.
        self.markValuesEnded()
        if previous & _InFlightCalls.countMask != 0 && self.waitsForCalls(previous) {
            self.deferTerminal(previous, deliver)
            return true
        }
        _TerminalDelivery.begin()
        deliver()
        _TerminalDelivery.end()
        self.endTermination(previous)
        return true
    }

    /// Ends the termination (its registered call) and, once the generator
    /// has returned (`hasDisposableFlag`), disposes the handle, and so the
    /// upstream. `previous` is the word the termination began with, which
    /// the callers hold; the flag is read from the word itself, in the step
    /// that ends the call and sets `terminationEndedFlag`: a generator that
    /// returns meanwhile leaves the disposal to this (`assignDisposable`).
    @inlinable
    func endTermination(_ previous: Int) {
        // Ends the call (-1) and sets the flag (bit 63, clear until now: one
        // termination ends once) in one addition.
        let before = self.state.wrappingAdd(Subscriber.terminationEndedFlag &- 1, ordering: .acquiringAndReleasing).oldValue
        let current = before &+ (Subscriber.terminationEndedFlag &- 1)
        self.releaseIfIdle(current)
        if before & Subscriber.hasDisposableFlag != 0 {
            self.handle?.disposeAfterTermination()
        }
    }

    /// Terminates without delivering anything and disposes the upstream: what
    /// disposing the subscription does.
    @inlinable
    func dispose() {
        guard let previous = self.beginTermination() else {
            // A terminal event waiting for the calls in flight is dropped:
            // nothing starts after a dispose on its thread.
            if let current = _InFlightCalls.cancelPending(self.state) {
                self.markValuesEnded()
                self.droppedPendingTerminal(current)
            }
            return
        }
        self.markValuesEnded()
        self.endTermination(previous)
    }

    /// A dispose took away the pending terminal event (`current`, the word
    /// after): the termination ends without it. Off the path of values.
    @usableFromInline @inline(never)
    func droppedPendingTerminal(_ current: Int) {
        // The termination ends here (see `endTermination`).
        let before = self.state.bitwiseOr(Subscriber.terminationEndedFlag, ordering: .acquiringAndReleasing).oldValue
        self.releaseIfIdle(before | Subscriber.terminationEndedFlag)
        if before & Subscriber.hasDisposableFlag != 0 {
            self.handle?.disposeAfterTermination()
        }
    }

    /// Releases the callbacks once the subscriber is terminated and no call is
    /// in flight; exactly one thread wins the right to do it.
    @inlinable
    func releaseIfIdle(_ observed: Int) {
        if let claimed = _InFlightCalls.claim(self.state, observed: observed) {
            self.finish(claimed)
        }
    }

    /// Releases the callbacks and kept objects: run once, by the thread that
    /// claimed the release (`claimed` is the state word it saw).
    @inlinable
    func release(_ claimed: Int) {
        let next = self.next.take()
        let error = self.error
        let completed = self.completed
        self.error = nil
        self.completed = nil
        var objects: [AnyObject]?
        if claimed & Subscriber.keepAliveFlag != 0 {
            if let handle = self.handle {
                handle.releaseKeptObjects()
            } else {
                _stripedLock(for: self, .keepAlive) {
                    objects = self.keepAliveObjects
                    self.keepAliveObjects = nil
                }
            }
        }
        // The closures and kept objects are released here, outside any lock.
        _ = (next, error, completed, objects)
    }

    /// Makes termination dispose `handle` (which now holds the generator's
    /// disposable). If the termination has already ended, it is disposed at
    /// once. A termination still under way (its terminal event waiting for
    /// the value calls in flight on other threads, or being delivered) is
    /// left to dispose it when it ends (`endTermination`): disposed here, the
    /// subscription took that as a user's dispose, which drops the waiting
    /// event (it never arrived), and the upstream went before the event.
    @inlinable
    func assignDisposable() {
        var current = self.state.load(ordering: .relaxed)
        while true {
            if current & Subscriber.terminationEndedFlag != 0 {
                self.handle?.disposeAfterTermination()
                return
            }
            let (exchanged, original) = self.state.compareExchange(expected: current, desired: current | Subscriber.hasDisposableFlag, ordering: .acquiringAndReleasing)
            if exchanged {
                return
            }
            current = original
        }
    }
}
