import Synchronization

/// Passes the first `count` values, then completes right after delivering the
/// `count`-th one (which also disposes the upstream). Errors, and a completion
/// that comes before `count` values, pass through.
///
/// A count is a limit, never memory reserved: one larger than the upstream
/// emits (`Int.max`) passes every value.
///
/// `take(0)` (or a negative count) passes no value and does not complete
/// early: it completes when the upstream completes (or fails with it). This is
/// the original's behaviour: the completion is triggered by the `count`-th
/// value, and with a count of zero there is none.
///
/// When the upstream emits from several threads at once, exactly `count`
/// values are admitted, and the completion is delivered only after every
/// admitted value has been delivered.
///
/// Fused, as `takeWhile`: a stage with its counters per subscription, no
/// subscriber of its own (`_FusedTakeStage`); the completion is the
/// subscription's own terminal event. Inlinable, so that it is specialized
/// for the caller's value type (run unspecialized, generic code looks up
/// type metadata on every value).
@inlinable
public func take<T, E>(_ count: Int) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(fused: { makeNext, error, completed in
            return signal.startFusing({ liveness in
                let stage = _FusedTakeStage(count, makeNext(liveness), completed, liveness)
                return { value in
                    stage.run(value)
                }
            }, error: error, completed: completed)
        })
    }
}

/// Disposes the upstream subscription of an operator that has just completed
/// its downstream from a value callback, without waiting for the upstream's
/// start to return: a source that loops synchronously (`restart` over a
/// signal that completes at once) would otherwise never return. Only a
/// generator's subscription, or a `share` subscriber's (whose start runs
/// the connection's upstream: `_BroadcasterEntryBase.sharedMemberFlag`),
/// can be reached this way (a pipe's or a constant signal's ends when its
/// start returns, through the operator's own disposable, as before).
///
/// Called from inside the subscription's value callback, which its
/// subscriber owns: the unretained flags are valid for the call. (Or, by
/// `switchToLatest`, on the thread where the subscription's start is still
/// running: see `_SignalQueueState.replaceStarting`.)
@usableFromInline
func _disposeEarly(_ upstream: _SubscriberLiveness) {
    upstream.flags._withUnsafeGuaranteedRef { flags in
        if let disposable = flags as? _SubscriberDisposable {
            disposable.dispose()
        } else if let entry = flags as? _BroadcasterEntryBase, entry.isSharedMember {
            (entry as? any Disposable)?.dispose()
        }
    }
}

/// What `take(until:)` does with a value: whether to pass it downstream, and
/// whether to complete afterwards.
///
/// Thread-safety: an immutable value; safe to share between threads.
public struct SignalTakeAction: Sendable {
    /// True to deliver the value downstream.
    public let passthrough: Bool
    /// True to complete right after (after delivering the value when
    /// `passthrough` is also true).
    public let complete: Bool

    /// Makes a decision: deliver the value or not, complete or not.
    public init(passthrough: Bool, complete: Bool) {
        self.passthrough = passthrough
        self.complete = complete
    }
}

/// Asks `until` about each value: delivers it when the action says
/// `passthrough`, then completes (disposing the upstream) when it says
/// `complete`. Once `until` has asked to complete, it is not called again
/// (unlike the original, which calls it for every value a synchronous
/// upstream still emits before its start returns and the subscription can
/// be disposed: here the upstream is told to stop at once, and values it
/// emits anyway are dropped without a call). Errors and the upstream's
/// completion pass through.
///
/// Fused, as `takeWhile`: a stage with a flag per subscription, no
/// subscriber of its own (`_FusedTakeUntilStage`); the completion is the
/// subscription's own terminal event. Inlinable, so that it is specialized
/// for the caller's value type.
@inlinable
public func take<T, E>(until: @escaping (T) -> SignalTakeAction) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E>(fused: { makeNext, error, completed in
            return signal.startFusing({ liveness in
                let stage = _FusedTakeUntilStage(until, makeNext(liveness), completed, liveness)
                return { value in
                    stage.run(value)
                }
            }, error: error, completed: completed)
        })
    }
}

/// Emits nothing while the upstream runs; when it completes, emits the last
/// value it produced (nil if it produced none), then completes. An error
/// passes through without a value.
///
/// Inlinable, as `take(_:)`.
@inlinable
public func last<T, E>(signal: Signal<T, E>) -> Signal<T?, E> {
    return Signal<T?, E> { subscriber in
        // A spin lock's slot (`_SignalLatestValue`), not a mutex's: held
        // only to copy the value in or out.
        let value = _SignalLatestValue<T>()
        return signal.start(downstream: subscriber, next: { next in
            // The replaced value is released here, after the unlock.
            _ = value.exchange(next)
        }, error: { error in
            subscriber.putError(error)
        }, completed: {
            let last = value.take()
            subscriber.putNext(last)
            subscriber.putCompletion()
        })
    }
}
