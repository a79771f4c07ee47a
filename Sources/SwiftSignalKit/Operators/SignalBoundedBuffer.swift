#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import _SwiftSignalKitShims

/// One subscription of a bounded buffer: the values waiting for their
/// delivery, at most `capacity` of them, and the overflow policy for the
/// next. Two ways to deliver:
///
/// - `queue` nil (`onBackpressureBuffer`): serialises. A value arriving
///   while no delivery is in progress is delivered at once on its thread;
///   one arriving meanwhile (from another thread, or reentrantly from
///   inside the delivery) waits in the ring, and the delivering thread
///   delivers it before it leaves.
/// - `queue` set (`deliverOn(_:capacity:...)`): as `_DeliverOnQueueState`,
///   a value emitted on the queue itself is delivered inline; others wait
///   in the ring, delivered on the queue by one drain at a time (one batch
///   per drain on a host-drained queue).
///
/// The terminal event waits behind the values pending. Every value the
/// buffer drops (the policies, the `fail` policy's overflowing value and
/// the values after it, the values pending when a host-drained or
/// virtual-time queue closes) goes to `onDrop` with this subscription's
/// running count of drops, on the thread that dropped it, outside the lock.
/// Values pending when the subscription is disposed are released then,
/// without being reported (the consumer asked for no more), and so is any
/// value a put still racing with the dispose brings; a producer waiting for
/// room (`block`) is let go. The dispose reaches the buffer at once through
/// its `disposer` (the subscription's disposable, which holds it unretained:
/// see `_UnretainedDisposable`); before, the values waited for the next
/// drain, and a waiting producer with them.
///
/// Thread-safety: `put` and `terminate` may be called from any thread; the
/// mutex guards the ring and the flags, never a delivery, a drop callback
/// or a release.
@usableFromInline
final class _SignalBoundedBuffer<T, E>: _QueueWork, @unchecked Sendable {
    @usableFromInline
    enum Terminal {
        case error(E)
        case completed
    }

    @usableFromInline let queue: Queue?
    @usableFromInline let subscriber: Subscriber<T, E>
    @usableFromInline let overflow: SignalOverflow<E>
    @usableFromInline let onDrop: ((T, Int) -> Void)?
    @usableFromInline let operatorName: String
    @usableFromInline let mutex = _Mutex()
    // Guarded by `mutex`.
    @exclusivity(unchecked) @usableFromInline var ring: _SignalRing<T>
    @exclusivity(unchecked) @usableFromInline var terminal: Terminal?
    /// No value is taken any more (the upstream ended, or `fail` decided the
    /// error): each further one is dropped.
    @exclusivity(unchecked) @usableFromInline var inputClosed = false
    /// A thread is delivering (no queue), or a drain is scheduled (queue).
    @exclusivity(unchecked) @usableFromInline var busy = false
    /// The thread delivering, while one is (for `block`'s refusal).
    @exclusivity(unchecked) @usableFromInline var deliveringThread: pthread_t?
    @exclusivity(unchecked) @usableFromInline var dropped = 0
    @exclusivity(unchecked) @usableFromInline var waiters = 0
    /// The subscription was disposed (`dispose`): what comes is released
    /// without a report. Guarded by `mutex`.
    @exclusivity(unchecked) @usableFromInline var disposed = false
    /// The upstream's subscription, set once when it has started, before
    /// the disposer is handed out as the subscription's disposable.
    @exclusivity(unchecked) @usableFromInline var upstream: (any Disposable)?
    /// The subscription's disposable, told when the buffer goes.
    @exclusivity(unchecked) @usableFromInline var disposer: _UnretainedDisposable<_SignalBoundedBuffer<T, E>>?
    /// Signalled when room is made or the input closes (`block` only).
    @usableFromInline let room: UnsafeMutablePointer<UInt32>?
    /// The room signals' waits (`block` only; counted in `waiters`).
    @exclusivity(unchecked) @usableFromInline var roomWaits = _SignalRoomWaits()

