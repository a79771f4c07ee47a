/// A mutable value that can be observed: `set` stores a value and delivers it
/// to every subscriber; `get()` replays the current value, if any, then
/// delivers every new one. It never completes.
///
/// With `ignoreRepeated`, a value equal (`==`) to the current one is dropped:
/// neither stored nor delivered. `==` is called outside the lock; if another
/// `set` lands meanwhile, the comparison is made again against the newer value,
/// so equal values are never stored twice in a row (nor delivered, when the
/// sets are serialized); of several threads setting the same new value at
/// once, exactly one stores and delivers it.
///
/// Ownership: a subscription to `get()` keeps the promise alive until it is
/// disposed, as in the original.
///
/// Thread-safety: `@unchecked Sendable` because its state (current value,
/// subscribers) lives under an internal lock and subscriber callbacks run
/// outside it. Every method may be called from any thread. A value is
/// delivered on the thread that sets it. A new subscriber receives the current
/// value on the subscribing thread, then (still on that thread) any value set
/// while that replay was being delivered: the replay never arrives after a
/// newer value. A `set` made from inside a callback is delivered after the
/// current delivery, so every subscriber sees the values in the same order
/// (the original delivers it at once, nested inside the current delivery, so
/// that the subscribers after the current one receive the newer value first).
/// `set`s made from several threads at once are delivered concurrently, in no
/// defined order: serialize them (for example on one `Queue`) if subscribers
/// need one order.
public final class ValuePromise<T: Equatable>: @unchecked Sendable {
    // The state counts the stores, so that `set` can tell whether the value it
    // compared against is still current.
    private let broadcaster: _Broadcaster<T, Int>

    /// Whether `set` drops a value equal to the current one.
    public let ignoreRepeated: Bool

    /// A promise whose current value is `value`.
    public init(_ value: T, ignoreRepeated: Bool = false) {
        self.broadcaster = _Broadcaster(value: value, state: 0)
        self.ignoreRepeated = ignoreRepeated
    }

    /// A promise without a value until the first `set`.
    public init(ignoreRepeated: Bool = false) {
        self.broadcaster = _Broadcaster(value: nil, state: 0)
        self.ignoreRepeated = ignoreRepeated
    }

    /// Stores `value` and delivers it to every subscriber, unless
    /// `ignoreRepeated` is set and `value` equals the current value.
    public func set(_ value: T) {
        if !self.ignoreRepeated {
            self.broadcaster.publish(value) { version in
                version &+= 1
                return .cacheAndDeliver
            }
            return
        }
        while true {
            let (current, version) = self.broadcaster.withState { current, version in (current, version) }
            if let current, current == value {
                return
            }
            var stale = false
            self.broadcaster.publish(value) { currentVersion in
                guard currentVersion == version else {
                    stale = true
                    return .drop
                }
                currentVersion &+= 1
                return .cacheAndDeliver
            }
            if !stale {
                return
            }
        }
    }

    /// The current value, if any, then every new one.
    public func get() -> Signal<T, NoError> {
        return Signal(fused: { makeNext, error, completed in
            return self.broadcaster.subscribe(makeNext, error: error, completed: completed, keepAlive: self, { _, _ in }).0
        })
    }
}
