#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The values of a signal as an `AsyncSequence` with at most `capacity`
/// values waiting for the reader (`Signal.values(capacity:overflow:onDrop:)`):
/// the values wait in the bounded buffer's ring (`_SignalRing.offer`, the
/// one rule of every bounded place) and leave it one per `next()`, at the
/// reader's pace. With `.block`, a producer on another thread waits until
/// the reader takes a value: the producer runs at the reader's pace.
///
/// Thread-safety: the sequence is a value; iterate it once, from one task at
/// a time (as any `AsyncIterator`). The signal may emit from any thread.
public struct SignalBoundedValues<T, E: Error>: AsyncSequence {
    /// The signal's value type: what each `next()` returns.
    public typealias Element = T

    let signal: Signal<T, E>
    let capacity: Int
    let overflow: SignalOverflow<E>
    let onDrop: ((T, Int) -> Void)?

    /// The iterator: subscribes at its first `next()`; disposes the
    /// subscription when it ends, when its task is cancelled, or when it is
    /// dropped. Thread-safety: one task at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let handle: _SignalBoundedValuesHandle<T, E>

        /// The next value, at the reader's pace; nil after the completion
        /// (or once cancelled); the signal's error (an overflow's included)
        /// thrown once, then nil.
        public mutating func next() async throws -> T? {
            return try await self.handle.state.next()
        }
    }

    /// An iterator over the values (each subscribes anew).
    public func makeAsyncIterator() -> AsyncIterator {
        let limit = _SignalPendingLimit<T, E>(capacity: self.capacity, overflow: self.overflow, onDrop: self.onDrop, operatorName: "values(capacity:)")
        return AsyncIterator(handle: _SignalBoundedValuesHandle(state: _SignalBoundedValuesState(signal: self.signal, limit: limit)))
    }
}

/// Disposes its state's subscription when the iterator that holds it goes
/// (the subscription's callbacks hold the state, not this handle).
/// Thread-safety: immutable.
final class _SignalBoundedValuesHandle<T, E: Error>: @unchecked Sendable {
    let state: _SignalBoundedValuesState<T, E>

    init(state: _SignalBoundedValuesState<T, E>) {
        self.state = state
    }

    deinit {
        self.state.dispose()
    }
}

/// One bounded iteration: the ring of waiting values, the terminal event,
/// the reader's continuation while it waits, the subscription.
///
/// Thread-safety: every field is under the mutex; the continuation is
/// resumed, drops reported and the subscription disposed outside it.
final class _SignalBoundedValuesState<T, E: Error>: @unchecked Sendable {
    private let mutex = _Mutex()
    private var signal: Signal<T, E>?
    private var ring: _SignalRing<T>
    private let limit: _SignalPendingLimit<T, E>
    private var terminal: E?
    private var completed = false
    /// Nothing more is taken: the end came, an overflow failed, or the
    /// reader went.
    private var closed = false
    private var disposedByReader = false
    private var waiting: CheckedContinuation<T?, any Error>?
    /// The thread starting the subscription (inside the first `next()`):
    /// `block` refuses to wait there (the reader could never take a value).
    private var startingThread: pthread_t?
    private let disposable = MetaDisposable()

    init(signal: Signal<T, E>, limit: _SignalPendingLimit<T, E>) {
        self.signal = signal
        self.limit = limit
        self.ring = _SignalRing(capacity: limit.capacity)
    }

    deinit {
        self.ring.destroy()
    }