    @inlinable
    init(queue: Queue?, subscriber: Subscriber<T, E>, capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)?, operatorName: String) {
        self.queue = queue
        self.subscriber = subscriber
        self.ring = _SignalRing(capacity: Swift.max(1, capacity))
        self.overflow = overflow
        self.onDrop = onDrop
        self.operatorName = operatorName
        if case .block = overflow {
            let room = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
            room.initialize(to: 0)
            self.room = room
        } else {
            self.room = nil
        }
        // The drain, as the queue runs it (`Queue.justDispatch(_:)`: no
        // closure, no block per dispatch).
        super.init(run: { work in
            let buffer = unsafeDowncast(work, to: _SignalBoundedBuffer<T, E>.self)
            buffer.mutex.lock()
            buffer.deliveringThread = pthread_self()
            buffer.mutex.unlock()
            buffer.drain()
        })
    }

    deinit {
        // Gone undisposed (its source let go of its subscriber): the
        // upstream's disposable waits for the subscription's dispose.
        self.disposer?.targetEnded(leaving: self.disposed ? [] : self.upstream.map { [$0] } ?? [])
        self.ring.destroy()
        if let room = self.room {
            room.deallocate()
        }
        // Gone: nothing left to wait for.
        _ = self.roomWaits.wakeAll()
    }

    /// A dropped value, reported outside the lock (the caller unlocked).
    @inlinable
    func report(_ value: T, _ count: Int) {
        self.onDrop?(value, count)
    }

    @usableFromInline
    func overflowError(_ reason: SignalOverflowError.Reason) -> SignalOverflowError {
        return SignalOverflowError(operatorName: self.operatorName, capacity: self.ring.capacity, reason: reason)
    }

    /// Wakes the producers waiting for room (under the lock).
    @inlinable
    func wakeWaiters() {
        if self.waiters > 0 {
            self.wakeEveryWaiter()
        }
    }

    /// The waiting producers' condition, and the room signals' waits.
    @usableFromInline
    func wakeEveryWaiter() {
        self.roomWaits.wakeEvery(room: self.room, waiters: &self.waiters)
    }

    @inlinable
    func put(_ value: T) {
        if self.queue?.isCurrent() == true {
            self.subscriber.putNext(value)
            return
        }
        self.mutex.lock()
        if !self.busy && !self.inputClosed {
            self.busy = true
            self.begin(value)
            return
        }
        self.putContended(value)
    }

    /// Starts a delivery with `value`: on this thread when there is no queue
    /// (nothing is pending: the ring is empty whenever no thread delivers),
    /// else into the ring, with a drain scheduled on the queue. Called with
    /// the lock held and `busy` just set; unlocks. Always inlined: it is the
    /// uncontended put's path.
    @inlinable @inline(__always)
    func begin(_ value: T) {
        if self.queue == nil {
            self.deliveringThread = pthread_self()
            self.mutex.unlock()
            self.subscriber.putNext(value)
            self.drain()
            return
        }
        self.ring.append(value)
        self.mutex.unlock()
        self.schedule()
    }

    /// A value that found a delivery in progress (or a drain scheduled), the
    /// input closed, or the ring full. Called with the lock held; unlocks.
    /// Inlinable, as `drain` and `schedule`, so that the C layer's
    /// `_SignalBoundedBuffer<SKValue, SKValue>` is specialized (generic code
    /// called across the module cost W7b twice W7's instructions).
    @inlinable
    func putContended(_ value: T) {
        while true {
            if self.inputClosed {
                if self.disposed {
                    // Released, not reported: the consumer asked for no more.
                    self.mutex.unlock()
                    return
                }
                self.dropped += 1
                let count = self.dropped
                self.mutex.unlock()
                self.report(value, count)
                return
            }
            if !self.busy {
                // The delivery ended while this thread waited for room.
                self.busy = true
                self.begin(value)
                return
            }
            if !self.ring.isFull {
                self.ring.append(value)
                self.mutex.unlock()
                return
            }
            switch self.overflow {
            case .dropNewest:
                self.dropped += 1
                let count = self.dropped
                self.mutex.unlock()
                self.report(value, count)
                return
            case .dropOldest:
                let old = self.ring.removeFirst()
                self.ring.append(value)
                self.dropped += 1
                let count = self.dropped
                self.mutex.unlock()
                self.report(old, count)
                return
            case .latest:
                let old = self.ring.replaceLast(value)
                self.dropped += 1
                let count = self.dropped
                self.mutex.unlock()
                self.report(old, count)
                return
            case let .fail(makeError):
                self.failLocked(value, makeError, .overflow)
                return
            case let .block(refused):
                if let thread = self.deliveringThread, pthread_equal(thread, pthread_self()) != 0 {
                    self.failLocked(value, refused, .wouldDeadlock)
                    return
                }
                if self.queueCannotWait() {
                    self.failLocked(value, refused, .cannotWaitForQueue)
                    return
                }
                if let scope = _SignalNoWaitScope.current {
                    // A put that never waits: the value beyond the capacity.
                    self.ring.overfill(value)
                    self.mutex.unlock()
                    scope.filled(self, 0)
                    return
                }
                self.waiters += 1
                while self.ring.isFull && self.busy && !self.inputClosed {
                    _sks_cond_wait(self.room.unsafelyUnwrapped, self.mutex.word)
                }
                self.waiters -= 1
                // Decide again: room, the delivery over, or the input closed.
            }
        }
    }

    /// Whether `block` cannot wait for this queue: host-drained or
    /// virtual-time (only their own drain makes room, and the thread that
    /// drains may be the producer).
    @usableFromInline
    func queueCannotWait() -> Bool {
        guard let queue = self.queue else {
            return false
        }
        return queue.isHostDrained || queue.virtualTimeExecutor != nil
    }

    /// The `fail` policy (or `block`'s refusal): the error waits behind the
    /// values pending, `value` and later ones are dropped. Called with the
    /// lock held; unlocks.
    @usableFromInline
    func failLocked(_ value: T, _ makeError: (SignalOverflowError) -> E, _ reason: SignalOverflowError.Reason) {
        self.inputClosed = true
        self.dropped += 1
        let count = self.dropped
        self.wakeWaiters()
        self.mutex.unlock()
        // Made outside the lock: it is user code.
        let error = makeError(self.overflowError(reason))
        self.mutex.lock()
        if self.busy {
            // The delivery in progress delivers it after the values pending
            // (it reads the terminal event under the lock before it ends).
            self.terminal = .error(error)
            self.mutex.unlock()
        } else {
            // The delivery ended while the error was made: this thread
            // delivers it (no queue) or schedules a drain for it.
            self.busy = true
            if self.queue == nil {
                self.mutex.unlock()
                self.subscriber.putError(error)
            } else {
                self.terminal = .error(error)
                self.mutex.unlock()
                self.schedule()
            }
        }
        self.report(value, count)
    }

    /// The upstream's error or completion: after the values pending.
    @inlinable
    func terminate(_ event: Terminal) {
        if let queue = self.queue, queue.isCurrent() {
            self.deliver(event)
            return
        }
        self.mutex.lock()
        if self.inputClosed {
            // An overflow error was decided first.
            self.mutex.unlock()
            return
        }
        self.inputClosed = true
        self.wakeWaiters()
        if self.busy {
            self.terminal = event
            self.mutex.unlock()
            return
        }
        self.busy = true
        if self.queue == nil {
            self.mutex.unlock()
            self.deliver(event)
            return
        }
        self.terminal = event
        self.mutex.unlock()
        self.schedule()
    }

    @inlinable
    func deliver(_ event: Terminal) {
        switch event {
        case let .error(error):
            self.subscriber.putError(error)
        case .completed:
            self.subscriber.putCompletion()
        }
    }

    @inlinable
    func schedule() {
        self.queue.unsafelyUnwrapped.justDispatch(self)
    }

    /// Delivers the values pending, then the terminal event if it came, on
    /// the delivering thread (the queue's, or the thread that delivered a
    /// value without a queue). On a host-drained queue, one batch (the values
    /// pending when it began), the rest in a drain of its own (see
    /// `_DeliverOnQueueState`).
    @inlinable
    func drain() {
        var budget = Int.max
        if let queue = self.queue, queue.isHostDrained {
            self.mutex.lock()
            budget = self.ring.count
            self.mutex.unlock()
        }
        while true {
            self.mutex.lock()
            if self.subscriber.isTerminated {
                // Disposed: nothing more is delivered.
                self.endDisposedLocked()
                return
            }
            if self.ring.count > 0 {
                if budget == 0 {
                    // Still busy: the rest waits for a drain of its own.
                    self.deliveringThread = nil
                    self.mutex.unlock()
                    self.schedule()
                    return
                }
                budget -= 1
                let value = self.ring.removeFirst()
                self.wakeWaiters()
                self.mutex.unlock()
                self.subscriber.putNext(value)
                continue
            }
            if let terminal = self.terminal {
                // Stays busy: nothing is delivered after it.
                self.terminal = nil
                self.deliveringThread = nil
                self.wakeWaiters()
                self.mutex.unlock()
                self.deliver(terminal)
                return
            }
            self.busy = false
            self.deliveringThread = nil
            self.wakeWaiters()
            self.mutex.unlock()
            return
        }
    }

    /// A host-drained or virtual-time queue dropped a drain (it closed): the
    /// values pending are dropped (reported), and the next value schedules a
    /// drain again, which the closed queue drops at once. Once the
    /// subscription is disposed, they are released without being reported,
    /// as `drain` releases them (the consumer asked for no more).
    @usableFromInline
    override func queueDroppedWork() {
        self.mutex.lock()
        if self.subscriber.isTerminated {
            self.endDisposedLocked()
            return
        }
        let rest = self.ring.removeAll()
        let terminal = self.terminal
        self.terminal = nil
        if terminal != nil {
            // The input is closed: later values are dropped as they come.
            self.busy = true
        } else {
            self.busy = false
        }
        self.deliveringThread = nil
        let first = self.dropped
        self.dropped += rest.count
        self.wakeWaiters()
        self.mutex.unlock()
        for (offset, value) in rest.enumerated() {
            self.report(value, first + offset + 1)
        }
    }
}

