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

            mainDisposable.set(signal.start(downstream: subscriber, next: { next in
                subscriber.putNext(next)
            }, error: { error in
                if subscriber.isEnded {
                    // The downstream ended (a `take` completed it during
                    // this start, maybe through operators in between):
                    // nothing to continue with.
                    return
                }
                let alternative = f(error)
                alternativeDisposable.set(alternative.start(downstream: subscriber, next: { next in
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
/// recursion: the stack does not grow with the number of restarts. The loop
/// stops as soon as the downstream is done, even inside a synchronous loop:
/// a downstream `take(n)` that completes (directly, or through `map` and
/// `filter`) ends it at once, where the original would loop forever.
public func restart<T, E>(_ signal: Signal<T, E>) -> Signal<T, E> {
    return Signal<T, E> { subscriber in
        let loop = SignalResubscriber(until: { subscriber.isEnded })
        loop.start { loop in
            return signal.start(downstream: subscriber, next: { next in
                subscriber.putNext(next)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                loop.next()
            })
        }
        return _WeakDisposable(loop)
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

/// On error, re-subscribes after a delay, on `queue` (with a `Timer`). The
/// delay grows by `delayIncrement` with each error, up to `maxDelay`: the
/// first retry waits `min(maxDelay, delayIncrement)`, the n-th
/// `min(maxDelay, n * delayIncrement)`. The delay is never reset (as in the
/// original). Values and the completion pass through; errors never do.
///
/// Disposing the subscription cancels a pending retry: its timer is
/// invalidated, so its work leaves `queue` at once (on a virtual-time queue
/// nothing stays pending, and running the queue does not move the clock to
/// the retry's deadline), as disposing `delay` or `timeout` does. (The
/// original leaves the dispatched work in place, to do nothing when it runs:
/// holding the subscription's loop for up to `maxDelay`.)
public func retry<T, E>(_ delayIncrement: Double, maxDelay: Double, onQueue queue: Queue) -> (Signal<T, E>) -> Signal<T, NoError> {
    return { signal in
        return Signal<T, NoError> { subscriber in
            let loop = SignalResubscriber(until: { subscriber.isEnded })
            let currentDelay = Atomic<Double>(value: 0.0)
            let pending = PendingRetry()
            loop.start { loop in
                return signal.start(downstream: subscriber, next: { next in
                    subscriber.putNext(next)
                }, error: { _ in
                    let delay = currentDelay.modify { value in
                        return min(maxDelay, value + delayIncrement)
                    }
                    pending.schedule(after: delay, on: queue, loop)
                }, completed: {
                    subscriber.putCompletion()
                })
            }
            return pending.disposable(with: loop)
        }
    }
}

/// Like `retry(_:maxDelay:onQueue:)`, but an error passes through (ending the
/// subscription) when `retryOnError(error)` is false, or when it is the
/// `maxRetries`-th error retried on. As in the original, `maxRetries` counts
/// the subscriptions in all, the first one included: at most
/// `maxRetries - 1` re-subscriptions follow it, and `maxRetries <= 1` retries
/// never. `retryOnError` is called for every error, including the one that
/// exhausts the retries. Each retry waits `min(maxDelay, n * delayIncrement)`
/// for the n-th retry, on `queue`. Values and the completion pass through.
/// Disposing cancels a pending retry, as in `retry(_:maxDelay:onQueue:)`.
public func retry<T, E>(retryOnError: @escaping (E) -> Bool, delayIncrement: Double, maxDelay: Double, maxRetries: Int, onQueue queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let loop = SignalResubscriber(until: { subscriber.isEnded })
            // (current delay, retries made so far)
            let retryState = Atomic<(Double, Int)>(value: (0.0, 0))
            let pending = PendingRetry()
            loop.start { loop in
                return signal.start(downstream: subscriber, next: { next in
                    subscriber.putNext(next)
                }, error: { error in
                    if !retryOnError(error) {
                        subscriber.putError(error)
                        return
                    }
                    var delay: Double?
                    retryState.modify { value in
                        let (currentDelay, retries) = value
                        // This is error number `retries + 1` retried on; the
                        // original passes it once that reaches `maxRetries`.
                        if retries + 1 >= maxRetries {
                            return value
                        }
                        let updatedDelay = min(maxDelay, currentDelay + delayIncrement)
                        delay = updatedDelay
                        return (updatedDelay, retries + 1)
                    }
                    if let delay {
                        pending.schedule(after: delay, on: queue, loop)
                    } else {
                        subscriber.putError(error)
                    }
                }, completed: {
                    subscriber.putCompletion()
                })
            }
            return pending.disposable(with: loop)
        }
    }
}

/// The pending retry of one `retry` subscription: the timer that runs the
/// loop's next step, held here so that disposing the subscription
/// invalidates it (its work leaves the queue at once), and dropped once it
/// has fired (a fired timer's completion would otherwise keep the loop
/// alive until the next error).
final class PendingRetry: Disposable, @unchecked Sendable {
    private let mutex = _Mutex()
    private var timer: Timer?
    private var disposed = false

    /// Runs `loop.next()` on `queue` after `delay` seconds, unless disposed
    /// first. Retries come one at a time (the next error can only follow the
    /// restart this one makes), so there is at most one timer to hold.
    func schedule(after delay: Double, on queue: Queue, _ loop: SignalResubscriber) {
        // A retry that can never come (a delay the clock cannot reach: 2^63
        // ns or more, infinity, or past a virtual clock's end) is not
        // scheduled, as `Queue.after` drops such work: a timer holding the
        // loop would never fire to let it go, and the loop holds this.
        guard let nanoseconds = VirtualTimeExecutor.nanoseconds(delay) else {
            return
        }
        if let executor = queue.virtualTimeExecutor, executor.nanoseconds.addingReportingOverflow(nanoseconds).overflow {
            return
        }
        let timer = Timer(timeout: delay, repeat: false, completion: { [weak self] timer in
            // Dropped before the step runs: a synchronous failure of the
            // restart schedules the next timer from inside `loop.next()`.
            self?.drop(timer)
            loop.next()
        }, queue: queue)
        self.mutex.lock()
        if self.disposed {
            self.mutex.unlock()
            return
        }
        let previous = self.timer
        self.timer = timer
        self.mutex.unlock()
        previous?.invalidate()
        timer.start()
        // A dispose between the store above and this start invalidated the
        // timer before it was armed: stop it again (not started under the
        // lock, since a start on a closed queue releases the completion,
        // and with it what the subscription holds, on this thread).
        self.mutex.lock()
        let disposedMeanwhile = self.disposed
        self.mutex.unlock()
        if disposedMeanwhile {
            timer.invalidate()
        }
    }

    private func drop(_ fired: Timer) {
        self.mutex.lock()
        let held = self.timer === fired ? self.timer.take() : nil
        self.mutex.unlock()
        withExtendedLifetime(held) {
        }
    }

    func dispose() {
        self.mutex.lock()
        self.disposed = true
        let timer = self.timer.take()
        self.mutex.unlock()
        timer?.invalidate()
    }

    /// The subscription's disposable: disposes the loop (held weakly, as
    /// only what a step started keeps it alive) and the pending retry.
    func disposable(with loop: SignalResubscriber) -> any Disposable {
        return ActionDisposable { [weak loop] in
            loop?.dispose()
            self.dispose()
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
        let loop = SignalResubscriber(until: { subscriber.isEnded })
        loop.start { loop in
            return signal.start(downstream: subscriber, next: { next in
                subscriber.putNext(next)
            }, error: { _ in
                loop.next()
            }, completed: {
                subscriber.putCompletion()
            })
        }
        return _WeakDisposable(loop)
    }
}
