import Dispatch
import Synchronization
import _SwiftSignalKitShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The identity a queue stores as its dispatch specific, so that code running
/// on it can recognise it.
private final class QueueSpecific: @unchecked Sendable {
}

private let queueSpecificKey = DispatchSpecificKey<QueueSpecific>()

/// Serialises the reading and setting of a dispatch queue's mark, so that
/// wrappers made at once of a queue not yet marked find one mark. The
/// project's `_Mutex`, not Synchronization's `Mutex`: that one keeps each
/// thread's id in a thread-local for the kernel (a priority-inheriting
/// futex), which a forked child's thread inherits wrong (shims.c,
/// `sks_forget_thread_id`, says what that costs and corrects the runtime's
/// own copy; this one it cannot reach).
private let queueSpecificLock = _Mutex()

/// The mark of `queue`, set now if it has none. Every `Queue` of one dispatch
/// queue shares it: a second mark set over the first would leave the queues
/// holding the first never current (and their `sync` from the queue's own
/// work a dispatch_sync onto it, which libdispatch refuses by stopping the
/// process).
private func queueSpecific(of queue: DispatchQueue) -> QueueSpecific {
    return queueSpecificLock.withLock {
        if let existing = queue.getSpecific(key: queueSpecificKey) {
            return existing
        }
        let specific = QueueSpecific()
        queue.setSpecific(key: queueSpecificKey, value: specific)
        return specific
    }
}

private func isMainThread() -> Bool {
    return _sks_is_main_thread() != 0
}

/// A dispatch queue that knows when it is current (a serial queue, the main
/// queue, a host-drained or virtual-time queue), or one of the global
/// concurrent queues, which cannot know it.
///
/// `async` runs its work inline when called from the queue itself, so that a
/// chain delivering on a queue it is already on costs nothing; `justDispatch`
/// always enqueues. On the global concurrent queues (`concurrentDefaultQueue()`,
/// `concurrentBackgroundQueue()`) `isCurrent()` is always false, as in the
/// original (dispatch keeps no queue-specific data on them), so `async` from
/// their own work enqueues.
///
/// The main queue on Linux: `Queue.mainQueue()` wraps `DispatchQueue.main`.
/// Work enqueued on it runs only when the main thread drains the main dispatch
/// queue: when it calls `dispatchMain()` (which never returns), or while it runs
/// Foundation's `RunLoop.main` (XCTest does so while it waits for
/// expectations). A process that does neither never runs main-queue work.
/// `isCurrent()` is true on the main thread and inside main-queue work, so
/// `async` from the main thread runs inline. (After `dispatchMain()`,
/// libdispatch on Linux may run main-queue work on a thread of its own:
/// `isCurrent()` is true there, `Thread.isMainThread` is not.)
///
/// Host-drained queues (`Queue.hostDrained()`) run their work only inside
/// `drain()`, on the thread that calls it; their `hostFileDescriptor` is
/// readable while work is pending, so an event loop can watch it.
///
/// Bounded concurrent queues (`Queue.makeBoundedConcurrent(maxWorkers:)`)
/// run their work on at most that many threads of their own; like the
/// global concurrent queues they are never current.
///
/// Virtual-time queues (`Queue.virtualTime()`, for tests) run their work,
/// timers included, only when a test advances their clock (`advance(by:)`,
/// `advance(to:)`, `run()`), on the advancing thread, in deadline order.
///
/// Thread-safety: every method may be called from any thread.
public final class Queue: @unchecked Sendable {
    private let nativeQueue: DispatchQueue
    fileprivate let specific: QueueSpecific?
    /// The identity of a queue made by `init(name:qos:)`, marked on its
    /// dispatch queue as a plain token (`_sks_dispatch_mark_current_queue`);
    /// 0 for the others, which use `specific`. Not the overlay's specific:
    /// that has a destructor, which libdispatch runs on its default
    /// concurrent pool when the dispatch queue goes; that pool's first
    /// worker sets libdispatch's monitor going, which needs the event loop's
    /// descriptors (at the descriptor limit the process died of SIGILL when
    /// a serial queue was released) and starts a thread.
    private let token: UInt
    /// libdispatch's C handle of a queue made by `init(name:qos:)`
    /// (borrowed: `nativeQueue` keeps it), for `justDispatch(_:)`'s
    /// dispatch_async_f; nil for the others.
    private let cQueue: UnsafeMutableRawPointer?
    /// The next token (never 0; 64 bits do not run out).
    private static let nextToken = Synchronization.Atomic<UInt>(1)
    private let specialIsMainQueue: Bool
    // A host-drained or virtual-time queue's executor; nil for dispatch queues.
    private let executor: QueueExecutor?
    /// The raw specific value (the overlay's box around `specific`) seen on
    /// this queue, learned the first time `isCurrent` confirms it the slow
    /// way; 0 until then. The box lives as long as the dispatch queue, which
    /// this object keeps, so the address identifies the queue.
    fileprivate let currentSpecificBox = Synchronization.Atomic<UInt>(0)
    /// How many pieces of work this queue has been given to run later: an
    /// `async` or `sync` that does not run inline, a `justDispatch`
    /// (`Queue.after`'s work is not counted: a timer gives it to the queue
    /// when it fires). A `deliverOn` onto an ordered queue reads it to keep
    /// its events in order with the rest of the queue's work
    /// (`_DeliverOnQueueState`).
    @usableFromInline let enqueued = Synchronization.Atomic<UInt>(0)
    /// Whether the queue runs its work one piece at a time, in the order it
    /// was given: every queue but the concurrent ones (the global ones, and
    /// those of `makeBoundedConcurrent`).
    @usableFromInline let isOrdered: Bool
    /// Whether this is a host-drained queue (`hostDrained(name:)`).
    @usableFromInline let isHostDrained: Bool