/// Starts `signal` for `subscriber` through a bounded buffer.
@inlinable
func _boundedBuffer<T, E>(_ signal: Signal<T, E>, queue: Queue?, capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)?, operatorName: String) -> Signal<T, E> {
    return Signal<T, E> { subscriber in
        let state = _SignalBoundedBuffer(queue: queue, subscriber: subscriber, capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: operatorName)
        state.upstream = signal.start(downstream: subscriber, next: { value in
            state.put(value)
        }, error: { error in
            state.terminate(.error(error))
        }, completed: {
            state.terminate(.completed)
        })
        let disposer = _UnretainedDisposable(state)
        state.disposer = disposer
        return disposer
    }
}

extension _SignalBoundedBuffer: Disposable {
    /// The subscription's dispose: the upstream's first (no value starts
    /// after it), then the values pending are released without a report,
    /// the input closes (a put still racing is released the same way) and
    /// the producers waiting for room are let go. A drain scheduled or
    /// running finds the subscription ended and delivers nothing more.
    @usableFromInline
    func dispose() {
        self.upstream?.dispose()
        self.mutex.lock()
        self.endDisposedLocked()
    }

    /// The subscription is disposed (under the lock; unlocks): the values
    /// waiting are released, outside the lock, without a report (the
    /// consumer asked for no more), as is what a later put brings; the
    /// producers waiting for room are let go.
    @usableFromInline
    func endDisposedLocked() {
        let rest = self.ring.removeAll()
        self.disposed = true
        self.inputClosed = true
        self.terminal = nil
        self.deliveringThread = nil
        self.wakeWaiters()
        self.mutex.unlock()
        withExtendedLifetime(rest) {}
    }
}

extension _SignalBoundedBuffer: _SignalRoomPlace {
    /// Room as a waiting producer sees it (`putContended`).
    @usableFromInline
    func hasRoom(_ index: Int, orRegisters wait: _SignalRoomWait) -> Bool {
        self.mutex.lock()
        let room = self.roomWaits.hasRoom(unless: self.ring.isFull && self.busy && !self.inputClosed, registering: wait, waiters: &self.waiters)
        self.mutex.unlock()
        return room
    }
}
