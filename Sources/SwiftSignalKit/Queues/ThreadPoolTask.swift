/// A unit of work for a `ThreadPool` or a `ThreadPoolQueue`.
///
/// The action runs at most once, on a pool thread, and receives the task's
/// `ThreadPoolTaskState` so that it can notice a cancellation while it runs.
/// `cancel()` before the action starts means it never runs. The action is
/// released as soon as it has run or the task has been cancelled, even if the
/// task object itself lives on.
///
/// Thread-safety: `cancel()` may be called from any thread, concurrently with
/// the task's execution; the action is never called with a lock held.
public final class ThreadPoolTask: @unchecked Sendable {
    let state = ThreadPoolTaskState()
    private let mutex = _Mutex()
    private var action: ((ThreadPoolTaskState) -> Void)?

    /// Creates a task that runs `action` when a pool thread picks it up.
    public init(_ action: @escaping (ThreadPoolTaskState) -> ()) {
        self.action = action
    }

    /// Takes the action out of the task (so it runs at most once and is
    /// released afterwards) and runs it unless the task has been cancelled.
    func execute() {
        self.mutex.lock()
        let action = self.action
        self.action = nil
        self.mutex.unlock()
        guard let action else {
            return
        }
        if self.state.cancelled.with({ $0 }) {
            return
        }
        action(self.state)
    }

    /// Marks the task cancelled (`state.cancelled` becomes true) and releases
    /// its action if it has not started. An action already running is not
    /// interrupted: it can poll `state.cancelled`.
    public func cancel() {
        _ = self.state.cancelled.swap(true)
        self.mutex.lock()
        let action = self.action
        self.action = nil
        self.mutex.unlock()
        // The action, and whatever it captured, is released here, outside the lock.
        withExtendedLifetime(action) {
        }
    }
}