    /// The underlying dispatch queue.
    public var queue: DispatchQueue {
        return self.nativeQueue
    }

    fileprivate static let globalMainQueue = Queue(queue: DispatchQueue.main, specialIsMainQueue: true)
    private static let globalDefaultQueue = Queue(queue: DispatchQueue.global(qos: .default), specialIsMainQueue: false)
    private static let globalBackgroundQueue = Queue(queue: DispatchQueue.global(qos: .background), specialIsMainQueue: false)

    /// The main queue (see the type's documentation for when its work runs on Linux).
    public class func mainQueue() -> Queue {
        return globalMainQueue
    }

    /// The global concurrent queue of default quality of service.
    ///
    /// On Linux its work runs on a pool of libdispatch that a monitor
    /// watches (see `Queue.prepareTimers()`: call it before the first work
    /// of a process that may run out of descriptors). While work is pending
    /// in the pool (more tasks than workers), the monitor opens
    /// `/proc/<thread>/stat` of each worker every second, and libdispatch
    /// stops the process (SIGILL) when that open fails (on its own thread,
    /// at its own time: nothing this package can guard; the C library,
    /// libsignalkit.so, links a libdispatch of its own whose failed open is
    /// survived, but a Swift program uses the toolchain's). Keep a
    /// descriptor free (below `RLIMIT_NOFILE`) while work given to the
    /// concurrent queues is pending, or use serial queues, whose pools are
    /// not watched.
    public class func concurrentDefaultQueue() -> Queue {
        return globalDefaultQueue
    }

    /// The global concurrent queue of background quality of service (see
    /// `concurrentDefaultQueue()` for its pool and descriptors).
    public class func concurrentBackgroundQueue() -> Queue {
        return globalBackgroundQueue
    }

    /// Whether this queue's work runs on libdispatch's monitored worker
    /// pools (the global concurrent queues'), whose first worker sets the
    /// monitor's timer going, and so needs libdispatch's event loop (see
    /// `prepareTimers`). Serial queues run on pools that are not monitored.
    package var usesMonitoredWorkers: Bool {
        return self === Queue.globalDefaultQueue || self === Queue.globalBackgroundQueue
    }

    /// The global queues' initializer: `Queue.mainQueue()` is made with
    /// `specialIsMainQueue` on its first use. Package-visible so that the
    /// tests can replay that first use on a dispatch queue of their own.
    package init(queue: DispatchQueue, specialIsMainQueue: Bool) {
        self.nativeQueue = queue
        self.specialIsMainQueue = specialIsMainQueue
        self.executor = nil
        self.token = 0
        self.cQueue = nil
        self.isOrdered = specialIsMainQueue
        self.isHostDrained = false
        if specialIsMainQueue {
            // A `Queue(queue: DispatchQueue.main)` made before this first use
            // of `mainQueue()` marked the main dispatch queue already.
            self.specific = queueSpecific(of: queue)
        } else {
            // Global concurrent queues cannot carry specifics, and "current" has
            // no meaning for them: `async` always dispatches.
            self.specific = nil
        }
    }

