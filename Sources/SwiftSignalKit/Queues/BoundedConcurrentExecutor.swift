#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The work of a bounded concurrent queue (`Queue.makeBoundedConcurrent`):
/// a `ThreadPoolCore` served by `maxWorkers` detached threads, started when
/// the queue is made. Each task goes on a `ThreadPoolQueue` of its own, so
/// tasks run in parallel, in no promised order, never more at once than
/// there are threads.
///
/// Lifetime: the threads keep the core, not this executor. When the
/// executor goes (with the last reference to its `Queue`), the core is
/// closed: the threads run every task already queued, then exit. Nothing is
/// dropped there, as nothing can enqueue any more (every enqueuer holds the
/// queue), but `Queue.after` work still counting down, which is released
/// then, on the releasing thread (its deadline would find no executor), as
/// on a host-drained queue.
///
/// `close()` does nothing: the C layer's release of a queue handle closes
/// the executor of a host-drained queue, and a bounded concurrent queue,
/// like a serial one, keeps working for what still holds it (a `deliverOn`
/// subscription).
///
/// Thread-safety: every method may be called from any thread. Tasks run on
/// the pool's threads without any lock held.
final class BoundedConcurrentExecutor: QueueExecutor, @unchecked Sendable {
    let core: ThreadPoolCore
    let maxWorkers: Int

    private init(core: ThreadPoolCore, maxWorkers: Int) {
        self.core = core
        self.maxWorkers = maxWorkers
        super.init()
    }

    deinit {
        self.core.close()
        // `after` work still counting down: its dispatch block keeps the
        // box until the deadline; the work is released here, now.
        self.dropRegisteredForClose()
    }

    /// An executor with `maxWorkers` threads, each started by `startThread`
    /// (given the retained core to pass to `ThreadPool`'s thread entry; it
    /// returns 0 and the started thread, joinable, or the error number of a
    /// thread the system refused, the context then untouched). All or
    /// nothing: when a thread is refused, those started already are told to
    /// exit and joined before this throws, so that no thread of the failed
    /// call is left (an immediate retry that fits the system's limit is not
    /// refused for threads still on their way out), and the error says how
    /// many there were. Once every thread is started, each is detached.
    static func make(maxWorkers: Int, startThread: (UnsafeMutableRawPointer) -> (Int32, NativeThreadHandle?)) throws(BoundedConcurrentQueueError) -> BoundedConcurrentExecutor {
        guard maxWorkers >= 1 && maxWorkers <= Queue.maxBoundedConcurrentWorkers else {
            throw .invalidWorkerCount(maxWorkers)
        }
        let core = ThreadPoolCore()
        var threads: [NativeThreadHandle] = []
        threads.reserveCapacity(maxWorkers)
        for started in 0 ..< maxWorkers {
            let context = Unmanaged.passRetained(core).toOpaque()
            let (status, thread) = startThread(context)
            guard status == 0 else {
                Unmanaged<ThreadPoolCore>.fromOpaque(context).release()
                // The threads started see the close and exit (no task was
                // given); each is waited for.
                core.close()
                for thread in threads {
                    thread.join()
                }
                throw .threadRefused(errno: status, started: started)
            }
            guard let thread else {
                // Invariant (the starters of this file and of the tests): a
                // started thread comes with its handle. Without it the
                // thread could be neither joined nor detached.
                preconditionFailure("BoundedConcurrentExecutor: a thread started without its handle")
            }
            threads.append(thread)
        }
        for thread in threads {
            thread.detach()
        }
        return BoundedConcurrentExecutor(core: core, maxWorkers: maxWorkers)
    }

    /// Starts a joinable worker thread that serves the core `context` holds
    /// (+1, taken over by the thread): 0 and the thread, or
    /// `pthread_create`'s error and nil.
    static func startJoinableThread(_ context: UnsafeMutableRawPointer) -> (Int32, NativeThreadHandle?) {
        var thread = NativeThread()
        let status = ThreadPoolCore.startWorker(&thread, context)
        return (status, status == 0 ? NativeThreadHandle(thread: thread) : nil)
    }

    override func enqueue(_ task: @escaping () -> Void) {
        self.core.enqueue(ThreadPoolTask { _ in
            task()
        }, on: ThreadPoolQueue(core: self.core))
    }

    /// Nothing (see the type's documentation).
    override func close() {
    }

    /// From one of the pool's own threads `f` runs there at once: waiting
    /// for another worker could wait for ever (with one worker, always).
    /// From any other thread it runs on a worker, and this waits for it.
    override func sync(_ f: () -> Void, ifDropped dropped: () -> Void) -> Bool {
        if self.core.isCurrentThread {
            f()
            return true
        }
        return super.sync(f, ifDropped: dropped)
    }
}
