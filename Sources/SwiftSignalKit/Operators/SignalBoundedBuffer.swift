#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a bounded buffer does with a value that arrives when it is full
/// (`onBackpressureBuffer(capacity:overflow:onDrop:)`,
/// `deliverOn(_:capacity:overflow:onDrop:)`). Named after RxJava's
/// `BackpressureOverflowStrategy` and Akka Streams' `OverflowStrategy`.
///
/// Generic over the signal's error type because two policies end the stream
/// with an error, which they make from a `SignalOverflowError`: with
/// `E == SignalOverflowError` (or `any Error`) use `.error` and `.block`;
/// otherwise say how to turn it into your error, `.fail { MyError.overflow($0) }`.
///
/// Thread-safety: a value type; its closures are called on the producing
/// thread, never under a lock of the library.
public enum SignalOverflow<E> {
    /// The incoming value is dropped (Akka `dropNew`, RxJava
    /// `onBackpressureDrop`).
    case dropNewest
    /// The oldest pending value is dropped to make room (Akka `dropHead`,
    /// RxJava `DROP_OLDEST`).
    case dropOldest
    /// The newest pending value is replaced by the incoming one, so the
    /// consumer always ends with the latest (Akka `dropTail`, RxJava
    /// `DROP_LATEST`; with capacity 1, `onBackpressureLatest`).
    case latest
    /// The stream fails with the error `makeError` makes (Akka `fail`, RxJava
    /// `ERROR`). The values pending are delivered first, then the error; the
    /// value that overflowed, and any the upstream puts before the error
    /// reaches the consumer and disposes it, go to `onDrop`.
    case fail(_ makeError: (SignalOverflowError) -> E)
    /// The producing thread waits for room (Akka `backpressure`). When
    /// waiting could never end, the stream fails instead with the error
    /// `refused` makes, as `fail` does: the producer is the thread
    /// delivering the values (a value put from inside a delivery), or the
    /// queue is host-drained or virtual-time (the thread that drains it may
    /// be the producer).
    case block(refused: (SignalOverflowError) -> E)
}

extension SignalOverflow where E == SignalOverflowError {
    /// `.fail` with the `SignalOverflowError` itself as the error.
    public static var error: SignalOverflow<E> { .fail { $0 } }
    /// `.block` failing with the `SignalOverflowError` itself when it
    /// cannot wait.
    public static var block: SignalOverflow<E> { .block(refused: { $0 }) }
}

extension SignalOverflow where E == any Error {
    /// `.fail` with the `SignalOverflowError` itself as the error.
    public static var error: SignalOverflow<E> { .fail { $0 } }
    /// `.block` failing with the `SignalOverflowError` itself when it
    /// cannot wait.
    public static var block: SignalOverflow<E> { .block(refused: { $0 }) }
}

/// Why a bounded buffer ended its stream: it overflowed under the `fail`
/// policy, or the `block` policy could not wait. `description` names the
/// operator and the capacity.
///
/// Thread-safety: an immutable value.
public struct SignalOverflowError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What went wrong. Thread-safety: an immutable value.
    public enum Reason: Equatable, Sendable {
        /// A value arrived with `capacity` values pending (policy `fail`).
        case overflow
        /// The buffer was full and the producer could not wait (policy
        /// `block`): it is the thread that delivers the values.
        case wouldDeadlock
        /// The buffer was full and the producer could not wait (policy
        /// `block`): the queue is host-drained or virtual-time, which only
        /// its own drain makes progress on.
        case cannotWaitForQueue
    }

    /// The operator that failed ("onBackpressureBuffer", "deliverOn", or the
    /// C function's name).
    public let operatorName: String
    /// The buffer's capacity.
    public let capacity: Int
    /// Why the stream failed.
    public let reason: Reason

    /// An error of `operatorName`'s buffer of `capacity` values, for
    /// `reason` (the library makes them; tests compare with them).
    public init(operatorName: String, capacity: Int, reason: Reason) {
        self.operatorName = operatorName
        self.capacity = capacity
        self.reason = reason
    }

    /// The error in words: the operator, the capacity and what happened
    /// (the message the C API's error value carries).
    public var description: String {
        switch self.reason {
        case .overflow:
            return "\(self.operatorName): overflow: a value arrived with \(self.capacity) values pending (capacity \(self.capacity), policy error)"
        case .wouldDeadlock:
            return "\(self.operatorName): cannot block: the buffer is full (capacity \(self.capacity)) and the value was put by the thread that delivers its values, which would wait for itself forever"
        case .cannotWaitForQueue:
            return "\(self.operatorName): cannot block: the buffer is full (capacity \(self.capacity)) and its queue is host-drained or virtual-time, whose draining thread may be this one; choose another overflow policy for such a queue"
        }
    }
}

