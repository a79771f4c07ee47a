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
            let loop = SignalResubscriber(until: { subscriber.isEnded })
            let currentDelay = Atomic<Double>(value: 0.0)
            loop.start { loop in
                return signal.start(downstream: subscriber, next: { next in
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
            return _WeakDisposable(loop)
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
public func retry<T, E>(retryOnError: @escaping (E) -> Bool, delayIncrement: Double, maxDelay: Double, maxRetries: Int, onQueue queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let loop = SignalResubscriber(until: { subscriber.isEnded })
            // (current delay, retries made so far)
            let retryState = Atomic<(Double, Int)>(value: (0.0, 0))
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
            return _WeakDisposable(loop)
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
