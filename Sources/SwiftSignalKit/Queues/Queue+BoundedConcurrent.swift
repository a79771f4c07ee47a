#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why `Queue.makeBoundedConcurrent` made no queue.
///
/// Thread-safety: an immutable value, safe to share between threads.
public enum BoundedConcurrentQueueError: Error, Equatable, CustomStringConvertible {
    /// The count of workers asked for is below 1 or above
    /// `Queue.maxBoundedConcurrentWorkers`.
    case invalidWorkerCount(Int)
    /// The system refused a thread (`errno`: `pthread_create`'s error,
    /// EAGAIN at RLIMIT_NPROC or out of memory for its stack); `started`
    /// threads had been made, and had exited when the error was thrown.
    case threadRefused(errno: Int32, started: Int)

    /// A message that says what was asked and what the system answered.
    public var description: String {
        switch self {
        case .invalidWorkerCount(let count):
            return "max_workers is \(count): a bounded concurrent queue has 1 to \(Queue.maxBoundedConcurrentWorkers) workers"
        case .threadRefused(let errno, let started):
            return "the system refused worker thread \(started + 1): \(String(cString: strerror(errno))) (errno \(errno))"
        }
    }
}

extension Queue {
    /// The most worker threads a bounded concurrent queue may have.
    public static let maxBoundedConcurrentWorkers = 1024

    /// A concurrent queue whose work runs on at most `maxWorkers` threads of
    /// its own (not libdispatch's): a bounded thread pool.
    ///
    /// Its `maxWorkers` threads are started here, all or none (the first
    /// one the system refuses ends the creation with
    /// `BoundedConcurrentQueueError.threadRefused`, the others having
    /// exited by then). Work
    /// given with `async`, `justDispatch`, `after` and the operators that
    /// schedule on a queue runs on one of them, in parallel with the
    /// queue's other work, in no promised order, never more than
    /// `maxWorkers` tasks at once; the rest waits its turn.
    ///
    /// As on the global concurrent queues, `isCurrent()` is false, also
    /// inside its own work, so `async` from its work enqueues (it never runs
    /// inline). `sync` from one of its workers runs the work at once, on that
    /// worker; from another thread, on a worker, waiting for it.
    ///
    /// When the last reference to the queue goes, the work already given
    /// still runs, then the threads exit; `after` work whose time has not
    /// come is dropped. Work usually holds the queue (a `deliverOn`
    /// subscription does), so the queue lives until that work is done.
    ///
    /// Thread-safety: every method may be called from any thread.
    ///
    /// - Parameters:
    ///   - maxWorkers: 1 to `maxBoundedConcurrentWorkers`.
    ///   - name: labels the queue (its `queue`, which runs none of its work).
    public static func makeBoundedConcurrent(maxWorkers: Int, name: String? = nil) throws(BoundedConcurrentQueueError) -> Queue {
        return try makeBoundedConcurrent(maxWorkers: maxWorkers, name: name, startThread: BoundedConcurrentExecutor.startJoinableThread)
    }

    /// The same, with the function that starts each thread (see
    /// `BoundedConcurrentExecutor.make`): the tests give one that refuses.
    package static func makeBoundedConcurrent(maxWorkers: Int, name: String?, startThread: (UnsafeMutableRawPointer) -> (Int32, NativeThreadHandle?)) throws(BoundedConcurrentQueueError) -> Queue {
        let executor = try BoundedConcurrentExecutor.make(maxWorkers: maxWorkers, startThread: startThread)
        return Queue(boundedConcurrent: executor, name: name)
    }

    /// The count of worker threads of a bounded concurrent queue; nil for
    /// other queues.
    public var maxWorkers: Int? {
        return (self.closableExecutor as? BoundedConcurrentExecutor)?.maxWorkers
    }
}

extension Queue {
    /// Starts one real worker thread for `makeBoundedConcurrent(maxWorkers:name:startThread:)`
    /// (what the public form uses), so that a test can refuse some threads and
    /// start the others.
    package static func startBoundedConcurrentThreadForTesting(_ context: UnsafeMutableRawPointer) -> (Int32, NativeThreadHandle?) {
        return BoundedConcurrentExecutor.startJoinableThread(context)
    }
}
