/// A hot source of values: `putNext` delivers a value to every current
/// subscriber of `signal()`. Without replay (the default, as in the original)
/// the pipe has no memory: a subscriber receives only values put after it
/// subscribed. With `init(replay: true)` (from the ObjC twin's `SPipe`), a new
/// subscriber first receives the most recent value put, if any.
///
/// `putCompletion()` ends the pipe (an addition to the original, whose pipes
/// never end): every subscriber receives the completion; a later subscriber
/// receives it at once, on the subscribing thread (after the replayed value,
/// with replay); values put afterwards are dropped. A pipe that can also
/// fail is a `SignalPipe`.
///
/// The signals do not keep the pipe alive, as in the
/// original (whose signals hold it weakly): the pipe does not need to outlive
/// them. Subscribing after the pipe is gone gives a signal that never emits
/// (the callbacks are released at once); subscriptions alive when it goes are
/// ended without an event (as if disposed): they receive nothing more and
/// their callbacks are released then. (The signals and subscriptions hold the
/// pipe's internal broadcaster, which the pipe's deinit closes.)
///
/// Thread-safety: `@unchecked Sendable` because its state (subscribers, the
/// replayed value) lives under an internal lock and subscriber callbacks run
/// outside it, from a snapshot of the subscribers taken under the lock. Every
/// method may be called from any thread. A value is delivered on the thread
/// that puts it; `putNext` from several threads at once delivers concurrently,
/// in no defined order. With replay, a new subscriber receives the replay on
/// the subscribing thread, then (still on that thread) any value put while the
/// replay was being delivered: the replay never arrives after a newer value. A
/// `putNext` from inside a callback is delivered after the current delivery, so
/// every subscriber sees the values in the same order (and the stack does not
/// grow). This differs from the original, which delivers it at once, nested
/// inside the current delivery: there the `putNext` returns after every
/// subscriber received the new value, and the subscribers after the current
/// one receive the new value before the old one.
public final class ValuePipe<T>: @unchecked Sendable {
    // The state is the replay flag (it never changes) and whether the pipe
    // has ended.
    @usableFromInline let broadcaster: _Broadcaster<T, _PipeState>

    /// A pipe without memory.
    @inlinable
    public init() {
        self.broadcaster = _Broadcaster(value: nil, state: _PipeState(replay: false))
    }

    /// A pipe that, when `replay` is true, gives a new subscriber the most
    /// recent value put, if any.
    @inlinable
    public init(replay: Bool) {
        self.broadcaster = _Broadcaster(value: nil, state: _PipeState(replay: replay))
    }

    /// A signal of the values put from the moment of subscription (preceded by
    /// the most recent one, with replay). It completes when the pipe does
    /// (`putCompletion`).
    ///
    /// Inlinable, as `putNext`, so that the delivery path is specialized in
    /// the caller's module.
    @inlinable
    public func signal() -> Signal<T, NoError> {
        // The signal holds the broadcaster, not the pipe: once the pipe is
        // gone, its broadcaster is closed (subscribing then gives nothing).
        let broadcaster = self.broadcaster
        return Signal(fused: { makeNext, error, completed in
            return broadcaster.subscribe(makeNext, error: error, completed: completed, keepAlive: nil, { _, _ in }).0
        })
    }

    /// The signal of `signal()` typed with the error type of the caller's
    /// choice (it never fails): what `signal() |> castError(E.self)` gives,
    /// without the extra stage.
    @inlinable
    public func signal<E>(errorType: E.Type) -> Signal<T, E> {
        let broadcaster = self.broadcaster
        return Signal(fused: { makeNext, error, completed in
            return broadcaster.subscribe(makeNext, error: error, completed: completed, keepAlive: nil, { _, _ in }).0
        })
    }

    deinit {
        // The subscriptions hold the broadcaster, not the pipe: end them.
        self.broadcaster.close()
    }

    /// Delivers `next` to every current subscriber (and keeps it for replay).
    /// Dropped once the pipe has completed.
    @inlinable
    public func putNext(_ next: T) {
        self.broadcaster.publish(next) { state in
            return state.decision
        }
    }

    /// Completes every current subscriber and every later one (see the type's
    /// documentation). A second call, or a call after the pipe has been
    /// released, does nothing. From inside a callback of this pipe, the
    /// completion reaches each subscriber after the values already put from
    /// inside its callbacks; from elsewhere, before this returns.
    public func putCompletion() {
        _ = self.broadcaster.terminate(.completed) { state in
            state.ended = true
        }
    }
}