    /// Wraps an existing serial dispatch queue. All `Queue`s wrapping the same
    /// dispatch queue recognise each other as current; so do wrappers of
    /// `DispatchQueue.main` and `Queue.mainQueue()`, whichever is made first.
    ///
    /// This differs from the original, whose `init(queue:)` marks nothing on
    /// the dispatch queue: there such a `Queue` is never current, so `async`
    /// from the queue's own work always enqueues (here it runs inline, as it
    /// does for every queue that knows it is current), and `sync` from it
    /// deadlocks (here it runs inline).
    public init(queue: DispatchQueue) {
        self.nativeQueue = queue
        self.isOrdered = true
        self.isHostDrained = false
        self.specialIsMainQueue = false
        self.executor = nil
        self.token = 0
        self.cQueue = nil
        self.specific = queueSpecific(of: queue)
    }

    /// Creates a new serial queue.
    public init(name: String? = nil, qos: DispatchQoS = .default) {
        let nativeQueue = DispatchQueue(label: name ?? "SwiftSignalKit.Queue", qos: qos)
        self.nativeQueue = nativeQueue
        self.isOrdered = true
        self.isHostDrained = false
        self.specialIsMainQueue = false
        self.executor = nil
        self.specific = nil
        let token = Queue.nextToken.add(1, ordering: .relaxed).oldValue
        self.token = token
        // The C entry point needs the C queue, which the overlay does not
        // expose: it marks the queue whose sync runs (a new queue is idle, so
        // the sync runs here, on this thread, starting no thread), and hands
        // it back.
        self.cQueue = nativeQueue.sync {
            _sks_dispatch_mark_current_queue(token)
        }
    }

    private init(host: HostQueueExecutor, name: String?) {
        // Dispatch work (timer sources) lands on this queue, then hops to the host.
        self.nativeQueue = DispatchQueue(label: name ?? "SwiftSignalKit.HostQueue")
        self.isOrdered = true
        self.isHostDrained = true
        self.specialIsMainQueue = false
        self.specific = nil
        self.token = 0
        self.cQueue = nil
        self.executor = host
    }

    init(boundedConcurrent: BoundedConcurrentExecutor, name: String?) {
        // Never given work: the executor's threads run it. It exists for
        // `queue`, which callers may read, and counts down `after`'s
        // deadlines.
        self.nativeQueue = DispatchQueue(label: name ?? "SwiftSignalKit.BoundedConcurrentQueue")
        self.isOrdered = false
        self.isHostDrained = false
        self.specialIsMainQueue = false
        self.specific = nil
        self.token = 0
        self.cQueue = nil
        self.executor = boundedConcurrent
    }

    init(virtualTime: VirtualTimeExecutor, name: String?) {
        // Never given work: every path of a virtual-time queue goes to its
        // executor. It exists for `queue`, which callers may read.
        self.nativeQueue = DispatchQueue(label: name ?? "SwiftSignalKit.VirtualTimeQueue")
        self.isOrdered = true
        self.isHostDrained = false
        self.specialIsMainQueue = false
        self.specific = nil
        self.token = 0
        self.cQueue = nil
        self.executor = virtualTime
    }

    /// The executor of a host-drained or virtual-time queue (the queues that
    /// can close); nil for dispatch queues.
    var closableExecutor: QueueExecutor? {
        return self.executor
    }

    /// The executor of a virtual-time queue; nil for other queues.
    var virtualTimeExecutor: VirtualTimeExecutor? {
        guard let executor = self.executor else {
            return nil
        }
        return executor as? VirtualTimeExecutor
    }

    /// Creates a host-drained serial queue: its work runs only inside
    /// `drain(maxTasks:)`, on the thread that calls it, in the order it was
    /// enqueued. `hostFileDescriptor` is readable while work is pending.
    ///
    /// Traps when the system refuses the queue's descriptor (at the
    /// process's descriptor limit): `makeHostDrained(name:)` throws instead.
    public static func hostDrained(name: String? = nil) -> Queue {
        do {
            return try makeHostDrained(name: name)
        } catch {
            // Documented above: the throwing form is the one to handle it.
            fatalError("SwiftSignalKit: Queue.hostDrained: \(error)")
        }
    }

