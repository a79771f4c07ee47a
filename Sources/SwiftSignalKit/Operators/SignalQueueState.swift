import Synchronization

/// The state behind the meta operators: `switchToLatest` / `mapToSignal`
/// (neither mode), `queue` / `mapToQueue` / `then` (queue mode) and
/// `throttled` / `mapToThrottled` (queue and throttle mode). The twin of the
/// Objective-C `SSignalQueueState`.
///
/// - Switch mode: a new inner signal starts, then the one it replaces is
///   disposed (as in the original). Values, errors and the completion of an
///   inner signal that has been replaced are dropped, also those that come
///   while the new one starts.
/// - Queue mode: inner signals run one after another, in the order they were
///   enqueued; the ones that arrive while one runs wait in a FIFO.
/// - Throttle mode: like queue mode, but only the latest waiting signal is
///   kept; an older one still waiting is dropped.
///
/// The downstream subscriber completes once the outer signal has completed and
/// no inner signal is running or waiting. The first error (outer or inner)
/// passes through and disposes everything.
///
/// Inner signals that complete synchronously while being started do not grow
/// the stack: the completion only records the fact, and the loop in
/// `run(_:_:)` starts the next one once the start has returned (a trampoline).
///
/// Thread-safety: every method may be called from any thread. The state is
/// guarded by a mutex that is never held while a signal starts, a disposable is
/// disposed, an event is delivered or a signal is released.
@usableFromInline
final class _SignalQueueState<T, E>: Disposable, @unchecked Sendable {
    @usableFromInline
    enum Step {
        case none
        case start(Signal<T, E>, Int)
        case complete
    }

    @usableFromInline let mutex = _Mutex()
    @usableFromInline let subscriber: Subscriber<T, E>
    @usableFromInline let queueMode: Bool
    @usableFromInline let throttleMode: Bool

    // Guarded by `mutex`.
    @exclusivity(unchecked) @usableFromInline var disposed = false
    @exclusivity(unchecked) @usableFromInline var outerCompleted = false
    // An inner signal (the one with id `currentId`) is running or starting.
    @exclusivity(unchecked) @usableFromInline var executing = false
    // The start of the current inner signal has not returned yet.
    @exclusivity(unchecked) @usableFromInline var starting = false
    // The current inner signal completed before its start returned; the
    // starter handles the completion.
    @exclusivity(unchecked) @usableFromInline var completedWhileStarting = false
    // The thread that starts the current inner signal (see `replaceStarting`).
    @exclusivity(unchecked) @usableFromInline var startingThread: UInt = 0
    @exclusivity(unchecked) @usableFromInline var outerDisposable: (any Disposable)?
    @exclusivity(unchecked) @usableFromInline var currentDisposable: (any Disposable)?
    // FIFO of waiting signals: slots before `pendingHead` are consumed (nil).
    @exclusivity(unchecked) @usableFromInline var pending: [Signal<T, E>?] = []
    @exclusivity(unchecked) @usableFromInline var pendingHead = 0
    /// The object of an inner signal that completed while it started, for
    /// the next one (see `_SignalQueueInner`); its `heldState` unretained.
    @exclusivity(unchecked) @usableFromInline var spareInner: _SignalQueueInner<T, E>?

    // The id of the current inner signal. Written under `mutex`; read without
    // it by the value path of switch mode to drop values of replaced signals.
    @usableFromInline let currentId = Synchronization.Atomic<Int>(0)
    // The inner signal being started, unretained (its start holds it): an
    // `Unmanaged` pointer's bits, written by the starting thread before the
    // start and followed only by that thread (`replaceStarting`).
    @usableFromInline let startingInner = Synchronization.Atomic<UInt>(0)
    /// The subscription's disposable, which holds this state unretained
    /// (set once, right after the state is made).
    @exclusivity(unchecked) @usableFromInline var disposer: _UnretainedDisposable<_SignalQueueState<T, E>>?

    @inlinable
    init(subscriber: Subscriber<T, E>, queueMode: Bool, throttleMode: Bool) {
        self.subscriber = subscriber
        self.queueMode = queueMode
        self.throttleMode = throttleMode
    }

