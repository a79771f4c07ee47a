import _SwiftSignalKitShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Maps each value to a signal with `f` and runs up to `maxConcurrent` of
/// them at once, forwarding all their values; a value that comes while
/// `maxConcurrent` inner signals run waits (in order) until one completes.
/// `maxConcurrent == 1` runs them one after the other (a concat-map, as
/// `mapToQueue`); `Int.max` runs all at once (a merge-map). A count below 1
/// counts as 1; any count is a limit, never memory reserved.
///
/// An error of the upstream or of an inner signal passes through and disposes
/// everything (waiting values are dropped). Completes once the upstream has
/// completed and every inner signal has completed.
///
/// Inner signals that complete synchronously are started by a loop, not by
/// recursion: the stack does not grow with the number of waiting values.
///
/// Thread-safety: the upstream and the inner signals may emit from any
/// thread; `f` runs and inner signals start on the thread of the value or of
/// the inner completion that makes room, never under a lock.
@inlinable
public func mergeMap<T, R, E>(maxConcurrent: Int = Int.max, _ f: @escaping (T) -> Signal<R, E>) -> (Signal<T, E>) -> Signal<R, E> {
    return { signal in
        return Signal<R, E> { subscriber in
            let state = _MergeMapState<T, R, E>(maxConcurrent: max(1, maxConcurrent), subscriber: subscriber, f: f, limit: nil)
            state.setOuter(signal.start(downstream: subscriber, next: { next in
                state.enqueue(next)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                state.outerCompleted()
            }))
            let disposer = _UnretainedDisposable(state)
            state.disposer = disposer
            return disposer
        }
    }
}

/// `mergeMap(maxConcurrent:_:)` with at most `capacity` values waiting for
/// a free slot, and `overflow` deciding about the next (see
/// `SignalOverflow`): a fast upstream feeding slow inner signals holds at
/// most `capacity` values. `maxConcurrent == 1` is a bounded concat-map;
/// `mergeMap(maxConcurrent: 1, capacity:overflow:onDrop:) { $0 }` a bounded
/// `queue` (concat of a signal of signals).
///
/// With `.fail`, the stream fails at once: the value that overflowed and the
/// values waiting are dropped (the running inner signals are disposed, as
/// for any error). With `.block`, the upstream's producer waits until an
/// inner signal completes; when that producer is the thread starting inner
/// signals (a value put from inside an inner signal's start), the stream
/// fails instead (not detected: inner signals that only this thread would
/// complete). Every value dropped, including those put after a failure
/// while its error is on its way to the subscriber (once it got there, a
/// value put reaches nothing and is not reported), is passed to `onDrop` with this subscription's count of drops so far (this
/// one included), on the thread that dropped it, never under a lock. Values
/// waiting when the subscription ends are released without being reported.
/// A `capacity` below 1 is taken as 1.
///
/// Errors, completion and threading: as `mergeMap(maxConcurrent:_:)`.
/// `onDrop` may be called from several producing threads at once.
@inlinable
public func mergeMap<T, R, E>(maxConcurrent: Int, capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)? = nil, _ f: @escaping (T) -> Signal<R, E>) -> (Signal<T, E>) -> Signal<R, E> {
    return mergeMap(maxConcurrent: maxConcurrent, capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: "mergeMap", f)
}

/// The bounded `mergeMap` under another operator's name (the C layer's).
@inlinable
package func mergeMap<T, R, E>(maxConcurrent: Int, capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)?, operatorName: String, _ f: @escaping (T) -> Signal<R, E>) -> (Signal<T, E>) -> Signal<R, E> {
    return { signal in
        return Signal<R, E> { subscriber in
            let limit = _SignalPendingLimit(capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: operatorName)
            let state = _MergeMapState<T, R, E>(maxConcurrent: max(1, maxConcurrent), subscriber: subscriber, f: f, limit: limit)
            state.setOuter(signal.start(downstream: subscriber, next: { next in
                state.enqueue(next)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                state.outerCompleted()
            }))
            let disposer = _UnretainedDisposable(state)
            state.disposer = disposer
            return disposer
        }
    }
}

