/// The state a `ThreadPoolTask` shares with its action: whether the task has
/// been cancelled.
///
/// A long-running action may poll `cancelled` to stop early; an action that has
/// not started by the time its task is cancelled never runs.
///
/// Thread-safety: `cancelled` is an `Atomic` and may be read or written from any
/// thread.
public final class ThreadPoolTaskState: Sendable {
    /// True once the task has been cancelled with `ThreadPoolTask.cancel()`.
    public let cancelled = Atomic<Bool>(value: false)

    init() {
    }
}
