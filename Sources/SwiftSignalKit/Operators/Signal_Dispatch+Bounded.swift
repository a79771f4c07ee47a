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
/// wait, in order, and one piece of queue work at a time delivers them
/// (the values arriving meanwhile join it, also when other work was given
/// to the queue since, unlike `deliverOn(queue)`'s batches: they may run
/// ahead of that work). The error or completion follows the values pending. Every value dropped is
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
