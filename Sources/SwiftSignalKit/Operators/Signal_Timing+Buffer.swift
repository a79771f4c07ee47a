/// Collects the values into arrays of `count` and emits each array once it is
/// full. When the upstream completes, the values collected so far (if any)
/// are emitted, then the completion; an error drops them and passes through.
/// A count below 1 counts as 1. `count` is a limit, not a reservation: an
/// array grows with the values that come, so a count larger than any
/// signal emits (`Int.max`) is "no limit": each subscription's values
/// emitted as one array on completion.
///
/// Thread-safety: the upstream may emit from any thread: values are
/// collected one at a time, in the order they arrive, without a lock (a
/// stateful stage: see `_statefulStageFinishing`); an array is delivered on
/// the thread that adds its last value.
@inlinable
public func buffer<T, E>(count: Int) -> (Signal<T, E>) -> Signal<[T], E> {
    return _statefulStageFinishing([], _SignalBufferStep<T>(size: Swift.max(1, count)))
}

/// `buffer(count:)`'s step: the values collected so far; a full array
/// emitted (and a new one begun, reserving up to 64 slots: a count is a
/// limit, not a reservation), the rest on completion. The emitted array
/// comes back as the next one once its delivery has returned: emptied (its
/// values released then, as before), its storage kept when the downstream
/// kept no reference to it (an array it kept is copied by the emptying and
/// never changes), so that a steady stream of arrays allocates nothing.
@usableFromInline
struct _SignalBufferStep<T>: _SignalStep {
    @usableFromInline let size: Int

    @inlinable
    init(size: Int) {
        self.size = size
    }

    @inlinable
    func step(_ collected: inout [T], _ value: T, _ emit: ([T]) -> Void) {
        if collected.isEmpty {
            collected.reserveCapacity(Swift.min(self.size, 64))
        }
        collected.append(value)
        if collected.count >= self.size {
            var full: [T] = []
            swap(&full, &collected)
            emit(full)
            // A value put from inside the delivery waits for this step to
            // return (the stage's gate): `collected` is still empty here.
            _emptyKeepingCapacity(&full)
            collected = full
        }
    }

    @inlinable
    func finish(_ collected: inout [T], _ emit: ([T]) -> Void) {
        if !collected.isEmpty {
            var rest: [T] = []
            swap(&rest, &collected)
            emit(rest)
        }
    }
}

/// Collects the values of each period of `timeSpan` seconds (a repeating
/// `Timer` on `queue`, started at subscription) and emits them as an array
/// at the end of the period; a period without values emits nothing. When
/// the upstream completes, the values collected so far (if any) are emitted,
/// then the completion; an error drops them and passes through.
///
/// Every event is delivered on `queue` (arrays from the timer, terminal
/// events through `queue.async`, inline when the upstream terminates on
/// `queue`): use a serial queue to keep the order. Disposing stops the timer
/// (its work leaves `queue`) and drops the collected values; so does the
/// upstream's source letting go of the subscription (a pipe that is gone:
/// with no value to come, nothing more could be emitted). A period that is
/// not a positive number never ends: values are emitted only on completion.
///
/// Thread-safety: the upstream may emit from any thread; nothing is called
/// under a lock.
public func buffer<T, E>(timeSpan: Double, queue: Queue) -> (Signal<T, E>) -> Signal<[T], E> {
    return { signal in
        return Signal<[T], E> { subscriber in
            let state = _SignalBuffer<T>(capacity: 0)
            return _periodic(timeSpan, queue: queue, tick: {
                let values = state.take()
                if !values.isEmpty {
                    subscriber.putNext(values)
                }
            }, upstream: { stopTimer in
                return signal.start(downstream: subscriber, next: { next in
                    _ = state.append(next, emittingAt: Int.max)
                }, error: { error in
                    stopTimer()
                    queue.async {
                        _ = state.take()
                        subscriber.putError(error)
                    }
                }, completed: {
                    stopTimer()
                    queue.async {
                        let rest = state.take()
                        if !rest.isEmpty {
                            subscriber.putNext(rest)
                        }
                        subscriber.putCompletion()
                    }
                })
            })
        }
    }
}

