#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import _SwiftSignalKitShims

/// A value a two-signal bounded `zip` dropped: of its first input or of its
/// second (`zip(_:_:capacity:overflow:onDrop:)`).
///
/// Thread-safety: a value type.
public enum SignalZipDropped<T1, T2> {
    /// A value of the first input.
    case first(T1)
    /// A value of the second input.
    case second(T2)
}

/// What one put into a bounded `zip` led to (`_ZipBoundedState.put`).
@usableFromInline
enum _ZipBoundedPut<T> {
    /// Nothing to deliver (queued, dropped and reported, or released).
    case none
    /// A combination to deliver; `complete` when an input is used up. Its
    /// array goes back to the state after the delivery (`recycle`).
    case values([T], complete: Bool)
    /// The stream fails (`fail`, or `block` refused) for this reason; what
    /// was pending has been reported as dropped.
    case failed(SignalOverflowError.Reason)
}

/// The state of one bounded `zip` subscription: a `_SignalRing` of at most
/// `limit.capacity` waiting values per input, filled with
/// `_SignalRing.offer` (the bounded buffer's rule), under one mutex never
/// held while anything is delivered, reported or released.
///
/// The per-input fields are buffers of the input count, allocated once (an
/// array's write checked its uniqueness and bounds at every put). The array
/// a combination is delivered in comes back after the delivery
/// (`recycle`): emptied, and kept for the next combination when the
/// subscriber kept no reference to it, so that a combination makes no
/// allocation.
///
/// Thread-safety: every method may be called from any thread.
@usableFromInline
final class _ZipBoundedState<T, E>: @unchecked Sendable {
    // Every field is read and written under `mutex` only.
    @usableFromInline let mutex = _Mutex()
    @usableFromInline let count: Int
    @usableFromInline let queues: UnsafeMutablePointer<_SignalRing<T>>
    @usableFromInline let done: UnsafeMutablePointer<Bool>
    /// The thread that last put into each input (`block`'s refusal), as
    /// `_sks_thread_token()` (0 for none: a load of the thread's own
    /// address where `pthread_self` was a call a put).
    @usableFromInline let producers: UnsafeMutablePointer<UInt>
    /// An emptied array of a delivered combination, for the next one.
    @exclusivity(unchecked) @usableFromInline var spare: [T]?
    @exclusivity(unchecked) @usableFromInline var nonEmpty = 0
    /// `fail` decided the error: later values are dropped and reported.
    @exclusivity(unchecked) @usableFromInline var failed = false
    /// Disposed: later values are released unreported.
    @exclusivity(unchecked) @usableFromInline var disposed = false
    /// While the inputs are being started: the starting thread, and how
    /// many inputs it has still to start after the one it is starting
    /// (`block`'s refusal: a value that thread puts into a full queue could
    /// only find room once those have started, which it would do after).
    @exclusivity(unchecked) @usableFromInline var startingThread: pthread_t?
    @exclusivity(unchecked) @usableFromInline var unstarted = 0
    @usableFromInline let limit: _SignalPendingLimit<T, E>

    @usableFromInline
    init(count: Int, limit: _SignalPendingLimit<T, E>) {
        self.count = count
        self.queues = .allocate(capacity: count)
        self.done = .allocate(capacity: count)
        self.producers = .allocate(capacity: count)
        for i in 0 ..< count {
            (self.queues + i).initialize(to: _SignalRing<T>(capacity: limit.capacity))
        }
        self.done.initialize(repeating: false, count: count)
        self.producers.initialize(repeating: 0, count: count)
        self.limit = limit
    }

    deinit {
        for i in 0 ..< self.count {
            self.queues[i].destroy()
        }
        self.queues.deinitialize(count: self.count)
        self.queues.deallocate()
        self.done.deallocate()
        self.producers.deinitialize(count: self.count)
        self.producers.deallocate()
    }

    /// Takes back the array of a delivered combination: emptied outside the
    /// lock (its values released here), kept for the next combination. An
    /// array the subscriber kept is not touched: it is copied by the
    /// emptying, the copy kept.
    @inlinable
    func recycle(_ values: consuming [T]) {
        var emptied = values
        _emptyKeepingCapacity(&emptied)
        self.mutex.lock()
        if self.spare == nil {
            self.spare = consume emptied
            self.mutex.unlock()
            return
        }
        self.mutex.unlock()
    }

    /// The calling thread starts input `index` (the ones after it later).
    @usableFromInline
    func starting(_ index: Int) {
        self.mutex.lock()
        self.startingThread = pthread_self()
        self.unstarted = self.count - 1 - index
        self.mutex.unlock()
    }

