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
/// the current delivery is over). Events put concurrently from several
/// threads are delivered concurrently, as with `ValuePipe`: a terminal event
/// may then reach a subscriber while another thread's value is still being
/// delivered to it.
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
}
