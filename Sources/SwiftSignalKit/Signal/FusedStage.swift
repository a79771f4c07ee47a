import Synchronization

/// What the composed value callback of one fused stateless stage (`map`,
/// `beforeNext`, `afterNext`; `filter`, `distinctUntilChanged` and
/// `skipWhile` have their own below) reads: the stage's function, the downstream's value
/// callback and the subscription's liveness, in one object made when the
/// chain is started.
///
/// The callback captures this object alone, so that the object is the
/// closure's context: the call reaches the stage's code through one
/// forwarder (the specialized body takes the value directly), not a box of
/// captures unpacked before every call (W1, `map |> filter |> map`: 148.4
/// -> 136.9 instructions an event; map 174 -> 171, filter 177 -> 170,
/// distinctUntilChanged 210 -> 190 a put in the cost table, with the bare
/// pipe's 121).
///
/// Thread-safety: immutable once made; its fields are read by whichever
/// thread delivers, as the captures were.
@usableFromInline
final class _FusedStage<T, R, Output> {
    /// The stage's function (`map`'s `f`, the side effect). Typed as a
    /// function of `T` (held as an opaque generic value, a function is
    /// called through a thunk: 19 instructions more a value).
    @usableFromInline let function: (T) -> R
    /// The downstream's composed value callback (nil: nothing to call).
    @usableFromInline let next: ((Output) -> Void)?
    /// The subscription's flags, read after the function ran.
    @usableFromInline let liveness: _SubscriberLiveness

    @inlinable
    init(_ function: @escaping (T) -> R, _ next: ((Output) -> Void)?, _ liveness: _SubscriberLiveness) {
        self.function = function
        self.next = next
        self.liveness = liveness
    }

    /// Calls the downstream with `value` unless the subscription has ended.
    @inlinable @inline(__always)
    func pass(_ value: Output) {
        if !self.liveness.isTerminated {
            self.next?(value)
        }
    }
}

/// `_FusedStage` for `filter`: the predicate typed as returning `Bool`
/// (held as a function returning a generic `R`, its result comes back
/// through memory and a thunk: 19 instructions more a value).
///
/// Thread-safety: as `_FusedStage`.
@usableFromInline
final class _FusedPredicateStage<T> {
    /// The predicate.
    @usableFromInline let predicate: (T) -> Bool
    /// The downstream's composed value callback (nil: nothing to call).
    @usableFromInline let next: ((T) -> Void)?
    /// The subscription's flags, read after the predicate ran.
    @usableFromInline let liveness: _SubscriberLiveness

    @inlinable
    init(_ predicate: @escaping (T) -> Bool, _ next: ((T) -> Void)?, _ liveness: _SubscriberLiveness) {
        self.predicate = predicate
        self.next = next
        self.liveness = liveness
    }

    /// Calls the downstream with `value` when the predicate passes it and
    /// the subscription has not ended.
    @inlinable @inline(__always)
    func run(_ value: T) {
        if self.predicate(value) && !self.liveness.isTerminated {
            self.next?(value)
        }
    }
}

/// `_FusedStage` for `distinctUntilChanged`: the comparison and the last
/// value passed (in a spin lock's slot, `_SignalLatestValue`, held only to
/// copy the value in or out, never while `isEqual` runs).
///
/// Thread-safety: as `_FusedStage`; the slot is locked.
@usableFromInline
final class _FusedDistinctStage<T> {
    /// The comparison of the last value passed with a new one.
    @usableFromInline let isEqual: (T, T) -> Bool
    /// The last value passed, nil before the first.
    @usableFromInline let previous = _SignalLatestValue<T>()
    /// The downstream's composed value callback (nil: nothing to call).
    @usableFromInline let next: ((T) -> Void)?
    /// The subscription's flags, read before the value is passed on.
    @usableFromInline let liveness: _SubscriberLiveness

    @inlinable
    init(_ isEqual: @escaping (T, T) -> Bool, _ next: ((T) -> Void)?, _ liveness: _SubscriberLiveness) {
        self.isEqual = isEqual
        self.next = next
        self.liveness = liveness
    }

    /// Passes `value` on unless it equals the last value passed.
    @inlinable @inline(__always)
    func run(_ value: T) {
        if let last = self.previous.load(), self.isEqual(last, value) {
            return
        }
        // The replaced value is released here, after the unlock.
        _ = self.previous.exchange(value)
        if !self.liveness.isTerminated {
            self.next?(value)
        }
    }
}

/// `_FusedStage` for `skipWhile`: the predicate and whether a value has
/// passed it (from then on every value passes, the predicate no longer
/// called).
///
/// Thread-safety: as `_FusedStage`; the flag is atomic.
@usableFromInline
final class _FusedSkipWhileStage<T> {
    /// Whether to drop a value (until it first says no).
    @usableFromInline let predicate: (T) -> Bool
    /// Set by the first value the predicate let through (stored again,
    /// idempotently, by a value on another thread that found it clear).
    @usableFromInline let passing = Synchronization.Atomic<Bool>(false)
    /// The downstream's composed value callback (nil: nothing to call).
    @usableFromInline let next: ((T) -> Void)?
    /// The subscription's flags, read before a value is passed on.
    @usableFromInline let liveness: _SubscriberLiveness

    @inlinable
    init(_ predicate: @escaping (T) -> Bool, _ next: ((T) -> Void)?, _ liveness: _SubscriberLiveness) {
        self.predicate = predicate
        self.next = next
        self.liveness = liveness
    }

    /// Drops `value` while the predicate holds, else passes it on.
    @inlinable @inline(__always)
    func run(_ value: T) {
        if self.passing.load(ordering: .acquiring) || !self.predicate(value) {
            if !self.passing.load(ordering: .relaxed) {
                self.passing.store(true, ordering: .releasing)
            }
            if !self.liveness.isTerminated {
                self.next?(value)
            }
        }
    }
}
