/// A hot source of values that can end: `putNext` delivers a value to every
/// current subscriber of `signal()`, `putError` or `putCompletion` ends
/// every current subscription with that event. After the end, a new
/// subscriber receives the same terminal event at once, on the subscribing
/// thread (after the most recent value, with replay), and values put are
/// dropped. Only the first terminal event counts.
///
/// Otherwise as `ValuePipe` (an addition to the original, which has no pipe
/// that ends): no memory unless `init(replay: true)`; the signals do not keep
/// the pipe alive, and when the pipe goes, live subscriptions end without an
/// event.
///
/// Thread-safety: every method may be called from any thread; subscriber
/// callbacks run outside the pipe's lock, on the thread that puts the event
/// (a terminal event put from inside a callback of this pipe reaches each
/// subscriber after the values already put from inside its callbacks, once
/// the current delivery is over). Values put concurrently from several
/// threads are delivered concurrently, as with `ValuePipe`; a terminal event
/// never overlaps them: it reaches a subscriber after the values being
/// delivered to it on other threads, on the thread whose delivery ends
/// last (the "Order of events" rule of signalkit.h's conventions; see
/// `_InFlightCalls`).
public final class SignalPipe<T, E>: @unchecked Sendable {
    @usableFromInline let broadcaster: _Broadcaster<T, _PipeState>

    /// A pipe that, when `replay` is true, gives a new subscriber the most
    /// recent value put, if any.
    @inlinable
    public init(replay: Bool = false) {
        self.broadcaster = _Broadcaster(value: nil, state: _PipeState(replay: replay))
    }

    /// A pipe that gives a new subscriber the last `replayCount` values put
    /// (fewer when fewer were put), oldest first; 0 or less replays nothing,
    /// 1 is `init(replay: true)`. A count is a limit, never memory reserved:
    /// the values are kept as they are put, so `Int.max` replays them all.
    @inlinable
    public init(replayCount: Int) {
        self.broadcaster = _Broadcaster(value: nil, state: _PipeState(replay: replayCount > 0))
        if replayCount > 1 {
            self.broadcaster.history = _BroadcasterHistory(capacity: replayCount)
        }
    }

    /// A pipe whose values put from inside its own callbacks are bounded:
    /// such a value waits, on the thread that is delivering, until the
    /// current delivery is over (every subscriber then gets the values in
    /// order), and a callback that puts many values at once would make
    /// that queue grow without bound, before any operator downstream sees
    /// them (an `onBackpressureBuffer` downstream sees them one at a time,
    /// after). Here a value that arrives with `capacity` values waiting on
    /// its thread is handled by `overflow` (see `SignalOverflow`): dropped
    /// (`dropNewest`, `dropOldest`, `latest`: each dropped value goes to
    /// `onDrop` with the pipe's count of drops so far, on the putting
    /// thread), or the pipe fails with the error `overflow` makes, after the
    /// values waiting (`fail`; `block`, which can never wait there: the
    /// producer is the delivering thread). Values put after that failure
    /// are dropped as after any end of the pipe, without a report. Values
    /// put from other threads, or outside a delivery, do not wait here and
    /// are not counted. A `capacity` below 1 is taken as 1. `replay` as in
    /// `init(replay:)`.
    public convenience init(replay: Bool = false, capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)? = nil) {
        self.init(replay: replay, capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: "SignalPipe")
    }

    /// The bounded pipe under another name in its errors (the C layer's).
    package init(replay: Bool, capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)?, operatorName: String) {
        let broadcaster = _Broadcaster<T, _PipeState>(value: nil, state: _PipeState(replay: replay))
        let bound = max(capacity, 1)
        let rule: _BroadcasterPendingBound<T>.Rule
        var makeError: ((SignalOverflowError) -> E)?
        switch overflow {
        case .dropNewest: rule = .dropNewest
        case .dropOldest: rule = .dropOldest
        case .latest: rule = .latest
        case let .fail(make):
            rule = .fail
            makeError = make
        case let .block(refused):
            rule = .block
            makeError = refused
        }
        broadcaster.pendingBound = _BroadcasterPendingBound(capacity: bound, rule: rule, onDrop: onDrop, fail: { [weak broadcaster] reason in
            guard let broadcaster, let makeError else {
                return
            }
            let error = makeError(SignalOverflowError(operatorName: operatorName, capacity: bound, reason: reason))
            _ = broadcaster.terminate(.failed(error)) { state in
                state.ended = true
            }
        })
        self.broadcaster = broadcaster
    }

    deinit {
        self.broadcaster.close()
    }

    /// The values put from the moment of subscription (preceded by the most
    /// recent one, with replay), then the pipe's terminal event.
    @inlinable
    public func signal() -> Signal<T, E> {
        return self.source.signal()
    }

    /// What each of the pipe's signals holds and starts (see
    /// `_SignalPipeSource`).
    @inlinable
    package var source: _SignalPipeSource<T, E> {
        return _SignalPipeSource(broadcaster: self.broadcaster)
    }

    /// Delivers `next` to every current subscriber (and keeps it for replay);
    /// dropped once the pipe has ended.
    @inlinable
    public func putNext(_ next: T) {
        self.broadcaster.publish(next) { state in
            return state.decision
        }
    }

    /// Fails every current and later subscriber with `error`; nothing if the
    /// pipe has already ended.
    public func putError(_ error: E) {
        _ = self.broadcaster.terminate(.failed(error)) { state in
            state.ended = true
        }
    }

    /// Completes every current and later subscriber; nothing if the pipe has
    /// already ended.
    public func putCompletion() {
        _ = self.broadcaster.terminate(.completed) { state in
            state.ended = true
        }
    }
}

