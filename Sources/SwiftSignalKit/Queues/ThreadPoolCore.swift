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
    // Set when the pool is deinitialized: no new task is accepted, and the
    // threads exit once `ready` is empty. Guarded by `mutex`.
    private var closed = false

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
        #if canImport(Darwin)
        return pthread_create(&thread, nil, { context in
            Unmanaged<ThreadPoolCore>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        #else
        return pthread_create(&thread, nil, { context in
            Unmanaged<ThreadPoolCore>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        #endif
    }

    /// The body of a worker thread: runs one task of the first ready queue at
    /// a time, until the pool is closed and nothing is left to run.
    func run() {
        // A thread-local of the shims, not a pthread key: nothing to create,
        // so nothing can fail (a process may have used up its 1,024 keys).
        _sks_set_thread_pool_core(Unmanaged.passUnretained(self).toOpaque())
        pthread_mutex_lock(self.mutex)
        while true {
            while self.ready.isEmpty && !self.closed {
                pthread_cond_wait(self.condition, self.mutex)
            }
            guard let queue = self.ready.popFirst() else {
                // Closed, and no queue has work left.
                break
            }
            // A queue is in `ready` only while it has tasks.
            var task = queue.tasks.popFirst()
            pthread_mutex_unlock(self.mutex)

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
        }
        pthread_mutex_unlock(self.mutex)
        _sks_set_thread_pool_core(nil)
    }
}