/// `buffer(timeSpan:queue:)` collecting at most `capacity` values per
/// period, `overflow` deciding about the next (see `SignalOverflow`): a fast
/// upstream holds at most `capacity` values between two ends of period.
///
/// With `.fail`, the values collected are emitted, then the error (on
/// `queue`); the value that overflowed and later ones are dropped. With
/// `.block`, the producer waits for the period's end; where it never could
/// (the producer is on `queue`, `queue` is host-drained or virtual-time, or
/// the period never ends) the stream fails instead, as with `.fail`. Every
/// value dropped is passed to `onDrop` with this subscription's count of
/// drops so far (this one included), on the thread that dropped it, never
/// under a lock. Values collected when the subscription is disposed are
/// released without being reported. A `capacity` below 1 is taken as 1.
///
/// Periods, completion, errors and threading: as `buffer(timeSpan:queue:)`.
/// `onDrop` may be called from several producing threads at once.
public func buffer<T, E>(timeSpan: Double, queue: Queue, capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)? = nil) -> (Signal<T, E>) -> Signal<[T], E> {
    return buffer(timeSpan: timeSpan, queue: queue, capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: "buffer(timeSpan:)")
}

/// The bounded `buffer(timeSpan:queue:)` under another operator's name (the
/// C layer's).
package func buffer<T, E>(timeSpan: Double, queue: Queue, capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)?, operatorName: String) -> (Signal<T, E>) -> Signal<[T], E> {
    return { signal in
        return Signal<[T], E> { subscriber in
            let limit = _SignalPendingLimit(capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: operatorName)
            let state = _SignalBoundedWindow<T, E>(limit: limit, queue: queue, periodEnds: timeSpan > 0 && timeSpan.isFinite)
            let disposable = _periodic(timeSpan, queue: queue, tick: {
                let values = state.take()
                if !values.isEmpty {
                    subscriber.putNext(values)
                }
            }, upstream: { stopTimer in
                return signal.start(downstream: subscriber, next: { next in
                    if let reason = state.append(next) {
                        stopTimer()
                        let error = limit.error(reason)
                        queue.async {
                            let rest = state.take()
                            if !rest.isEmpty {
                                subscriber.putNext(rest)
                            }
                            subscriber.putError(error)
                        }
                    }
                }, error: { error in
                    stopTimer()
                    queue.async {
                        _ = state.take()
                        subscriber.putError(error)
                    }
                }, completed: {
                    stopTimer()
                    queue.async {
                        let rest = state.take()
                        if !rest.isEmpty {
                            subscriber.putNext(rest)
                        }
                        subscriber.putCompletion()
                    }
                })
            })
            return ActionDisposable {
                disposable.dispose()
                state.dispose()
            }
        }
    }
}

/// The values a bounded `buffer(timeSpan:)` has collected in the current
/// period: a `_SignalRing` of at most `limit.capacity`, filled with
/// `_SignalRing.offer`, under a mutex never held while anything is
/// delivered, reported or released.
///
/// Thread-safety: every method may be called from any thread.
final class _SignalBoundedWindow<T, E>: @unchecked Sendable {
    private let mutex = _Mutex()
    private var ring: _SignalRing<T>
    private let queue: Queue
    private let periodEnds: Bool
    private var failed = false
    private var disposed = false
    let limit: _SignalPendingLimit<T, E>

    init(limit: _SignalPendingLimit<T, E>, queue: Queue, periodEnds: Bool) {
        self.limit = limit
        self.ring = _SignalRing(capacity: limit.capacity)
        self.queue = queue
        self.periodEnds = periodEnds
    }

    deinit {
        self.ring.destroy()
    }

