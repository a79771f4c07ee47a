/// A serial lane of a `ThreadPool`: its tasks run one at a time, in the order
/// they were added, each on whichever pool thread is free.
///
/// Different queues of the same pool run in parallel; the pool takes one task
/// from a queue, then lets other ready queues have a turn before the next one
/// (round-robin), so a busy queue cannot starve the others.
///
/// A queue keeps its pool working (`ThreadPool`, "Lifetime"): a task added
/// after the pool's last reference went away runs, as in the original, whose
/// pool is never freed.
///
/// Equality is identity (`==` compares references).
///
/// Thread-safety: `addTask` may be called from any thread, including from a
/// task running on the pool; tasks of one queue never run concurrently, and
/// each task's effects happen-before the next task of the same queue starts.
public final class ThreadPoolQueue: Equatable, @unchecked Sendable {
    let core: ThreadPoolCore
    /// The pool's owner (nil on a bounded concurrent queue's core, which
    /// its executor closes): keeps the core open while the queue lives.
    private let owner: ThreadPoolOwner?
    // Guarded by `core`'s mutex.
    var tasks = ThreadPoolCore.Fifo<ThreadPoolTask>()
    // True while the queue is in the pool's ready list or a thread is running
    // one of its tasks. Guarded by `core`'s mutex.
    var scheduled = false

    /// Creates a new queue on `threadPool`.
    public init(threadPool: ThreadPool) {
        self.core = threadPool.core
        self.owner = threadPool.owner
    }

    /// A queue on a core with no `ThreadPool` (a bounded concurrent
    /// `Queue`'s: `BoundedConcurrentExecutor`).
    init(core: ThreadPoolCore) {
        self.core = core
        self.owner = nil
    }

    /// Appends `task` to the queue; it runs after every task added before it.
    public func addTask(_ task: ThreadPoolTask) {
        self.core.enqueue(task, on: self)
    }
}

/// Identity: two `ThreadPoolQueue`s are equal when they are the same object.
public func == (lhs: ThreadPoolQueue, rhs: ThreadPoolQueue) -> Bool {
    return lhs === rhs
}
