/// Passes the first value, then completes and disposes the upstream (as
/// `take(1)`). An upstream that completes without a value completes without
/// one (combine with `defaultIfEmpty` for a fallback); an error passes
/// through.
///
/// Thread-safety: as `take(_:)`.
public func first<T, E>(_ signal: Signal<T, E>) -> Signal<T, E> {
    return signal |> take(1)
}

/// Passes the first value for which `predicate` holds, then completes and
/// disposes the upstream (`filter(predicate)` then `take(1)`). Completes
/// without a value when the upstream completes first.
///
/// Thread-safety: as `filter` and `take(_:)`; `predicate` runs on the
/// upstream's thread, never under a lock.
public func first<T, E>(where predicate: @escaping (T) -> Bool) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return signal |> filter(predicate) |> take(1)
    }
}

/// Passes only the value at `index` (0 for the first), then completes and
/// disposes the upstream. Completes without a value when the upstream
/// completes first; a negative index, or one the upstream never reaches
/// (`Int.max`), passes nothing and completes with the upstream. An error
/// passes through.
///
/// Thread-safety: as `skip(_:)` and `take(_:)`.
public func elementAt<T, E>(_ index: Int) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        if index < 0 {
            return signal |> filter { _ in false }
        }
        return signal |> skip(index) |> take(1)
    }
}

/// Passes every value; when the upstream completes without having emitted
/// one, emits `value` first, then the completion. An error passes through
/// (without `value`).
///
/// Thread-safety: the upstream may emit from any thread (one atomic flag per
/// subscription); `value` is emitted on the thread of the completion.
public func defaultIfEmpty<T, E>(_ value: T) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let emitted = _SignalFlag()
            return signal.start(downstream: subscriber, next: { next in
                _ = emitted.set()
                subscriber.putNext(next)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                if !emitted.isSet {
                    subscriber.putNext(value)
                }
                subscriber.putCompletion()
            })
        }
    }
}

/// Passes the values of the upstream until `notifier` emits a value: then
/// completes and disposes both. `notifier` is started first, so one that
/// emits at once completes the subscription before the upstream starts
/// (the upstream then never starts). An error of either passes through and
/// disposes both; `notifier` completing without a value changes nothing;
/// the upstream's completion completes and disposes `notifier`.
///
/// Thread-safety: either signal may emit from any thread; nothing is called
/// under a lock. Callbacks run on the thread of the event that causes them.
public func takeUntil<T, U, E>(_ notifier: Signal<U, E>) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let disposables = DisposableSet()
            disposables.add(notifier.start(downstream: subscriber, next: { _ in
                subscriber.putCompletion()
            }, error: { error in
                subscriber.putError(error)
            }))
            if subscriber.isEnded {
                return disposables
            }
            disposables.add(signal.start(downstream: subscriber, next: { next in
                subscriber.putNext(next)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                subscriber.putCompletion()
            }))
            return disposables
        }
    }
}
