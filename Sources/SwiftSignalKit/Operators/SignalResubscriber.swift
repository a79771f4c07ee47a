/// Runs a chain of subscriptions that follow one another (restart, retry,
/// feedback loops), each started by a `step`, as a loop rather than by
/// recursion.
///
/// `start(step)` runs the first step; `next()` asks for another one (typically
/// from the completion of the subscription the previous step started). When
/// `next()` is called while a step is running (the subscription it started
/// ended synchronously), it only records the request and the running loop
/// performs it once the step returns: the stack never grows with the number
/// of iterations. At most one step runs at a time.
///
/// The step returns the disposable of what it started (or nil when it started
/// nothing); the resubscriber holds the latest one. Disposing it disposes that
/// subscription, stops the loop and releases the step (and so everything the
/// step captured); a subscription started by a step that was running while it
/// was disposed is disposed as soon as the step returns.
///
/// The loop also stops, before running another step, once `isDone` says
/// the downstream has nothing more to receive (its subscriber has terminated:
/// a `take` downstream completed it while a synchronous loop was still inside
/// its start, where nobody holds the loop's disposable yet).
///
/// Thread-safety: every method may be called from any thread; the step runs
/// without any lock held.
final class SignalResubscriber: Disposable, @unchecked Sendable {
    private let mutex = _Mutex()
    private var disposed = false
    private var running = false
    private var pending = false
    private var step: ((SignalResubscriber) -> (any Disposable)?)?
    private var current: (any Disposable)?
    private let isDone: () -> Bool

    /// `isDone` is read before each step (typically the downstream
    /// subscriber's `isTerminated`); it must not call user code.
    init(until isDone: @escaping () -> Bool) {
        self.isDone = isDone
    }

    /// Installs `step` and runs it for the first time (unless already disposed).
    /// The step receives the resubscriber, so that it need not capture it:
    /// only what the step starts (whose callbacks call `next()`) keeps the
    /// loop alive, not the loop itself.
    func start(_ step: @escaping (SignalResubscriber) -> (any Disposable)?) {
        self.mutex.lock()
        if self.disposed {
            self.mutex.unlock()
            return
        }
        self.step = step
        self.mutex.unlock()
        self.next()
    }

    /// Runs the step again: at once on this thread if no step is running,
    /// otherwise right after the running one returns, on its thread.
    func next() {
        self.mutex.lock()
        if self.disposed || self.step == nil {
            self.mutex.unlock()
            return
        }
        if self.running {
            self.pending = true
            self.mutex.unlock()
            return
        }
        self.running = true
        self.mutex.unlock()

        while true {
            if self.isDone() {
                self.dispose()
            }
            self.mutex.lock()
            guard !self.disposed, let step = self.step else {
                self.running = false
                self.mutex.unlock()
                return
            }
            self.pending = false
            self.mutex.unlock()

            let disposable = step(self)

            self.mutex.lock()
            if self.disposed {
                self.running = false
                self.mutex.unlock()
                disposable?.dispose()
                return
            }
            let previous = self.current
            self.current = disposable
            let again = self.pending
            if !again {
                self.running = false
            }
            self.mutex.unlock()

            // The previous subscription has ended already: this only drops it.
            if let previous, previous !== disposable {
                previous.dispose()
            }
            if !again {
                return
            }
        }
    }

    func dispose() {
        self.mutex.lock()
        if self.disposed {
            self.mutex.unlock()
            return
        }
        self.disposed = true
        let current = self.current
        let step = self.step
        self.current = nil
        self.step = nil
        self.mutex.unlock()

        current?.dispose()
        // The step (and what it captured) is released here, outside the lock.
        withExtendedLifetime(step) {
        }
    }
}
