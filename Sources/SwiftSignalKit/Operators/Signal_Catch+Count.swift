/// Re-subscribes at once when the signal fails, at most `count` times; the
/// error after the last retry passes through. A count of zero or less never
/// retries; `Int.max` retries for ever (a count is a limit, never memory
/// reserved). Values and the completion pass through (values of every attempt:
/// a retry starts the signal anew).
///
/// A signal that fails synchronously is re-subscribed by a loop, not by
/// recursion: the stack does not grow with the number of retries.
///
/// Thread-safety: the signal may fail on any thread; each retry starts on the
/// thread of the error that causes it, never under a lock.
public func retry<T, E>(count: Int) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let loop = SignalResubscriber(until: { subscriber.isEnded })
            let retries = _SignalCounter()
            loop.start { loop in
                return signal.start(downstream: subscriber, next: { next in
                    subscriber.putNext(next)
                }, error: { error in
                    if retries.passedLimit(count) {
                        subscriber.putError(error)
                    } else {
                        loop.next()
                    }
                }, completed: {
                    subscriber.putCompletion()
                })
            }
            return _WeakDisposable(loop)
        }
    }
}

/// `retry(count:)` with a pause: each retry starts `delay` seconds after the
/// error, on `queue`. Disposing the subscription cancels a pending retry (its
/// timer leaves `queue` at once), as with `retry(_:maxDelay:onQueue:)`. A
/// delay the clock cannot reach (infinity, NaN) means the retry never comes.
///
/// Thread-safety: as `retry(count:)`; retries start on `queue`.
public func retry<T, E>(count: Int, delay: Double, queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let loop = SignalResubscriber(until: { subscriber.isEnded })
            let retries = _SignalCounter()
            let pending = PendingRetry()
            loop.start { loop in
                return signal.start(downstream: subscriber, next: { next in
                    subscriber.putNext(next)
                }, error: { error in
                    if retries.passedLimit(count) {
                        subscriber.putError(error)
                    } else {
                        pending.schedule(after: delay, on: queue, loop)
                    }
                }, completed: {
                    subscriber.putCompletion()
                })
            }
            return pending.disposable(with: loop)
        }
    }
}