    /// Creates a host-drained serial queue, as `hostDrained(name:)` does, or
    /// throws when the system refuses its descriptor (EMFILE, ENFILE, ENOMEM).
    public static func makeHostDrained(name: String? = nil) throws(QueueCreationError) -> Queue {
        return Queue(host: try HostQueueExecutor.make(), name: name)
    }

    /// For a host-drained queue, a descriptor (owned by the queue; do not close
    /// it) that is readable exactly while work is pending; nil otherwise, and
    /// nil once `closeHostDrained()` has run.
    public var hostFileDescriptor: Int32? {
        guard let host = self.executor as? HostQueueExecutor else {
            return nil
        }
        let descriptor = host.fileDescriptor
        return descriptor >= 0 ? descriptor : nil
    }

    /// Ends a host-drained queue for good, for an owner that will never drain
    /// it again: the work still pending is dropped (released on the calling
    /// thread, without running), `after` work not yet due included, and so
    /// are the completions of the `Timer`s started on it; its descriptor is
    /// closed, and work enqueued later is dropped at once (a `deliverOn` onto
    /// it delivers nothing more). A drain in progress stops after the task it
    /// is running (the tasks it had not reached are dropped with the rest),
    /// and a `sync` waiting on another thread returns without running its
    /// work. Pending work usually holds what enqueued it, and through it the
    /// queue: without this, an undrained queue keeps itself, its descriptor
    /// and that work alive. No effect on other queues, or when called again.
    ///
    /// For a virtual-time queue, the same: its pending work and its timers'
    /// completions are dropped (released on the calling thread) and later
    /// work is dropped at once.
    public func closeHostDrained() {
        self.executor?.close()
    }

    /// Runs pending work of a host-drained queue on the calling thread: up to
    /// `maxTasks` tasks, or with 0 every task pending when the call starts
    /// (work those tasks enqueue waits for the next drain). A close during
    /// the drain (`closeHostDrained()` from one of its tasks or another
    /// thread) ends it after the task running: the tasks it had not reached
    /// are dropped with the rest of the pending work, on the closing thread.
    /// Returns how many ran. Throws `alreadyDraining` when another thread is
    /// draining it (then nothing ran) and `notHostDrained` for other queues.
    @discardableResult
    public func drain(maxTasks: Int = 0) throws(QueueDrainError) -> Int {
        guard let host = self.executor as? HostQueueExecutor else {
            throw .notHostDrained
        }
        return try host.drain(maxTasks: maxTasks)
    }

    /// Runs `f`, which was called on `queue` by Dispatch (a timer source), on
    /// this queue: at once for dispatch queues, enqueued for host-drained ones.
    func enterFromDispatch(_ f: @escaping () -> Void) {
        if let executor = self.executor {
            Queue.enqueue(f, on: executor)
        } else {
            f()
        }
    }

    /// Hands `f` to a host-drained or virtual-time queue's executor. Out of
    /// line so that the executor's dynamic dispatch does not cost the
    /// dispatch-queue paths of the callers a saved register.
    @inline(never)
    private static func enqueue(_ f: @escaping () -> Void, on executor: QueueExecutor) {
        executor.enqueue(f)
    }

    /// True when called from work running on this queue (or, for the main
    /// queue, from the main thread). Always false on the global concurrent
    /// queues, which cannot tell (see the type's comment).
    ///
    /// Only the innermost queue is current: inside `second.sync { ... }`
    /// called from `first`'s work, `second` is current and `first` is not,
    /// though the thread still holds `first` (a `sync` back onto it runs
    /// inline, and `first` is not current inside that work either: see
    /// `sync`). For host-drained and virtual-time queues the mark
    /// is the draining (advancing) thread's, so inside a dispatch queue's
    /// `sync` reached from their work they stay current too.
    public func isCurrent() -> Bool {
        if let executor = self.executor {
            return executor.isCurrent
        }
        if self.token != 0 {
            return _sks_dispatch_current_queue_token() == self.token
        }
        return self.isCurrent(currentBox: self.specific != nil ? currentSpecificBoxOfThread() : nil)
    }

