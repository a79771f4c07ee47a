/// The events of one `deliverOn(queue)` subscription on their way to the
/// queue: events emitted off the queue wait in a buffer, and one piece of
/// queue work at a time (the drain) delivers all of those waiting, in order.
/// A burst of events therefore costs one dispatch, not one per event, and the
/// buffer's storage is reused from one drain to the next.
///
/// An event emitted on the queue itself is delivered inline (as `Queue.async`
/// does), so it can overtake events still waiting in the buffer.
///
/// A drain delivers what it took from the buffer, then what arrived
/// meanwhile, until the buffer is empty. So an event is never delivered later
/// than a dispatch of its own would deliver it (the original's way: work
/// enqueued after the event was emitted runs after it), though it can be
/// delivered earlier (ahead of work enqueued between the drain's dispatch and
/// the event). The price: a source that keeps emitting at least as fast as the
/// queue delivers keeps other work on that queue waiting until it pauses.
/// Not on a host-drained queue: there a drain delivers one batch, and what
/// arrived meanwhile goes in a piece of work of its own, so that the host's
/// `drain(maxTasks:)` runs only the work there was when it began, as it
/// promises (an asyncio loop draining the queue from its reader stayed in
/// one drain for as long as another thread kept putting faster than the
/// loop's callbacks ran, and no other task of the loop ran).
///
/// A host-drained or virtual-time queue that closes drops the drain without
/// running it: the state is told (`queueDroppedWork`) and releases the events
/// waiting, on the dropping thread. Every later event schedules a drain again,
/// which the closed queue drops at once, so each is released as it arrives
/// rather than piling up until the subscription ends. (Dispatch queues never
/// drop work; their path is unchanged.)
///
/// A dispose reaches the state at once through its `disposer` (the
/// subscription's disposable, which holds it unretained: see
/// `_UnretainedDisposable`): the events waiting are released then, never
/// delivered, and so is what a put still racing with the dispose brings;
/// nothing of the subscription's waits for the next drain (on a host-drained
/// queue that is not drained again, it waited until the queue closed).
///
/// Thread-safety: `put` may be called from any thread; the mutex guards only
/// the buffer and the flags, never a delivery or a release.
@usableFromInline
final class _DeliverOnQueueState<T, E>: _QueueWork, @unchecked Sendable {
    @usableFromInline
    enum Event {
        case next(T)
        case error(E)
        case completed
    }

    /// Spare storage larger than this (in events) is dropped after a drain
    /// rather than kept for the next one, so that a burst does not pin its
    /// memory for the life of the subscription.
    @usableFromInline static var spareCapacityLimit: Int { 1024 }

    @usableFromInline let queue: Queue
    @usableFromInline let subscriber: Subscriber<T, E>
    @usableFromInline let mutex = _Mutex()
    // Guarded by `mutex`.
    @exclusivity(unchecked) @usableFromInline var pending: [Event] = []
    @exclusivity(unchecked) @usableFromInline var scheduled = false
    /// The subscription was disposed: events are released as they come.
    @exclusivity(unchecked) @usableFromInline var disposed = false
    /// The upstream's subscription, set once when it has started, before
    /// the disposer is handed out as the subscription's disposable.
    @exclusivity(unchecked) @usableFromInline var upstream: (any Disposable)?
    /// The subscription's disposable, told when the state goes.
    @exclusivity(unchecked) @usableFromInline var disposer: _UnretainedDisposable<_DeliverOnQueueState<T, E>>?

    @inlinable
    init(queue: Queue, subscriber: Subscriber<T, E>) {
        self.queue = queue
        self.subscriber = subscriber
        // The drain, as the queue runs it (`Queue.justDispatch(_:)`: no
        // closure, no block per dispatch).
        super.init(run: { work in
            unsafeDowncast(work, to: _DeliverOnQueueState<T, E>.self).drain()
        })
    }

    deinit {
        // Gone undisposed (its source let go of its subscriber): the
        // upstream's disposable waits for the subscription's dispose.
        self.disposer?.targetEnded(leaving: self.disposed ? [] : self.upstream.map { [$0] } ?? [])
    }

    @inlinable
    func put(_ event: Event) {
        if self.queue.isCurrent() {
            self.deliver(event)
            return
        }
        self.mutex.lock()
        if _slowPath(self.disposed) {
            self.mutex.unlock()
            return
        }
        self.pending.append(event)
        let schedule = !self.scheduled
        self.scheduled = true
        self.mutex.unlock()
        if schedule {
            self.queue.justDispatch(self)
        }
    }

    /// The queue dropped a drain without running it (it is closed): the
    /// events waiting are released here, outside the mutex, and the next
    /// event schedules a drain again (which a closed queue drops at once).
    @usableFromInline
    override func queueDroppedWork() {
        self.mutex.lock()
        let dropped = self.pending
        self.pending = []
        self.scheduled = false
        self.mutex.unlock()
        withExtendedLifetime(dropped) {
        }
    }

    @inlinable
    func deliver(_ event: Event) {
        switch event {
        case let .next(value):
            self.subscriber.putNext(value)
        case let .error(error):
            self.subscriber.putError(error)
        case .completed:
            self.subscriber.putCompletion()
        }
    }

    /// Runs on the queue: delivers the events waiting, until none is left
    /// (on a host-drained queue, one batch: see above).
    @inlinable
    func drain() {
        // Two buffers take turns: the producers fill `pending` while this
        // thread delivers `batch`. Both are empty outside the loop.
        var batch: [Event] = []
        var delivered = false
        while true {
            self.mutex.lock()
            if self.pending.isEmpty {
                // Keep the larger storage for the next burst.
                if self.pending.capacity < batch.capacity {
                    swap(&batch, &self.pending)
                }
                self.scheduled = false
                self.mutex.unlock()
                return
            }
            if delivered && self.queue.isHostDrained {
                // Still scheduled: the events that arrived during the batch
                // wait for a drain of their own (dropped, if the queue has
                // closed, through `queueDroppedWork`).
                self.mutex.unlock()
                self.queue.justDispatch(self)
                return
            }
            swap(&batch, &self.pending)
            self.mutex.unlock()
            delivered = true

            for event in batch {
                self.deliver(event)
            }
            // The delivered values are released here, on the queue; the
            // storage is reused unless a burst grew it past the limit.
            batch.removeAll(keepingCapacity: batch.capacity <= Self.spareCapacityLimit)
        }
    }
}

extension _DeliverOnQueueState: Disposable {
    /// The subscription's dispose: the upstream's first (no event starts
    /// after it), then the events waiting are released, outside the lock;
    /// a drain scheduled finds none, and later puts release theirs.
    @usableFromInline
    func dispose() {
        self.upstream?.dispose()
        self.mutex.lock()
        self.disposed = true
        let dropped = self.pending
        self.pending = []
        self.mutex.unlock()
        withExtendedLifetime(dropped) {}
    }
}
