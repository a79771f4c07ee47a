import Dispatch

/// A one-shot or repeating timer that calls its completion on a queue.
///
/// `start()` schedules it (calling it again restarts the countdown);
/// `invalidate()` cancels it, and a completion that has not started by then
/// will not run. As in the original, the timer is active only while something
/// holds it: releasing the last reference invalidates it.
///
/// Thread-safety: `start` and `invalidate` may be called from any thread; the
/// completion runs on the timer's queue, never under a lock.
public final class Timer: @unchecked Sendable {
    private let mutex = _Mutex()
    private var timer: DispatchSourceTimer?
    private var generation = 0
    // On a virtual-time queue: whether the countdown of `generation` is on,
    // and the token of its scheduled task (to release it when invalidated).
    private var virtualArmed = false
    private var virtualToken: UInt64?
    private let timeout: Double
    private let `repeat`: Bool
    private let completion: (Timer) -> Void
    private let queue: Queue

    /// Makes a timer that calls `completion` on `queue` `timeout` seconds after
    /// `start()`, and every `timeout` seconds after that when `repeat` is true.
    /// It does not run until `start()`.
    public init(timeout: Double, `repeat`: Bool, completion: @escaping () -> Void, queue: Queue) {
        self.timeout = timeout
        self.repeat = `repeat`
        self.completion = { _ in completion() }
        self.queue = queue
    }

    /// Makes a timer that calls `completion` with itself on `queue` `timeout`
    /// seconds after `start()`, and every `timeout` seconds after that when
    /// `repeat` is true. It does not run until `start()`.
    public init(timeout: Double, `repeat`: Bool, completion: @escaping (Timer) -> Void, queue: Queue) {
        self.timeout = timeout
        self.repeat = `repeat`
        self.completion = completion
        self.queue = queue
    }

    deinit {
        self.timer?.cancel()
        if let token = self.virtualToken {
            self.queue.virtualTimeExecutor?.cancel(token)
        }
    }

    /// Schedules the timer, replacing any countdown in progress.
    public func start() {
        if let virtualTime = self.queue.virtualTimeExecutor {
            self.startVirtual(virtualTime)
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: self.queue.queue)
        // A timeout too long for an Int of nanoseconds (about 292 years, or
        // infinity) never fires, instead of trapping in the conversion.
        let nanoseconds = max(0.0, self.timeout) * 1_000_000_000.0
        let interval: DispatchTimeInterval = nanoseconds < Double(Int.max) ? .nanoseconds(Int(nanoseconds)) : .never
        timer.schedule(deadline: DispatchTime.now() + interval, repeating: self.repeat ? interval : .never)
        self.mutex.lock()
        self.generation += 1
        let generation = self.generation
        let previous = self.timer
        self.timer = timer
        self.mutex.unlock()
        let queue = self.queue
        timer.setEventHandler { [weak self] in
            queue.enterFromDispatch {
                self?.fire(generation)
            }
        }
        previous?.cancel()
        timer.resume()
    }

    private func fire(_ generation: Int) {
        self.mutex.lock()
        let current = self.timer != nil && self.generation == generation
        self.mutex.unlock()
        if !current {
            return
        }
        self.completion(self)
        if !self.repeat {
            self.mutex.lock()
            var finished: DispatchSourceTimer?
            if self.generation == generation {
                finished = self.timer
                self.timer = nil
            }
            self.mutex.unlock()
            finished?.cancel()
        }
    }

    /// Cancels the timer.
    public func invalidate() {
        self.mutex.lock()
        let timer = self.timer
        self.timer = nil
        self.virtualArmed = false
        let token = self.virtualToken
        self.virtualToken = nil
        self.mutex.unlock()
        timer?.cancel()
        if let token {
            self.queue.virtualTimeExecutor?.cancel(token)
        }
    }

    // Virtual time: the countdown is a task of the queue's executor, `timeout`
    // after the clock's current time; a repeating timer schedules its next
    // task when it fires (the clock is then at the deadline, so periods do
    // not drift). A period rounds to at least one nanosecond, so a repeating
    // timer always moves the clock.

    private func startVirtual(_ executor: VirtualTimeExecutor) {
        self.mutex.lock()
        self.generation += 1
        let generation = self.generation
        let previous = self.timer
        self.timer = nil
        let previousToken = self.virtualToken
        self.virtualToken = nil
        self.virtualArmed = true
        self.mutex.unlock()
        previous?.cancel()
        if let previousToken {
            executor.cancel(previousToken)
        }
        self.scheduleVirtual(executor, generation)
    }

    private func scheduleVirtual(_ executor: VirtualTimeExecutor, _ generation: Int) {
        guard let period = VirtualTimeExecutor.nanoseconds(self.timeout) else {
            // Too long for the clock: never fires, as on a dispatch queue.
            return
        }
        let delay = self.repeat ? max(1, period) : period
        let token = executor.schedule(afterNanoseconds: delay) { [weak self] in
            self?.fireVirtual(executor, generation)
        }
        guard let token else {
            return
        }
        self.mutex.lock()
        let current = self.virtualArmed && self.generation == generation
        if current {
            self.virtualToken = token
        }
        self.mutex.unlock()
        if !current {
            // Invalidated or restarted meanwhile: release the task now.
            executor.cancel(token)
        }
    }

    private func fireVirtual(_ executor: VirtualTimeExecutor, _ generation: Int) {
        self.mutex.lock()
        let current = self.virtualArmed && self.generation == generation
        if current {
            self.virtualToken = nil
            if !self.repeat {
                self.virtualArmed = false
            }
        }
        self.mutex.unlock()
        if !current {
            return
        }
        self.completion(self)
        if self.repeat {
            self.mutex.lock()
            let still = self.virtualArmed && self.generation == generation
            self.mutex.unlock()
            if still {
                self.scheduleVirtual(executor, generation)
            }
        }
    }
}
