/// The state `feedbackLoop` passes to `once`: `.initial` before any value has
/// been produced, then `.loop(accumulated)`.
///
/// Thread-safety: an immutable value; as safe to share as its payload.
public enum SignalFeedbackLoopState<T> {
    /// No value has been produced yet.
    case initial
    /// The value accumulated so far.
    case loop(T)
}

extension SignalFeedbackLoopState: Sendable where T: Sendable {
}

/// Runs `once` over and over, feeding each run the state the previous runs
/// produced.
///
/// Each iteration calls `once(state)`. When it returns a signal, the loop
/// subscribes to it: each value `v` it emits turns the state into `.loop(v)`
/// (the first value ever) or `.loop(reduce(previous, v))`; when it completes,
/// the loop iterates again with the updated state. When `once` returns nil,
/// the resulting signal completes. An error of a signal from `once` passes
/// through and ends the loop.
///
/// As in the original, the resulting signal emits no values (`R` is free: the
/// caller picks it): only its completion or its error is observable; the
/// state is only seen by `once`.
///
/// The state passed to `once` is where this differs from the original, which
/// never records a value (its state starts as nil and only a non-nil state is
/// reduced) and calls `once(.initial)` at every iteration: there `once` never
/// sees `.loop`. Here it does, as the type's cases describe; a `once` that
/// ignores its argument behaves the same in both.
///
/// Signals that complete synchronously are chained by a loop, not by
/// recursion: the stack does not grow with the number of iterations. The
/// values of one signal are reduced one at a time, in order, even when it
/// emits from several threads. `once` and `reduce` are never called under a
/// lock. Disposing the subscription disposes the running signal and stops the
/// loop.
public func feedbackLoop<R1, R, E>(once: @escaping (SignalFeedbackLoopState<R1>) -> Signal<R1, E>?, reduce: @escaping (R1, R1) -> R1) -> Signal<R, E> {
    return Signal<R, E> { subscriber in
        let loop = SignalResubscriber(until: { subscriber.isEnded })
        let state = Atomic<SignalFeedbackLoopState<R1>>(value: .initial)
        loop.start { loop in
            guard let signal = once(state.with { $0 }) else {
                subscriber.putCompletion()
                return nil
            }
            // Only this drain updates the state while `signal` runs, and the
            // next `once` runs after its completion has been drained.
            let drain = SignalSerialDrain<SignalEvent<R1, E>> { event in
                switch event {
                case let .Next(next):
                    let previous = state.with { $0 }
                    let updated: SignalFeedbackLoopState<R1>
                    switch previous {
                    case .initial:
                        updated = .loop(next)
                    case let .loop(previousValue):
                        updated = .loop(reduce(previousValue, next))
                    }
                    let _ = state.swap(updated)
                    return true
                case let .Error(error):
                    subscriber.putError(error)
                    return false
                case .Completion:
                    loop.next()
                    return false
                }
            }
            return _WeakDisposable(drain.subscribe(to: signal, for: subscriber))
        }
        return _WeakDisposable(loop)
    }
}