    /// `isCurrent()` of a dispatch queue that is not a named one, given the
    /// current queue's raw specific (`currentSpecificBoxOfThread()`; read
    /// only for the queues that have a `specific`).
    private func isCurrent(currentBox: UnsafeMutableRawPointer?) -> Bool {
        if let specific = self.specific {
            // The cheap check first: the raw specific of the current queue,
            // compared with the one learned for this queue.
            let box = UInt(bitPattern: currentBox)
            if box != 0 {
                let known = self.currentSpecificBox.load(ordering: .relaxed)
                if box == known {
                    return true
                }
                if known == 0 && DispatchQueue.getSpecific(key: queueSpecificKey) === specific {
                    self.currentSpecificBox.store(box, ordering: .relaxed)
                    return true
                }
            }
        }
        if self.specialIsMainQueue && isMainThread() {
            return true
        }
        return false
    }

    /// Runs `f` on the queue: inline when already on it, otherwise enqueued.
    public func async(_ f: @escaping () -> Void) {
        _explore(.queueHop)
        if self.isCurrent() {
            f()
            return
        }
        self.countEnqueued()
        if let executor = self.executor {
            Queue.enqueue(f, on: executor)
        } else {
            nonisolated(unsafe) let f = f
            self.nativeQueue.async {
                f()
            }
        }
    }

    /// Counts a piece of work given to the queue (`enqueued`).
    @inlinable
    func countEnqueued() {
        self.enqueued.wrappingAdd(1, ordering: .relaxed)
    }

    /// Whether the queue was given work since its count was `count`.
    @inlinable
    func wasGivenWork(since count: UInt) -> Bool {
        return self.enqueued.load(ordering: .relaxed) != count
    }