    /// Collects `value` under the policy; the reason when the stream must
    /// fail now (the first failure only).
    func append(_ value: T) -> SignalOverflowError.Reason? {
        self.mutex.lock()
        while true {
            if self.disposed {
                self.mutex.unlock()
                return nil
            }
            if self.failed {
                let count = self.limit.countDrop()
                self.mutex.unlock()
                self.limit.report([value], first: count)
                return nil
            }
            switch self.ring.offer(value, self.limit.overflow) {
            case .queued:
                self.mutex.unlock()
                return nil
            case let .dropped(old):
                let count = self.limit.countDrop()
                self.mutex.unlock()
                self.limit.report([old], first: count)
                return nil
            case let .failed(value):
                return self.failLocked(value, .overflow)
            case let .full(value):
                if !self.periodEnds {
                    return self.failLocked(value, .periodNeverEnds)
                }
                if self.queue.isCurrent() {
                    return self.failLocked(value, .wouldDeadlock)
                }
                if self.queue.isHostDrained || self.queue.virtualTimeExecutor != nil {
                    return self.failLocked(value, .cannotWaitForQueue)
                }
                if let scope = _SignalNoWaitScope.current {
                    // A put that never waits: the value beyond the capacity.
                    self.ring.overfill(value)
                    self.mutex.unlock()
                    scope.filled(self, 0)
                    return nil
                }
                self.limit.waitForRoom(self.mutex)
            }
        }
    }

    /// Called with the lock held; unlocks.
    private func failLocked(_ value: T, _ reason: SignalOverflowError.Reason) -> SignalOverflowError.Reason {
        self.failed = true
        let count = self.limit.countDrop()
        self.limit.wake()
        self.mutex.unlock()
        self.limit.report([value], first: count)
        return reason
    }

    /// Takes every value collected, making room.
    func take() -> [T] {
        self.mutex.lock()
        let values = self.ring.removeAll()
        self.limit.wake()
        self.mutex.unlock()
        return values
    }

    /// The subscription ended: the values collected are released unreported,
    /// producers waiting for room return.
    func dispose() {
        self.mutex.lock()
        self.disposed = true
        let rest = self.ring.removeAll()
        self.limit.wake()
        self.mutex.unlock()
        withExtendedLifetime(rest) {}
    }
}

/// Emits the latest value of the upstream each time `sampler` emits, if the
/// upstream has emitted since the previous sample (a value is emitted at most
/// once). The upstream's completion completes (a value not sampled yet is
/// dropped), and disposes `sampler`; `sampler` completing changes nothing.
/// An error of either passes through and disposes both. `sampler` is
/// started after the upstream.
///
/// Fused (see `_SubscriberLiveness`): a sample reaches the downstream with
/// no subscriber of this operator's between; inlinable, so that the
/// upstream's value path (a store of the latest value) is specialized for
/// the value's type.
///
/// Thread-safety: either signal may emit from any thread; the latest value
/// is exchanged under a spin lock (`_SignalLatestValue`) never held while
/// anything is delivered or released. Samples are delivered on the
/// sampler's thread.
@inlinable
public func sample<T, U, E>(_ sampler: Signal<U, E>) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(delivering: { subscriber, next in
            let latest = _SignalLatestValue<T>()
            let disposables = DisposableSet()
            disposables.add(signal.start(downstream: subscriber, next: { value in
                // The replaced value is released here, after the unlock.
                _ = latest.exchange(value)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                subscriber.putCompletion()
            }))
            if subscriber.isEnded {
                return disposables
            }
            let samplerNext: (U) -> Void
            if let next {
                samplerNext = { _ in
                    if let value = latest.take() {
                        subscriber.putNext(value, through: next)
                    }
                }
            } else {
                samplerNext = { _ in
                    _ = latest.take()
                }
            }
            disposables.add(sampler.start(downstream: subscriber, next: samplerNext, error: { error in
                subscriber.putError(error)
            }))
            return disposables
        })
    }
}

/// Emits the latest value of the upstream at the end of each period of
/// `period` seconds (a repeating `Timer` on `queue`), if the upstream has
/// emitted since the previous sample. The completion and an error pass
/// through (on `queue`; a value not sampled yet is dropped). Disposing stops
/// the timer; so does the upstream's source letting go of the subscription,
/// as for `buffer(timeSpan:queue:)`. A period that is not a positive number
/// never samples.
///
/// Inlinable, so that the upstream's value path (a store of the latest
/// value) is specialized for the value's type.
///
/// Thread-safety: as `buffer(timeSpan:queue:)`; samples are delivered on
/// `queue`.
@inlinable
public func sample<T, E>(period: Double, queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let latest = _SignalLatestValue<T>()
            return _periodic(period, queue: queue, tick: {
                if let value = latest.take() {
                    subscriber.putNext(value)
                }
            }, upstream: { stopTimer in
                return signal.start(downstream: subscriber, next: { next in
                    // The replaced value is released here, after the unlock.
                    _ = latest.exchange(next)
                }, error: { error in
                    stopTimer()
                    queue.async {
                        subscriber.putError(error)
                    }
                }, completed: {
                    stopTimer()
                    queue.async {
                        subscriber.putCompletion()
                    }
                })
            })
        }
    }
}

