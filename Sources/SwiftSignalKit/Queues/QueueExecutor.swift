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
/// Thread-safety: every method may be called from any thread (each subclass
/// documents its own rules).
class QueueExecutor: @unchecked Sendable {
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