/// The state of one `mergeMap` subscription: the waiting values, the
/// running inner signals and who drives the loop that starts them.
///
/// `driving` is set while one thread runs `drive()`: the only thread that
/// starts inner signals. An event that comes meanwhile (a value, an inner
/// completion, the upstream's completion) updates the counters under the lock
/// and leaves the rest to that thread, which checks again before it stops.
///
/// Each running inner signal has a slot in `inners` (its disposable, or
/// nil while it starts) and a `_MergeMapInner` that its
/// callbacks capture (a closure whose only capture is one object needs no
/// context). A slot is reused once its inner signal has completed; the
/// inner object, not the slot, says whether it has (`done`), so a start
/// that returns after its inner signal completed (and its slot went to
/// another) disposes what it started instead of storing it. The inner
/// object of an inner signal that completed during its start is reused too
/// (`spareInner`), once nothing else holds it: inner signals that complete
/// at once make no allocation of the operator's. A `single` kept in place
/// takes no inner object: its value is delivered without a subscription
/// and its slot freed at the next lock (`drive`).
///
/// Thread-safety: every method may be called from any thread; the lock is
/// never held while user code runs, a signal starts, something is disposed
/// or released.
@usableFromInline
final class _MergeMapState<T, R, E>: Disposable, @unchecked Sendable {
    @usableFromInline let mutex = _Mutex()
    @usableFromInline let maxConcurrent: Int
    @usableFromInline let limit: _SignalPendingLimit<T, E>?
    // Guarded by `mutex`, as are the inner objects' `done`.
    @exclusivity(unchecked) @usableFromInline var subscriber: Subscriber<R, E>?
    @exclusivity(unchecked) @usableFromInline var f: ((T) -> Signal<R, E>)?
    /// The values waiting for a slot: at most `limit.capacity` of them when
    /// bounded.
    @exclusivity(unchecked) @usableFromInline var waiting: _SignalRing<T>
    /// `fail` (or `block`'s refusal) decided the error: later values are
    /// dropped and reported.
    @exclusivity(unchecked) @usableFromInline var overflowed = false
    /// The overflow's error has been delivered (`failLocked`): later
    /// values are released unreported.
    @exclusivity(unchecked) @usableFromInline var overflowDelivered = false
    /// The thread running `drive()` (`block`'s refusal).
    @exclusivity(unchecked) @usableFromInline var drivingThread: pthread_t?
    @exclusivity(unchecked) @usableFromInline var active = 0
    @exclusivity(unchecked) @usableFromInline var driving = false
    @exclusivity(unchecked) @usableFromInline var outerDone = false
    @exclusivity(unchecked) @usableFromInline var finished = false
    @exclusivity(unchecked) @usableFromInline var outer: (any Disposable)?
    /// The running inner subscriptions, by slot (nil: a free slot, listed
    /// in `freeSlots`, or an inner signal still starting).
    @exclusivity(unchecked) @usableFromInline var inners: [(any Disposable)?] = []
    @exclusivity(unchecked) @usableFromInline var freeSlots: [Int] = []
    /// The object of an inner signal that completed during its start, for
    /// the next one (parked: it holds nothing; see `_MergeMapInner`).
    @exclusivity(unchecked) @usableFromInline var spareInner: _MergeMapInner<T, R, E>?
    /// The subscription's disposable, which holds this state unretained
    /// (set once, right after the state is made).
    @exclusivity(unchecked) @usableFromInline var disposer: _UnretainedDisposable<_MergeMapState<T, R, E>>?

    @inlinable
    init(maxConcurrent: Int, subscriber: Subscriber<R, E>, f: @escaping (T) -> Signal<R, E>, limit: _SignalPendingLimit<T, E>?) {
        self.maxConcurrent = maxConcurrent
        self.subscriber = subscriber
        self.f = f
        self.limit = limit
        self.waiting = _SignalRing(capacity: limit?.capacity ?? Int.max)
    }

    deinit {
        // Gone unfinished (the sources let go of their subscribers): their
        // disposables wait for the subscription's dispose (as `dispose`
        // orders them).
        self.disposer?.targetEnded(leaving: self.finished ? [] : ([self.outer] + self.inners).compactMap { $0 })
        self.waiting.destroy()
    }

