/// Runs `signals` one after the other: each starts when the one before it
/// completes, and the whole completes after the last. An error passes through
/// and stops the sequence (the later signals never start). An empty array
/// completes at once. (Each signal `then` the next: the stack does not grow
/// with the number of signals that complete synchronously.)
///
/// Thread-safety: each signal is started on the thread where its predecessor
/// completed (the first on the subscribing thread); nothing is called under a
/// lock.
public func concat<T, E>(_ signals: [Signal<T, E>]) -> Signal<T, E> {
    guard var result = signals.first else {
        return Signal<T, E>.complete()
    }
    for next in signals.dropFirst() {
        result = result |> then(next)
    }
    return result
}

/// Emits `value` first, on the subscribing thread, then the values of the
/// upstream (started afterwards, unless a downstream `take` ended the
/// subscription on `value`). Errors and the completion pass through.
///
/// Fused (see `_SubscriberLiveness`): the upstream's values reach the
/// downstream with no subscriber of this operator's between.
///
/// Thread-safety: as `then`.
@inlinable
public func startWith<T, E>(_ value: T) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(delivering: { subscriber, next in
            if let next {
                subscriber.putNext(value, through: next)
            }
            if subscriber.isEnded {
                return EmptyDisposable
            }
            let upstreamNext: ((T) -> Void)?
            if let next {
                upstreamNext = { value in
                    subscriber.putNext(value, through: next)
                }
            } else {
                upstreamNext = nil
            }
            return signal.start(downstream: subscriber, next: upstreamNext, error: { error in
                subscriber.putError(error)
            }, completed: {
                subscriber.putCompletion()
            })
        })
    }
}
