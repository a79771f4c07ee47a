/// Transforms every value with `f`; errors and completion pass through.
///
/// Fused: a chain of `map`s and `filter`s is
/// started as one subscription to its source, with the functions composed.
@inlinable
public func map<T, E, R>(_ f: @escaping (T) -> R) -> (Signal<T, E>) -> Signal<R, E> {
    return { signal in
        return Signal<R, E>(fused: { makeNext, error, completed in
            return signal.startFusing({ liveness in
                let stage = _FusedStage(f, makeNext(liveness), liveness)
                return { value in
                    stage.pass(stage.function(value))
                }
            }, error: error, completed: completed)
        })
    }
}

/// Passes only the values for which `f` returns true.
///
/// Fused, as `map`.
@inlinable
public func filter<T, E>(_ f: @escaping (T) -> Bool) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(fused: { makeNext, error, completed in
            return signal.startFusing({ liveness in
                let stage = _FusedPredicateStage(f, makeNext(liveness), liveness)
                return { value in
                    stage.run(value)
                }
            }, error: error, completed: completed)
        })
    }
}

/// Maps the non-nil values of an optional signal with `f`; nil passes through as nil.
public func flatMap<T, E, R>(_ f: @escaping (T) -> R) -> (Signal<T?, E>) -> Signal<R?, E> {
    return { signal in
        return Signal<R?, E> { subscriber in
            return signal.start(downstream: subscriber, next: { next in
                if let next {
                    subscriber.putNext(f(next))
                } else {
                    subscriber.putNext(nil)
                }
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                subscriber.putCompletion()
            })
        }
    }
}

/// Transforms the error with `f`; values and completion pass through.
public func mapError<T, E, R>(_ f: @escaping (E) -> R) -> (Signal<T, E>) -> Signal<T, R> {
    return { signal in
        return Signal<T, R> { subscriber in
            return signal.start(downstream: subscriber, next: { next in
                subscriber.putNext(next)
            }, error: { error in
                subscriber.putError(f(error))
            }, completed: {
                subscriber.putCompletion()
            })
        }
    }
}

/// Gives a signal that cannot fail any error type.
///
/// Fused, as `map`: it adds nothing to a subscription.
@inlinable
public func castError<T, E>(_ type: E.Type) -> (Signal<T, NoError>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(fused: { makeNext, error, completed in
            // The upstream cannot fail, so the error callback is never
            // called; it is still held as long as the subscription (by the
            // completion callback), as an unfused subscriber holds its
            // callbacks: what it captures may live nowhere else (the loop of
            // a `restartIfError` does).
            guard let error else {
                return signal.startFusing(makeNext, error: nil, completed: completed)
            }
            return signal.startFusing(makeNext, error: nil, completed: {
                withExtendedLifetime(error) {}
                completed?()
            })
        })
    }
}

/// Drops a value equal to the one delivered just before it.
///
/// Inlinable, so that it is specialized for the caller's value type (run
/// unspecialized, generic code looks up type metadata on every value).
@inlinable
public func distinctUntilChanged<T: Equatable, E>(_ signal: Signal<T, E>) -> Signal<T, E> {
    return signal |> distinctUntilChanged(isEqual: { $0 == $1 })
}

/// Drops a value that `isEqual` says equals the last value delivered.
/// `isEqual` is called outside any lock.
///
/// Fused, as `filter`: a filter with a state per subscription (the last
/// value delivered, made when the subscription starts), so it adds no
/// subscriber of its own to a chain. Inlinable, as `distinctUntilChanged(_:)`.
@inlinable
public func distinctUntilChanged<T, E>(isEqual: @escaping (T, T) -> Bool) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(fused: { makeNext, error, completed in
            return signal.startFusing({ liveness in
                let stage = _FusedDistinctStage(isEqual, makeNext(liveness), liveness)
                return { value in
                    stage.run(value)
                }
            }, error: error, completed: completed)
        })
    }
}