    /// Counts a piece of work about to be given to the queue, and returns
    /// the count with it: `_DeliverOnQueueState` claims its drain's place
    /// under its mutex, then dispatches it (`justDispatch(claimed:)`).
    @inlinable
    func claimEnqueued() -> UInt {
        return self.enqueued.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Runs `f` on the queue and waits for it: inline when already on it,
    /// or when the calling thread holds the queue through syncs nested in
    /// its work.
    ///
    /// Nested syncs: `first.sync { second.sync { first.sync { f() } } }`
    /// runs `f` inline, at once (libdispatch would stop the process: a
    /// dispatch_sync onto a queue the thread owns). The thread holds `first`
    /// from the outer sync (or from running `first`'s asynchronous work, a
    /// drain of a host-drained `first`, an advance of a virtual-time `first`)
    /// until that returns, so nothing else runs on `first` meanwhile. Only
    /// this thread holds it: the work of a sync onto the main queue from
    /// another thread runs on the main thread, which holds nothing of the
    /// caller's, so a sync from there back onto the caller's queue waits for
    /// ever, as with libdispatch alone; so does a sync back from a
    /// host-drained queue's work that another thread drains. A global
    /// concurrent queue excludes nothing and is never held: its `sync` runs
    /// `f` on the calling thread at once (libdispatch's), nested or not.
    /// `isCurrent()` keeps its meaning inside: only the queue the thread
    /// entered last is current (in `f` above, `second`, not `first`), but
    /// a host-drained or virtual-time `first` stays current on the thread
    /// draining or advancing it (see `isCurrent()`).
    ///
    /// On a host-drained queue, from another thread, this waits until the
    /// host drains the queue (on a virtual-time queue it runs the work due
    /// now, `f` last, on this thread, or waits for the thread advancing it).
    /// When such a queue closes before `f` has run (`closeHostDrained()` on
    /// another thread, or the last C handle released), or is closed already,
    /// `f` is dropped like any pending work: `sync` returns without having
    /// run it. A caller that must know sets a flag inside `f`.
    public func sync(_ f: () -> Void) {
        self.sync(f, ifDropped: {
        })
    }

    /// `sync(f)`, telling whether `f` ran: false when a host-drained or
    /// virtual-time queue dropped it (closed before it ran, or closed
    /// already); `dropped` has then run, once, on the thread that dropped
    /// it (the closing one, or this one), with no lock of the library held,
    /// before this returns. Always true on dispatch queues.
    @discardableResult
    package func sync(_ f: () -> Void, ifDropped dropped: () -> Void) -> Bool {
        // The current queue's token (for a queue of `init(name:qos:)`, the
        // common case) or raw specific (for the other dispatch queues) is
        // read once: it answers `isCurrent` and goes into the record of what
        // this thread holds during the sync (`withQueueHold`).
        let currentToken: UInt
        let currentBox: UnsafeMutableRawPointer?
        if self.token != 0 {
            currentToken = _sks_dispatch_current_queue_token()
            if currentToken == self.token || _sks_holds(self.token, nil, nil) != 0 {
                f()
                return true
            }
            currentBox = currentSpecificBoxOfThread()
        } else if self.executor == nil {
            currentBox = currentSpecificBoxOfThread()
            if self.isCurrent(currentBox: currentBox) || self.isHeldByThisThread() {
                f()
                return true
            }
            currentToken = _sks_dispatch_current_queue_token()
        } else {
            if self.isCurrent() || self.isHeldByThisThread() {
                f()
                return true
            }
            currentToken = _sks_dispatch_current_queue_token()
            currentBox = currentSpecificBoxOfThread()
        }
        self.countEnqueued()
        return withQueueHold(currentToken: currentToken, currentBox: currentBox) {
            if let executor = self.executor {
                return executor.sync(f, ifDropped: dropped)
            }
            withoutActuallyEscaping(f) { f in
                nonisolated(unsafe) let f = f
                self.nativeQueue.sync {
                    f()
                }
            }
            return true
        }
    }

    /// Whether the calling thread holds this queue through a `sync` (or a
    /// host-drained queue's drain, a virtual-time queue's advance) that left
    /// its work for another queue's and has not returned: the thread still
    /// owns this queue, though libdispatch (or the executor) now calls
    /// another queue current. Never for the global concurrent queues, which
    /// exclude nothing.
    private func isHeldByThisThread() -> Bool {
        if let executor = self.executor {
            return _sks_holds(0, nil, Unmanaged.passUnretained(executor).toOpaque()) != 0
        }
        if self.token != 0 {
            return _sks_holds(self.token, nil, nil) != 0
        }
        if let specific = self.specific {
            return _sks_holds(0, Unmanaged.passUnretained(specific).toOpaque(), nil) != 0
        }
        return false
    }

    /// Enqueues `f`, even when already on the queue.
    public func justDispatch(_ f: @escaping () -> Void) {
        self.countEnqueued()
        if let executor = self.executor {
            Queue.enqueue(f, on: executor)
            return
        }
        nonisolated(unsafe) let f = f
        self.nativeQueue.async {
            f()
        }
    }

    /// `justDispatch(f)`, for work that keeps something waiting for it (a
    /// `deliverOn` drain and its buffer): when a host-drained or virtual-time
    /// queue drops `f` without running it (closed already, or closing before
    /// it runs), `dropped.queueDroppedWork()` is called on the thread that
    /// drops it (the enqueuing or the closing one), with no lock of the
    /// library held. Dispatch queues never drop work: their path is
    /// `justDispatch`'s, unchanged.
    @usableFromInline
    func justDispatch(_ f: @escaping () -> Void, ifDropped dropped: any QueueDropObserver) {
        self.countEnqueued()
        if let executor = self.executor {
            Queue.enqueue(f, on: executor, ifDropped: dropped)
            return
        }
        nonisolated(unsafe) let f = f
        self.nativeQueue.async {
            f()
        }
    }

    /// Enqueues `work.runQueueWork()`, even when already on the queue, for
    /// work that keeps something waiting for it (a `deliverOn` drain): as
    /// `justDispatch(_:ifDropped:)` with `work` as the observer of a drop,
    /// without allocating. On a queue of `init(name:qos:)` it is a
    /// dispatch_async_f with `work` (retained until it runs) as the context;
    /// on a host-drained or virtual-time queue the executor keeps `work`
    /// beside the task.
    @usableFromInline
    func justDispatch(_ work: _QueueWork) {
        self.countEnqueued()
        self.justDispatch(claimed: work)
    }

    /// `justDispatch(work)` for work whose place `claimEnqueued()` counted.
    @usableFromInline
    func justDispatch(claimed work: _QueueWork) {
        if let executor = self.executor {
            Queue.enqueue({
                work.runQueueWork()
            }, on: executor, ifDropped: work)
            return
        }
        if let cQueue = self.cQueue {
            _sks_dispatch_async_f(cQueue, Unmanaged.passRetained(work).toOpaque(), runQueueWork)
            return
        }
        self.nativeQueue.async {
            work.runQueueWork()
        }
    }

    /// `justDispatch(_:ifDropped:)` on a host-drained or virtual-time queue
    /// (`QueueExecutor.enqueue(_:ifDropped:)`). Out of line, as `enqueue`.
    @inline(never)
    private static func enqueue(_ f: @escaping () -> Void, on executor: QueueExecutor, ifDropped dropped: any QueueDropObserver) {
        executor.enqueue(f, ifDropped: dropped)
    }

    /// Enqueues `f` with the given quality of service, even when already on the queue.
    public func justDispatchWithQoS(qos: DispatchQoS, _ f: @escaping () -> Void) {
        self.countEnqueued()
        if let executor = self.executor {
            Queue.enqueue(f, on: executor)
            return
        }
        nonisolated(unsafe) let f = f
        self.nativeQueue.async(qos: qos) {
            f()
        }
    }

    /// The end of a real-time queue's clock, in nanoseconds: libdispatch's
    /// deadlines hold 62 bits (`DISPATCH_TIME_MAX_VALUE`), and one past that
    /// is "forever", which libdispatch dropped at once in the release build
    /// and kept in the debug one. `after` drops such work itself, the same
    /// way in every build.
    static let realTimeClockEnd = Double(UInt64(1) << 62)

    /// Whether a real-time deadline `delay` seconds from `now` lies within
    /// the clock (`realTimeClockEnd`): the deadline, not the delay, is what
    /// must fit.
    static func realTimeDeadlineFits(_ delay: Double, from now: DispatchTime) -> Bool {
        return Double(now.uptimeNanoseconds) + delay * 1e9 < Queue.realTimeClockEnd
    }

    /// Enqueues `f` to run after `delay` seconds. A delay whose deadline
    /// the clock cannot represent (on a real-time queue, whose deadlines are
    /// libdispatch's, now plus the delay reaching 2^62 nanoseconds of the
    /// monotonic clock, about 146 years from the system's start; on a
    /// virtual-time one, 2^63 nanoseconds, about 292 years, of its clock;
    /// infinity) or that is not a number means never: `f` is dropped at
    /// once, without running (as `Timer` says; the C API refuses a NaN
    /// instead).
    ///
    /// On a host-drained or virtual-time queue that closes before `f` has
    /// run, `f` is dropped (released on the closing thread, without
    /// running), however far its deadline; on one closed already, at once.
    public func after(_ delay: Double, _ f: @escaping () -> Void) {
        if !(delay * 1e9 < Double(Int64.max)) {
            return
        }
        if let executor = self.executor {
            Queue.after(delay, f, on: executor, timerQueue: self.nativeQueue)
            return
        }
        let now = DispatchTime.now()
        if !Queue.realTimeDeadlineFits(delay, from: now) {
            return
        }
        // The dispatch block hands `f` over instead of keeping it.
        let box = TransferBox(f)
        self.nativeQueue.asyncAfter(deadline: now + delay) {
            box.take()?()
        }
    }

    /// `after` on a host-drained or virtual-time queue. Out of line, as
    /// `enqueue`.
    @inline(never)
    private static func after(_ delay: Double, _ f: @escaping () -> Void, on executor: QueueExecutor, timerQueue: DispatchQueue) {
        if let virtualTime = executor as? VirtualTimeExecutor {
            // Its close drops its scheduled tasks.
            virtualTime.schedule(after: delay, f)
            return
        }
        let now = DispatchTime.now()
        if !Queue.realTimeDeadlineFits(delay, from: now) {
            return
        }
        // Host-drained or bounded concurrent: a dispatch timer counts down, then the work is
        // enqueued. `f` waits in a box that the executor's close empties
        // (releasing `f` on the closing thread), so that it does not wait for
        // its deadline in the dispatch block; whoever takes it first (the
        // draining thread or the closing one) runs or drops it.
        let box = TransferBox(f)
        guard let token = executor.registerForClose(box) else {
            // Closed already: `f` is released here, with the box.
            return
        }
        // Weakly: a queue released meanwhile is not kept until the deadline
        // (nor by its own pending task).
        timerQueue.asyncAfter(deadline: now + delay) { [weak executor] in
            executor?.enqueue { [weak executor] in
                executor?.unregisterForClose(token)
                box.take()?()
            }
        }
    }
}

/// dispatch_async_f's function for `Queue.justDispatch(_:)`: runs the work
/// its context holds (retained by the dispatch), then releases it.
private func runQueueWork(_ context: UnsafeMutableRawPointer?) {
    guard let context else {
        return
    }
    Unmanaged<_QueueWork>.fromOpaque(context).takeRetainedValue().runQueueWork()
}

/// Work that a queue runs without a closure per dispatch
/// (`Queue.justDispatch(_:)`; `_DeliverOnQueueState`).
///
/// `run` is given at the start and called with the work itself: a subclass
/// of a generic type passes a closure made where its type arguments are
/// known, so that the queue reaches its specialized code (an overridden
/// method of a generic class is reached through the vtable's unspecialized
/// entry, whose metadata look-ups cost more than the dispatch). The closure
/// captures nothing, so it holds no reference and allocates nothing.
@usableFromInline
class _QueueWork: QueueDropObserver, @unchecked Sendable {
    @usableFromInline let run: (_QueueWork) -> Void

