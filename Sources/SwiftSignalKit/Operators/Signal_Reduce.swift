/// Folds the values with `f`, starting from `value`, and emits nothing while
/// the upstream runs; when it completes, emits the accumulated value, then
/// completes. An error passes through (without a value).
///
/// Values are folded one at a time, in the order they arrive, even when the
/// upstream emits from several threads at once (a value that arrives while
/// another is being folded is queued, and folded by the thread already
/// folding); `f` is never called under a lock. With a serial upstream
/// nothing is allocated per value (a stateful stage: see
/// `_statefulStageFinishing`).
@inlinable
public func reduceLeft<T, E>(value: T, f: @escaping (T, T) -> T) -> (Signal<T, E>) -> Signal<T, E> {
    return _statefulStageFinishing(value, _SignalReduceStep<T>(f: f))
}

/// `reduceLeft(value:f:)`'s step: the accumulator folded with each value,
/// emitted once, on completion.
@usableFromInline
struct _SignalReduceStep<T>: _SignalStep {
    @usableFromInline let f: (T, T) -> T

    @inlinable
    init(f: @escaping (T, T) -> T) {
        self.f = f
    }

    @inlinable
    func step(_ accumulated: inout T, _ value: T, _ emit: (T) -> Void) {
        accumulated = self.f(accumulated, value)
    }

    @inlinable
    func finish(_ accumulated: inout T, _ emit: (T) -> Void) {
        emit(accumulated)
    }
}

/// Like `reduceLeft(value:f:)`, but `f` also gets an `emit` closure that
/// delivers a value downstream at once (an intermediate result, for
/// example). `emit` may be called only during the call of `f` it was given
/// to. On completion, the accumulated value is emitted, then the completion.
@inlinable
public func reduceLeft<T, E>(value: T, f: @escaping (T, T, (T) -> Void) -> T) -> (Signal<T, E>) -> Signal<T, E> {
    return _statefulStageFinishing(value, _SignalReduceEmittingStep<T>(f: f))
}

/// `reduceLeft(value:f:)`'s step with `emit`: the accumulator folded with
/// each value, `f` emitting what it likes meanwhile; the accumulator
/// emitted on completion.
@usableFromInline
struct _SignalReduceEmittingStep<T>: _SignalStep {
    @usableFromInline let f: (T, T, (T) -> Void) -> T

    @inlinable
    init(f: @escaping (T, T, (T) -> Void) -> T) {
        self.f = f
    }

    @inlinable
    func step(_ accumulated: inout T, _ value: T, _ emit: (T) -> Void) {
        accumulated = self.f(accumulated, value, emit)
    }

    @inlinable
    func finish(_ accumulated: inout T, _ emit: (T) -> Void) {
        emit(accumulated)
    }
}

/// Whether a step of `reduceLeft(_:generator:)` also emits a value downstream.
///
/// The capitalised case names are the original's.
///
/// Thread-safety: an immutable value; as safe to share as its payload.
public enum Passthrough<T> {
    /// Emit nothing for this step.
    case None
    /// Emit the given value downstream.
    case Some(T)
}

extension Passthrough: Sendable where T: Sendable {
}

/// Folds the values with signals: for each upstream value `v`, in order and
/// one at a time, subscribes to `generator(current, v)`. Each
/// `(newValue, passthrough)` it emits makes `newValue` the current value and,
/// when `passthrough` is `.Some(x)`, delivers `x` downstream. When that signal
/// completes, the next upstream value (queued meanwhile) is processed. When
/// the upstream has completed, nothing is queued and no generated signal is
/// running, the final current value is delivered, then the completion.
///
/// An error of the upstream or of a generated signal passes through at once
/// (queued values are dropped). Generated signals that complete synchronously
/// are chained by a loop, not by recursion: the stack does not grow with the
/// number of values. `generator` is never called under a lock.
public func reduceLeft<T, E>(_ value: T, generator: @escaping (T, T) -> Signal<(T, Passthrough<T>), E>) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let state = SignalReduceQueueState<T, E>(value: value, generator: generator, subscriber: subscriber)
            state.setUpstream(signal.start(downstream: subscriber, next: { next in
                state.enqueue(next)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                state.upstreamCompleted()
            }))
            return _WeakDisposable(state)
        }
    }
}