/// What a pipe's signal holds: the pipe's broadcaster, without the pipe (a
/// signal does not keep its pipe alive). `signal()` builds a signal over it;
/// `startFusing` starts a subscription as that signal's start does, without
/// building one. `package`, for the C layer: its `sk_pipe_signal` handle
/// keeps the source (one reference, no signal object and no closure
/// context), and a subscription started on it subscribes to the pipe
/// directly.
///
/// Thread-safety: immutable; the broadcaster's methods may be called from
/// any thread.
@usableFromInline
package struct _SignalPipeSource<T, E> {
    @usableFromInline let broadcaster: _Broadcaster<T, _PipeState>

    @usableFromInline
    init(broadcaster: _Broadcaster<T, _PipeState>) {
        self.broadcaster = broadcaster
    }

    /// The signal of the pipe (`SignalPipe.signal()`).
    @inlinable
    package func signal() -> Signal<T, E> {
        let broadcaster = self.broadcaster
        return Signal(fused: { makeNext, error, completed in
            return broadcaster.subscribe(makeNext, error: error, completed: completed, keepAlive: nil, { _, _ in }).0
        })
    }

    /// Starts a subscription of the pipe, as starting `signal()` with
    /// `Signal.startFusing` does.
    @inlinable
    package func startFusing(_ makeNext: (_SubscriberLiveness) -> ((T) -> Void)?, error: ((E) -> Void)?, completed: (() -> Void)?) -> any Disposable {
        return self.broadcaster.subscribe(makeNext, error: error, completed: completed, keepAlive: nil, { _, _ in }).0
    }

    /// `startFusing(_:error:completed:)` with `receiver` in place of the
    /// error and completion callbacks: it receives the pipe's terminal event
    /// (an error of type `E`, travelling as `Any`) and is held until the
    /// subscription ends, as the callbacks would be (nothing is made for
    /// them).
    @inlinable
    package func startFusing(_ makeNext: (_SubscriberLiveness) -> ((T) -> Void)?, receiver: any _BroadcasterTerminalReceiver) -> any Disposable {
        return self.broadcaster.subscribe(makeNext, held: receiver, { _, _ in }).0
    }

    /// Starts a subscription of the pipe whose values go to `callback` by
    /// address (`_RawValueCallback`); `held` is held until the subscription
    /// has ended and its last call has returned, and receives the pipe's
    /// terminal event when it is a `_BroadcasterTerminalReceiver`.
    @inlinable
    package func start(raw callback: _RawValueCallback, held: AnyObject) -> any Disposable {
        return self.broadcaster.subscribe(raw: callback, held: held, { _, _ in }).0
    }
}
