/// Starts all `signals` (in array order) and forwards every value of every one
/// of them, as it arrives.
///
/// The first error passes through and disposes the other inputs (inputs not
/// yet started when it happens are never started). Completes when every input
/// has completed; an empty array completes at once.
///
/// Thread-safety: the inputs may emit from any thread; values are forwarded on
/// the thread they arrive on, without a lock, so inputs emitting concurrently
/// reach the subscriber concurrently (merge with `deliverOn` to serialize).
public func merge<T, E>(_ signals: [Signal<T, E>]) -> Signal<T, E> {
    return Signal<T, E> { subscriber in
        if signals.isEmpty {
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let group = _SignalInputGroup(count: signals.count, subscriber: subscriber)
        return group.start { index in
            signals[index].start(downstream: subscriber, next: { next in
                subscriber.putNext(next)
            }, error: group.error, completed: group.completed)
        }
    }
}
