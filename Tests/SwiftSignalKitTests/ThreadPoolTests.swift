import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport
#if canImport(Glibc)
import Glibc
#endif

private final class PoolHolder: @unchecked Sendable {
    var pool: ThreadPool?

    init(_ pool: ThreadPool) {
        self.pool = pool
    }
}

/// The number of threads of this process (entries of /proc/self/task), or nil
/// where that is not available.
private func processThreadCount() -> Int? {
    #if os(Linux)
    guard let directory = opendir("/proc/self/task") else {
        return nil
    }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
        let isDot = withUnsafeBytes(of: entry.pointee.d_name) { bytes -> Bool in
            return bytes[0] == UInt8(ascii: ".")
        }
        if !isDot {
            count += 1
        }
    }
    return count
    #else
    return nil
    #endif
}

final class ThreadPoolTests: XCTestCase {
    func testAddTaskRunsEveryTaskOnPoolThreads() {
        let pool = ThreadPool(threadCount: 4, threadPriority: 0.5)
        let inPool = Counter()
        let notInPool = Counter()
        let group = DispatchGroup()
        let total = 2_000
        for _ in 0 ..< total {
            group.enter()
            pool.addTask(ThreadPoolTask { _ in
                if pool.isCurrentThreadInPool() {
                    inPool.increment()
                } else {
                    notInPool.increment()
                }
                group.leave()
            })
        }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(inPool.count, total)
        XCTAssertEqual(notInPool.count, 0)
        XCTAssertFalse(pool.isCurrentThreadInPool())
    }