/// A first-in first-out ring of at most `capacity` elements: append, remove
/// the first and replace the last are O(1). The storage starts small and
/// doubles as needed up to `capacity` (amortized O(1) while growing), so a
/// large capacity costs memory only when values actually wait.
///
/// A plain struct over its storage, not a noncopyable one with a deinit (the
/// 6.3 optimizer crashed inlining such a deinit into its owner's setter):
/// its owner calls `destroy()` once, from its own deinit, and never copies
/// it.
///
/// Thread-safety: none; its owner guards it.
@usableFromInline
struct _SignalRing<Element> {
    @usableFromInline var storage: UnsafeMutablePointer<Element>?
    @usableFromInline var slots = 0
    @usableFromInline var head = 0
    @usableFromInline var count = 0
    @usableFromInline let capacity: Int

    @inlinable
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Releases the elements left and frees the storage.
    @usableFromInline
    mutating func destroy() {
        if let storage = self.storage {
            self.forEachIndex { storage.advanced(by: $0).deinitialize(count: 1) }
            storage.deallocate()
        }
        self.storage = nil
        self.count = 0
        self.slots = 0
    }

    @inlinable
    func forEachIndex(_ body: (Int) -> Void) {
        var index = self.head
        for _ in 0..<self.count {
            body(index)
            index += 1
            if index == self.slots {
                index = 0
            }
        }
    }

    @inlinable
    var isFull: Bool { self.count >= self.capacity }

    /// Appends `element`; the ring must not be full.
    @inlinable
    mutating func append(_ element: consuming Element) {
        if self.count == self.slots {
            self.grow()
        }
        var index = self.head + self.count
        if index >= self.slots {
            index -= self.slots
        }
        self.storage.unsafelyUnwrapped.advanced(by: index).initialize(to: element)
        self.count += 1
    }

    @usableFromInline
    mutating func grow() {
        let slots = Swift.min(self.capacity, Swift.max(16, self.slots &* 2))
        let storage = UnsafeMutablePointer<Element>.allocate(capacity: slots)
        if let old = self.storage {
            var target = 0
            self.forEachIndex { index in
                storage.advanced(by: target).moveInitialize(from: old.advanced(by: index), count: 1)
                target += 1
            }
            old.deallocate()
        }
        self.storage = storage
        self.slots = slots
        self.head = 0
    }

    /// Removes and returns the first element; the ring must not be empty.
    @inlinable
    mutating func removeFirst() -> Element {
        let element = self.storage.unsafelyUnwrapped.advanced(by: self.head).move()
        self.head += 1
        if self.head == self.slots {
            self.head = 0
        }
        self.count -= 1
        return element
    }

    /// Replaces the last element with `element` and returns it; the ring must
    /// not be empty.
    @inlinable
    mutating func replaceLast(_ element: consuming Element) -> Element {
        var index = self.head + self.count - 1
        if index >= self.slots {
            index -= self.slots
        }
        let slot = self.storage.unsafelyUnwrapped.advanced(by: index)
        let old = slot.move()
        slot.initialize(to: element)
        return old
    }

    /// Removes every element, returned in order (to be released outside the
    /// lock), and frees the storage.
    @usableFromInline
    mutating func removeAll() -> [Element] {
        var all: [Element] = []
        all.reserveCapacity(self.count)
        while self.count > 0 {
            all.append(self.removeFirst())
        }
        self.storage?.deallocate()
        self.storage = nil
        self.slots = 0
        self.head = 0
        return all
    }
}

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
/// Values pending when the subscription is disposed are released without
/// being reported (the consumer asked for no more).
///
/// Thread-safety: `put` and `terminate` may be called from any thread; the
/// mutex guards the ring and the flags, never a delivery, a drop callback
/// or a release.
@usableFromInline
final class _SignalBoundedBuffer<T, E>: QueueDropObserver, @unchecked Sendable {
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
    /// Signalled when room is made or the input closes (`block` only).
    @usableFromInline let room: UnsafeMutablePointer<pthread_cond_t>?

