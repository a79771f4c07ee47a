/// Calls `f` with each value just before delivering it; its result is ignored.
/// Errors and the completion pass through untouched.
///
/// Fused, as `map`: `f` composed with the stages around it, with no
/// subscriber of its own (one cost each value about as much as a map).
@inlinable
public func beforeNext<T, E, R>(_ f: @escaping (T) -> R) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(fused: { makeNext, error, completed in
            return signal.startFusing({ liveness in
                let stage = _FusedStage(f, makeNext(liveness), liveness)
                return { value in
                    let _ = stage.function(value)
                    stage.pass(value)
                }
            }, error: error, completed: completed)
        })
    }
}

/// Calls `f` with each value right after it has been delivered (after the
/// downstream callback returned); its result is ignored. Errors and the
/// completion pass through untouched.
///
/// `f` is called even if the delivery ended the subscription (for example a
/// downstream `take(1)`), since the value was delivered.
///
/// Fused, as `beforeNext`.
@inlinable
public func afterNext<T, E, R>(_ f: @escaping (T) -> R) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(fused: { makeNext, error, completed in
            return signal.startFusing({ liveness in
                let stage = _FusedStage(f, makeNext(liveness), liveness)
                return { value in
                    stage.pass(value)
                    let _ = stage.function(value)
                }
            }, error: error, completed: completed)
        })
    }
}

/// Calls `f` each time the signal is started, just before subscribing to the
/// upstream, on the thread that calls `start`.
public func beforeStarted<T, E>(_ f: @escaping () -> Void) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            f()
            return signal.start(downstream: subscriber, next: { next in
                subscriber.putNext(next)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                subscriber.putCompletion()
            })
        }
    }
}

/// Calls `f` when the upstream completes, just before delivering the
/// completion. Not called on error nor on disposal.
public func beforeCompleted<T, E>(_ f: @escaping () -> Void) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            return signal.start(downstream: subscriber, next: { next in
                subscriber.putNext(next)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                f()
                subscriber.putCompletion()
            })
        }
    }
}

/// Calls `f` when the upstream completes, right after the completion has been
/// delivered (after the downstream callback returned). Not called on error nor
/// on disposal.
public func afterCompleted<T, E>(_ f: @escaping () -> Void) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            return signal.start(downstream: subscriber, next: { next in
                subscriber.putNext(next)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                subscriber.putCompletion()
                f()
            })
        }
    }
}

/// Calls `f` exactly once per subscription, when the subscription is disposed,
/// right after the upstream subscription has been disposed; its result is
/// ignored.
///
/// A subscription is disposed either explicitly (`dispose()` on what `start`
/// returned, or by a downstream operator), or implicitly when it terminates:
/// a subscriber disposes its upstream after delivering its terminal event. So
/// `f` also runs after an error or a completion: after the downstream
/// terminal callback has returned, or, when the signal terminates
/// synchronously while it is being started, just before `start` returns. It
/// runs on the thread that disposes (or terminates) the subscription.
public func afterDisposed<T, E, R>(_ f: @escaping () -> R) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let disposable = signal.start(downstream: subscriber, next: { next in
                subscriber.putNext(next)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                subscriber.putCompletion()
            })
            return ActionDisposable {
                disposable.dispose()
                let _ = f()
            }
        }
    }
}

/// Gives each subscription a state of its own, created by `initialState()`
/// when the subscription starts, and passes it to the callbacks:
/// `next(value, state)` before each value is delivered, `error(error, state)`
/// and `completed(state)` before the terminal event is delivered, and
/// `disposed(state)` exactly once when the subscription is disposed, after
/// the upstream has been disposed. As for `afterDisposed`, a subscription is
/// also disposed when it terminates, so `disposed` follows `error` or
/// `completed`.
///
/// The callbacks run on the threads the upstream emits on; the state is not
/// protected by any lock (it is typically a class the callbacks mutate, for a
/// signal that emits serially).
public func withState<T, E, S>(_ signal: Signal<T, E>, _ initialState: @escaping () -> S, next: @escaping (T, S) -> Void = { _, _ in }, error: @escaping (E, S) -> Void = { _, _ in }, completed: @escaping (S) -> Void = { _ in }, disposed: @escaping (S) -> Void = { _ in }) -> Signal<T, E> {
    return Signal<T, E> { subscriber in
        let state = initialState()
        let disposable = signal.start(downstream: subscriber, next: { vNext in
            next(vNext, state)
            subscriber.putNext(vNext)
        }, error: { vError in
            error(vError, state)
            subscriber.putError(vError)
        }, completed: {
            completed(state)
            subscriber.putCompletion()
        })
        return ActionDisposable {
            disposable.dispose()
            disposed(state)
        }
    }
}
