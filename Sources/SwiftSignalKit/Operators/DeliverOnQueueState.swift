/// The events of one `deliverOn(queue)` subscription on their way to the
/// queue: events emitted off the queue wait in a buffer, and a piece of
/// queue work (a drain) delivers those waiting, in order. A burst of events
/// therefore costs one dispatch, not one per event, and the buffer's storage
/// is reused from one drain to the next.
///
/// An event emitted on the queue itself is delivered inline (as `Queue.async`
/// does), so it can overtake events still waiting in the buffer.
///
/// The order of the queue's work is the original's, where each event is a
/// `queue.async` of its own: an event joins the last drain given to the
/// queue only while nothing else has been given to it since (the queue
/// counts what it is given: `Queue.enqueued`); otherwise it starts a new
/// batch, with a drain of its own given to the queue then, behind that
/// other work. So `put(v1)`, `queue.async(w)`, `put(v2)` run v1, w, v2, and
/// two subscriptions delivering on one queue interleave as their events
/// were put. The drains take the batches in order, each its own (the events
/// before the next batch's start, `cuts`); the last one, while it runs,
/// also delivers what joins it, until none is left. (Work the queue is
/// given otherwise than through its `Queue`: `Queue.after`'s when its timer
/// fires, or work given to the dispatch queue directly, is not counted:
/// an event may then run ahead of it, as in a drain that has begun.) On a
/// concurrent queue, where work has no order, every event joins the drain
/// scheduled or running, so that the subscription's events are still
/// delivered one at a time, in order. The price of joining: a source that
/// keeps emitting at least as fast as the queue delivers, with nothing else
/// given to the queue, keeps the drain running until it pauses.
/// On a host-drained queue a drain delivers only its batch: an event put
/// while a drain runs there starts a new batch, so that the host's
/// `drain(maxTasks:)` runs only the work there was when it began, as it
/// promises (an asyncio loop draining the queue from its reader stayed in
/// one drain for as long as another thread kept putting faster than the
/// loop's callbacks ran, and no other task of the loop ran).
///
/// A host-drained or virtual-time queue that closes drops the drains without
/// running them: the state is told (`queueDroppedWork`) and releases the
/// events waiting, on the dropping thread. Every later event schedules a
/// drain again, which the closed queue drops at once, so each is released
/// as it arrives rather than piling up until the subscription ends.
/// (Dispatch queues never drop work; their path is unchanged.)
///
/// A dispose reaches the state at once through its `disposer` (the
/// subscription's disposable, which holds it unretained: see
/// `_UnretainedDisposable`): the events waiting are released then, never
/// delivered, and so is what a put still racing with the dispose brings;
/// nothing of the subscription's waits for the next drain (on a host-drained
/// queue that is not drained again, it waited until the queue closed).
///
/// Thread-safety: `put` may be called from any thread; the mutex guards only
/// the buffer, the batches and the counts, never a delivery or a release.
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
    /// The events waiting, from `head` on; the slots before `head` were
    /// taken by drains (nil), and go when they outnumber those after it.
    @exclusivity(unchecked) @usableFromInline var pending: [Event?] = []
    @exclusivity(unchecked) @usableFromInline var head = 0
    /// Where each batch after the first begins in `pending` (an index of
    /// `pending`), from `cutHead` on (rarely any: only when other work was
    /// given to the queue between two events; then often one per event).
    /// Taking a batch moves none of the events or cuts after it, so a drain
    /// costs what its own batch holds: a backlog of n events in n batches
    /// (two subscriptions delivering on one queue that lags) drains in O(n),
    /// where moving the rest down at each batch took O(n^2) (minutes for
    /// the backlog of a few seconds' puts, the subscription alive meanwhile).
    @exclusivity(unchecked) @usableFromInline var cuts: [Int] = []
    @exclusivity(unchecked) @usableFromInline var cutHead = 0
    /// Drains given to the queue that have not begun; each but a first one
    /// (given while no drain was waiting or running) has a batch in `cuts`.
    @exclusivity(unchecked) @usableFromInline var queued = 0
    /// A drain is delivering (it takes the first batch).
    @exclusivity(unchecked) @usableFromInline var running = false
    /// The queue's count of work (`Queue.enqueued`) with the last drain
    /// given to it: an event joins that drain only while it is unchanged.
    @exclusivity(unchecked) @usableFromInline var ticket: UInt = 0
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
        var dispatch = false
        if self.queued == 0 && !self.running {
            dispatch = true
        } else if self.queue.isOrdered && _slowPath(self.queue.wasGivenWork(since: self.ticket)
            || (self.queued == 0 && self.queue.isHostDrained)) {
            // Other work was given to the queue since the last drain (or the
            // drain of a host-drained queue runs, which delivers only its
            // batch): this event begins a batch whose drain goes behind it.
            self.cuts.append(self.pending.count - 1)
            dispatch = true
        }
        if dispatch {
            // The drain's place in the queue's count, claimed under the
            // mutex so that the ticket and the count agree (on a concurrent
            // queue the ticket is never read).
            self.queued += 1
            self.ticket = self.queue.claimEnqueued()
        }
        self.mutex.unlock()
        if dispatch {
            self.queue.justDispatch(claimed: self)
        }
    }

    /// The queue dropped a drain without running it (it is closed): the
    /// events waiting are released here, outside the mutex (the other drains
    /// given to the closed queue are dropped too), and the next event
    /// schedules a drain again (which a closed queue drops at once).
    @usableFromInline
    override func queueDroppedWork() {
        self.mutex.lock()
        if self.queued > 0 {
            self.queued -= 1
        }
        let dropped = self.takeAllPending()
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

    /// Takes every event waiting and forgets the batches (under the mutex):
    /// the caller releases them after unlocking.
    @inlinable
    func takeAllPending() -> [Event?] {
        let taken = self.pending
        self.pending = []
        self.head = 0
        self.cuts = []
        self.cutHead = 0
        return taken
    }

    /// Runs on the queue: delivers the first batch, and then, while no other
    /// drain is waiting (no batch begins after it), what joins it, until
    /// none is left.
    @inlinable
    func drain() {
        // Two buffers take turns: the producers fill `pending` while this
        // thread delivers `batch`. Both are empty outside the loop.
        var batch: [Event?] = []
        self.mutex.lock()
        if self.queued > 0 {
            self.queued -= 1
        }
        self.running = true
        while true {
            let hasCut = self.cutHead < self.cuts.count
            let end = hasCut ? self.cuts[self.cutHead] : self.pending.count
            if end == self.head {
                if hasCut {
                    // The next batch is the next drain's, now the first.
                    self.cutHead += 1
                    if self.cutHead == self.cuts.count {
                        self.cuts.removeAll(keepingCapacity: true)
                        self.cutHead = 0
                    }
                } else {
                    // Every slot was taken (nil): nothing is released here.
                    self.pending.removeAll(keepingCapacity: self.pending.capacity <= Self.spareCapacityLimit)
                    self.head = 0
                    if self.pending.capacity < batch.capacity {
                        // Keep the larger storage for the next burst.
                        swap(&batch, &self.pending)
                    }
                }
                self.running = false
                self.mutex.unlock()
                return
            }
            if self.head == 0 && end == self.pending.count {
                // The whole of it (the usual case): the buffers swap.
                swap(&batch, &self.pending)
            } else {
                // The first batch of several, or what followed one.
                for index in self.head..<end {
                    batch.append(self.pending[index].take())
                }
                self.head = end
                self.compactPending()
            }
            self.mutex.unlock()

            for event in batch {
                self.deliver(event.unsafelyUnwrapped)
            }
            // The delivered values are released here, on the queue; the
            // storage is reused unless a burst grew it past the limit.
            batch.removeAll(keepingCapacity: batch.capacity <= Self.spareCapacityLimit)
            self.mutex.lock()
        }
    }

    /// Drops the taken slots (all nil: no value is released under the
    /// mutex) once they are as many as the events left, so that each event
    /// is moved at most once more on average; the cuts follow.
    @inlinable
    func compactPending() {
        let taken = self.head
        if taken == self.pending.count {
            self.pending.removeAll(keepingCapacity: self.pending.capacity <= Self.spareCapacityLimit)
        } else if taken >= self.pending.count - taken {
            self.pending.removeFirst(taken)
        } else {
            return
        }
        self.head = 0
        if self.cutHead > 0 {
            self.cuts.removeFirst(self.cutHead)
            self.cutHead = 0
        }
        for index in self.cuts.indices {
            self.cuts[index] -= taken
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
        let dropped = self.takeAllPending()
        self.mutex.unlock()
        withExtendedLifetime(dropped) {}
    }
}
