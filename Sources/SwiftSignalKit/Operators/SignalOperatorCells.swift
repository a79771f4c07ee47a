import Synchronization

/// A per-subscription counter (`retry(count)`'s retries; `skip`, a fused
/// stage, counts in its own object): one atomic word, no lock.
///
/// Thread-safety: every method may be called from any thread.
final class _SignalCounter: Sendable {
    let value = Synchronization.Atomic<Int>(0)

    init() {}

    /// Counts one more event, up to `limit`: returns true once `limit` events
    /// have been counted before this one (stops counting then, so the word
    /// never overflows).
    func passedLimit(_ limit: Int) -> Bool {
        if self.value.load(ordering: .relaxed) >= limit {
            return true
        }
        return self.value.wrappingAdd(1, ordering: .relaxed).oldValue >= limit
    }
}

/// A per-subscription flag (`defaultIfEmpty`'s; the fused stages, such as
/// `takeWhile`'s, keep theirs in their own object): one atomic word, no
/// lock.
///
/// Thread-safety: every method may be called from any thread.
final class _SignalFlag: Sendable {
    let value = Synchronization.Atomic<Bool>(false)

    init() {}

    var isSet: Bool {
        return self.value.load(ordering: .acquiring)
    }

    /// Sets the flag; true for the one call that found it clear.
    func set() -> Bool {
        if self.value.load(ordering: .relaxed) {
            return false
        }
        return !self.value.exchange(true, ordering: .acquiringAndReleasing)
    }
}

/// One value slot under a lock (`withLatestFrom`'s latest value, the
/// collected value of `sample` and `buffer(timeSpan:)`, the value `last`
/// keeps, the value `distinctUntilChanged` compares with). The lock is a
/// `_SpinLock`, held only to copy the value in or out: nothing is called
/// under it, and a replaced value is released after it is dropped.
/// Inlinable, so that `withLatestFrom`'s read of it is specialized.
///
/// Thread-safety: every method may be called from any thread.
@usableFromInline
final class _SignalLatestValue<T>: @unchecked Sendable {
    @usableFromInline let spin = _SpinLock()
    @exclusivity(unchecked) @usableFromInline var value: T?

    @inlinable
    init() {}

    /// Stores `value`, returns the one it replaced (nil if none).
    @inlinable
    func exchange(_ value: T) -> T? {
        var replaced: T? = value
        self.spin.lock()
        swap(&replaced, &self.value)
        self.spin.unlock()
        return replaced
    }

    /// Takes the value out (nil if none).
    @inlinable
    func take() -> T? {
        self.spin.lock()
        let value = self.value
        self.value = nil
        self.spin.unlock()
        return value
    }

    /// The current value, if any.
    @inlinable
    func load() -> T? {
        self.spin.lock()
        let value = self.value
        self.spin.unlock()
        return value
    }

    /// Calls `body` with the current value, if there is one: copied
    /// (retained) under the lock, handed over after the unlock
    /// (`consuming`: `body` can move it on, into a pair). Not returned as
    /// an `Optional`: its copies and destroys went through outlined code,
    /// a call into the runtime each for the C API's values.
    @inlinable
    func load(_ body: (consuming T) -> Void) {
        self.spin.lock()
        guard let value = self.value else {
            self.spin.unlock()
            return
        }
        self.spin.unlock()
        body(value)
    }
}