    @inlinable
    init(queue: Queue?, subscriber: Subscriber<T, E>, capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)?, operatorName: String) {
        self.queue = queue
        self.subscriber = subscriber
        self.ring = _SignalRing(capacity: Swift.max(1, capacity))
        self.overflow = overflow
        self.onDrop = onDrop
        self.operatorName = operatorName
        if case .block = overflow {
            let room = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
            room.initialize(to: pthread_cond_t())
            pthread_cond_init(room, nil)
            self.room = room
        } else {
            self.room = nil
        }
    }

    deinit {
        self.ring.destroy()
        if let room = self.room {
            pthread_cond_destroy(room)
            room.deallocate()
        }
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
        if self.waiters > 0, let room = self.room {
            pthread_cond_broadcast(room)
        }
    }

    @inlinable
    func put(_ value: T) {
        if let queue = self.queue, queue.isCurrent() {
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
                self.waiters += 1
                while self.ring.isFull && self.busy && !self.inputClosed {
                    pthread_cond_wait(self.room.unsafelyUnwrapped, self.mutex.storage)
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
        self.queue.unsafelyUnwrapped.justDispatch({
            self.mutex.lock()
            self.deliveringThread = pthread_self()
            self.mutex.unlock()
            self.drain()
        }, ifDropped: self)
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
                // Disposed: nothing more is delivered; what waits is
                // released (not reported: the consumer asked for no more).
                let rest = self.ring.removeAll()
                self.terminal = nil
                self.inputClosed = true
                self.deliveringThread = nil
                self.wakeWaiters()
                self.mutex.unlock()
                withExtendedLifetime(rest) {}
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
    /// drain again, which the closed queue drops at once.
    @usableFromInline
    func queueDroppedWork() {
        self.mutex.lock()
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
        return signal.start(downstream: subscriber, next: { value in
            state.put(value)
        }, error: { error in
            state.terminate(.error(error))
        }, completed: {
            state.terminate(.completed)
        })
    }
}

/// Delivers the values of the signal one at a time, buffering at most
/// `capacity` of them while a delivery is in progress, with `overflow` for
/// the next (RxJava's `onBackpressureBuffer`).
///
/// A value arriving while no delivery is in progress is delivered at once, on
/// its thread. One arriving meanwhile, from another thread or from inside
/// the delivery (reentrantly), waits; the delivering thread delivers the
/// waiting values, oldest first, before it returns. The error or completion
/// follows the values pending. When `capacity` values wait, `overflow`
/// decides (see `SignalOverflow`); every value dropped is passed to `onDrop`
/// with this subscription's count of drops so far (this one included), on
/// the thread that dropped it, never under a lock. A `capacity` below 1 is
/// taken as 1.
///
/// Values pending when the subscription is disposed are released without
/// being delivered or reported.
///
/// Thread-safety: the signal's events may come from any threads; the
/// downstream receives one at a time. `onDrop` may be called from several
/// producing threads at once.
@inlinable
public func onBackpressureBuffer<T, E>(capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)? = nil) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        _boundedBuffer(signal, queue: nil, capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: "onBackpressureBuffer")
    }
}

/// `onBackpressureBuffer` under another operator's name (the C layer's).
@inlinable
package func onBackpressureBuffer<T, E>(capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)?, operatorName: String) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        _boundedBuffer(signal, queue: nil, capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: operatorName)
    }
}

/// `deliverOn(queue)` with at most `capacity` values waiting for the queue,
/// and `overflow` for the next (see `SignalOverflow`): the memory a slow
/// consumer makes its producer hold is bounded.
///
/// As `deliverOn(queue)`: an event emitted on `queue` itself is delivered
/// inline (it never waits, so never counts against the capacity); the others
/// wait, in order, and one piece of queue work at a time delivers them. The
/// error or completion follows the values pending. Every value dropped is
/// passed to `onDrop` with this subscription's count of drops so far (this
/// one included), on the thread that dropped it, never under a lock: the
/// producing thread for the policies, the closing thread for the values
/// pending when a host-drained or virtual-time queue closes. A `capacity`
/// below 1 is taken as 1. `.block` cannot wait on a host-drained or
/// virtual-time queue (the stream fails instead when the buffer is full),
/// nor on a queue whose workers are all blocked producers (not detected).
///
/// Thread-safety: the signal's events may come from any threads. `onDrop`
/// may be called from several producing threads at once.
@inlinable
public func deliverOn<T, E>(_ queue: Queue, capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)? = nil) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        _boundedBuffer(signal, queue: queue, capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: "deliverOn")
    }
}

/// `deliverOn(_:capacity:overflow:onDrop:)` under another operator's name
/// (the C layer's).
@inlinable
package func deliverOn<T, E>(_ queue: Queue, capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)?, operatorName: String) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        _boundedBuffer(signal, queue: queue, capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: operatorName)
    }
}

// MARK: - The other places where values wait

