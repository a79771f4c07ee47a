/// A mutable signal source: `set` gives it a signal to follow, `get` gives
/// everyone the latest value of that signal and every value after it.
///
/// - `set(_:)` subscribes to the new signal and disposes the subscription to
///   the previous one. It also forgets the cached value (as the ObjC twin
///   `SVariable` does), so a subscriber arriving before the new signal emits
///   does not see a value of the old one. Values that the old signal emits
///   after `set` has begun are dropped, even when they race with it from
///   another thread.
/// - `get()` replays the cached value, if any, then delivers every new one. It
///   never completes: the source's completion only stops updates.
/// - With `init(initializeOnFirstAccess:)`, the given signal is set when
///   `get()` is first subscribed to, unless `set` was called before.
///
/// Ownership: the subscription to the source holds the promise weakly and is
/// disposed when the promise deinitializes; a subscription to `get()` keeps the
/// promise (hence its source) alive until it is disposed, as in the original.
///
/// Thread-safety: `@unchecked Sendable` because all its state (cached value,
/// subscribers, source, lazy signal, `onDeinit`) lives under one internal lock,
/// and subscriber callbacks run outside it. Every method may be called from any
/// thread. A value is delivered on the thread on which the source emits it. A
/// new subscriber receives the replay on the subscribing thread, then (still
/// on that thread) any value emitted while the replay was being delivered: the
/// replay never arrives after a newer value. A `set` made from inside a
/// callback is delivered after the current delivery, so every subscriber sees
/// the values in the same order (the original delivers it at once, nested
/// inside the current delivery, so that the subscribers after the current one
/// receive the newer value first). A source emitting from several threads at
/// once delivers concurrently, in no defined order (as any signal does).
public final class Promise<T>: @unchecked Sendable {
    private struct State {
        var generation = 0
        var initializeOnFirstAccess: Signal<T, NoError>?
        var source: (any Disposable)?
        var onDeinit: (() -> Void)?
    }

    private let broadcaster: _Broadcaster<T, State>

    /// Called from `deinit`, on the thread that releases the promise.
    public var onDeinit: (() -> Void)? {
        get {
            return self.broadcaster.withState { _, state in state.onDeinit }
        }
        set {
            self.broadcaster.withState { _, state in state.onDeinit = newValue }
        }
    }

    /// A promise without a value that sets `initializeOnFirstAccess` (if not
    /// nil) as its source when `get()` is first subscribed to.
    public init(initializeOnFirstAccess: Signal<T, NoError>?) {
        self.broadcaster = _Broadcaster(value: nil, state: State(initializeOnFirstAccess: initializeOnFirstAccess))
    }

    /// A promise whose cached value is `value` until the first `set`.
    public init(_ value: T) {
        self.broadcaster = _Broadcaster(value: value, state: State())
    }

    /// A promise without a value.
    public init() {
        self.broadcaster = _Broadcaster(value: nil, state: State())
    }

    deinit {
        let (onDeinit, source) = self.broadcaster.withState { _, state -> ((() -> Void)?, (any Disposable)?) in
            let result = (state.onDeinit, state.source)
            state.onDeinit = nil
            state.source = nil
            return result
        }
        onDeinit?()
        source?.dispose()
    }

    /// Follows `signal` from now on: forgets the cached value, subscribes to
    /// `signal` and disposes the subscription to the previous source. Cancels a
    /// pending `initializeOnFirstAccess`.
    public func set(_ signal: Signal<T, NoError>) {
        let generation = self.broadcaster.withState { value, state -> Int in
            state.generation += 1
            state.initializeOnFirstAccess = nil
            value = nil
            return state.generation
        }
        self.follow(signal, generation: generation)
    }

    private func follow(_ signal: Signal<T, NoError>, generation: Int) {
        let disposable = signal.start(next: { [weak self] next in
            self?.broadcaster.publish(next) { state in
                return state.generation == generation ? .cacheAndDeliver : .drop
            }
        })
        // Concurrent `set`s may finish starting in any order: only the source
        // of the latest generation is kept, any other is disposed.
        let obsolete = self.broadcaster.withState { _, state -> (any Disposable)? in
            if state.generation == generation {
                let previous = state.source
                state.source = disposable
                return previous
            } else {
                return disposable
            }
        }
        obsolete?.dispose()
    }

    /// The cached value, if any, then every new one. Subscribing to it for the
    /// first time starts `initializeOnFirstAccess`, if given.
    public func get() -> Signal<T, NoError> {
        return Signal(fused: { makeNext, error, completed in
            let (disposable, initial) = self.broadcaster.subscribe(makeNext, error: error, completed: completed, keepAlive: self, { value, state -> (Signal<T, NoError>, Int)? in
                guard let signal = state.initializeOnFirstAccess else {
                    return nil
                }
                state.initializeOnFirstAccess = nil
                state.generation += 1
                value = nil
                return (signal, state.generation)
            })
            if let (signal, generation) = initial {
                self.follow(signal, generation: generation)
            }
            return disposable
        })
    }
}
