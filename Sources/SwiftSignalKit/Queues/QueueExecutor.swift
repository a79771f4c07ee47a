import Dispatch
import Synchronization
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
/// Whether the calling thread is running the work of a host-drained or
/// virtual-time queue (inside its drain or its scheduler's advance): such a
/// queue moves only when that work returns, so a producer there cannot wait
/// for room that the queue's other work may be what makes (the `block`
/// policy refuses instead: `SignalOverflowError.Reason.cannotWaitForQueue`).
/// Out of line: on the path of a full buffer only.
@usableFromInline @inline(never)
func _currentThreadRunsAnExecutorQueue() -> Bool {
    return _sks_current_host_queue() != nil
}

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

    /// Runs `task` later, as work of this executor; when the executor drops
    /// it without running it (closed already, or closing before it runs),
    /// `dropped.queueDroppedWork()` is called on the dropping thread (the
    /// enqueuing or the closing one), with no lock of the library held.
    /// Here: a ticket held by the task tells of the drop when it is released
    /// without having run. The host-drained and virtual-time executors keep
    /// the observer beside the task instead (no allocation beyond `task`'s).
    func enqueue(_ task: @escaping () -> Void, ifDropped dropped: any QueueDropObserver) {
        let ticket = QueueDropTicket(dropped)
        self.enqueue {
            ticket.run(task)
        }
    }

    /// Drops the pending work and every later task. Subclasses override it.
    func close() {
    }

    /// Runs `f` as work of this executor and waits for it (called when not
    /// current): enqueued, and waited for until whoever runs the executor's
    /// work has run it. Returns true when `f` ran; false when the executor
    /// dropped it instead (it closed before `f` ran, or was closed already):
    /// then `dropped` has run, once, on the dropping thread (the closing one,
    /// or this one), with no lock of the library held, before this returns.
    func sync(_ f: () -> Void, ifDropped dropped: () -> Void) -> Bool {
        return self.enqueueSync(f, ifDropped: dropped, beforeWaiting: {
        })
    }

    /// Enqueues `f` as a `sync` task, runs `beforeWaiting` (a virtual-time
    /// queue's advance), then waits until the task has run or been dropped;
    /// returns whether it ran (see `sync(_:ifDropped:)`).
    ///
    /// The task is also in the close registry: the close drops it from
    /// there, on the closing thread, whoever still holds the enqueued
    /// closure at that moment (the enqueuing thread may, for an instant
    /// after the task became pending). It never depends on the closure's
    /// release, so `dropped` runs on the closing thread.
    final func enqueueSync(_ f: () -> Void, ifDropped dropped: () -> Void, beforeWaiting: () -> Void) -> Bool {
        return withoutActuallyEscaping(f) { f in
            withoutActuallyEscaping(dropped) { dropped in
                let waiter = SyncWaiter()
                let task = SyncTask(f, ifDropped: dropped, waiter: waiter)
                guard let token = self.registerForClose(task) else {
                    // Closed already: dropped here.
                    task.dropForQueueClose()
                    return waiter.wait()
                }
                self.enqueue { [weak self] in
                    if task.run() {
                        // Unregistered before the waiter wakes: the sync
                        // keeps this executor until then.
                        self?.unregisterForClose(token)
                        waiter.finish(ran: true)
                    }
                }
                beforeWaiting()
                return waiter.wait()
            }
        }
    }
}

/// Wakes the thread of one `sync` call and tells it whether its work ran.
///
/// Thread-safety: `finish` once, from any thread; `wait` from the waiting one.
private final class SyncWaiter: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let ran = Synchronization.Atomic<Bool>(false)

    func finish(ran: Bool) {
        self.ran.store(ran, ordering: .releasing)
        self.done.signal()
    }

    func wait() -> Bool {
        self.done.wait()
        return self.ran.load(ordering: .acquiring)
    }
}

/// The work of one `sync` call: run by whoever runs the executor's work, or
/// dropped by the executor's close (through the close registry), whichever
/// claims it first. The claim is taking the drop handler out of its box;
/// each side lets go of both closures (which must not outlive the call:
/// `withoutActuallyEscaping`) before the waiter is woken.
///
/// Thread-safety: `run` and `dropForQueueClose` may race, from any threads;
/// one of them wins.
private final class SyncTask: QueueCloseDroppable, @unchecked Sendable {
    private let work: TransferBox<() -> Void>
    private let dropped: TransferBox<() -> Void>
    private let waiter: SyncWaiter

    init(_ work: @escaping () -> Void, ifDropped dropped: @escaping () -> Void, waiter: SyncWaiter) {
        self.work = TransferBox(work)
        self.dropped = TransferBox(dropped)
        self.waiter = waiter
    }

    /// Runs the work unless the close dropped it first; returns whether it
    /// ran (the caller then wakes the waiter).
    func run() -> Bool {
        guard self.dropped.take() != nil else {
            return false
        }
        self.work.take()?()
        return true
    }

    /// The close's side: the work is released without running, the drop
    /// handler runs, and the waiter wakes; nothing if the work ran.
    func dropForQueueClose() {
        if self.runDropHandler() {
            self.waiter.finish(ran: false)
        }
    }

    // The closures are released inside, before the waiter is woken.
    private func runDropHandler() -> Bool {
        guard let dropped = self.dropped.take() else {
            return false
        }
        _ = self.work.take()
        dropped()
        return true
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

/// One pending task of a host-drained or virtual-time executor, and whom to
/// tell if it is dropped without running (`enqueue(_:ifDropped:)`). A struct
/// rather than a bare closure in the executors' collections: a closure
/// stored as a collection's element is kept at its most general
/// representation, which costs a context allocation on the way in and
/// another on the way out.
struct QueueTask {
    let run: () -> Void
    let dropObserver: (any QueueDropObserver)?

    init(_ run: @escaping () -> Void, ifDropped dropObserver: (any QueueDropObserver)? = nil) {
        self.run = run
        self.dropObserver = dropObserver
    }

    /// Tells the observers of `tasks` that they were dropped; call with no
    /// lock held, after the tasks themselves were released or at once.
    static func tellDropped<C: Sequence>(_ tasks: C) where C.Element == QueueTask {
        for task in tasks {
            task.dropObserver?.queueDroppedWork()
        }
    }
}

/// Held by one task of `QueueExecutor.enqueue(_:ifDropped:)`'s general
/// path: released without having run, it tells its observer. The release
/// follows the run (or the drop) on the thread that releases the task;
/// nothing else touches it.
private final class QueueDropTicket {
    private var observer: (any QueueDropObserver)?

    init(_ observer: any QueueDropObserver) {
        self.observer = observer
    }

    func run(_ f: () -> Void) {
        self.observer = nil
        f()
    }

    deinit {
        self.observer?.queueDroppedWork()
    }
}
