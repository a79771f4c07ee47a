/// One event of a signal, as a value: a value, an error or the completion.
///
/// The capitalised case names are the original's.
///
/// Thread-safety: an immutable value; as safe to share as its payloads.
public enum SignalEvent<T, E> {
    /// A value.
    case Next(T)
    /// The error that ended the signal.
    case Error(E)
    /// The completion that ended the signal.
    case Completion
}

extension SignalEvent: Sendable where T: Sendable, E: Sendable {
}

/// Turns every event of `signal` into a value: `.Next(value)` for each value,
/// then `.Error(error)` or `.Completion` for the terminal event, followed by
/// the completion of the resulting signal, which never fails.
///
/// The name is the original's: what is usually called *materialize* is called
/// `dematerialize` here, and the other way round. It is kept so that code
/// written for the original compiles and behaves the same.
public func dematerialize<T, E>(signal: Signal<T, E>) -> Signal<SignalEvent<T, E>, NoError> {
    return Signal<SignalEvent<T, E>, NoError> { subscriber in
        return signal.start(downstream: subscriber, next: { next in
            subscriber.putNext(.Next(next))
        }, error: { error in
            subscriber.putNext(.Error(error))
            subscriber.putCompletion()
        }, completed: {
            subscriber.putNext(.Completion)
            subscriber.putCompletion()
        })
    }
}

/// The reverse of `dematerialize`: replays each event value as the event
/// itself. `.Next(value)` becomes a value, `.Error(error)` an error and
/// `.Completion` the completion (the subscription ends with the first of the
/// two, disposing the upstream). If the upstream completes without having
/// sent a terminal event value, the result completes.
///
/// The name is the original's: what is usually called *dematerialize* is
/// called `materialize` here, and the other way round.
public func materialize<T, E>(signal: Signal<SignalEvent<T, E>, NoError>) -> Signal<T, E> {
    return Signal<T, E> { subscriber in
        return signal.start(downstream: subscriber, next: { event in
            switch event {
            case let .Next(next):
                subscriber.putNext(next)
            case let .Error(error):
                subscriber.putError(error)
            case .Completion:
                subscriber.putCompletion()
            }
        }, completed: {
            subscriber.putCompletion()
        })
    }
}
