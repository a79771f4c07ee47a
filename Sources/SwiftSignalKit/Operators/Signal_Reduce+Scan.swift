/// Folds the values with `f`, starting from `initial`, and emits every
/// intermediate result: for values `a, b`, emits `f(initial, a)`, then
/// `f(f(initial, a), b)`. `initial` itself is not emitted (put `startWith`
/// after it for that). Errors and the completion pass through.
///
/// Values are folded one at a time, in the order they arrive, even when the
/// upstream emits from several threads at once (a value that arrives while
/// another is being folded waits, and the thread already folding folds it
/// and delivers its result); `f` is never called under a lock. With a serial
/// upstream nothing is allocated per value.
///
/// Thread-safety: the upstream may emit from any thread; results are
/// delivered on the thread that folds them.
public func scan<T, E, A>(_ initial: A, _ f: @escaping (A, T) -> A) -> (Signal<T, E>) -> Signal<A, E> {
    return { signal in
        return Signal<A, E> { subscriber in
            var accumulated = initial
            let drain = SignalSerialDrain<SignalEvent<T, E>> { event in
                switch event {
                case let .Next(next):
                    accumulated = f(accumulated, next)
                    subscriber.putNext(accumulated)
                    return true
                case let .Error(error):
                    subscriber.putError(error)
                    return false
                case .Completion:
                    subscriber.putCompletion()
                    return false
                }
            }
            return _WeakDisposable(drain.subscribe(to: signal, for: subscriber))
        }
    }
}

/// Emits each value paired with the one before it: for `a, b, c`, emits
/// `(a, b)`, then `(b, c)`. The first value emits nothing. Errors and the
/// completion pass through.
///
/// Thread-safety: the upstream may emit from any thread; the previous value
/// is exchanged under a lock that is never held while anything is called or
/// released (values emitted concurrently pair in the order the lock
/// admitted them). Pairs are delivered on the upstream's thread.
public func pairwise<T, E>(_ signal: Signal<T, E>) -> Signal<(T, T), E> {
    return Signal<(T, T), E> { subscriber in
        let previous = _SignalLatestValue<T>()
        return signal.start(downstream: subscriber, next: { next in
            if let before = previous.exchange(next) {
                subscriber.putNext((before, next))
            }
        }, error: { error in
            subscriber.putError(error)
        }, completed: {
            subscriber.putCompletion()
        })
    }
}
