import Dispatch
import _SwiftSignalKitShims

/// What runs the work of a queue that is not a dispatch queue: a host-drained
/// queue (`HostQueueExecutor`) or a virtual-time queue
/// (`VirtualTimeExecutor`). A `Queue` holds one or none; the dispatch paths
/// of `Queue` test only that it holds none, so they cost what they did before
/// there were two kinds.
///
/// While an executor runs work, it marks itself current on the running
/// thread (the shims' thread-local), so `isCurrent` is one comparison.
///
/// Closing an executor drops, besides its pending tasks, what waits outside
/// its task list for a time to come and would otherwise outlive the close:
/// the work of `Queue.after` on a host-drained queue (kept by a dispatch
/// timer until its deadline) and the completions of started `Timer`s (which
/// usually hold what holds the timer, a cycle that only their firing or a
/// dispose breaks). Those register here (`registerForClose`) and are dropped
/// on the closing thread, outside every lock, by `dropRegisteredForClose`.
///
/// Thread-safety: every method may be called from any thread (each subclass
/// documents its own rules).
class QueueExecutor: @unchecked Sendable {
    // The registry of what to drop at the close; guarded by `closeMutex`, a
    // lock of its own that nothing else is taken under.
    private let closeMutex = _Mutex()
    private var closeEntries: [UInt64: any QueueCloseDroppable] = [:]
    private var nextCloseToken: UInt64 = 0
    private var closeDone = false

    /// Registers `entry` to be dropped when the executor closes; returns
    /// the token for `unregisterForClose`, or nil when the executor has
    /// closed already (then the caller drops it itself, at once). The
    /// registry holds `entry` strongly until it is unregistered or dropped.
    final func registerForClose(_ entry: any QueueCloseDroppable) -> UInt64? {
        self.closeMutex.lock()
        if self.closeDone {
            self.closeMutex.unlock()
            return nil
        }
        let token = self.nextCloseToken
        self.nextCloseToken += 1
        self.closeEntries[token] = entry
        self.closeMutex.unlock()
        return token
    }

    /// Forgets the entry of `token` (no effect when it was dropped already).
    /// The entry is released here, outside the lock.
    final func unregisterForClose(_ token: UInt64) {
        self.closeMutex.lock()
        let entry = self.closeEntries.removeValue(forKey: token)
        self.closeMutex.unlock()
        withExtendedLifetime(entry) {
        }
    }

    /// Called by the subclasses' `close` once they are closed, with none of
    /// their locks held: drops every registered entry on the calling thread,
    /// outside the lock, and makes later registrations fail.
    final func dropRegisteredForClose() {
        self.closeMutex.lock()
        self.closeDone = true
        let entries = self.closeEntries
        self.closeEntries = [:]
        self.closeMutex.unlock()
        for entry in entries.values {
            entry.dropForQueueClose()
        }
    }

    /// True when the calling thread is running this executor's work.
    final var isCurrent: Bool {
        return _sks_current_host_queue() == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Runs `task` later, as work of this executor. Subclasses override it.
    func enqueue(_ task: @escaping () -> Void) {
        // Invariant (the library's own): every executor subclass overrides
        // this; no caller can reach the base class's version.
        preconditionFailure("QueueExecutor.enqueue is overridden by every executor")
    }

    /// Drops the pending work and every later task. Subclasses override it.
    func close() {
    }

    /// Runs `f` as work of this executor and waits for it (called when not
    /// current): enqueued, and waited for until whoever runs the executor's
    /// work has run it.
    func sync(_ f: () -> Void) {
        // The task holds `f` only through the box, which lets go of it before
        // waking this thread: the runner may keep the task itself a little
        // longer.
        withoutActuallyEscaping(f) { f in
            let box = TransferBox(f)
            let done = DispatchSemaphore(value: 0)
            self.enqueue {
                box.take()?()
                done.signal()
            }
            done.wait()
        }
    }
}

/// Something a closing executor must drop (see `QueueExecutor`).
protocol QueueCloseDroppable: AnyObject {
    /// Lets go of the work or completion that would have run on the queue.
    /// Called at most once by the registry, on the closing thread, with no
    /// lock of the library held: what it releases may run user code.
    func dropForQueueClose()
}

extension TransferBox: QueueCloseDroppable {
    /// Takes the value out and releases it here.
    func dropForQueueClose() {
        _ = self.take()
    }
}
