import Dispatch

/// The pending value, the deadline and the timer of one `debounce` /
/// `throttle` subscription (`_timedGate`).
///
/// One `Timer` per countdown, made by the value that finds none running: a
/// value that arrives during a countdown replaces the pending one and, for
/// `debounce`, moves the deadline, without touching the timer. A firing
/// before the deadline (values came meanwhile) arms the same timer again
/// for the time left. So a burst costs no allocation and no timer call per
/// value.
///
/// Ownership, as in the original (a timer per value): the state holds the
/// timer only while its countdown runs, and the timer's completion holds
/// the state and the subscriber; the emission (or the termination, or the
/// queue's close, which drops the completion) ends that cycle. An idle
/// subscription holds no timer, so one abandoned without a termination or a
/// dispose is freed with its upstream. (A timer kept for the whole
/// subscription kept every abandoned one alive: the abandonment soak.)
///
/// The deadline is on the clock the queue's timers count on
/// (`_TimerClock`). The clock is read before the lock is taken.
///
/// Thread-safety: every method may be called from any thread; nothing is
/// released and no user code runs with the lock held (values and timers are
/// handed back to the caller). The timer is armed by at most one caller at a
/// time: the caller of a put that found none running (`arm`), or its own
/// firing that finds the deadline moved (`armed` stays set in between).
@usableFromInline
final class _TimedGateState<T>: @unchecked Sendable {
    /// What a firing of the timer does.
    @usableFromInline
    enum Firing {
        /// Emit the pending value: the countdown is over.
        case emit(T)
        /// Values came meanwhile: arm the timer again for this many seconds.
        case wait(Double)
        /// Stale, or terminated: nothing.
        case nothing
    }

    @usableFromInline let mutex = _Mutex()
    // The delay in nanoseconds; nil when the clock cannot count it (NaN,
    // infinite, too long), and the timer then never fires.
    @usableFromInline let delayNanoseconds: Int64?
    @usableFromInline let restartOnEveryValue: Bool
    @usableFromInline let clock: _TimerClock
    // Guarded by `mutex`.
    @exclusivity(unchecked) @usableFromInline var pending: T?
    // The timer of the countdown running; nil when none runs and once
    // terminated.
    @exclusivity(unchecked) @usableFromInline var timer: Timer?
    // Whether a countdown runs (or is about to be started by the caller of
    // `put` and `arm`, or by the firing that found the deadline moved).
    @exclusivity(unchecked) @usableFromInline var armed = false
    // When the pending value is due (debounce), on the queue's timer clock.
    @exclusivity(unchecked) @usableFromInline var deadline: Int64 = 0
    @exclusivity(unchecked) @usableFromInline var terminated = false

    @inlinable
    init(delay: Double, queue: Queue, restartOnEveryValue: Bool) {
        self.delayNanoseconds = _TimerClock.nanoseconds(delay)
        self.restartOnEveryValue = restartOnEveryValue
        self.clock = _TimerClock(queue)
    }

    /// Keeps `timer` as the countdown's, which the caller then starts; false
    /// (do not start it) once terminated.
    @inlinable
    func arm(_ timer: Timer) -> Bool {
        self.mutex.lock()
        let keep = !self.terminated
        if keep {
            self.timer = timer
        }
        self.mutex.unlock()
        return keep
    }

    /// Stores `value` as the pending one (and, for debounce, moves the
    /// deadline to `delay` from now). Returns true when no countdown was
    /// running: the caller makes a timer and gives it to `arm`. False
    /// otherwise, and once terminated.
    @inlinable
    func put(_ value: T) -> Bool {
        let now = self.restartOnEveryValue ? self.clock.now() : 0
        var previous: T?
        var start = false
        self.mutex.lock()
        if !self.terminated {
            previous = self.pending
            self.pending = value
            if self.restartOnEveryValue, let delay = self.delayNanoseconds {
                // Concurrent puts may read the clock out of order: the
                // deadline only moves forward.
                let (due, overflow) = now.addingReportingOverflow(delay)
                self.deadline = max(self.deadline, overflow ? Int64.max : due)
            }
            if !self.armed {
                self.armed = true
                start = true
            }
        }
        self.mutex.unlock()
        // The replaced value is released here, outside the lock.
        _ = previous
        return start
    }

    /// Called when `timer` fires, on the queue: the pending value to emit
    /// when the deadline has come, or the time left to count down.
    @inlinable
    func fire(_ timer: Timer) -> Firing {
        let now = self.restartOnEveryValue ? self.clock.now() : 0
        self.mutex.lock()
        if self.terminated || !self.armed || self.timer !== timer {
            self.mutex.unlock()
            return .nothing
        }
        if self.restartOnEveryValue && now < self.deadline {
            // Still armed: this firing arms it again.
            let left = self.deadline - now
            self.mutex.unlock()
            return .wait(Double(left) / 1e9)
        }
        let value = self.pending
        self.pending = nil
        self.armed = false
        // Released by the caller's return: the timer holds itself while it
        // fires.
        self.timer = nil
        self.mutex.unlock()
        guard let value else {
            return .nothing
        }
        return .emit(value)
    }

    /// Marks the state terminated and hands back the timer to invalidate and
    /// the pending value (dropped by the caller unless `keepingPending`).
    @inlinable
    func terminate(keepingPending: Bool) -> (pending: T?, timer: Timer?) {
        self.mutex.lock()
        self.terminated = true
        let pending = self.pending
        let timer = self.timer
        self.pending = nil
        self.timer = nil
        self.armed = false
        self.mutex.unlock()
        return (keepingPending ? pending : nil, timer)
    }
}

/// The clock a queue's timers count on, in nanoseconds: a virtual-time
/// queue's clock, otherwise the uptime clock of `DispatchTime` (that of
/// `Timer`'s dispatch sources, on dispatch, host-drained and bounded
/// concurrent queues).
///
/// Thread-safety: an immutable value; `now()` may be called from any thread.
@usableFromInline
struct _TimerClock {
    private let virtualTime: VirtualTimeExecutor?

    @usableFromInline
    init(_ queue: Queue) {
        self.virtualTime = queue.virtualTimeExecutor
    }

    /// The clock's time. Takes the virtual-time queue's lock (briefly):
    /// call it with no lock of the library held.
    @usableFromInline
    func now() -> Int64 {
        // Not bound to a local: the binding retained and released the
        // executor per value.
        if self.virtualTime != nil {
            return self.virtualTime.unsafelyUnwrapped.nanoseconds
        }
        return Int64(clamping: DispatchTime.now().uptimeNanoseconds)
    }

    /// `seconds` as nanoseconds of the clock, rounded; nil for a duration it
    /// cannot count (2^63 ns or more, infinity, NaN), as `Timer` reads it.
    @usableFromInline
    static func nanoseconds(_ seconds: Double) -> Int64? {
        return VirtualTimeExecutor.nanoseconds(seconds)
    }
}