    @inlinable
    func setOuter(_ disposable: any Disposable) {
        self.mutex.lock()
        let disposeNow = self.finished
        if !disposeNow {
            self.outer = disposable
        }
        self.mutex.unlock()
        if disposeNow {
            disposable.dispose()
        }
    }

    @inlinable
    func enqueue(_ value: T) {
        self.mutex.lock()
        if self.finished {
            self.mutex.unlock()
            return
        }
        guard let limit = self.limit else {
            self.waiting.append(value)
            self.driveIfIdle()
            return
        }
        self.enqueueBounded(value, limit)
    }

    /// `enqueue` of the bounded form: the overflow policy decides when the
    /// ring is full. Called with the lock held; unlocks.
    @inlinable @inline(never)
    func enqueueBounded(_ value: T, _ limit: _SignalPendingLimit<T, E>) {
        while true {
            if self.finished {
                self.mutex.unlock()
                return
            }
            if self.overflowed {
                if self.overflowDelivered {
                    // The error reached the subscriber: later values reach
                    // nothing and are not reported.
                    self.mutex.unlock()
                    return
                }
                let count = limit.countDrop()
                self.mutex.unlock()
                limit.report([value], first: count)
                return
            }
            switch self.waiting.offer(value, limit.overflow) {
            case .queued:
                self.driveIfIdle()
                return
            case let .dropped(old):
                let count = limit.countDrop()
                self.mutex.unlock()
                limit.report([old], first: count)
                return
            case let .failed(value):
                self.failLocked(value, limit, .overflow)
                return
            case let .full(value):
                if self.driving, let thread = self.drivingThread, pthread_equal(thread, pthread_self()) != 0 {
                    // Put from inside an inner signal's start: the slot it
                    // waits for is this thread's to free.
                    self.failLocked(value, limit, .wouldDeadlock)
                    return
                }
                if let subscriber = self.subscriber,
                   _sks_calls_on_this_thread_reach(Unmanaged.passUnretained(subscriber).toOpaque(), 1) != 0 {
                    // Put from inside a delivery of this operator's values
                    // (its subscriber's value call runs on this thread): the
                    // inner signal delivering it cannot end, and free its
                    // slot, before that call returns (a terminal event waits
                    // for the value calls in flight). It waited for good
                    // (an acceptance program).
                    self.failLocked(value, limit, .wouldDeadlock)
                    return
                }
                if _currentThreadRunsAnExecutorQueue() {
                    // Put from a host-drained or virtual-time queue's work:
                    // the inner signals may need that queue to end.
                    self.failLocked(value, limit, .cannotWaitForQueue)
                    return
                }
                if let scope = _SignalNoWaitScope.current {
                    // A put that never waits: the value beyond the capacity.
                    self.waiting.overfill(value)
                    self.driveIfIdle()
                    scope.filled(self, 0)
                    return
                }
                limit.waitForRoom(self.mutex)
            }
        }
    }

    /// The overflow error: `value` and the values waiting are dropped and
    /// reported, then the error is delivered (which disposes everything).
    /// Called with the lock held; unlocks.
    @inlinable
    func failLocked(_ value: T, _ limit: _SignalPendingLimit<T, E>, _ reason: SignalOverflowError.Reason) {
        self.overflowed = true
        let dropped = [value] + self.waiting.removeAll()
        let first = limit.dropped + 1
        limit.dropped += dropped.count
        limit.wake()
        let subscriber = self.subscriber
        self.mutex.unlock()
        limit.report(dropped, first: first)
        subscriber?.putError(limit.error(reason))
        self.mutex.lock()
        self.overflowDelivered = true
        self.mutex.unlock()
    }

    @inlinable
    func outerCompleted() {
        self.mutex.lock()
        self.outerDone = true
        self.driveIfIdle()
    }