    @usableFromInline
    init(run: @escaping (_QueueWork) -> Void) {
        self.run = run
    }

    /// Runs on the queue.
    @inlinable
    final func runQueueWork() {
        self.run(self)
    }

    /// See `QueueDropObserver`; a subclass overrides it.
    @usableFromInline
    func queueDroppedWork() {
    }
}

/// Told when a host-drained or virtual-time queue drops, without running it,
/// work given to `Queue.justDispatch(_:ifDropped:)`.
@usableFromInline
protocol QueueDropObserver: AnyObject {
    /// Called once per dropped task, on the dropping thread, with no lock of
    /// the library held.
    func queueDroppedWork()
}

/// Runs `body` with a record, on the calling thread, of the queue whose work
/// it runs now (its dispatch mark, its wrapper's specific, the host-drained
/// or virtual-time queue it drains or advances): `body` leaves that queue
/// for another one's work (a sync, a drain, an advance) while the thread
/// keeps owning it, and a `sync` back onto it from inside runs inline
/// (`Queue.sync`) instead of a dispatch_sync onto a queue the thread owns
/// (which libdispatch answers by stopping the process) or a wait for a
/// drain or an advance that this very thread is running (for ever).
///
/// `currentToken`, `currentBox`: the current dispatch queue's token
/// (`_sks_dispatch_current_queue_token()`) and raw specific
/// (`currentSpecificBoxOfThread()`), when the caller has read them. Beyond
/// those, a few loads and stores (and, from a wrapper's work but the main
/// queue's, the overlay's lookup of its mark), on paths that go on to a
/// dispatch_sync, a drain or an advance.
func withQueueHold<R, E: Error>(currentToken: UInt = _sks_dispatch_current_queue_token(), currentBox: UnsafeMutableRawPointer? = currentSpecificBoxOfThread(), _ body: () throws(E) -> R) throws(E) -> R {
    var hold = _sks_hold()
    return try withUnsafeMutablePointer(to: &hold) { (hold) throws(E) -> R in
        _sks_hold_enter(hold, currentToken, currentBox)
        defer {
            _sks_hold_exit(hold)
        }
        if let box = hold.pointee.specificBox {
            // The mark's owner lives as long as the dispatch queue, which is
            // running this thread's work: the pointer outlives the record.
            // The main queue's mark, once learned, is known without the
            // overlay's lookup (which boxes and retains).
            let main = Queue.globalMainQueue
            if UInt(bitPattern: box) == main.currentSpecificBox.load(ordering: .relaxed), let specific = main.specific {
                hold.pointee.specific = UnsafeRawPointer(Unmanaged.passUnretained(specific).toOpaque())
            } else if let specific = DispatchQueue.getSpecific(key: queueSpecificKey) {
                hold.pointee.specific = UnsafeRawPointer(Unmanaged.passUnretained(specific).toOpaque())
            }
        }
        return try body()
    }
}

/// The raw dispatch specific of the current queue for the wrappers' key (the
/// overlay's box around a `QueueSpecific`), or nil.
func currentSpecificBoxOfThread() -> UnsafeMutableRawPointer? {
    return _sks_dispatch_current_specific(Unmanaged.passUnretained(queueSpecificKey).toOpaque())
}