    /// Every input's start has returned (or the subscription ended first).
    @usableFromInline
    func startsEnded() {
        self.mutex.lock()
        self.startingThread = nil
        self.unstarted = 0
        self.mutex.unlock()
    }

    /// Queues `value` for input `index` under the policy, or completes a
    /// combination with the oldest waiting value of every other input.
    /// Inlinable, so that a client's types specialize it: the value path
    /// runs no generic code (issue 41's cost table).
    @inlinable
    func put(_ index: Int, _ value: T) -> _ZipBoundedPut<T> {
        self.mutex.lock()
        self.producers[index] = UInt(_sks_thread_token())
        while true {
            if self.disposed {
                self.mutex.unlock()
                return .none
            }
            if self.failed {
                let count = self.limit.countDrop()
                self.mutex.unlock()
                self.limit.report([value], first: count)
                return .none
            }
            if self.queues[index].count == 0 && self.nonEmpty == self.count - 1 {
                var values = self.spare.take() ?? []
                values.reserveCapacity(self.count)
                var complete = false
                for i in 0 ..< self.count {
                    if i == index {
                        values.append(value)
                        continue
                    }
                    values.append(self.queues[i].removeFirst())
                    if self.queues[i].count == 0 {
                        self.nonEmpty -= 1
                        if self.done[i] {
                            complete = true
                        }
                    }
                }
                self.limit.wake()
                self.mutex.unlock()
                return .values(values, complete: complete)
            }
            let wasEmpty = self.queues[index].count == 0
            switch self.queues[index].offer(value, self.limit.overflow) {
            case .queued:
                if wasEmpty {
                    self.nonEmpty += 1
                }
                self.mutex.unlock()
                return .none
            case let .dropped(old):
                let count = self.limit.countDrop()
                self.mutex.unlock()
                self.limit.report([old], first: count)
                return .none
            case let .failed(value):
                return self.failLocked(value, .overflow)
            case let .full(value):
                let me = pthread_self()
                if self.unstarted > 0, let starting = self.startingThread, pthread_equal(starting, me) != 0 {
                    // Put while this thread starts the inputs: the ones it
                    // has yet to start cannot make room before it returns.
                    return self.failLocked(value, .wouldDeadlock)
                }
                for i in 0 ..< self.count where i != index {
                    if self.producers[i] == UInt(_sks_thread_token()) {
                        // This thread feeds another input too: it would wait
                        // for itself.
                        return self.failLocked(value, .wouldDeadlock)
                    }
                }
                if _currentThreadRunsAnExecutorQueue() {
                    // Put from a host-drained or virtual-time queue's work
                    // (hot marbles feeding every input in turn): the other
                    // inputs' puts may be that queue's work still to come.
                    return self.failLocked(value, .cannotWaitForQueue)
                }
                if let scope = _SignalNoWaitScope.current {
                    // A put that never waits: the value beyond the capacity
                    // (the queue is full: it counts in `nonEmpty` already).
                    self.queues[index].overfill(value)
                    self.mutex.unlock()
                    scope.filled(self, index)
                    return .none
                }
                self.limit.waitForRoom(self.mutex)
                // Decide again: room, a failure, or the end.
            }
        }
    }

    /// Ends taking values: `value` and every value waiting are dropped and
    /// reported. Called with the lock held; unlocks.
    @usableFromInline
    func failLocked(_ value: T, _ reason: SignalOverflowError.Reason) -> _ZipBoundedPut<T> {
        self.failed = true
        var dropped = [value]
        for i in 0 ..< self.count {
            dropped.append(contentsOf: self.queues[i].removeAll())
        }
        self.nonEmpty = 0
        let first = self.limit.dropped + 1
        self.limit.dropped += dropped.count
        self.limit.wake()
        self.mutex.unlock()
        self.limit.report(dropped, first: first)
        return .failed(reason)
    }

    /// Records that input `index` completed; true when no combination can
    /// come any more.
    @usableFromInline
    func complete(_ index: Int) -> Bool {
        self.mutex.lock()
        self.done[index] = true
        let exhausted = self.queues[index].count == 0
        self.mutex.unlock()
        return exhausted
    }

    /// The subscription ended: the waiting values are released unreported,
    /// producers waiting for room return.
    @usableFromInline
    func dispose() {
        self.mutex.lock()
        self.disposed = true
        var rest: [[T]] = []
        for i in 0 ..< self.count {
            rest.append(self.queues[i].removeAll())
        }
        let spare = self.spare.take()
        self.nonEmpty = 0
        self.limit.wake()
        self.mutex.unlock()
        withExtendedLifetime((rest, spare)) {}
    }
}

