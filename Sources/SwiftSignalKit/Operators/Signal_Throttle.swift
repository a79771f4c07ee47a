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

/// The body shared by `debounce` (every value restarts the timer) and
/// `throttle` (only a value that finds no timer running starts one).
private func timedGate<T, E>(_ delay: Double, queue: Queue, restartOnEveryValue: Bool) -> (Signal<T, E>) -> Signal<T, E> {
    return { signal in
        return Signal<T, E> { subscriber in
            let state = TimedGateState<T>()
            let upstream = signal.start(downstream: subscriber, next: { next in
                let makeTimer = {
                    return Timer(timeout: delay, repeat: false, completion: { timer in
                        if let value = state.fire(timer) {
                            subscriber.putNext(value)
                        }
                    }, queue: queue)
                }
                let (started, replaced) = state.put(next, restartTimer: restartOnEveryValue, makeTimer: makeTimer)
                replaced?.invalidate()
                started?.start()
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

/// The pending value and running timer of one `debounce` / `throttle`
/// subscription.
///
/// Thread-safety: every method may be called from any thread; nothing is
/// released and no user code runs with the lock held (values and timers are
/// handed back to the caller).
private final class TimedGateState<T>: @unchecked Sendable {
    private let mutex = _Mutex()
    private var pending: T?
    // The timer whose firing emits `pending`; any other timer firing is stale.
    private var timer: Timer?
    private var terminated = false

    /// Stores `value` as the pending one. Returns the timer to start (a new
    /// one when `restartTimer` or when none is running) and the timer it
    /// replaced (to invalidate). Both nil once terminated.
    func put(_ value: T, restartTimer: Bool, makeTimer: () -> Timer) -> (started: Timer?, replaced: Timer?) {
        var previous: T?
        var started: Timer?
        var replaced: Timer?
        self.mutex.lock()
        if !self.terminated {
            previous = self.pending
            self.pending = value
            if restartTimer || self.timer == nil {
                replaced = self.timer
                started = makeTimer()
                self.timer = started
            }
        }
        self.mutex.unlock()
        withExtendedLifetime(previous) {
        }
        return (started, replaced)
    }

    /// Called when `timer` fires: returns the pending value to emit, unless the
    /// timer is stale or nothing is pending.
    func fire(_ timer: Timer) -> T? {
        var value: T?
        var finished: Timer?
        self.mutex.lock()
        if self.timer === timer {
            value = self.pending
            self.pending = nil
            finished = self.timer
            self.timer = nil
        }
        self.mutex.unlock()
        withExtendedLifetime(finished) {
        }
        return value
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
        self.mutex.unlock()
        return (keepingPending ? pending : nil, timer)
    }
}
