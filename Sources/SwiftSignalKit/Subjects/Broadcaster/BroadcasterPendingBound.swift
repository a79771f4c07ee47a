/// The bound of a pipe's queues of values put from inside its own delivery
/// (`SignalPipe(replay:capacity:overflow:onDrop:)`, `sk_pipe_create_bounded`).
///
/// A value put into a pipe from inside one of its callbacks, on the thread
/// that is delivering, waits until that delivery is over (so that every
/// subscriber receives the values in order, and the stack does not grow):
/// the thread's queue in the broadcaster (`ownerPending`,
/// `DeliveringThread.pending`). A callback that puts many values at once
/// (a producer loop inside a callback) would grow that queue without bound,
/// before any operator downstream could see them. With a bound, a value that
/// arrives with `capacity` values waiting on its thread is handled by the
/// policy, as in every bounded place (see `SignalOverflow`): dropped (the
/// newest, the oldest, or the newest waiting replaced), or the pipe fails
/// after the values waiting. `block` can never wait there (the producer is
/// the thread that delivers), so it fails the pipe with the `wouldDeadlock`
/// error.
///
/// Thread-safety: immutable but `drops`, which the broadcaster's lock
/// guards; `onDrop` and `fail` are called by the broadcaster outside its
/// lock, on the thread that put the value.
@usableFromInline
final class _BroadcasterPendingBound<T>: @unchecked Sendable {
    @usableFromInline enum Rule {
        case dropNewest, dropOldest, latest, fail, block
    }

    @usableFromInline let capacity: Int
    @usableFromInline let rule: Rule
    @usableFromInline let onDrop: ((T, Int) -> Void)?
    /// Ends the pipe with the error for a reason (`fail`, `block`).
    @usableFromInline let fail: (SignalOverflowError.Reason) -> Void
    /// The values dropped so far. Guarded by the broadcaster's lock.
    @exclusivity(unchecked) @usableFromInline var drops = 0

    @usableFromInline
    init(capacity: Int, rule: Rule, onDrop: ((T, Int) -> Void)?, fail: @escaping (SignalOverflowError.Reason) -> Void) {
        self.capacity = max(capacity, 1)
        self.rule = rule
        self.onDrop = onDrop
        self.fail = fail
    }

    /// What an overflow leaves to do once the broadcaster's lock is dropped:
    /// report a dropped value, end the pipe.
    @usableFromInline
    struct Overflow {
        @usableFromInline var dropped: T?
        @usableFromInline var count = 0
        @usableFromInline var failure: SignalOverflowError.Reason?

        @inlinable
        init(dropped: T?, count: Int, failure: SignalOverflowError.Reason?) {
            self.dropped = dropped
            self.count = count
            self.failure = failure
        }

        /// Runs outside the lock, on the putting thread.
        @inlinable
        func finish(_ bound: _BroadcasterPendingBound<T>) {
            if let dropped = self.dropped, let onDrop = bound.onDrop {
                onDrop(dropped, self.count)
            }
            if let failure = self.failure {
                bound.fail(failure)
            }
        }
    }
}

extension _Broadcaster {
    /// Queues `delivery`, a value published from inside a delivery on this
    /// thread, for that delivery to pass on once it is over: in the owner's
    /// queue (`index` -1) or in delivering thread `index`'s, within the
    /// pipe's bound; gives the lock back (held on entry), then does what an
    /// overflow leaves to do. Specialized in the caller but never inlined:
    /// the publication's common path stays as small as it was (inlined,
    /// the bound's code grew the Swift cost rows by about 50 instructions,
    /// moving the optimizer's inlining decisions around it).
    @inlinable @inline(never)
    func queueNested(_ index: Int, _ delivery: Delivery) {
        let overflow: _BroadcasterPendingBound<T>.Overflow?
        if index < 0 {
            overflow = self.queuePending(&self.ownerPending, delivery)
            self.ownerQueued = true
        } else {
            overflow = self.queuePending(&self.deliveringThreads[index].pending, delivery)
        }
        self.mutex.unlock()
        if let overflow, let bound = self.pendingBound {
            overflow.finish(bound)
        }
    }

    /// Queues `delivery` for the thread's current delivery to pass on once
    /// it is over, within the pipe's bound if it has one; returns what the
    /// bound leaves to do after the lock (see `_BroadcasterPendingBound`).
    /// Called under the lock.
    @inlinable
    func queuePending(_ queue: inout [Delivery], _ delivery: Delivery) -> _BroadcasterPendingBound<T>.Overflow? {
        guard let bound = self.pendingBound, queue.count >= bound.capacity else {
            queue.append(delivery)
            return nil
        }
        return Self.overflow(&queue, delivery, bound)
    }

    /// The bound's policy for `delivery`, which found `queue` full. Off the
    /// path of values. Called under the lock.
    @usableFromInline
    static func overflow(_ queue: inout [Delivery], _ delivery: Delivery, _ bound: _BroadcasterPendingBound<T>) -> _BroadcasterPendingBound<T>.Overflow {
        var dropped: T
        var failure: SignalOverflowError.Reason?
        switch bound.rule {
        case .dropNewest:
            dropped = delivery.value
        case .dropOldest:
            // O(capacity): the queue is an array that each delivery takes
            // whole; drops are the exception.
            dropped = queue.removeFirst().value
            queue.append(delivery)
        case .latest:
            dropped = queue[queue.count - 1].value
            queue[queue.count - 1] = delivery
        case .fail:
            dropped = delivery.value
            failure = .overflow
        case .block:
            dropped = delivery.value
            failure = .wouldDeadlock
        }
        bound.drops += 1
        return _BroadcasterPendingBound<T>.Overflow(dropped: dropped, count: bound.drops, failure: failure)
    }
}