    deinit {
        // Gone undisposed (the sources let go of their subscribers): their
        // disposables wait for the subscription's dispose (as `dispose`
        // orders them).
        self.disposer?.targetEnded(leaving: self.disposed ? [] : [self.currentDisposable, self.outerDisposable].compactMap { $0 })
    }

    /// Hands over the subscription to the outer signal; disposed at once if the
    /// state is already disposed.
    @inlinable
    func beginWithDisposable(_ disposable: any Disposable) {
        self.mutex.lock()
        let disposeImmediately = self.disposed
        if !disposeImmediately {
            self.outerDisposable = disposable
        }
        self.mutex.unlock()
        if disposeImmediately {
            disposable.dispose()
        }
    }

    /// Handles a new inner signal according to the mode.
    @inlinable
    func enqueueSignal(_ signal: Signal<T, E>) {
        if self.subscriber.isEnded {
            // Nothing more can be delivered (a downstream `take` completed
            // the subscription during its start, maybe through operators in
            // between): start nothing.
            return
        }
        self.mutex.lock()
        if self.disposed {
            self.mutex.unlock()
            return
        }
        if self.queueMode && self.executing {
            var dropped: [Signal<T, E>?] = []
            if self.throttleMode {
                dropped = self.pending
                self.pending = []
                self.pendingHead = 0
            }
            self.pending.append(signal)
            self.mutex.unlock()
            withExtendedLifetime(dropped) {}
            return
        }
        let replaced = self.replaceStarting()
        let id = self.beginNextLocked()
        var spare = signal.isSingleInPlace ? nil : self.takeSpareLocked(id)
        let previous = self.currentDisposable
        self.currentDisposable = nil
        self.mutex.unlock()

        if let replaced {
            _disposeEarly(replaced)
        }
        // Switch mode: the previous inner signal is disposed once the new one
        // has started, as in the original (which starts the new one, then
        // sets its disposable into a `MetaDisposable` that disposes the
        // previous). So a new inner signal that joins something shared with
        // the previous one (a `Multicast` key, a reference-counted resource)
        // finds it still held, instead of tearing it down and starting it
        // again. Events of the previous one during that start are dropped
        // (its id is no longer current).
        self.run(signal, id, &spare)
        previous?.dispose()
    }

    /// The outer signal has completed.
    @inlinable
    func beginCompletion() {
        self.mutex.lock()
        if self.disposed {
            self.mutex.unlock()
            return
        }
        self.outerCompleted = true
        let complete = !self.executing
        self.mutex.unlock()
        if complete {
            self.subscriber.putCompletion()
        }
    }

    /// Delivers `error` downstream and disposes everything.
    @inlinable
    func putError(_ error: E) {
        self.subscriber.putError(error)
        self.dispose()
    }

    @inlinable
    func dispose() {
        self.mutex.lock()
        if self.disposed {
            self.mutex.unlock()
            return
        }
        self.disposed = true
        let outer = self.outerDisposable
        let current = self.currentDisposable
        let pending = self.pending
        self.outerDisposable = nil
        self.currentDisposable = nil
        self.pending = []
        self.pendingHead = 0
        self.mutex.unlock()

        current?.dispose()
        outer?.dispose()
        withExtendedLifetime(pending) {}
    }

    /// Makes a new inner signal current; returns its id. Called under `mutex`.
    @inlinable
    func beginNextLocked() -> Int {
        let id = self.currentId.load(ordering: .relaxed) &+ 1
        self.currentId.store(id, ordering: .releasing)
        self.executing = true
        self.starting = true
        self.completedWhileStarting = false
        if !self.queueMode {
            // Until `startInner` stores the new one: none.
            self.startingInner.store(0, ordering: .relaxed)
            self.startingThread = _currentThread()
        }
        return id
    }

