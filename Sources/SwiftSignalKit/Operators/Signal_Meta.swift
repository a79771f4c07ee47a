/// Starts `signal`, maps each of its values to an inner signal with `f` (called
/// outside any lock) and hands the inner signals to a `_SignalQueueState` of the
/// given mode.
@inlinable
func metaSignal<T, R, E>(_ signal: Signal<T, E>, queueMode: Bool, throttleMode: Bool, _ f: @escaping (T) -> Signal<R, E>) -> Signal<R, E> {
    return metaSignal(signal, queueMode: queueMode, throttleMode: throttleMode, enqueue: { state, next in
        state.enqueueSignal(f(next))
    })
}

/// `metaSignal` over a signal of signals (`switchToLatest`, `queue`,
/// `throttled`): each inner signal is enqueued as it was delivered,
/// borrowed (an identity `f` returned it retained, and it was released
/// after: two reference-count operations an inner signal).
@inlinable
func metaSignal<R, E>(signals signal: Signal<Signal<R, E>, E>, queueMode: Bool, throttleMode: Bool) -> Signal<R, E> {
    return metaSignal(signal, queueMode: queueMode, throttleMode: throttleMode, enqueue: { state, next in
        state.enqueueSignal(next)
    })
}

/// The shared body: `enqueue` hands each value of the outer signal to the
/// state as an inner signal.
@inlinable
func metaSignal<T, R, E>(_ signal: Signal<T, E>, queueMode: Bool, throttleMode: Bool, enqueue: @escaping (_SignalQueueState<R, E>, T) -> Void) -> Signal<R, E> {
    return Signal<R, E> { subscriber in
        let state = _SignalQueueState<R, E>(subscriber: subscriber, queueMode: queueMode, throttleMode: throttleMode)
        state.beginWithDisposable(signal.startFusing({ outer in
            outer.linkDownstream(subscriber)
            return { next in
                enqueue(state, next)
                if state.subscriber.isTerminated {
                    // The inner signal ended the subscription (an error, or
                    // a downstream `take`), possibly while the outer start is
                    // still running: end the outer subscription now, so that
                    // it starts nothing more (see `_disposeEarly`).
                    _disposeEarly(outer)
                }
            }
        }, error: { error in
            state.putError(error)
        }, completed: {
            state.beginCompletion()
        }))
        let disposer = _UnretainedDisposable(state)
        state.disposer = disposer
        return disposer
    }
}

/// Forwards the values of the latest inner signal: each new inner signal is
/// started, then the one it replaces is disposed (as in the original: so a new
/// inner signal that joins something shared with the previous one, such as a
/// `Multicast` key, finds it still held). Events of a replaced inner signal
/// are dropped, also those that come while the new one starts.
///
/// An error of the outer or of the current inner signal passes through and
/// disposes everything. Completes once the outer signal has completed and the
/// current inner signal (if any) has completed.
///
/// Thread-safety: the outer signal may emit from any thread; inner signals are
/// started on the thread that emitted them, never under a lock.
@inlinable
public func switchToLatest<T, E>(_ signal: Signal<Signal<T, E>, E>) -> Signal<T, E> {
    return metaSignal(signals: signal, queueMode: false, throttleMode: false)
}

/// Runs the inner signals one after another, in the order the outer signal
/// emits them: an inner signal that arrives while another runs waits until all
/// earlier ones have completed.
///
/// An error of the outer or of the running inner signal passes through and
/// disposes everything (waiting signals are dropped unstarted). Completes once
/// the outer signal has completed and every inner signal has completed.
///
/// Inner signals that complete synchronously do not grow the stack, however
/// many are waiting.
///
/// Thread-safety: the outer signal may emit from any thread; an inner signal is
/// started on the thread that emitted it or on the one where its predecessor
/// completed, never under a lock.
@inlinable
public func queue<T, E>(_ signal: Signal<Signal<T, E>, E>) -> Signal<T, E> {
    return metaSignal(signals: signal, queueMode: true, throttleMode: false)
}

