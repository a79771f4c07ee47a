#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import _SwiftSignalKitShims

/// The shared state of a `ThreadPool`: the list of ready queues, the mutex and
/// condition that guard it, and the worker loop.
///
/// The worker threads retain the core (not the `ThreadPool`), so the pool can be
/// deinitialized while they run: `close()` then lets them finish every queued
/// task and exit.
///
/// Thread-safety: every method may be called from any thread. No task, and no
/// release of a task, happens with the mutex held.
final class ThreadPoolCore: @unchecked Sendable {
    /// A first-in first-out list with O(1) amortized `append` and `popFirst`.
    struct Fifo<Element> {
        private var items: [Element?] = []
        private var head = 0

        var isEmpty: Bool {
            return self.head == self.items.count
        }

        mutating func append(_ element: Element) {
            self.items.append(element)
        }

        mutating func popFirst() -> Element? {
            if self.head == self.items.count {
                return nil
            }
            let element = self.items[self.head]
            self.items[self.head] = nil
            self.head += 1
            if self.head == self.items.count {
                self.items.removeAll(keepingCapacity: self.items.count <= 1024)
                self.head = 0
            } else if self.head >= 1024 && self.head * 2 >= self.items.count {
                self.items.removeFirst(self.head)
                self.head = 0
            }
            return element
        }
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    // Queues that have tasks and no thread working on them. Guarded by `mutex`.
    private var ready = Fifo<ThreadPoolQueue>()
    // Set when the pool's owner goes (`ThreadPoolOwner`; a bounded
    // concurrent queue's executor): no new task is accepted, and the
    // threads exit once `ready` is empty. Guarded by `mutex`.
    private var closed = false
    // Worker threads started and not yet out of `run()`. Guarded by `mutex`.
    private var workers = 0

    init() {
        self.mutex = .allocate(capacity: 1)
        self.mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(self.mutex, nil)
        self.condition = .allocate(capacity: 1)
        self.condition.initialize(to: pthread_cond_t())
        pthread_cond_init(self.condition, nil)
    }

    deinit {
        pthread_cond_destroy(self.condition)
        self.condition.deinitialize(count: 1)
        self.condition.deallocate()
        pthread_mutex_destroy(self.mutex)
        self.mutex.deinitialize(count: 1)
        self.mutex.deallocate()
    }

    /// Appends `task` to `queue` and makes the queue ready if no thread is on
    /// it. Drops the task (it never runs) once the pool is closed.
    func enqueue(_ task: ThreadPoolTask, on queue: ThreadPoolQueue) {
        pthread_mutex_lock(self.mutex)
        if self.closed {
            pthread_mutex_unlock(self.mutex)
            return
        }
        queue.tasks.append(task)
        if !queue.scheduled {
            queue.scheduled = true
            self.ready.append(queue)
            pthread_cond_signal(self.condition)
        }
        pthread_mutex_unlock(self.mutex)
    }

    /// Stops accepting tasks and wakes every thread, so that each exits once no
    /// queued task is left.
    func close() {
        pthread_mutex_lock(self.mutex)
        self.closed = true
        pthread_cond_broadcast(self.condition)
        pthread_mutex_unlock(self.mutex)
    }

    /// True when the calling thread is one of this core's workers.
    var isCurrentThread: Bool {
        return _sks_thread_pool_core() == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Starts a worker thread, in `thread`, that runs `run()` on the core
    /// `context` holds (+1, taken over by the thread); `pthread_create`'s
    /// status (0: started; otherwise `context` is untouched).
    static func startWorker(_ thread: inout NativeThread, _ context: UnsafeMutableRawPointer) -> Int32 {
        let core = Unmanaged<ThreadPoolCore>.fromOpaque(context).takeUnretainedValue()
        core.countWorkers(1)
        #if canImport(Darwin)
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<ThreadPoolCore>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        #else
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<ThreadPoolCore>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        #endif
        if status != 0 {
            core.countWorkers(-1)
        }
        return status
    }

    private func countWorkers(_ change: Int) {
        pthread_mutex_lock(self.mutex)
        self.workers += change
        if self.workers == 0 {
            pthread_cond_broadcast(self.condition)
        }
        pthread_mutex_unlock(self.mutex)
    }

    /// Waits up to `seconds` until every worker thread started on this core
    /// has left `run()` (the core closed, nothing left to run): true when
    /// they have. For the tests only (`ThreadPool.threadsExit`, package
    /// access): no public call reaches it, and its deadline bounds it.
    func waitForWorkersToExit(seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let whole = seconds.rounded(.down)
        deadline.tv_sec += Int(whole)
        deadline.tv_nsec += Int((seconds - whole) * 1e9)
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        pthread_mutex_lock(self.mutex)
        var timedOut = false
        while self.workers > 0 && !timedOut {
            timedOut = pthread_cond_timedwait(self.condition, self.mutex, &deadline) == ETIMEDOUT
        }
        let exited = self.workers == 0
        pthread_mutex_unlock(self.mutex)
        return exited
    }

    /// The body of a worker thread: runs one task of the first ready queue at
    /// a time, until the pool is closed and nothing is left to run.
    func run() {
        // A thread-local of the shims, not a pthread key: nothing to create,
        // so nothing can fail (a process may have used up its 1,024 keys).
        _sks_set_thread_pool_core(Unmanaged.passUnretained(self).toOpaque())
        // The queue of the task run last, let go outside the lock: this
        // thread's reference may be its last, and its pool's owner then goes
        // too and closes this core, which takes the mutex.
        var ranLast: ThreadPoolQueue?
        pthread_mutex_lock(self.mutex)
        while true {
            while self.ready.isEmpty && !self.closed {
                if ranLast != nil {
                    pthread_mutex_unlock(self.mutex)
                    ranLast = nil
                    pthread_mutex_lock(self.mutex)
                    continue
                }
                pthread_cond_wait(self.condition, self.mutex)
            }
            guard let queue = self.ready.popFirst() else {
                // Closed, and no queue has work left.
                break
            }
            // A queue is in `ready` only while it has tasks.
            var task = queue.tasks.popFirst()
            pthread_mutex_unlock(self.mutex)
            ranLast = nil

            task?.execute()
            // The task (and anything it still holds) is released outside the lock.
            task = nil

            pthread_mutex_lock(self.mutex)
            if queue.tasks.isEmpty {
                queue.scheduled = false
            } else {
                // Back of the line: other ready queues get a turn first.
                self.ready.append(queue)
            }
            ranLast = queue
        }
        self.workers -= 1
        if self.workers == 0 {
            pthread_cond_broadcast(self.condition)
        }
        pthread_mutex_unlock(self.mutex)
        ranLast = nil
        _sks_set_thread_pool_core(nil)
    }
}
