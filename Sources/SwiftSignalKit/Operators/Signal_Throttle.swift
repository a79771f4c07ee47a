import Dispatch

/// Emits a value only once the upstream has been quiet for `delay` seconds:
/// each value replaces the pending one and restarts the countdown, and when
/// the countdown ends the pending (latest) value is emitted.
///
/// When the upstream completes, the pending value, if any, is emitted at once,
/// then the completion. An error drops the pending value and passes through.
/// Every event is delivered on `queue` (values from a `Timer` on `queue`,
/// terminal events through `queue.async`, so inline when the upstream
/// terminates on `queue`); use a serial queue to keep the order. Disposing
/// cancels the countdown and drops the pending value.
///
/// From the Objective-C twin's time-based throttling; not in the Swift original.
public func debounce<T, E>(_ delay: Double, queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return timedGate(delay, queue: queue, restartOnEveryValue: true)
}

/// Emits at most one value per `delay` seconds, on the trailing edge: a value
/// arriving while no window is open opens one, and when the window ends, the
/// latest value seen during it is emitted. The next value opens the next
/// window.
///
/// When the upstream completes, the pending value, if any, is emitted at once,
/// then the completion. An error drops the pending value and passes through.
/// Every event is delivered on `queue` (values from a `Timer` on `queue`,
/// terminal events through `queue.async`, so inline when the upstream
/// terminates on `queue`); use a serial queue to keep the order. Disposing
/// cancels the window and drops the pending value.
///
/// From the Objective-C twin's time-based throttling; not in the Swift original.
public func throttle<T, E>(_ delay: Double, queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
    return timedGate(delay, queue: queue, restartOnEveryValue: false)
}

/// The body shared by `debounce` (every value moves the deadline) and
/// `throttle` (only a value that finds no countdown running starts one).
///
/// One `Timer` per subscription, made at the start and armed only when no
/// countdown is running: a value that arrives during a countdown replaces
/// the pending one and, for `debounce`, moves the deadline, without touching
/// the timer. When the timer fires before the deadline (values came
/// meanwhile), it is armed again for the time left. So a burst costs no
/// allocation and no timer call per value, and each value is still emitted
/// `delay` after the last one (the original restarts a timer per value).
private func timedGate<T, E>(_ delay: Double, queue: Queue, restartOnEveryValue: Bool) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let state = TimedGateState<T>(delay: delay, queue: queue, restartOnEveryValue: restartOnEveryValue)
            state.attach(Timer(timeout: delay, repeat: false, completion: { timer in
                switch state.fire() {
                case let .emit(value):
                    subscriber.putNext(value)
                case let .wait(countdown):
                    timer.start(countdown: countdown)
                case .nothing:
                    break
                }
            }, queue: queue))
            let upstream = signal.start(downstream: subscriber, next: { next in
                state.put(next)?.start()
            }, error: { error in
                let (_, timer) = state.terminate(keepingPending: false)
                timer?.invalidate()
                queue.async {
                    subscriber.putError(error)
                }
            }, completed: {
                let (pending, timer) = state.terminate(keepingPending: true)
                timer?.invalidate()
                queue.async {
                    if let pending {
                        subscriber.putNext(pending)
                    }
                    subscriber.putCompletion()
                }
            })
            return ActionDisposable {
                let (_, timer) = state.terminate(keepingPending: false)
                timer?.invalidate()
                upstream.dispose()
            }
        }
    }
}

/// The pending value, the deadline and the timer of one `debounce` /
/// `throttle` subscription.
///
/// The deadline is on the clock the queue's timers count on: a virtual-time
/// queue's clock, otherwise the uptime clock of `DispatchTime` (that of
/// `Timer`'s dispatch sources, for dispatch and host-drained queues). The
/// clock is read before the lock is taken.
///
/// Thread-safety: every method may be called from any thread; nothing is
/// released and no user code runs with the lock held (values and timers are
/// handed back to the caller). The timer is armed by at most one caller at a
/// time: a put that finds it idle, or its own firing that finds the
/// deadline moved (`armed` stays set in between).
private final class TimedGateState<T>: @unchecked Sendable {
    /// What a firing of the timer does.
    enum Firing {
        /// Emit the pending value: the countdown is over.
        case emit(T)
        /// Values came meanwhile: arm the timer again for this many seconds.
        case wait(Double)
        /// Stale, or terminated: nothing.
        case nothing
    }

    private let mutex = _Mutex()
    // The delay in nanoseconds; nil when the clock cannot count it (NaN,
    // infinite, too long), and the timer then never fires.
    private let delayNanoseconds: Int64?
    private let restartOnEveryValue: Bool
    private let virtualTime: VirtualTimeExecutor?
    // Guarded by `mutex`.
    private var pending: T?
    // The timer; nil once terminated (which breaks the cycle through its
    // completion, that holds this state).
    private var timer: Timer?
    // Whether a countdown runs (or is about to be started by the caller of
    // `put` or by the firing that found the deadline moved).
    private var armed = false
    // When the pending value is due (debounce), on the queue's timer clock.
    private var deadline: Int64 = 0
    private var terminated = false

    init(delay: Double, queue: Queue, restartOnEveryValue: Bool) {
        self.delayNanoseconds = VirtualTimeExecutor.nanoseconds(delay)
        self.restartOnEveryValue = restartOnEveryValue
        self.virtualTime = queue.virtualTimeExecutor
    }

    /// Gives the state its timer, before the upstream starts.
    func attach(_ timer: Timer) {
        self.mutex.lock()
        self.timer = timer
        self.mutex.unlock()
    }

    /// The queue's timer clock, in nanoseconds.
    private func now() -> Int64 {
        if let virtualTime = self.virtualTime {
            return virtualTime.nanoseconds
        }
        return Int64(clamping: DispatchTime.now().uptimeNanoseconds)
    }

    /// Stores `value` as the pending one (and, for debounce, moves the
    /// deadline to `delay` from now). Returns the timer to start when no
    /// countdown was running; nil otherwise, and once terminated.
    func put(_ value: T) -> Timer? {
        let now = self.restartOnEveryValue ? self.now() : 0
        var previous: T?
        var start: Timer?
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
                start = self.timer
            }
        }
        self.mutex.unlock()
        withExtendedLifetime(previous) {
        }
        return start
    }

    /// Called when the timer fires, on the queue: the pending value to emit
    /// when the deadline has come, or the time left to count down.
    func fire() -> Firing {
        let now = self.restartOnEveryValue ? self.now() : 0
        var value: T?
        self.mutex.lock()
        if self.terminated || !self.armed {
            self.mutex.unlock()
            return .nothing
        }
        if self.restartOnEveryValue && now < self.deadline {
            // Still armed: this firing arms it again.
            let left = self.deadline - now
            self.mutex.unlock()
            return .wait(Double(left) / 1e9)
        }
        value = self.pending
        self.pending = nil
        self.armed = false
        self.mutex.unlock()
        guard let value else {
            return .nothing
        }
        return .emit(value)
    }

    /// Marks the state terminated and hands back the timer to invalidate and
    /// the pending value (dropped by the caller unless `keepingPending`).
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