/// Starts the bounded `zip` of `signals` for `subscriber`.
@inlinable
func _zipBounded<T, E>(_ signals: [Signal<T, E>], _ limit: @escaping () -> _SignalPendingLimit<T, E>) -> Signal<[T], E> {
    if signals.isEmpty {
        return Signal<[T], E>.complete()
    }
    return Signal<[T], E> { subscriber in
        let state = _ZipBoundedState<T, E>(count: signals.count, limit: limit())
        let disposables = DisposableSet()
        disposables.add(ActionDisposable {
            state.dispose()
        })
        for (index, signal) in signals.enumerated() {
            if subscriber.isEnded {
                break
            }
            state.starting(index)
            // Once the subscriber has its terminal event, the state takes
            // nothing more (`dispose`): a value an input puts later (a
            // generator still inside its start, before the subscription's
            // disposables are disposed) reaches nothing and is not reported.
            disposables.add(signal.start(downstream: subscriber, next: { value in
                switch state.put(index, value) {
                case .none:
                    break
                case let .values(values, complete):
                    subscriber.putNext(values)
                    state.recycle(values)
                    if complete {
                        subscriber.putCompletion()
                        state.dispose()
                    }
                case let .failed(reason):
                    subscriber.putError(state.limit.error(reason))
                    state.dispose()
                }
            }, error: { error in
                subscriber.putError(error)
                state.dispose()
            }, completed: {
                if state.complete(index) {
                    subscriber.putCompletion()
                    state.dispose()
                }
            }))
        }
        state.startsEnded()
        return disposables
    }
}

/// `zip(_:)` with at most `capacity` values waiting per input, and `overflow`
/// deciding about the next (see `SignalOverflow`): an input that runs ahead
/// of the others holds at most `capacity` values.
///
/// The policies apply to each input's own waiting values (`dropOldest` drops
/// that input's oldest). With `.fail`, the stream fails at once: the value
/// that overflowed and every value waiting (they have no partners yet) are
/// dropped. With `.block`, the producer of the input that is ahead waits
/// until the others catch up; when that thread has also put into another
/// input, or is starting the inputs and has some still to start (it would
/// wait for itself), or is running a host-drained or virtual-time queue's
/// work (which stops while it waits), the stream fails instead (not
/// detected: any other
/// thread that will feed another input later). Every value
/// dropped, including those put after a failure while its error is on its
/// way to the subscriber (once it got there, a value put reaches nothing
/// and is not reported: also by a generator still inside its start), is passed to `onDrop` with
/// this subscription's count of drops so far (this one included), on the
/// thread that dropped it, never under a lock. Values waiting when the
/// subscription ends are released without being reported. A `capacity`
/// below 1 is taken as 1.
///
/// Completion, errors and threading: as `zip(_:)`. `onDrop` may be called
/// from several producing threads at once.
@inlinable
public func zip<T, E>(_ signals: [Signal<T, E>], capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)? = nil) -> Signal<[T], E> {
    return zip(signals, capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: "zip")
}

/// The bounded `zip(_:capacity:overflow:onDrop:)` under another operator's
/// name (the C layer's).
@inlinable
package func zip<T, E>(_ signals: [Signal<T, E>], capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)?, operatorName: String) -> Signal<[T], E> {
    return _zipBounded(signals) {
        _SignalPendingLimit(capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: operatorName)
    }
}

/// `zip(_:_:)` with at most `capacity` values waiting per input, and
/// `overflow` deciding about the next: as `zip(_:capacity:overflow:onDrop:)`.
/// A dropped value reaches `onDrop` as `.first` or `.second`, by its input.
///
/// Completion, errors and threading: as `zip(_:_:)`.
@inlinable
public func zip<T1, T2, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>, capacity: Int, overflow: SignalOverflow<E>, onDrop: ((SignalZipDropped<T1, T2>, Int) -> Void)? = nil) -> Signal<(T1, T2), E> {
    let first = s1 |> map { SignalZipDropped<T1, T2>.first($0) }
    let second = s2 |> map { SignalZipDropped<T1, T2>.second($0) }
    return _zipBounded([first, second]) {
        _SignalPendingLimit(capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: "zip")
    } |> map { values -> (T1, T2) in
        guard case let .first(a) = values[0], case let .second(b) = values[1] else {
            // Invariant (the library's own): the zip above delivers its inputs' values in their order.
            preconditionFailure("zip's inputs are in order")
        }
        return (a, b)
    }
}

extension _ZipBoundedState: _SignalRoomPlace {
    /// Room as a waiting producer of input `index` sees it (`put`).
    @usableFromInline
    func hasRoom(_ index: Int, orRegisters wait: _SignalRoomWait) -> Bool {
        self.mutex.lock()
        let room = self.limit.hasRoom(unless: self.queues[index].isFull && !self.disposed && !self.failed, orRegisters: wait)
        self.mutex.unlock()
        return room
    }
}