    @inlinable
    func innerCompleted(_ inner: _MergeMapInner<T, R, E>) {
        self.mutex.lock()
        if inner.done {
            self.mutex.unlock()
            return
        }
        inner.done = true
        var disposable: (any Disposable)?
        if !self.finished {
            disposable = self.inners[inner.slot]
            self.inners[inner.slot] = nil
            self.freeSlots.append(inner.slot)
        }
        self.active -= 1
        self.driveIfIdle()
        withExtendedLifetime(disposable) {}
    }

    /// Called with the lock held; unlocks. Drives unless a thread already is.
    @inlinable
    func driveIfIdle() {
        if self.driving || self.finished {
            self.mutex.unlock()
            return
        }
        self.driving = true
        if self.limit != nil {
            self.drivingThread = pthread_self()
        }
        self.mutex.unlock()
        self.drive()
    }

    @inlinable
    func drive() {
        // A parked inner object to leave in `spareInner` at the next lock.
        var stash: _MergeMapInner<T, R, E>?
        // The slot of a `single` delivered (`deliverSingle`), to free at the
        // next lock.
        var freed: Int?
        while true {
            self.mutex.lock()
            if let parked = stash.take(), self.spareInner == nil {
                self.spareInner = consume parked
            }
            if let slot = freed.take() {
                // As the single's completion would (`innerCompleted`).
                if !self.finished {
                    self.freeSlots.append(slot)
                }
                self.active -= 1
            }
            // Tested without taking them: only a start needs them.
            guard !self.finished, self.subscriber != nil, self.f != nil else {
                self.driving = false
                self.mutex.unlock()
                return
            }
            if self.active < self.maxConcurrent && self.waiting.count > 0 {
                let subscriber = self.subscriber.unsafelyUnwrapped
                let f = self.f.unsafelyUnwrapped
                let value = self.waiting.removeFirst()
                self.limit?.wake()
                self.active += 1
                // The slot, empty while the inner signal starts (it is
                // taken: not in `freeSlots`); its completion frees it, also
                // one that comes during the start.
                let slot: Int
                if let free = self.freeSlots.popLast() {
                    slot = free
                } else {
                    slot = self.inners.count
                    self.inners.append(nil)
                }
                var spare = self.spareInner.take()
                self.mutex.unlock()
                if subscriber.isEnded {
                    self.mutex.lock()
                    self.driving = false
                    self.mutex.unlock()
                    return
                }
                let signal = f(value)
                if signal.isSingleInPlace {
                    // A constant source (`Signal.single`), whose start would
                    // deliver its value and complete at once: delivered as
                    // its callback would, with no subscription of its own;
                    // its slot is freed at the next lock, as its completion
                    // would free it. The spare goes back, unused.
                    subscriber.putNext(signal.singleValue)
                    freed = slot
                    stash = spare.take()
                    continue
                }
                let started: _MergeMapInner<T, R, E>
                if let reused = spare.take() {
                    // Taken out of `spare`: the inner signal must hold the
                    // only reference for the object to be reused again.
                    reused.unpark(state: self, subscriber: subscriber, slot: slot)
                    started = reused
                } else {
                    started = _MergeMapInner(state: self, subscriber: subscriber, slot: slot)
                }
                let disposable = self.startInner(signal, started)
                var inner = consume started
                self.mutex.lock()
                if !self.finished && !inner.done {
                    self.inners[slot] = disposable
                    self.mutex.unlock()
                } else {
                    let done = inner.done
                    self.mutex.unlock()
                    disposable.dispose()
                    if done && isKnownUniquelyReferenced(&inner) {
                        // Completed during its start, and its callbacks
                        // are gone: kept for the next inner signal.
                        inner.park()
                        stash = consume inner
                    }
                }
                continue
            }
            let complete = self.active == 0 && self.outerDone && self.waiting.count == 0
            let subscriber = complete ? self.subscriber : nil
            self.driving = false
            self.mutex.unlock()
            subscriber?.putCompletion()
            return
        }
    }

    /// Starts the inner signal `signal` with the callbacks of `inner`.
    @inlinable
    func startInner(_ signal: Signal<R, E>, _ inner: _MergeMapInner<T, R, E>) -> any Disposable {
        return signal.startFusing({ upstream in
            inner.withSubscriber { upstream.linkDownstream($0) }
            return { next in
                inner.withSubscriber { $0.putNext(next) }
            }
        }, error: { error in
            inner.withSubscriber { $0.putError(error) }
        }, completed: {
            inner.withState { $0.innerCompleted(inner) }
        })
    }