/// Runs `tick` every `period` seconds on `queue` (a repeating `Timer`,
/// started before the upstream) while the upstream that `upstream` starts
/// runs; `upstream` is given the function that stops the timer (for its
/// terminal events), which its terminal callbacks must hold. Returns the
/// disposable of both.
///
/// The subscription also ends when its source lets go of the upstream's
/// callbacks without a terminal event (a pipe released: nothing can reach
/// the upstream any more, so no tick would ever emit again): the stop
/// function holds a `_PeriodicSourceWatch`, whose deinit, once those
/// callbacks are released, disposes the returned disposable. Without it the
/// timer, whose tick holds the downstream subscriber, which holds this
/// disposable, which holds the timer, kept the subscription and its
/// observer for ever when its disposable was released without a dispose
/// (found by the abandonment soak, Tests/soak/abandon.c).
@usableFromInline
func _periodic(_ period: Double, queue: Queue, tick: @escaping () -> Void, upstream: (@escaping () -> Void) -> any Disposable) -> any Disposable {
    let timer: Timer? = period > 0 && period.isFinite ? Timer(timeout: period, repeat: true, completion: tick, queue: queue) : nil
    let stop: () -> Void = {
        timer?.invalidate()
    }
    let watch = _PeriodicSourceWatch()
    timer?.start()
    let disposable = upstream({ [watch] in
        withExtendedLifetime(watch) {}
        stop()
    })
    let both = ActionDisposable {
        stop()
        disposable.dispose()
    }
    watch.subscription = both
    return both
}

/// Disposes a periodic operator's subscription when the upstream's
/// callbacks that hold it are released (see `_PeriodicSourceWatch`'s use in
/// `_periodic`).
///
/// Thread-safety: `subscription` is set by `_periodic` while it holds the
/// watch itself, so before the last release, on whatever thread, runs the
/// deinit (the release orders the two).
@usableFromInline
final class _PeriodicSourceWatch: @unchecked Sendable {
    @usableFromInline var subscription: (any Disposable)?

    @usableFromInline
    init() {
    }

    deinit {
        self.subscription?.dispose()
    }
}

/// The values a `buffer` has collected, under a lock never held while
/// anything is delivered.
///
/// Thread-safety: every method may be called from any thread.
final class _SignalBuffer<T>: @unchecked Sendable {
    private let mutex = _Mutex()
    private var values: [T] = []
    /// What each new array reserves: the count asked for, up to 64 (a
    /// user's count is a limit, not a reservation: `buffer(count: 1 << 32)`
    /// must not ask for 2^32 slots up front); past that the array grows.
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = Swift.min(capacity, 64)
    }

    /// Appends `value`; when that makes `size` values, takes them all.
    func append(_ value: T, emittingAt size: Int) -> [T]? {
        self.mutex.lock()
        if self.values.isEmpty && self.capacity > 0 {
            self.values.reserveCapacity(self.capacity)
        }
        self.values.append(value)
        guard self.values.count >= size else {
            self.mutex.unlock()
            return nil
        }
        let full = self.values
        self.values = []
        self.mutex.unlock()
        return full
    }

    /// Takes every value collected.
    func take() -> [T] {
        self.mutex.lock()
        let values = self.values
        self.values = []
        self.mutex.unlock()
        return values
    }
}

extension _SignalBoundedWindow: _SignalRoomPlace {
    /// Room as a waiting producer sees it (`append`).
    func hasRoom(_ index: Int, orRegisters wait: _SignalRoomWait) -> Bool {
        self.mutex.lock()
        let room = self.limit.hasRoom(unless: self.ring.isFull && !self.disposed && !self.failed, orRegisters: wait)
        self.mutex.unlock()
        return room
    }
}