/// The state of one `reduceLeft(_:generator:)` subscription.
///
/// `running` is true while a generated signal is active or a thread is inside
/// `drive()`: exactly one thread drives at a time. `starting` marks a
/// generated signal being started, so that its synchronous completion only
/// sets `completedWhileStarting` and lets the loop in `drive()` go on.
///
/// Thread-safety: every method may be called from any thread; user code (the
/// generator, the generated signals, the subscriber) runs outside the lock.
private final class SignalReduceQueueState<T, E>: Disposable, @unchecked Sendable {
    private let mutex = _Mutex()
    private var value: T
    private var queue: [T?] = []
    private var queueHead = 0
    private var running = false
    private var starting = false
    private var completedWhileStarting = false
    private var upstreamDone = false
    private var finished = false
    private var generator: ((T, T) -> Signal<(T, Passthrough<T>), E>)?
    private var subscriber: Subscriber<T, E>?
    private var upstream: (any Disposable)?
    private var current: (any Disposable)?

    init(value: T, generator: @escaping (T, T) -> Signal<(T, Passthrough<T>), E>, subscriber: Subscriber<T, E>) {
        self.value = value
        self.generator = generator
        self.subscriber = subscriber
    }

    func setUpstream(_ disposable: any Disposable) {
        self.mutex.lock()
        let disposeNow = self.finished
        if !disposeNow {
            self.upstream = disposable
        }
        self.mutex.unlock()
        if disposeNow {
            disposable.dispose()
        }
    }

    func enqueue(_ next: T) {
        self.mutex.lock()
        if self.finished {
            self.mutex.unlock()
            return
        }
        self.queue.append(next)
        if self.running {
            self.mutex.unlock()
            return
        }
        self.running = true
        self.mutex.unlock()
        self.drive()
    }

    func upstreamCompleted() {
        self.mutex.lock()
        if self.finished {
            self.mutex.unlock()
            return
        }
        self.upstreamDone = true
        if self.running {
            self.mutex.unlock()
            return
        }
        self.running = true
        self.mutex.unlock()
        self.drive()
    }

    private func updateValue(_ value: T) {
        self.mutex.lock()
        if !self.finished {
            self.value = value
        }
        self.mutex.unlock()
    }

    private func generatedCompleted() {
        self.mutex.lock()
        if self.starting {
            self.completedWhileStarting = true
            self.mutex.unlock()
            return
        }
        self.mutex.unlock()
        // This thread inherits the driving role of the generated signal.
        self.drive()
    }

    /// Processes queued values until one starts a generated signal that does
    /// not complete synchronously, or the queue is empty. Called with
    /// `running` set, by the only thread allowed to drive.
    private func drive() {
        while true {
            self.mutex.lock()
            if self.finished {
                self.running = false
                self.mutex.unlock()
                return
            }
            if self.queueHead < self.queue.count, let generator = self.generator, let subscriber = self.subscriber {
                let next = self.queue[self.queueHead]!
                self.queue[self.queueHead] = nil
                self.queueHead += 1
                if self.queueHead == self.queue.count {
                    self.queue.removeAll(keepingCapacity: true)
                    self.queueHead = 0
                }
                let currentValue = self.value
                self.starting = true
                self.completedWhileStarting = false
                self.mutex.unlock()

                // The generated signal's callbacks keep the state alive (what
                // the generator returned holds it only weakly).
                let disposable = generator(currentValue, next).start(downstream: subscriber, next: { next in
                    self.updateValue(next.0)
                    if case let .Some(value) = next.1 {
                        subscriber.putNext(value)
                    }
                }, error: { error in
                    subscriber.putError(error)
                }, completed: {
                    self.generatedCompleted()
                })

                self.mutex.lock()
                self.starting = false
                if self.finished {
                    self.running = false
                    self.mutex.unlock()
                    disposable.dispose()
                    return
                }
                let previous = self.current
                self.current = disposable
                let again = self.completedWhileStarting
                self.mutex.unlock()
                // The previous generated signal has completed: this only drops it.
                previous?.dispose()
                if !again {
                    // Its completion will drive on.
                    return
                }
            } else if self.upstreamDone {
                let finalValue = self.value
                let subscriber = self.subscriber
                self.running = false
                self.mutex.unlock()
                subscriber?.putNext(finalValue)
                subscriber?.putCompletion()
                return
            } else {
                self.running = false
                self.mutex.unlock()
                return
            }
        }
    }

    func dispose() {
        self.mutex.lock()
        if self.finished {
            self.mutex.unlock()
            return
        }
        self.finished = true
        let upstream = self.upstream
        let current = self.current
        let released = (self.generator, self.subscriber, self.queue)
        self.upstream = nil
        self.current = nil
        self.generator = nil
        self.subscriber = nil
        self.queue = []
        self.queueHead = 0
        self.mutex.unlock()

        upstream?.dispose()
        current?.dispose()
        withExtendedLifetime(released) {
        }
    }
}