/// Like `queue`, but only the latest waiting inner signal is kept: while one
/// runs, a newly arrived inner signal replaces the one waiting (which is
/// dropped unstarted). The running one is never interrupted.
///
/// Errors, completion, stack use and threading: as `queue`.
@inlinable
public func throttled<T, E>(_ signal: Signal<Signal<T, E>, E>) -> Signal<T, E> {
    return metaSignal(signals: signal, queueMode: true, throttleMode: true)
}

/// Maps each value to a signal with `f` and forwards the values of the latest
/// one: `map(f)` followed by `switchToLatest`.
@inlinable
public func mapToSignal<T, R, E>(_ f: @escaping (T) -> Signal<R, E>) -> (Signal<T, E>) -> Signal<R, E> {
    return { signal in
        return metaSignal(signal, queueMode: false, throttleMode: false, f)
    }
}

/// `mapToSignal` for an outer signal that cannot fail: the inner signals bring
/// the error type.
@inlinable
public func mapToSignalPromotingError<T, R, E>(_ f: @escaping (T) -> Signal<R, E>) -> (Signal<T, NoError>) -> Signal<R, E> {
    return { signal in
        return Signal<R, E> { subscriber in
            let state = _SignalQueueState<R, E>(subscriber: subscriber, queueMode: false, throttleMode: false)
            state.beginWithDisposable(signal.start(downstream: subscriber, next: { next in
                state.enqueueSignal(f(next))
            }, completed: {
                state.beginCompletion()
            }))
            let disposer = _UnretainedDisposable(state)
            state.disposer = disposer
            return disposer
        }
    }
}

/// Maps each value to a signal with `f` and runs those signals one after
/// another: `map(f)` followed by `queue`.
@inlinable
public func mapToQueue<T, R, E>(_ f: @escaping (T) -> Signal<R, E>) -> (Signal<T, E>) -> Signal<R, E> {
    return { signal in
        return metaSignal(signal, queueMode: true, throttleMode: false, f)
    }
}

/// Maps each value to a signal with `f` and runs them one at a time, keeping
/// only the latest waiting one: `map(f)` followed by `throttled`.
@inlinable
public func mapToThrottled<T, R, E>(_ f: @escaping (T) -> Signal<R, E>) -> (Signal<T, E>) -> Signal<R, E> {
    return { signal in
        return metaSignal(signal, queueMode: true, throttleMode: true, f)
    }
}

/// Forwards the values of the signal, and once it has completed, those of
/// `nextSignal`: `cached |> then(remote)`. An error of either passes through
/// (an error of the first means `nextSignal` is never started). Completes when
/// `nextSignal` completes.
///
/// `nextSignal` is started once the start of the first signal has returned (or
/// from the first's asynchronous completion), never from inside a synchronous
/// completion. Nested chains (`s |> then(a) |> then(b) |> ...`, or
/// `a |> then(b |> then(c))`) run as one flat sequence (see `_ThenParts`):
/// starting one, delivering its values and releasing it use constant stack
/// however deep the nesting, where the original grows the stack with every
/// level.
public func then<T, E>(_ nextSignal: Signal<T, E>) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(then: _ThenParts(first: signal, next: nextSignal))
    }
}

/// A signal that calls `generator` each time it is started and forwards the
/// events of the signal it returns. `generator` runs on the starting thread.
public func deferred<T, E>(_ generator: @escaping () -> Signal<T, E>) -> Signal<T, E> {
    return Signal<T, E> { subscriber in
        return generator().start(downstream: subscriber, next: { next in
            subscriber.putNext(next)
        }, error: { error in
            subscriber.putError(error)
        }, completed: {
            subscriber.putCompletion()
        })
    }
}

/// Drops every value; passes only the terminal event (error or completion).
public func ignoreValues<T, E>(_ signal: Signal<T, E>) -> Signal<Never, E> {
    return Signal<Never, E> { subscriber in
        return signal.start(downstream: subscriber, error: { error in
            subscriber.putError(error)
        }, completed: {
            subscriber.putCompletion()
        })
    }
}
