import _SwiftSignalKitShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The error thrown by `Queue.drain` when the same host-drained queue is
/// being drained already.
///
/// Thread-safety: an immutable value, safe to share between threads.
public enum QueueDrainError: Error, Equatable {
    /// A drain of this queue is running, on another thread or on this one
    /// (called from one of its tasks: drains do not nest); nothing ran.
    case alreadyDraining
    /// The queue is not a host-drained queue.
    case notHostDrained
}

/// The error thrown by `Queue.makeHostDrained` when the system refuses the
/// queue's descriptor.
///
/// Thread-safety: an immutable value, safe to share between threads.
public struct QueueCreationError: Error, Equatable, CustomStringConvertible {
    /// The `errno` of the failed `eventfd` call (EMFILE at the process's
    /// descriptor limit, ENFILE at the system's, ENOMEM).
    public let errno: Int32

    /// Makes the error for the `errno` of a failed `eventfd` call.
    public init(errno: Int32) {
        self.errno = errno
    }

    /// A message naming the failed call and `errno`.
    public var description: String {
        return "eventfd failed: \(String(cString: strerror(self.errno))) (errno \(self.errno))"
    }
}

/// The pending work of a host-drained queue, with an eventfd that is readable
/// exactly while work is pending, and is signalled when work arrives on an
/// empty queue and when a drain leaves work pending (for edge-triggered
/// watchers).
///
/// `close()` ends the queue for good: the pending tasks are dropped (released
/// on the closing thread, outside the lock, without running), the tasks of a
/// drain in progress that it has not reached included (that drain stops
/// after the task it is running), the descriptor is closed, and a task
/// enqueued later is dropped at once (a `sync` waiting for one of those
/// tasks returns: `QueueExecutor.sync(_:ifDropped:)`). So is what
/// registered for the close (`QueueExecutor`): `Queue.after` work still
/// counting down, and started timers. Pending tasks
/// usually hold what enqueued them (a `deliverOn` subscription holds the
/// queue), so without it an undrained queue and its descriptor would keep
/// each other alive.
///
/// Thread-safety: `enqueue` and `close` may be called from any thread; `drain`
/// from any thread, one at a time (a concurrent drain fails with
/// `alreadyDraining`). Tasks run, and dropped tasks are released, outside the
/// lock.
final class HostQueueExecutor: QueueExecutor, @unchecked Sendable {
    private let mutex = _Mutex()
    // Guarded by `mutex`: the pending tasks are `tasks[head...]`; a drain
    // takes them one at a time (each slot it took holds an empty closure), so that
    // a close finds every task not run yet, and trims the taken slots when
    // it ends.
    private var tasks: [QueueTask] = []
    private var head = 0
    private var draining = false
    // Guarded by `mutex`; -1 once closed.
    private var descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
        super.init()
    }

    /// An executor with a fresh eventfd, or the error of `eventfd`.
    static func make() throws(QueueCreationError) -> HostQueueExecutor {
        let descriptor = _sks_event_create()
        if descriptor < 0 {
            throw QueueCreationError(errno: errno)
        }
        return HostQueueExecutor(descriptor: descriptor)
    }

    deinit {
        if self.descriptor >= 0 {
            _sks_event_close(self.descriptor)
        }
    }

    /// The eventfd; -1 once the queue is closed.
    var fileDescriptor: Int32 {
        self.mutex.lock()
        defer { self.mutex.unlock() }
        return self.descriptor
    }

    /// Drops the pending work and closes the descriptor (see above). Later
    /// calls do nothing.
    override func close() {
        self.mutex.lock()
        let dropped = self.tasks[self.head...]
        self.tasks = []
        self.head = 0
        let descriptor = self.descriptor
        self.descriptor = -1
        self.mutex.unlock()
        if descriptor >= 0 {
            _sks_event_close(descriptor)
        }
        // The tasks (and what they hold) are released here, outside the lock,
        // their observers told, then what waits for a time to come (`after`
        // work, timers) is dropped.
        QueueTask.tellDropped(dropped)
        withExtendedLifetime(dropped) {
        }
        self.dropRegisteredForClose()
    }

    override func enqueue(_ task: @escaping () -> Void) {
        self.enqueue(QueueTask(task))
    }

    override func enqueue(_ task: @escaping () -> Void, ifDropped dropped: any QueueDropObserver) {
        self.enqueue(QueueTask(task, ifDropped: dropped))
    }

    private func enqueue(_ task: QueueTask) {
        self.mutex.lock()
        if self.descriptor < 0 {
            // Closed: nobody can drain it any more. `task` is released by the
            // caller's scope, outside the lock; its observer is told here.
            self.mutex.unlock()
            task.dropObserver?.queueDroppedWork()
            return
        }
        let wasEmpty = self.head == self.tasks.count
        self.tasks.append(task)
        if wasEmpty {
            self.signalPending()
        }
        self.mutex.unlock()
    }

    /// Runs up to `maxTasks` of the tasks pending when the call starts (0 means
    /// all of them) on the calling thread, one at a time, each taken out
    /// under the lock just before it runs: a close meanwhile (from one of
    /// them, or another thread) drops the others and ends the drain. Returns
    /// how many ran.
    func drain(maxTasks: Int) throws(QueueDrainError) -> Int {
        self.mutex.lock()
        if self.draining {
            self.mutex.unlock()
            throw .alreadyDraining
        }
        self.draining = true
        let pending = self.tasks.count - self.head
        let limit = maxTasks <= 0 ? pending : min(maxTasks, pending)
        self.mutex.unlock()

        // The queue this thread ran before stays its own during the drain
        // (`withQueueHold`): a sync back onto it from a task runs inline.
        let ran = withQueueHold {
            let previous = _sks_current_host_queue()
            _sks_set_current_host_queue(Unmanaged.passUnretained(self).toOpaque())
            var ran = 0
            while ran < limit, let task = self.takeNext() {
                task.run()
                ran += 1
            }
            _sks_set_current_host_queue(previous)
            return ran
        }

        self.mutex.lock()
        self.draining = false
        if self.head > 0 {
            self.tasks.removeFirst(self.head)
            self.head = 0
        }
        if self.descriptor >= 0 {
            if self.tasks.isEmpty {
                self.clearPending()
            } else {
                // Work is left (beyond `maxTasks`, or enqueued during the
                // drain, which found the queue not empty and so did not
                // signal): signal again, so that an edge-triggered watcher
                // (epoll's EPOLLET, tokio's AsyncFd) hears of it. Without it
                // such a loop would wait for ever: the queue never becomes
                // empty, so no later enqueue would signal either.
                self.signalPending()
            }
        }
        self.mutex.unlock()
        return ran
    }

    /// The next pending task, taken out of the queue; nil once the queue is
    /// closed (its tasks went with the close) or empty.
    private func takeNext() -> QueueTask? {
        self.mutex.lock()
        defer { self.mutex.unlock() }
        if self.descriptor < 0 || self.head == self.tasks.count {
            return nil
        }
        let task = self.tasks[self.head]
        // An empty closure (no context, nothing allocated) in its slot.
        self.tasks[self.head] = QueueTask({
        })
        self.head += 1
        return task
    }

    // Called with the lock held, while open: the eventfd's counter is nonzero
    // exactly while tasks are pending (between drains: while `tasks` is not
    // empty).
    private func signalPending() {
        _sks_event_signal(self.descriptor)
    }

    private func clearPending() {
        _sks_event_clear(self.descriptor)
    }
}
