/// On error, subscribes to `f(error)` and continues with it: its values, its
/// error and its completion are delivered downstream. Values and the
/// completion of the first signal pass through.
///
/// Disposing the subscription disposes both the first subscription and the
/// alternative one (if it was started, or as soon as it is). `f` is not
/// called for an error that arrives after the subscription was disposed.
public func `catch`<T, E, R>(_ f: @escaping (E) -> Signal<T, R>) -> (Signal<T, E>) -> Signal<T, R> {
    return { signal in
        return Signal<T, R> { subscriber in
            let mainDisposable = MetaDisposable()
            let alternativeDisposable = MetaDisposable()

            mainDisposable.set(signal.start(next: { next in
                subscriber.putNext(next)
            }, error: { error in
                let alternative = f(error)
                alternativeDisposable.set(alternative.start(next: { next in
                    subscriber.putNext(next)
                }, error: { error in
                    subscriber.putError(error)
                }, completed: {
                    subscriber.putCompletion()
                }))
            }, completed: {
                subscriber.putCompletion()
            }))

            return ActionDisposable {
                mainDisposable.dispose()
                alternativeDisposable.dispose()
            }
        }
    }
}

/// Re-subscribes to `signal` each time it completes, forever, until the
/// subscription is disposed. Values pass through; an error passes through and
/// ends the loop. The resulting signal never completes on its own.
///
/// A signal that completes synchronously is restarted by a loop, not by
/// recursion: the stack does not grow with the number of restarts. Note that a
/// downstream `take` that completes during a synchronous loop cannot stop it
/// before `start` has returned (no disposable exists yet), so a signal that
/// always completes synchronously loops forever, as in the original.
public func restart<T, E>(_ signal: Signal<T, E>) -> Signal<T, E> {
    return Signal<T, E> { subscriber in
        let loop = SignalResubscriber()
        loop.start {
            return signal.start(next: { next in
                subscriber.putNext(next)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                loop.next()
            })
        }
        return loop
    }
}

/// The same as `restart`: re-subscribes each time the signal completes, until
/// disposed; errors pass through.
///
/// `latestValue` is ignored, as it is in the original (which never uses it);
/// it is kept only so that code written for the original compiles.
public func recurse<T, E>(_ latestValue: T?) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return restart(signal)
    }
}

/// On error, re-subscribes after a delay, on `queue` (with `Queue.after`). The
/// delay grows by `delayIncrement` with each error, up to `maxDelay`: the
/// first retry waits `min(maxDelay, delayIncrement)`, the n-th
/// `min(maxDelay, n * delayIncrement)`. The delay is never reset (as in the
/// original). Values and the completion pass through; errors never do.
///
/// Disposing the subscription cancels a pending retry (the timer still fires,
/// but does nothing).
public func retry<T, E>(_ delayIncrement: Double, maxDelay: Double, onQueue queue: Queue) -> (Signal<T, E>) -> Signal<T, NoError> {
    return { signal in
        return Signal<T, NoError> { subscriber in
            let loop = SignalResubscriber()
            let currentDelay = Atomic<Double>(value: 0.0)
            loop.start {
                return signal.start(next: { next in
                    subscriber.putNext(next)
                }, error: { _ in
                    let delay = currentDelay.modify { value in
                        return min(maxDelay, value + delayIncrement)
                    }
                    queue.after(delay) {
                        loop.next()
                    }
                }, completed: {
                    subscriber.putCompletion()
                })
            }
            return loop
        }
    }
}

/// Like `retry(_:maxDelay:onQueue:)`, but an error passes through (ending the
/// subscription) when `retryOnError(error)` is false, or when `maxRetries`
/// retries have already been made. So at most `maxRetries` re-subscriptions
/// happen after the first subscription; `maxRetries <= 0` retries never.
/// `retryOnError` is called for every error, including the one that
/// exhausts the retries. Each retry waits `min(maxDelay, n * delayIncrement)`
/// for the n-th retry, on `queue`. Values and the completion pass through.
public func retry<T, E>(retryOnError: @escaping (E) -> Bool, delayIncrement: Double, maxDelay: Double, maxRetries: Int, onQueue queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let loop = SignalResubscriber()
            // (current delay, retries made so far)
            let retryState = Atomic<(Double, Int)>(value: (0.0, 0))
            loop.start {
                return signal.start(next: { next in
                    subscriber.putNext(next)
                }, error: { error in
                    if !retryOnError(error) {
                        subscriber.putError(error)
                        return
                    }
                    var delay: Double?
                    retryState.modify { value in
                        let (currentDelay, retries) = value
                        if retries >= maxRetries {
                            return value
                        }
                        let updatedDelay = min(maxDelay, currentDelay + delayIncrement)
                        delay = updatedDelay
                        return (updatedDelay, retries + 1)
                    }
                    if let delay {
                        queue.after(delay) {
                            loop.next()
                        }
                    } else {
                        subscriber.putError(error)
                    }
                }, completed: {
                    subscriber.putCompletion()
                })
            }
            return loop
        }
    }
}

