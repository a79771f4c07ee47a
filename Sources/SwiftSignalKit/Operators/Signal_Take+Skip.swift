/// Drops the first `count` values, then passes every value. Errors and the
/// completion pass through. A count of zero or less drops nothing; a count
/// is a limit, never memory reserved: one larger than the upstream emits
/// (`Int.max`) drops every value.
///
/// Thread-safety: the upstream may emit from any thread; exactly `count`
/// values are dropped however many threads emit at once (one atomic counter,
/// no lock). Callbacks run on the upstream's thread.
///
/// Fused, as `skipWhile`: a stage with a counter per subscription, no
/// subscriber of its own (`_FusedSkipStage`). Inlinable, so that it is
/// specialized for the caller's value type.
@inlinable
public func skip<T, E>(_ count: Int) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(fused: { makeNext, error, completed in
            return signal.startFusing({ liveness in
                let stage = _FusedSkipStage(count, makeNext(liveness), liveness)
                return { value in
                    stage.run(value)
                }
            }, error: error, completed: completed)
        })
    }
}

/// Drops values while `predicate` holds; from the first value for which it
/// does not, passes that value and every later one without calling
/// `predicate` again. Errors and the completion pass through.
///
/// Thread-safety: the upstream may emit from any thread; `predicate` runs on
/// the upstream's thread, never under a lock (with a serial upstream, one
/// value at a time). Callbacks run on the upstream's thread.
///
/// Fused, as `filter`: a stage with a flag per subscription, no subscriber
/// of its own (`_FusedSkipWhileStage`). Inlinable, so that it is
/// specialized for the caller's value type.
@inlinable
public func skipWhile<T, E>(_ predicate: @escaping (T) -> Bool) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(fused: { makeNext, error, completed in
            return signal.startFusing({ liveness in
                let stage = _FusedSkipWhileStage(predicate, makeNext(liveness), liveness)
                return { value in
                    stage.run(value)
                }
            }, error: error, completed: completed)
        })
    }
}

/// Passes values while `predicate` holds; at the first value for which it
/// does not, completes (passing that value first when `inclusive` is true)
/// and disposes the upstream at once, even while the upstream's start is
/// still running. `predicate` is not called again afterwards. Errors and an
/// earlier completion pass through.
///
/// Thread-safety: as `skipWhile`; exactly one value ends the subscription
/// when several threads emit at once.
///
/// Fused, as `skipWhile`: a stage with a flag per subscription, no
/// subscriber of its own (`_FusedTakeWhileStage`); the completion is the
/// subscription's own terminal event (after the value calls in flight,
/// then the upstream disposed).
@inlinable
public func takeWhile<T, E>(inclusive: Bool = false, _ predicate: @escaping (T) -> Bool) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(fused: { makeNext, error, completed in
            return signal.startFusing({ liveness in
                let stage = _FusedTakeWhileStage(predicate, inclusive: inclusive, makeNext(liveness), completed, liveness)
                return { value in
                    stage.run(value)
                }
            }, error: error, completed: completed)
        })
    }
}