    @inlinable
    func dispose() {
        self.mutex.lock()
        if self.finished {
            self.mutex.unlock()
            return
        }
        self.finished = true
        let outer = self.outer
        let inners = self.inners
        let released = (self.subscriber, self.f, self.waiting.removeAll())
        self.outer = nil
        self.inners = []
        self.freeSlots = []
        self.subscriber = nil
        self.f = nil
        self.limit?.wake()
        self.mutex.unlock()
        outer?.dispose()
        for case let inner? in inners {
            inner.dispose()
        }
        withExtendedLifetime(released) {}
    }
}

/// What the callbacks of one inner signal of a `_MergeMapState` capture:
/// the state, the downstream subscriber and the inner signal's slot.
///
/// Reused (`_MergeMapState.spareInner`): parked, it holds neither the state
/// (a cycle) nor the subscriber (whose callbacks a dispose lets go).
///
/// Thread-safety: `done` is guarded by the state's mutex; the rest is
/// written only by the thread that holds the only reference (made, taken
/// from the spare slot, or found unique after its inner signal completed),
/// read-only while its callbacks live.
@usableFromInline
final class _MergeMapInner<T, R, E>: @unchecked Sendable {
    /// Retained while in use, not while parked.
    @exclusivity(unchecked) @usableFromInline var heldState: Unmanaged<_MergeMapState<T, R, E>>
    @exclusivity(unchecked) @usableFromInline var heldSubscriber: Unmanaged<Subscriber<R, E>>
    @exclusivity(unchecked) @usableFromInline var slot: Int
    /// Its completion came: the slot is no longer its own.
    @exclusivity(unchecked) @usableFromInline var done = false
    /// In the state's spare slot (or on its way there): holds nothing.
    @exclusivity(unchecked) @usableFromInline var parked = false

    @inlinable
    init(state: _MergeMapState<T, R, E>, subscriber: Subscriber<R, E>, slot: Int) {
        self.heldState = .passRetained(state)
        self.heldSubscriber = .passRetained(subscriber)
        self.slot = slot
    }

    deinit {
        if !self.parked {
            self.heldState.release()
            self.heldSubscriber.release()
        }
    }

    /// Lets go of the state and the subscriber (neither is released for
    /// the last time here: the driving thread holds both).
    @inlinable
    func park() {
        self.parked = true
        self.heldState.release()
        self.heldSubscriber.release()
    }

    /// Takes the object back into use for the inner signal in `slot`.
    @inlinable
    func unpark(state: _MergeMapState<T, R, E>, subscriber: Subscriber<R, E>, slot: Int) {
        self.heldState = .passRetained(state)
        self.heldSubscriber = .passRetained(subscriber)
        self.slot = slot
        self.done = false
        self.parked = false
    }

    /// Runs `body` with the state, unretained (held by this object, which
    /// the callbacks that call this hold).
    @inlinable @inline(__always)
    func withState<Result>(_ body: (_MergeMapState<T, R, E>) -> Result) -> Result {
        return self.heldState._withUnsafeGuaranteedRef(body)
    }

    /// Runs `body` with the downstream subscriber, unretained (as `withState`).
    @inlinable @inline(__always)
    func withSubscriber<Result>(_ body: (Subscriber<R, E>) -> Result) -> Result {
        return self.heldSubscriber._withUnsafeGuaranteedRef(body)
    }
}

extension _MergeMapState: _SignalRoomPlace {
    /// Room as a waiting producer sees it (`enqueueBounded`).
    @usableFromInline
    func hasRoom(_ index: Int, orRegisters wait: _SignalRoomWait) -> Bool {
        self.mutex.lock()
        guard let limit = self.limit else {
            // Unbounded: no ring to fill, nothing to wait for.
            self.mutex.unlock()
            return true
        }
        let room = limit.hasRoom(unless: self.waiting.isFull && !self.finished && !self.overflowed, orRegisters: wait)
        self.mutex.unlock()
        return room
    }
}
