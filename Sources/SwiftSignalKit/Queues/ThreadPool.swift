#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Darwin)
typealias NativeThread = pthread_t?
#else
typealias NativeThread = pthread_t
#endif

/// A started pool thread, as `ThreadPool.startThread` returns it.
///
/// Thread-safety: an immutable value.
package struct NativeThreadHandle {
    let thread: NativeThread
}

/// A fixed set of worker threads, created with pthreads, that run
/// `ThreadPoolTask`s.
///
/// Work is organised in `ThreadPoolQueue`s: tasks of one queue run one at a
/// time, in order; different queues run in parallel on the pool's threads.
/// `addTask` puts a task on a fresh queue of its own, so tasks added that way
/// may run in parallel and in any order.
///
/// `threadPriority` (0...1 in the original, where it sets `Thread.threadPriority`)
/// is accepted and ignored on Linux: ordinary (`SCHED_OTHER`) threads have no
/// settable priority there, and raising a thread's niceness is a privilege.
///
/// Deinitialization: when the last reference to the pool goes away, it stops
/// accepting tasks (a task added afterwards, through a surviving
/// `ThreadPoolQueue`, is dropped without running), its threads finish every task
/// already queued, then exit. `deinit` waits for them (joins the threads), so
/// once it returns, no queued task is left and no thread of the pool remains;
/// if the last reference is released on one of the pool's own threads, the
/// threads are detached instead and exit on their own after the queued work.
/// Because of that wait, do not release the last reference to a pool while a
/// queued task waits for the releasing thread.
///
/// Thread-safety: every method may be called from any thread, including from a
/// task running on the pool. Tasks run without any pool lock held.
public final class ThreadPool: @unchecked Sendable {
    let core: ThreadPoolCore
    private let threads: [NativeThread]

    /// Starts `threadCount` worker threads (at least one, at most
    /// `ThreadPool.maxThreads`, 1,024: a larger count, `Int.max` included,
    /// starts that many, not every thread the process may have), or as many
    /// as the system gives: the first thread it refuses ends the creation
    /// (trying the rest would cost a failed call each, so that a mistaken
    /// count of millions never returned). `threadPriority` is ignored on
    /// Linux (see the type's documentation).
    public convenience init(threadCount: Int, threadPriority: Double) {
        self.init(threadCount: threadCount, threadPriority: threadPriority, startThread: ThreadPool.startThread)
    }

    /// The initializer, with the function that starts one thread (given the
    /// retained context to pass to `ThreadPool.threadEntry`; nil when the
    /// system refused the thread, the context then untouched): the tests give
    /// one that refuses threads.
    package init(threadCount: Int, threadPriority: Double, startThread: (UnsafeMutableRawPointer) -> NativeThreadHandle?) {
        let core = ThreadPoolCore()
        self.core = core
        var threads: [NativeThread] = []
        for _ in 0 ..< min(max(1, threadCount), ThreadPool.maxThreads) {
            let context = Unmanaged.passRetained(core).toOpaque()
            guard let thread = startThread(context) else {
                Unmanaged<ThreadPoolCore>.fromOpaque(context).release()
                break
            }
            threads.append(thread.thread)
        }
        // The original's initializer cannot fail, so a pool with no thread
        // at all (the system refused every one) traps here; unreachable from
        // the C API, which has no thread pools.
        precondition(!threads.isEmpty, "ThreadPool: could not create any thread")
        self.threads = threads
        _ = threadPriority
    }

    /// The most threads a pool starts: as many as a bounded concurrent
    /// queue may have (`Queue.maxBoundedConcurrentWorkers`). A thread count
    /// is a limit, not a reservation of every thread the system gives.
    package static var maxThreads: Int {
        return Queue.maxBoundedConcurrentWorkers
    }

    /// Starts a pool thread with pthreads; nil when the system refuses it.
    package static func startThread(_ context: UnsafeMutableRawPointer) -> NativeThreadHandle? {
        var thread = NativeThread()
        return ThreadPoolCore.startWorker(&thread, context) == 0 ? NativeThreadHandle(thread: thread) : nil
    }

    deinit {
        self.core.close()
        let joinable = !self.core.isCurrentThread
        for thread in self.threads {
            #if canImport(Darwin)
            guard let thread else {
                continue
            }
            #endif
            if joinable {
                pthread_join(thread, nil)
            } else {
                pthread_detach(thread)
            }
        }
    }

    /// Runs `task` on some pool thread, on a queue of its own (so in parallel
    /// with, and unordered relative to, other tasks added this way).
    public func addTask(_ task: ThreadPoolTask) {
        let queue = self.nextQueue()
        queue.addTask(task)
    }

    /// Creates a new serial `ThreadPoolQueue` on this pool.
    public func nextQueue() -> ThreadPoolQueue {
        return ThreadPoolQueue(threadPool: self)
    }

    /// True when called from one of this pool's threads (from inside a task).
    public func isCurrentThreadInPool() -> Bool {
        return self.core.isCurrentThread
    }
}