    /// Switch mode, about to replace the current inner signal: when that one
    /// is still starting on this thread (the new one comes from inside its
    /// start: a value it emitted went round to the outer signal), returns its
    /// subscription, for the caller to end at once (`_disposeEarly`, outside
    /// the lock), so that it starts nothing more, as if its disposable had
    /// been disposed (nobody holds that yet). Its start is running further
    /// down this thread's stack, which holds the inner and the subscription.
    /// Called under `mutex`.
    @inlinable
    func replaceStarting() -> _SubscriberLiveness? {
        if self.queueMode || !self.executing || !self.starting || self.startingThread != _currentThread() {
            return nil
        }
        let bits = self.startingInner.load(ordering: .relaxed)
        guard let pointer = UnsafeRawPointer(bitPattern: bits) else {
            return nil
        }
        return Unmanaged<_SignalQueueInner<T, E>>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.upstream }
    }

    /// The current inner signal has completed: picks what comes next. Called
    /// under `mutex`.
    /// `spare` receives the spare inner object for the next inner signal,
    /// if one starts and there is one (see `spareInner`).
    @inlinable
    func advanceLocked(_ spare: inout _SignalQueueInner<T, E>?) -> Step {
        self.executing = false
        if self.queueMode && self.pendingHead < self.pending.count {
            let next = self.pending[self.pendingHead]!
            self.pending[self.pendingHead] = nil
            self.pendingHead += 1
            if self.pendingHead == self.pending.count {
                self.pending.removeAll(keepingCapacity: true)
                self.pendingHead = 0
            } else if self.pendingHead >= 64 && self.pendingHead * 2 >= self.pending.count {
                self.pending.removeFirst(self.pendingHead)
                self.pendingHead = 0
            }
            let id = self.beginNextLocked()
            spare = next.isSingleInPlace ? nil : self.takeSpareLocked(id)
            return .start(next, id)
        }
        if self.outerCompleted {
            return .complete
        }
        return .none
    }

    /// Starts `signal` (already made current with `id`), then, as long as the
    /// inner signal just started completed synchronously, whatever comes next.
    /// The first signal is started borrowed, as the caller holds it.
    /// `spare`: the spare inner object to start it with, if there is one
    /// (taken; see `spareInner`).
    @inlinable
    func run(_ signal: Signal<T, E>, _ id: Int, _ spare: inout _SignalQueueInner<T, E>?) {
        var step = self.startAndSettle(signal, id, &spare)
        while true {
            switch step {
            case .none:
                return
            case .complete:
                self.subscriber.putCompletion()
                return
            case let .start(nextSignal, nextId):
                if self.subscriber.isEnded {
                    // As in `enqueueSignal`: nothing more can be delivered.
                    return
                }
                step = self.startAndSettle(nextSignal, nextId, &spare)
            }
        }
    }

    /// Starts `signal` (current with `id`) and settles what its start left:
    /// disposed or replaced meanwhile, its subscription is disposed; still
    /// running, it is kept as the current one; completed while starting,
    /// returns what comes next. `spare` is the object to start it with, if
    /// there is one (taken: the inner signal must hold the only reference
    /// for its object to be reused; see `spareInner`); it receives the next
    /// one's, if one is to start.
    @inlinable
    func startAndSettle(_ signal: Signal<T, E>, _ id: Int, _ spare: inout _SignalQueueInner<T, E>?) -> Step {
        if signal.isSingleInPlace {
            return self.runSingle(signal.singleValue, id, &spare)
        }
        let started = spare.take() ?? _SignalQueueInner(state: self, id: id)
        let disposable = self.startInner(signal, started)
        var inner = consume started
        self.mutex.lock()
        if self.disposed || self.currentId.load(ordering: .relaxed) != id {
            // Disposed, or replaced (switch mode) while starting.
            self.mutex.unlock()
            disposable.dispose()
            return .none
        }
        self.starting = false
        if self.completedWhileStarting {
            self.completedWhileStarting = false
            if self.spareInner == nil && isKnownUniquelyReferenced(&inner) {
                // Nothing else holds it (its callbacks are gone): kept for
                // the next inner signal.
                inner.park()
                self.spareInner = consume inner
            }
            let step = self.advanceLocked(&spare)
            self.mutex.unlock()
            // Released here, outside the lock.
            _fixLifetime(disposable)
            return step
        }
        self.currentDisposable = consume disposable
        self.mutex.unlock()
        return .none
    }

    /// `startAndSettle` for a `single` kept in place (current with `id`): a
    /// constant source, whose start would deliver its value and complete at
    /// once (`Signal.startSingle`), has nothing to subscribe to. The value
    /// is delivered as the inner subscription's callback would (in switch
    /// mode, only while `id` is current), then its completion is settled
    /// as one that came during the start: no inner object, no callbacks,
    /// no disposable. No spare was taken for it (`spare` is nil); it
    /// receives the next one's, if one is to start.
    @inlinable
    func runSingle(_ value: T, _ id: Int, _ spare: inout _SignalQueueInner<T, E>?) -> Step {
        if self.queueMode || self.currentId.load(ordering: .acquiring) == id {
            self.subscriber.putNext(value)
        }
        self.mutex.lock()
        if self.disposed || self.currentId.load(ordering: .relaxed) != id {
            // Disposed, or replaced (switch mode) during the value.
            self.mutex.unlock()
            return .none
        }
        self.starting = false
        let step = self.advanceLocked(&spare)
        self.mutex.unlock()
        return step
    }

    /// Takes the spare inner object, if there is one, for the inner signal
    /// `id`. Called under `mutex`.
    @inlinable
    func takeSpareLocked(_ id: Int) -> _SignalQueueInner<T, E>? {
        guard let spare = self.spareInner else {
            return nil
        }
        self.spareInner = nil
        spare.unpark(id)
        return spare
    }

    @inlinable
    func startInner(_ signal: Signal<T, E>, _ inner: _SignalQueueInner<T, E>) -> any Disposable {
        // The callbacks capture one object (a closure whose only capture is
        // one object needs no context of its own): two fewer allocations per
        // inner signal than closures capturing the state and the id. They
        // reach the state through it unretained (`withState`).
        if !self.queueMode {
            self.startingInner.store(UInt(bitPattern: Unmanaged.passUnretained(inner).toOpaque()), ordering: .relaxed)
        }
        if self.queueMode {
            // Only one inner signal runs at a time: no id check needed.
            return signal.startFusing({ upstream in
                inner.upstream = upstream
                inner.withState { upstream.linkDownstream($0.subscriber) }
                return { value in
                    inner.withState { $0.subscriber.putNext(value) }
                    inner.endIfDownstreamEnded()
                }
            }, error: { error in
                inner.withState { $0.putError(error) }
            }, completed: {
                inner.withState { $0.innerCompleted(inner.id) }
            })
        } else {
            return signal.startFusing({ upstream in
                inner.upstream = upstream
                inner.withState { upstream.linkDownstream($0.subscriber) }
                return { value in
                    inner.withState { state in
                        if state.currentId.load(ordering: .acquiring) == inner.id {
                            state.subscriber.putNext(value)
                            inner.endIfDownstreamEnded()
                        }
                    }
                }
            }, error: { error in
                inner.withState { state in
                    if state.currentId.load(ordering: .acquiring) == inner.id {
                        state.putError(error)
                    }
                }
            }, completed: {
                inner.withState { $0.innerCompleted(inner.id) }
            })
        }
    }

    @inlinable
    func innerCompleted(_ id: Int) {
        self.mutex.lock()
        if self.disposed || !self.executing || self.currentId.load(ordering: .relaxed) != id {
            self.mutex.unlock()
            return
        }
        if self.starting {
            // Completed synchronously: the loop in `run` takes it from here.
            self.completedWhileStarting = true
            self.mutex.unlock()
            return
        }
        let finished = self.currentDisposable
        self.currentDisposable = nil
        var spare: _SignalQueueInner<T, E>?
        let step = self.advanceLocked(&spare)
        self.mutex.unlock()

        withExtendedLifetime(finished) {}
        switch step {
        case .none:
            break
        case .complete:
            self.subscriber.putCompletion()
        case let .start(signal, nextId):
            if self.subscriber.isEnded {
                // As in `run`'s loop: nothing more can be delivered. Here the
                // part completed later than its start, maybe from inside the
                // terminal callback of a subscription below (a value put into
                // a pipe from the subscriber's completion callback), whose
                // upstream, this state among it, is disposed once that
                // callback returns: starting the next part would start it
                // only to dispose it.
                return
            }
            self.run(signal, nextId, &spare)
        }
    }
}
