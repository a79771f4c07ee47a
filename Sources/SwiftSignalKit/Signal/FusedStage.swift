import Synchronization

/// What the composed value callback of one fused stateless stage (`map`,
/// `beforeNext`, `afterNext`; `filter`, `distinctUntilChanged`, `skipWhile`,
/// `takeWhile`, `skip`, `take` and `take(until:)` have their own below)
/// reads: the stage's function, the downstream's value
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
    /// The downstream's composed value callback (one that does nothing
    /// when there is none: a call tests nothing).
    @usableFromInline let next: (Output) -> Void
    /// The subscription's flags, read after the function ran.
    @usableFromInline let liveness: _SubscriberLiveness

    @inlinable
    init(_ function: @escaping (T) -> R, _ next: ((Output) -> Void)?, _ liveness: _SubscriberLiveness) {
        self.function = function
        // No downstream callback: one that does nothing (no test a value).
        if let next {
            self.next = next
        } else {
            self.next = { _ in }
        }
        self.liveness = liveness
    }

    /// Calls the downstream with `value` unless the subscription has ended.
    @inlinable @inline(__always)
    func pass(_ value: Output) {
        if !self.liveness.isTerminated {
            self.next(value)
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
    /// The downstream's composed value callback (one that does nothing
    /// when there is none: a call tests nothing).
    @usableFromInline let next: (T) -> Void
    /// The subscription's flags, read after the predicate ran.
    @usableFromInline let liveness: _SubscriberLiveness

    @inlinable
    init(_ predicate: @escaping (T) -> Bool, _ next: ((T) -> Void)?, _ liveness: _SubscriberLiveness) {
        self.predicate = predicate
        // No downstream callback: one that does nothing (no test a value).
        if let next {
            self.next = next
        } else {
            self.next = { _ in }
        }
        self.liveness = liveness
    }

    /// Calls the downstream with `value` when the predicate passes it and
    /// the subscription has not ended.
    @inlinable @inline(__always)
    func run(_ value: T) {
        if self.predicate(value) && !self.liveness.isTerminated {
            self.next(value)
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
    /// The downstream's composed value callback (one that does nothing
    /// when there is none: a call tests nothing).
    @usableFromInline let next: (T) -> Void
    /// The subscription's flags, read before the value is passed on.
    @usableFromInline let liveness: _SubscriberLiveness

    @inlinable
    init(_ isEqual: @escaping (T, T) -> Bool, _ next: ((T) -> Void)?, _ liveness: _SubscriberLiveness) {
        self.isEqual = isEqual
        // No downstream callback: one that does nothing (no test a value).
        if let next {
            self.next = next
        } else {
            self.next = { _ in }
        }
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
            self.next(value)
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
    /// The downstream's composed value callback (one that does nothing
    /// when there is none: a call tests nothing).
    @usableFromInline let next: (T) -> Void
    /// The subscription's flags, read before a value is passed on.
    @usableFromInline let liveness: _SubscriberLiveness

    @inlinable
    init(_ predicate: @escaping (T) -> Bool, _ next: ((T) -> Void)?, _ liveness: _SubscriberLiveness) {
        self.predicate = predicate
        // No downstream callback: one that does nothing (no test a value).
        if let next {
            self.next = next
        } else {
            self.next = { _ in }
        }
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
                self.next(value)
            }
        }
    }
}

/// `_FusedStage` for `takeWhile`: the predicate, and the end at the first
/// value it refuses (that value passed first when `inclusive`), made by the
/// subscription's own terminal event (`_SubscriberLiveness.end(delivering:)`:
/// the completion after the value calls in flight, then the upstream
/// disposed), so that no subscriber of its own is needed. The source's own
/// terminal event passes straight through: the end lets none follow it,
/// and one that came first (on another thread, racing the refused value)
/// is the subscription's one terminal event, the end then doing nothing.
/// A constant signal's subscription cannot be ended while it runs
/// (`canBeDisposed` false): `single`, the one that emits a value, completes
/// at once after it, which is the end.
///
/// Thread-safety: as `_FusedStage`; `ended` is atomic, and exactly one
/// value (the first to set it) ends the subscription.
@usableFromInline
final class _FusedTakeWhileStage<T> {
    /// Whether to pass a value (until it first says no).
    @usableFromInline let predicate: (T) -> Bool
    /// Whether the value refused passes before the completion.
    @usableFromInline let inclusive: Bool
    /// Set by the first value the predicate refused: later values are
    /// dropped without calling it.
    @usableFromInline let ended = Synchronization.Atomic<Bool>(false)
    /// The downstream's composed value callback and completion (nil:
    /// nothing to call).
    @usableFromInline let next: (T) -> Void
    @usableFromInline let completed: (() -> Void)?
    /// The subscription's flags, read before a value is passed on.
    @usableFromInline let liveness: _SubscriberLiveness

    @inlinable
    init(_ predicate: @escaping (T) -> Bool, inclusive: Bool, _ next: ((T) -> Void)?, _ completed: (() -> Void)?,
         _ liveness: _SubscriberLiveness) {
        self.predicate = predicate
        self.inclusive = inclusive
        // No downstream callback: one that does nothing (no test a value).
        if let next {
            self.next = next
        } else {
            self.next = { _ in }
        }
        self.completed = completed
        self.liveness = liveness
    }

    /// Passes `value` on while the predicate holds; at the first value it
    /// refuses, ends the subscription.
    @inlinable @inline(__always)
    func run(_ value: T) {
        if self.ended.load(ordering: .acquiring) {
            return
        }
        if self.predicate(value) {
            if !self.liveness.isTerminated {
                self.next(value)
            }
            return
        }
        self.end(value)
    }

    /// The first refused value (or any refused value racing it: only the
    /// first to set `ended` goes on). Out of line, not inlinable (once a
    /// subscription; it ends the subscription through the package's
    /// `_SubscriberLiveness.end(delivering:)`).
    @usableFromInline @inline(never)
    func end(_ value: T) {
        if self.ended.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged == false {
            return
        }
        if self.inclusive && !self.liveness.isTerminated {
            self.next(value)
        }
        _fusedStageEnd(self.liveness, self.completed)
    }
}

/// `_FusedStage` for `skip(_:)`: the count and the values dropped so far
/// (one atomic counter; once `count` values were dropped it is only read).
///
/// Thread-safety: as `_FusedStage`; exactly `count` values are dropped
/// however many threads emit at once.
@usableFromInline
final class _FusedSkipStage<T> {
    /// How many values to drop.
    @usableFromInline let count: Int
    /// The values counted so far: never more than `count` plus one per
    /// thread emitting at once (it stops counting at `count`).
    @usableFromInline let dropped = Synchronization.Atomic<Int>(0)
    /// The downstream's composed value callback (one that does nothing
    /// when there is none: a call tests nothing).
    @usableFromInline let next: (T) -> Void
    /// The subscription's flags, read before a value is passed on.
    @usableFromInline let liveness: _SubscriberLiveness

    @inlinable
    init(_ count: Int, _ next: ((T) -> Void)?, _ liveness: _SubscriberLiveness) {
        self.count = count
        // No downstream callback: one that does nothing (no test a value).
        if let next {
            self.next = next
        } else {
            self.next = { _ in }
        }
        self.liveness = liveness
    }

    /// Drops `value` while fewer than `count` were dropped, else passes it.
    @inlinable @inline(__always)
    func run(_ value: T) {
        if self.dropped.load(ordering: .relaxed) < self.count
            && self.dropped.wrappingAdd(1, ordering: .relaxed).oldValue < self.count {
            return
        }
        if !self.liveness.isTerminated {
            self.next(value)
        }
    }
}

/// `_FusedStage` for `take(_:)`: the count, the values admitted and the
/// values delivered; the delivery of the `count`-th admitted value ends the
/// subscription as `takeWhile`'s refused value does (the completion after
/// the value calls in flight, then the upstream disposed; a constant
/// signal's completion follows at once), after every admitted value was
/// delivered.
///
/// Thread-safety: as `_FusedStage`; exactly `count` values are admitted
/// however many threads emit at once.
@usableFromInline
final class _FusedTakeStage<T> {
    /// How many values to pass.
    @usableFromInline let count: Int
    /// The values admitted (stops being incremented past `count`, but for
    /// one per thread emitting at once) and those delivered.
    @usableFromInline let admitted = Synchronization.Atomic<Int>(0)
    @usableFromInline let delivered = Synchronization.Atomic<Int>(0)
    /// The downstream's composed value callback and completion (nil:
    /// nothing to call).
    @usableFromInline let next: (T) -> Void
    @usableFromInline let completed: (() -> Void)?
    /// The subscription's flags, read before a value is passed on.
    @usableFromInline let liveness: _SubscriberLiveness

    @inlinable
    init(_ count: Int, _ next: ((T) -> Void)?, _ completed: (() -> Void)?, _ liveness: _SubscriberLiveness) {
        self.count = count
        // No downstream callback: one that does nothing (no test a value).
        if let next {
            self.next = next
        } else {
            self.next = { _ in }
        }
        self.completed = completed
        self.liveness = liveness
    }

    /// Passes `value` when it is among the first `count`; the last one's
    /// delivery ends the subscription.
    @inlinable @inline(__always)
    func run(_ value: T) {
        if self.count <= 0 || self.admitted.load(ordering: .relaxed) >= self.count {
            return
        }
        if self.admitted.wrappingAdd(1, ordering: .relaxed).newValue > self.count {
            return
        }
        if !self.liveness.isTerminated {
            self.next(value)
        }
        if self.delivered.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == self.count {
            self.end()
        }
    }

    /// Every admitted value delivered: ends the subscription. Out of line,
    /// not inlinable, as `_FusedTakeWhileStage.end`.
    @usableFromInline @inline(never)
    func end() {
        _fusedStageEnd(self.liveness, self.completed)
    }
}

/// Ends a fused stage's subscription with `completed` (`takeWhile`,
/// `take`, `take(until:)`): the subscription's own terminal event, after the value calls in
/// flight, then the upstream disposed. A constant signal's subscription
/// cannot be ended while it runs: `single`, the one that emits a value,
/// completes at once after it, which is the end. Does nothing when the
/// subscription has ended already.
@usableFromInline
func _fusedStageEnd(_ liveness: _SubscriberLiveness, _ completed: (() -> Void)?) {
    if !liveness.canBeDisposed {
        return
    }
    _ = liveness.end(delivering: { completed?() })
}

/// `_FusedStage` for `take(until:)`: the function that decides, and whether
/// it has asked to complete (from then on it is not called again); the end
/// as `takeWhile`'s.
///
/// Thread-safety: as `_FusedStage`; `ended` is atomic, and the first value
/// whose action completes ends the subscription.
@usableFromInline
final class _FusedTakeUntilStage<T> {
    /// Whether to pass each value, and whether to complete after it.
    @usableFromInline let until: (T) -> SignalTakeAction
    /// Set by the first action that completes.
    @usableFromInline let ended = Synchronization.Atomic<Bool>(false)
    /// The downstream's composed value callback and completion (nil:
    /// nothing to call).
    @usableFromInline let next: (T) -> Void
    @usableFromInline let completed: (() -> Void)?
    /// The subscription's flags, read before a value is passed on.
    @usableFromInline let liveness: _SubscriberLiveness

    @inlinable
    init(_ until: @escaping (T) -> SignalTakeAction, _ next: ((T) -> Void)?, _ completed: (() -> Void)?,
         _ liveness: _SubscriberLiveness) {
        self.until = until
        // No downstream callback: one that does nothing (no test a value).
        if let next {
            self.next = next
        } else {
            self.next = { _ in }
        }
        self.completed = completed
        self.liveness = liveness
    }

    /// Asks `until` about `value`, passes it when told to, and ends the
    /// subscription when told to complete.
    @inlinable @inline(__always)
    func run(_ value: T) {
        if self.ended.load(ordering: .acquiring) {
            return
        }
        let action = self.until(value)
        if action.passthrough && !self.liveness.isTerminated {
            self.next(value)
        }
        if action.complete {
            self.end()
        }
    }

    /// The first completing action ends the subscription. Out of line, not
    /// inlinable, as `_FusedTakeWhileStage.end`.
    @usableFromInline @inline(never)
    func end() {
        if self.ended.exchange(true, ordering: .acquiringAndReleasing) {
            return
        }
        _fusedStageEnd(self.liveness, self.completed)
    }
}
