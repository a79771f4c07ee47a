import Dispatch

/// A one-shot or repeating timer that calls its completion on a queue.
///
/// `start()` schedules it (calling it again restarts the countdown);
/// `invalidate()` cancels it, and a completion that has not started by then
/// will not run. As in the original, the timer is active only while something
/// holds it: releasing the last reference invalidates it.
///
/// A timeout of zero or less fires at once (a repeating one without pause).
/// A timeout that is not a number, or too long for the clock (2^63
/// nanoseconds, about 292 years, or more; infinity), never fires, as
/// `Queue.after` never runs such a delay's work (in the original, NaN gives
/// the deadline `distantFuture` too). The operators that count down with a
/// `Timer` (`delay`, `suspendAwareDelay`, `timeout`, `debounce`, `throttle`)
/// follow: a NaN delay never starts the upstream, a NaN timeout never
/// switches to the alternate.
///
/// On a host-drained or virtual-time queue, closing the queue
/// (`closeHostDrained()`, or releasing its last C handle) ends a timer that
/// was started on it, for good: the timer is invalidated and its completion
/// dropped without running, released on the closing thread (so what the
/// completion holds, often what holds the timer, is freed then). Starting a
/// timer on a queue closed already does the same at once, on the starting
/// thread. The timer object itself stays valid; `start` does nothing more.
///
/// A repeating timer whose queue cannot run its completion when it fires
/// (a serial queue busy with other work, a host-drained queue not drained)
/// runs it once for the periods that passed meanwhile, as a dispatch timer
/// source does: on a host-drained queue one firing at most waits to be
/// drained.
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
    // On a host-drained or virtual-time queue: the token of this timer's
    // entry in the executor's close registry (from the first start to the
    // deinit), and whether the queue's close has ended the timer.
    private var closeToken: UInt64?
    private var endedByClose = false
    // On a queue with an executor of its own (host-drained, bounded
    // concurrent): the generation of a firing handed to the queue and not
    // run yet, during which later firings of that countdown are merged
    // into it (`claimQueuedFiring`).
    private var queuedFiring: Int?
    private let timeout: Double
    private let `repeat`: Bool
    // Guarded by `mutex`; nil once the queue's close dropped it.
    private var completion: ((Timer) -> Void)?
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
        if let token = self.closeToken {
            self.queue.closableExecutor?.unregisterForClose(token)
        }
    }

    /// Schedules the timer, replacing any countdown in progress.
    public func start() {
        self.start(countdown: self.timeout)
    }

    /// Schedules a one-shot timer to fire `countdown` seconds from now
    /// instead of its `timeout` (for this start only), replacing any
    /// countdown in progress: how `debounce` moves one timer's deadline
    /// instead of making a timer per value. Not for a repeating timer (its
    /// periods are its `timeout`).
    @usableFromInline
    func start(countdown: Double) {
        if let executor = self.queue.closableExecutor {
            if !self.registerForClose(executor) {
                return
            }
            if let virtualTime = executor as? VirtualTimeExecutor {
                self.startVirtual(virtualTime, countdown)
                return
            }
        }
        let timer = DispatchSource.makeTimerSource(queue: self.queue.queue)
        // A timeout too long for an Int of nanoseconds (about 292 years, or
        // infinity) never fires, instead of trapping in the conversion; so
        // does NaN, as in `Queue.after` (`max(0.0, .nan)` is 0: it would fire
        // at once, and a repeating timer without pause).
        let nanoseconds = countdown.isNaN ? Double.infinity : max(0.0, countdown) * 1_000_000_000.0
        let interval: DispatchTimeInterval = nanoseconds < Double(Int.max) ? .nanoseconds(Int(nanoseconds)) : .never
        timer.schedule(deadline: DispatchTime.now() + interval, repeating: self.repeat ? interval : .never)
        self.mutex.lock()
        // Only on a host-drained queue: its close ended the timer since
        // `registerForClose` (then this source is cancelled at once).
        let ended = self.endedByClose
        var previous: DispatchSourceTimer?
        var generation = 0
        if !ended {
            self.generation += 1
            generation = self.generation
            previous = self.timer
            self.timer = timer
        }
        self.mutex.unlock()
        // The handlers reach the queue through the timer, which holds it
        // while it lives, and capture nothing else of it: libdispatch lets
        // go of a cancelled source's handler later, on a thread of its own,
        // and a queue the handler held (with a host-drained queue's
        // executor) was freed there, after its last release had returned
        // and `sk_live_objects_wait` with it (valgrind saw its memory lost
        // when the program ended meanwhile).
        if self.queue.closableExecutor != nil {
            timer.setEventHandler { [weak self] in
                guard let self, self.claimQueuedFiring(generation) else {
                    return
                }
                self.queue.enterFromDispatch { [weak self] in
                    self?.runQueuedFiring(generation)
                }
            }
        } else {
            timer.setEventHandler { [weak self] in
                // On the queue's dispatch queue: `enterFromDispatch` runs
                // `fire` here, at once.
                self?.queue.enterFromDispatch {
                    self?.fire(generation)
                }
            }
        }
        previous?.cancel()
        timer.resume()
        if ended {
            timer.cancel()
        }
    }

    /// Whether a firing of `generation` is to be handed to the queue's
    /// executor: not while one is waiting there. A dispatch queue merges the
    /// firings of a timer that it cannot run yet into one (the source's
    /// event handler runs once); an executor keeps every task it is given,
    /// so without this a repeating timer on a host-drained queue that nobody
    /// drains would pile up a task per period without bound.
    private func claimQueuedFiring(_ generation: Int) -> Bool {
        self.mutex.lock()
        defer { self.mutex.unlock() }
        if self.queuedFiring == generation {
            return false
        }
        self.queuedFiring = generation
        return true
    }

    /// A firing handed to the executor runs: later firings are handed to it
    /// again from now on.
    private func runQueuedFiring(_ generation: Int) {
        self.mutex.lock()
        if self.queuedFiring == generation {
            self.queuedFiring = nil
        }
        self.mutex.unlock()
        self.fire(generation)
    }

    private func fire(_ generation: Int) {
        self.mutex.lock()
        let completion = self.timer != nil && self.generation == generation ? self.completion : nil
        self.mutex.unlock()
        guard let completion else {
            return
        }
        completion(self)
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

    /// On a host-drained or virtual-time queue: registers the timer with the
    /// queue's executor (once), so that the queue's close ends it
    /// (`endByClose`). False when the queue's close has ended it, or ends it
    /// now because the queue is closed already: then there is nothing to
    /// start.
    private func registerForClose(_ executor: QueueExecutor) -> Bool {
        self.mutex.lock()
        let ended = self.endedByClose
        let registered = self.closeToken != nil
        self.mutex.unlock()
        if ended {
            return false
        }
        if registered {
            return true
        }
        // The entry holds the timer weakly: the registry must not keep it
        // alive (releasing the last reference stops a timer).
        guard let token = executor.registerForClose(TimerCloseEntry(self)) else {
            self.endByClose()
            return false
        }
        self.mutex.lock()
        var extra: UInt64?
        if self.closeToken == nil {
            self.closeToken = token
        } else {
            // Another thread's first start registered it meanwhile.
            extra = token
        }
        self.mutex.unlock()
        if let extra {
            executor.unregisterForClose(extra)
        }
        return true
    }

    /// The queue's close: invalidates the timer for good and drops its
    /// completion, released here (on the closing thread), outside the lock.
    fileprivate func endByClose() {
        self.mutex.lock()
        self.endedByClose = true
        let timer = self.timer
        self.timer = nil
        self.virtualArmed = false
        let token = self.virtualToken
        self.virtualToken = nil
        let completion = self.completion
        self.completion = nil
        self.mutex.unlock()
        timer?.cancel()
        if let token {
            self.queue.virtualTimeExecutor?.cancel(token)
        }
        withExtendedLifetime(completion) {
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

    private func startVirtual(_ executor: VirtualTimeExecutor, _ countdown: Double) {
        self.mutex.lock()
        if self.endedByClose {
            // The queue's close ended it since `registerForClose`.
            self.mutex.unlock()
            return
        }
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
        self.scheduleVirtual(executor, generation, countdown)
    }

    private func scheduleVirtual(_ executor: VirtualTimeExecutor, _ generation: Int, _ countdown: Double) {
        guard let period = VirtualTimeExecutor.nanoseconds(countdown) else {
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
        var completion: ((Timer) -> Void)?
        if current {
            completion = self.completion
            self.virtualToken = nil
            if !self.repeat {
                self.virtualArmed = false
            }
        }
        self.mutex.unlock()
        guard let completion else {
            return
        }
        completion(self)
        if self.repeat {
            self.mutex.lock()
            let still = self.virtualArmed && self.generation == generation
            self.mutex.unlock()
            if still {
                self.scheduleVirtual(executor, generation, self.timeout)
            }
        }
    }
}

/// A started timer's entry in its queue's close registry: holds the timer
/// weakly, and ends it when the queue closes. A timer deinited meanwhile
/// reads as nil (its deinit unregisters the entry).
private final class TimerCloseEntry: QueueCloseDroppable {
    private weak var timer: Timer?

    init(_ timer: Timer) {
        self.timer = timer
    }

    func dropForQueueClose() {
        self.timer?.endByClose()
    }
}
