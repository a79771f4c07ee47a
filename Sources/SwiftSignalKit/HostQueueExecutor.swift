import _SwiftSignalKitShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The error thrown by `Queue.drain` when another thread is already draining
/// the same host-drained queue.
public enum QueueDrainError: Error, Equatable {
    /// Another thread is draining this queue; nothing ran.
    case alreadyDraining
    /// The queue is not a host-drained queue.
    case notHostDrained
}

/// The pending work of a host-drained queue, with an eventfd that is readable
/// exactly while work is pending.
///
/// Thread-safety: `enqueue` may be called from any thread; `drain` from any
/// thread, one at a time (a concurrent drain fails with `alreadyDraining`).
/// Tasks run outside the lock.
final class HostQueueExecutor: @unchecked Sendable {
    private let mutex = _Mutex()
    private var tasks: [() -> Void] = []
    private var draining = false
    let fileDescriptor: Int32

    init() {
        self.fileDescriptor = _sks_event_create()
        precondition(self.fileDescriptor >= 0, "SwiftSignalKit: eventfd failed (errno \(errno))")
    }

    deinit {
        _sks_event_close(self.fileDescriptor)
    }

    /// True when the calling thread is inside this executor's `drain`.
    var isCurrent: Bool {
        return _sks_current_host_queue() == Unmanaged.passUnretained(self).toOpaque()
    }

    func enqueue(_ task: @escaping () -> Void) {
        self.mutex.lock()
        let wasEmpty = self.tasks.isEmpty
        self.tasks.append(task)
        if wasEmpty {
            self.signalPending()
        }
        self.mutex.unlock()
    }

    /// Runs up to `maxTasks` of the tasks pending when the call starts (0 means
    /// all of them) on the calling thread; returns how many ran.
    func drain(maxTasks: Int) throws(QueueDrainError) -> Int {
        self.mutex.lock()
        if self.draining {
            self.mutex.unlock()
            throw .alreadyDraining
        }
        self.draining = true
        let limit = maxTasks <= 0 ? self.tasks.count : min(maxTasks, self.tasks.count)
        let batch = Array(self.tasks.prefix(limit))
        self.tasks.removeFirst(limit)
        self.mutex.unlock()

        let previous = _sks_current_host_queue()
        _sks_set_current_host_queue(Unmanaged.passUnretained(self).toOpaque())
        for task in batch {
            task()
        }
        _sks_set_current_host_queue(previous)

        self.mutex.lock()
        self.draining = false
        if self.tasks.isEmpty {
            self.clearPending()
        }
        self.mutex.unlock()
        return batch.count
    }

    // Called with the lock held: the eventfd's counter is nonzero exactly while
    // `tasks` is not empty.
    private func signalPending() {
        _sks_event_signal(self.fileDescriptor)
    }

    private func clearPending() {
        _sks_event_clear(self.fileDescriptor)
    }
}