    func next() async throws -> T? {
        self.mutex.lock()
        if let signal = self.signal {
            self.signal = nil
            self.startingThread = pthread_self()
            self.mutex.unlock()
            self.disposable.set(signal.start(next: { [self] value in
                self.put(value)
            }, error: { [self] error in
                self.end(error)
            }, completed: { [self] in
                self.end(nil)
            }))
            self.mutex.lock()
            self.startingThread = nil
        }
        self.mutex.unlock()
        let value = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T?, any Error>) in
                self.mutex.lock()
                if self.ring.count > 0 {
                    let value = self.ring.removeFirst()
                    self.limit.wake()
                    self.mutex.unlock()
                    Self.hand(value, to: continuation)
                    return
                }
                if self.closed || self.completed || self.terminal != nil {
                    let error = self.terminal
                    self.terminal = nil
                    self.completed = true
                    self.mutex.unlock()
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: nil)
                    }
                    return
                }
                self.waiting = continuation
                self.mutex.unlock()
            }
        } onCancel: {
            self.dispose()
        }
        // The reader's task may go on on another thread than the one that
        // took the value (or was handed it): taking the lock once more here
        // orders the value's making, by the producer before its unlock,
        // before the reader's use in a way ThreadSanitizer sees (it does not
        // see the order a continuation's resume gives: a false data race
        // on the value's fields otherwise). Uncontended: one lock and unlock
        // per value.
        self.mutex.lock()
        self.mutex.unlock()
        return value
    }

    /// A value of the signal: to the waiting reader, or into the ring under
    /// the policy.
    private func put(_ value: T) {
        self.mutex.lock()
        while true {
            if self.disposedByReader {
                self.mutex.unlock()
                return
            }
            if self.closed {
                let count = self.limit.countDrop()
                self.mutex.unlock()
                self.limit.report([value], first: count)
                return
            }
            if let waiting = self.waiting {
                self.waiting = nil
                self.mutex.unlock()
                Self.hand(value, to: waiting)
                return
            }
            switch self.ring.offer(value, self.limit.overflow) {
            case .queued:
                self.mutex.unlock()
                return
            case let .dropped(old):
                let count = self.limit.countDrop()
                self.mutex.unlock()
                self.limit.report([old], first: count)
                return
            case let .failed(value):
                self.fail(value, .overflow)
                return
            case let .full(value):
                if let thread = self.startingThread, pthread_equal(thread, pthread_self()) != 0 {
                    self.fail(value, .wouldDeadlock)
                    return
                }
                if let scope = _SignalNoWaitScope.current {
                    // A put that never waits: the value beyond the capacity.
                    self.ring.overfill(value)
                    self.mutex.unlock()
                    scope.filled(self, 0)
                    return
                }
                self.limit.waitForRoom(self.mutex)
            }
        }
    }

    /// Resumes the reader with `value`: the hand-over to its task is the
    /// caller's decision, as `values`' (see Signal_Concurrency.swift).
    private static func hand(_ value: T?, to reader: CheckedContinuation<T?, any Error>) {
        nonisolated(unsafe) let value = value
        reader.resume(returning: value)
    }

    /// `fail` or `block`'s refusal: the error follows the values waiting;
    /// `value` and later ones are dropped. Called locked; unlocks.
    private func fail(_ value: T, _ reason: SignalOverflowError.Reason) {
        self.closed = true
        let count = self.limit.countDrop()
        self.limit.wake()
        self.mutex.unlock()
        self.limit.report([value], first: count)
        let error = self.limit.error(reason)
        self.mutex.lock()
        self.terminal = error
        let waiting = self.ring.count == 0 ? self.waiting : nil
        if waiting != nil {
            self.waiting = nil
            self.terminal = nil
            self.completed = true
        }
        self.mutex.unlock()
        waiting?.resume(throwing: error)
    }

    /// The signal's error (or nil: its completion): after the values waiting.
    private func end(_ error: E?) {
        self.mutex.lock()
        if self.closed {
            self.mutex.unlock()
            return
        }
        self.closed = true
        self.terminal = error
        self.completed = error == nil
        self.limit.wake()
        let waiting = self.waiting
        self.waiting = nil
        if waiting != nil {
            self.terminal = nil
            self.completed = true
        }
        self.mutex.unlock()
        if let waiting {
            if let error {
                waiting.resume(throwing: error)
            } else {
                waiting.resume(returning: nil)
            }
        }
    }

    /// The reader went (cancelled, or the iterator dropped): the
    /// subscription is disposed, the values waiting released, a blocked
    /// producer freed, a waiting `next()` given nil.
    func dispose() {
        self.mutex.lock()
        self.disposedByReader = true
        self.closed = true
        self.completed = true
        self.signal = nil
        let rest = self.ring.removeAll()
        let waiting = self.waiting
        self.waiting = nil
        self.limit.wake()
        self.mutex.unlock()
        self.disposable.dispose()
        withExtendedLifetime(rest) {}
        waiting?.resume(returning: nil)
    }
}

public extension Signal where E: Error {
    /// The values of the signal as an `AsyncSequence`, at most `capacity` of
    /// them waiting for the reader, `overflow` deciding about the next (see
    /// `SignalOverflow`; `values` is the unbounded form). A value leaves the
    /// buffer when the reader's `next()` takes it: the reader pulls at its
    /// own pace. With `.block`, a producer on another thread waits for the
    /// reader to take a value (async backpressure); a value emitted while
    /// the first `next()` starts the subscription, on the reader's own
    /// thread, cannot wait, and the stream fails instead (reason
    /// `wouldDeadlock`). With `.fail`, the values waiting come first, then
    /// the error is thrown. Every value dropped goes to `onDrop` with the
    /// iteration's count of drops so far, on the thread that dropped it.
    /// Cancelling the task, or dropping the iterator, disposes the
    /// subscription and releases the values waiting.
    ///
    /// Thread-safety: the signal may emit from any thread; iterate from one
    /// task at a time.
    func values(capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)? = nil) -> SignalBoundedValues<T, E> {
        return SignalBoundedValues(signal: self, capacity: capacity, overflow: overflow, onDrop: onDrop)
    }
}

public extension Signal where E == NoError {
    /// `values(capacity:overflow:onDrop:)` for a signal that cannot fail: the
    /// iteration throws only what the overflow policy makes (`.error` and
    /// `.block` give a `SignalOverflowError`); a completion ends it.
    ///
    /// Thread-safety: the signal may emit from any thread; iterate from one
    /// task at a time.
    func values(capacity: Int, overflow: SignalOverflow<SignalOverflowError>, onDrop: ((T, Int) -> Void)? = nil) -> SignalBoundedValues<T, SignalOverflowError> {
        return (self |> castError(SignalOverflowError.self)).values(capacity: capacity, overflow: overflow, onDrop: onDrop)
    }
}

extension _SignalBoundedValuesState: _SignalRoomPlace {
    /// Room as a waiting producer sees it (`put`).
    func hasRoom(_ index: Int, orRegisters wait: _SignalRoomWait) -> Bool {
        self.mutex.lock()
        let room = self.limit.hasRoom(unless: self.ring.isFull && !self.disposedByReader && !self.closed, orRegisters: wait)
        self.mutex.unlock()
        return room
    }
}