    func testIsCurrentThreadInPoolIsPerPool() {
        let pool = ThreadPool(threadCount: 2, threadPriority: 0.5)
        let other = ThreadPool(threadCount: 2, threadPriority: 0.5)
        let results = Atomic<[Bool]>(value: [])
        let done = DispatchSemaphore(value: 0)
        pool.addTask(ThreadPoolTask { _ in
            let values = [pool.isCurrentThreadInPool(), other.isCurrentThreadInPool()]
            _ = results.swap(values)
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(results.with { $0 }, [true, false])
        XCTAssertFalse(other.isCurrentThreadInPool())
    }

    func testAddTaskTasksRunInParallel() {
        // Two tasks added with addTask each wait for the other: this finishes only
        // if they run on two threads at once.
        let pool = ThreadPool(threadCount: 2, threadPriority: 0.5)
        XCTAssertEqual(rendezvous(pool.addTask, pool.addTask), 2)
    }

    func testNonPositiveThreadCountStillRunsTasks() {
        let pool = ThreadPool(threadCount: 0, threadPriority: 0.5)
        let done = DispatchSemaphore(value: 0)
        pool.addTask(ThreadPoolTask { _ in
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
    }

    /// A process that has used up its thread-specific keys (1,024 on glibc:
    /// another library's, or a leak) still gets pools and bounded queues:
    /// a pool thread records its pool in a thread-local of the library, not
    /// in a pthread key, whose creation failed there (`ThreadPool.init`,
    /// whose original cannot fail, stopped the process; a bounded queue's
    /// creation threw). In a child process, which keeps its keys used up.
    func testPoolsWorkInAProcessWithoutThreadSpecificKeysLeft() {
        if !isChildProcess() {
            let outcome = runInChildProcess(self)
            XCTAssertEqual(outcome.exitStatus, 0, "\(outcome)")
            return
        }
        var key = pthread_key_t()
        var created = 0
        while pthread_key_create(&key, nil) == 0 {
            created += 1
            XCTAssertLessThan(created, 1_000_000, "pthread_key_create never refuses")
            if created >= 1_000_000 {
                return
            }
        }
        XCTAssertNotEqual(pthread_key_create(&key, nil), 0, "keys left")
        let pool = ThreadPool(threadCount: 2, threadPriority: 0.5)
        let ran = DispatchSemaphore(value: 0)
        let inPool = Atomic<Bool>(value: false)
        pool.addTask(ThreadPoolTask { _ in
            _ = inPool.swap(pool.isCurrentThreadInPool())
            ran.signal()
        })
        XCTAssertEqual(ran.wait(timeout: .now() + 30), .success)
        XCTAssertTrue(inPool.with { $0 })
        XCTAssertFalse(pool.isCurrentThreadInPool())
        do {
            let queue = try Queue.makeBoundedConcurrent(maxWorkers: 2)
            let done = DispatchSemaphore(value: 0)
            queue.async {
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        } catch {
            XCTFail("a bounded concurrent queue refused: \(error)")
        }
    }

    func testCreationStopsAtTheFirstThreadTheSystemRefuses() {
        // A count far beyond what the system gives (a mistake: millions,
        // Int.max): once a thread was refused, the pool tried every other
        // one all the same, a failed pthread_create each, so that the
        // initializer did not return for minutes (Int.max: ever). Here the
        // system gives two threads.
        let attempts = Atomic<Int>(value: 0)
        let pool = ThreadPool(threadCount: 1_000_000, threadPriority: 0.5, startThread: { context in
            if attempts.modify({ $0 + 1 }) > 2 {
                return nil
            }
            return ThreadPool.startThread(context)
        })
        XCTAssertEqual(attempts.with { $0 }, 3)
        // The two threads it got run tasks, in parallel.
        XCTAssertEqual(rendezvous(pool.addTask, pool.addTask), 2)
    }

    /// The release of the last reference never waits (the original's pool
    /// is never freed): the queued work runs after it, and the threads exit
    /// once it is done.
    func testReleaseReturnsAtOnceAndTheQueuedWorkRunsAfterIt() {
        var pool: ThreadPool? = ThreadPool(threadCount: 2, threadPriority: 0.5)
        let exit = pool!.threadsExit
        let gate = DispatchSemaphore(value: 0)
        let counter = Counter()
        let allRan = DispatchSemaphore(value: 0)
        do {
            let queue = pool!.nextQueue()
            // The first task holds the queue until the pool is released, so
            // the others are certainly still queued then.
            queue.addTask(ThreadPoolTask { _ in
                _ = gate.wait(timeout: .now() + waitDeadline)
                counter.increment()
            })
            for _ in 0 ..< 500 {
                queue.addTask(ThreadPoolTask { _ in
                    if counter.increment() == 501 {
                        allRan.signal()
                    }
                })
            }
        }
        weak let weakPool = pool
        pool = nil
        XCTAssertNil(weakPool)
        XCTAssertEqual(counter.count, 0, "the release waited for the queued work")
        gate.signal()
        XCTAssertEqual(allRan.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(counter.count, 501)
        XCTAssertTrue(exit.wait(seconds: waitDeadline), "the threads went on after the work was done")
    }

    /// A pool released while one of its tasks waits for the releasing
    /// thread: the release returns, and the task's wait ends (the release
    /// used to join the threads, and so waited for that task for ever).
    func testReleasingThePoolWhileATaskWaitsForTheReleasingThreadReturns() {
        var pool: ThreadPool? = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let started = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let sawTheRelease = Atomic<Bool>(value: false)
        let done = DispatchSemaphore(value: 0)
        pool!.addTask(ThreadPoolTask { _ in
            started.signal()
            _ = sawTheRelease.swap(released.wait(timeout: .now() + waitDeadline) == .success)
            done.signal()
        })
        started.wait()
        pool = nil
        released.signal()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertTrue(sawTheRelease.with { $0 }, "the release waited for the task that waited for it")
    }

    /// A queue keeps its pool working, as in the original (whose pool is
    /// never freed): a task added through it after the pool's release runs.
    func testATaskAddedThroughASurvivingQueueAfterThePoolsReleaseRuns() {
        var pool: ThreadPool? = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let exit = pool!.threadsExit
        var queue: ThreadPoolQueue? = pool!.nextQueue()
        pool = nil
        let ran = DispatchSemaphore(value: 0)
        queue!.addTask(ThreadPoolTask { _ in
            ran.signal()
        })
        XCTAssertEqual(ran.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertFalse(exit.wait(seconds: 0), "the threads exited while a queue of the pool lived")
        queue = nil
        XCTAssertTrue(exit.wait(seconds: waitDeadline), "the threads went on after the pool and its queues were gone")
    }

    func testReleasingLastReferenceOnPoolThreadDoesNotDeadlock() {
        let holder = PoolHolder(ThreadPool(threadCount: 2, threadPriority: 0.5))
        let queue = holder.pool!.nextQueue()
        let done = DispatchSemaphore(value: 0)
        let inPoolWhenReleasing = Atomic<Bool>(value: false)
        queue.addTask(ThreadPoolTask { _ in
            _ = inPoolWhenReleasing.swap(holder.pool!.isCurrentThreadInPool())
            // The last reference goes away on a pool thread.
            holder.pool = nil
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertTrue(inPoolWhenReleasing.with { $0 })
        XCTAssertNil(holder.pool)
        // The queue still works.
        let ran = DispatchSemaphore(value: 0)
        queue.addTask(ThreadPoolTask { _ in
            ran.signal()
        })
        XCTAssertEqual(ran.wait(timeout: .now() + waitDeadline), .success)
    }

    func testThreadsExitWhenPoolIsReleased() throws {
        guard let before = processThreadCount() else {
            throw XCTSkip("needs /proc/self/task")
        }
        let poolCount = 25
        let threadsPerPool = 8
        var pools: [ThreadPool] = []
        for _ in 0 ..< poolCount {
            pools.append(ThreadPool(threadCount: threadsPerPool, threadPriority: 0.5))
        }
        let exits = pools.map { $0.threadsExit }
        let during = processThreadCount()!
        // The count can fail: the pools really own threads.
        XCTAssertGreaterThanOrEqual(during - before, poolCount * threadsPerPool - 20)
        pools.removeAll()
        for (index, exit) in exits.enumerated() {
            XCTAssertTrue(exit.wait(seconds: waitDeadline), "pool \(index): its threads went on")
        }
    }

    func testConcurrentProducersExactCount() {
        let pool = ThreadPool(threadCount: 4, threadPriority: 0.5)
        let counter = Counter()
        let group = DispatchGroup()
        let producers = 8
        let perProducer = 1_000
        for _ in 0 ..< producers * perProducer {
            group.enter()
        }
        DispatchQueue.concurrentPerform(iterations: producers) { _ in
            for _ in 0 ..< perProducer {
                pool.addTask(ThreadPoolTask { _ in
                    counter.increment()
                    group.leave()
                })
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(counter.count, producers * perProducer)
    }

    func testCancelledTaskAddedToPoolNeverRuns() {
        let pool = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let ran = Counter()
        let task = ThreadPoolTask { _ in
        ran.increment()
        }
        task.cancel()
        pool.addTask(task)
        let done = DispatchSemaphore(value: 0)
        // One thread and FIFO ready list: this runs after the cancelled task.
        pool.addTask(ThreadPoolTask { _ in
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(ran.count, 0)
    }
}