/// Re-subscribes at once each time the signal fails, until disposed; the
/// errors never pass. Values and the completion pass through.
///
/// A signal that fails synchronously is re-subscribed by a loop, not by
/// recursion: the stack does not grow with the number of retries.
public func restartIfError<T, E>(_ signal: Signal<T, E>) -> Signal<T, NoError> {
    return Signal<T, NoError> { subscriber in
        let loop = SignalResubscriber()
        loop.start {
            return signal.start(next: { next in
                subscriber.putNext(next)
            }, error: { _ in
                loop.next()
            }, completed: {
                subscriber.putCompletion()
            })
        }
        return loop
    }
}

/// Runs a chain of subscriptions that follow one another (restart, retry,
/// feedback loops), each started by a `step`, as a loop rather than by
/// recursion.
///
/// `start(step)` runs the first step; `next()` asks for another one (typically
/// from the completion of the subscription the previous step started). When
/// `next()` is called while a step is running (the subscription it started
/// ended synchronously), it only records the request and the running loop
/// performs it once the step returns: the stack never grows with the number
/// of iterations. At most one step runs at a time.
///
/// The step returns the disposable of what it started (or nil when it started
/// nothing); the resubscriber holds the latest one. Disposing it disposes that
/// subscription, stops the loop and releases the step (and so everything the
/// step captured); a subscription started by a step that was running while it
/// was disposed is disposed as soon as the step returns.
///
/// Thread-safety: every method may be called from any thread; the step runs
/// without any lock held.
final class SignalResubscriber: Disposable, @unchecked Sendable {
    private let mutex = _Mutex()
    private var disposed = false
    private var running = false
    private var pending = false
    private var step: (() -> (any Disposable)?)?
    private var current: (any Disposable)?

    init() {
    }

    /// Installs `step` and runs it for the first time (unless already disposed).
    func start(_ step: @escaping () -> (any Disposable)?) {
        self.mutex.lock()
        if self.disposed {
            self.mutex.unlock()
            return
        }
        self.step = step
        self.mutex.unlock()
        self.next()
    }

    /// Runs the step again: at once on this thread if no step is running,
    /// otherwise right after the running one returns, on its thread.
    func next() {
        self.mutex.lock()
        if self.disposed || self.step == nil {
            self.mutex.unlock()
            return
        }
        if self.running {
            self.pending = true
            self.mutex.unlock()
            return
        }
        self.running = true
        self.mutex.unlock()

        while true {
            self.mutex.lock()
            guard !self.disposed, let step = self.step else {
                self.running = false
                self.mutex.unlock()
                return
            }
            self.pending = false
            self.mutex.unlock()

            let disposable = step()

            self.mutex.lock()
            if self.disposed {
                self.running = false
                self.mutex.unlock()
                disposable?.dispose()
                return
            }
            let previous = self.current
            self.current = disposable
            let again = self.pending
            if !again {
                self.running = false
            }
            self.mutex.unlock()

            // The previous subscription has ended already: this only drops it.
            if let previous, previous !== disposable {
                previous.dispose()
            }
            if !again {
                return
            }
        }
    }

    func dispose() {
        self.mutex.lock()
        if self.disposed {
            self.mutex.unlock()
            return
        }
        self.disposed = true
        let current = self.current
        let step = self.step
        self.current = nil
        self.step = nil
        self.mutex.unlock()

        current?.dispose()
        // The step (and what it captured) is released here, outside the lock.
        withExtendedLifetime(step) {
        }
    }
}