/// What `_SignalRing.offer` did with a value under an overflow policy.
@usableFromInline
enum _SignalOffer<T> {
    /// Appended: there was room.
    case queued
    /// The ring was full and the policy dropped a value (the incoming one,
    /// or the pending one it made room for): report it.
    case dropped(T)
    /// The ring was full and the policy is `fail`: the stream ends; the
    /// incoming value (returned) is dropped.
    case failed(T)
    /// The ring was full and the policy is `block`: wait for room and offer
    /// the value (returned) again.
    case full(T)
}

extension _SignalRing {
    /// Appends `value` when there is room; otherwise `overflow` decides, as
    /// for the bounded buffer (`_SignalBoundedBuffer.putContended`): the one
    /// rule every bounded place of the library applies.
    @inlinable
    mutating func offer<E>(_ value: Element, _ overflow: SignalOverflow<E>) -> _SignalOffer<Element> {
        if !self.isFull {
            self.append(value)
            return .queued
        }
        switch overflow {
        case .dropNewest:
            return .dropped(value)
        case .dropOldest:
            let old = self.removeFirst()
            self.append(value)
            return .dropped(old)
        case .latest:
            return .dropped(self.replaceLast(value))
        case .fail:
            return .failed(value)
        case .block:
            return .full(value)
        }
    }
}

/// The capacity, overflow policy and drop report of one subscription of an
/// operator that holds values while they wait for something other than a
/// delivery (`zip`'s inputs waiting for their partners, `mergeMap`'s values
/// waiting for a free slot, `buffer(timeSpan:)`'s values waiting for the
/// period's end), with the count of drops and, for `block`, the condition
/// producers wait on. The owner's rings are `_SignalRing`s of `capacity`,
/// filled with `_SignalRing.offer`.
///
/// Thread-safety: `dropped`, `waiters` and the waiting are guarded by the
/// owner's mutex (passed to `waitForRoom`); `report` and `error` are called
/// outside it.
@usableFromInline
final class _SignalPendingLimit<T, E>: @unchecked Sendable {
    @usableFromInline let capacity: Int
    @usableFromInline let overflow: SignalOverflow<E>
    @usableFromInline let onDrop: ((T, Int) -> Void)?
    @usableFromInline let operatorName: String
    @exclusivity(unchecked) @usableFromInline var dropped = 0
    @exclusivity(unchecked) @usableFromInline var waiters = 0
    @usableFromInline let room: UnsafeMutablePointer<pthread_cond_t>?

    @usableFromInline
    init(capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)?, operatorName: String) {
        self.capacity = Swift.max(1, capacity)
        self.overflow = overflow
        self.onDrop = onDrop
        self.operatorName = operatorName
        if case .block = overflow {
            let room = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
            room.initialize(to: pthread_cond_t())
            pthread_cond_init(room, nil)
            self.room = room
        } else {
            self.room = nil
        }
    }

    deinit {
        if let room = self.room {
            pthread_cond_destroy(room)
            room.deallocate()
        }
    }

    /// Counts a drop (under the owner's lock); the count to report.
    @usableFromInline
    func countDrop() -> Int {
        self.dropped += 1
        return self.dropped
    }

    /// Passes dropped values to `onDrop` with their running counts (outside
    /// the lock): `first` is the count of the first of them.
    @usableFromInline
    func report(_ values: [T], first: Int) {
        guard let onDrop = self.onDrop else {
            return
        }
        for (offset, value) in values.enumerated() {
            onDrop(value, first + offset)
        }
    }

    /// The stream's error for `reason` (user code: call it outside the lock).
    /// Only for `fail` and `block`.
    @usableFromInline
    func error(_ reason: SignalOverflowError.Reason) -> E {
        let error = SignalOverflowError(operatorName: self.operatorName, capacity: self.capacity, reason: reason)
        switch self.overflow {
        case let .fail(makeError):
            return makeError(error)
        case let .block(refused):
            return refused(error)
        default:
            // Invariant (the library's own): the ring asks for an error only under those two policies.
            preconditionFailure("only fail and block end a stream")
        }
    }

    /// Waits on the owner's locked `mutex` until `wake` is called
    /// (`block`).
    @usableFromInline
    func waitForRoom(_ mutex: borrowing _Mutex) {
        self.waiters += 1
        pthread_cond_wait(self.room.unsafelyUnwrapped, mutex.storage)
        self.waiters -= 1
    }

    /// Wakes the producers waiting for room (under the owner's lock).
    @usableFromInline
    func wake() {
        if self.waiters > 0, let room = self.room {
            pthread_cond_broadcast(room)
        }
    }
}
