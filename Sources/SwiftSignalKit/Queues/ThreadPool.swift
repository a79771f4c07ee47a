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

    /// The thread (`NativeThread` is optional where `pthread_t` is a
    /// pointer, Darwin; nil there only for a thread never made).
    private var made: pthread_t? {
        return self.thread
    }

    /// Waits for the thread to exit (it must be joinable, and is then gone).
    func join() {
        if let thread = self.made {
            pthread_join(thread, nil)
        }
    }

    /// Lets the thread go: it is never joined, and its resources go when it
    /// exits.
    func detach() {
        if let thread = self.made {
            pthread_detach(thread)
        }
    }
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
/// Lifetime: the pool's queues (`nextQueue()`, `ThreadPoolQueue(threadPool:)`)
/// and its queued tasks keep it working, as the original's pool, which is
/// never freed, always works: releasing the last reference to the pool never
/// waits, and a task added afterwards through a surviving queue runs. Once
/// the pool, every queue made on it and every queued task are gone, its
/// threads exit on their own (the original's live for ever).
///
/// Thread-safety: every method may be called from any thread, including from a
/// task running on the pool. Tasks run without any pool lock held.
public final class ThreadPool: @unchecked Sendable {
    /// Keeps the core open; held by the pool and its queues.
    let owner: ThreadPoolOwner
    private let threads: [NativeThreadHandle]

    var core: ThreadPoolCore {
        return self.owner.core
    }

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
        self.owner = ThreadPoolOwner(core)
        var threads: [NativeThreadHandle] = []
        for _ in 0 ..< min(max(1, threadCount), ThreadPool.maxThreads) {
            let context = Unmanaged.passRetained(core).toOpaque()
            guard let thread = startThread(context) else {
                Unmanaged<ThreadPoolCore>.fromOpaque(context).release()
                break
            }
            threads.append(thread)
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

    /// Never waits: the threads are detached, and go on with the queued
    /// tasks and with those the pool's surviving queues add (see the type's
    /// comment); the owner closes the core when the last of them lets go.
    deinit {
        for thread in self.threads {
            thread.detach()
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

    /// What tells when this pool's threads have exited, once it is released
    /// (holding it keeps nothing working). For the tests.
    package var threadsExit: ThreadPoolThreadsExit {
        return ThreadPoolThreadsExit(core: self.core)
    }

    /// True when called from one of this pool's threads (from inside a task).
    public func isCurrentThreadInPool() -> Bool {
        return self.core.isCurrentThread
    }
}

/// What keeps a pool's core open: held by the `ThreadPool` and by every
/// `ThreadPoolQueue` made on it (a queue with queued tasks is held by the
/// core's ready list in turn). Its deinit closes the core: the threads then
/// finish what is queued and exit.
///
/// Thread-safety: immutable.
final class ThreadPoolOwner: @unchecked Sendable {
    let core: ThreadPoolCore

    init(_ core: ThreadPoolCore) {
        self.core = core
    }

    deinit {
        self.core.close()
    }
}

/// Waits for a pool's threads to exit (`ThreadPool.threadsExit`).
///
/// Thread-safety: immutable; `wait` may be called from any thread but the
/// pool's own.
package struct ThreadPoolThreadsExit: @unchecked Sendable {
    let core: ThreadPoolCore

    /// True once every thread of the pool has finished its work and exited
    /// its loop, within `seconds`; false when some still run then.
    package func wait(seconds: Double) -> Bool {
        return self.core.waitForWorkersToExit(seconds: seconds)
    }
}
