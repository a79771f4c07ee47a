import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class ThreadPoolQueueTests: XCTestCase {
    func testTasksRunInOrderOneAtATime() {
        let pool = ThreadPool(threadCount: 4, threadPriority: 0.5)
        let queueCount = 4
        let perQueue = 2_000
        let queues = (0 ..< queueCount).map { _ in pool.nextQueue() }
        let logs = (0 ..< queueCount).map { _ in UnsyncedLog<Int>() }
        let inFlight = (0 ..< queueCount).map { _ in Atomic<Int>(value: 0) }
        let overlaps = Counter()
        let group = DispatchGroup()
        for _ in 0 ..< queueCount * perQueue {
            group.enter()
        }
        for i in 0 ..< perQueue {
            for q in 0 ..< queueCount {
                let log = logs[q]
                let flight = inFlight[q]
                queues[q].addTask(ThreadPoolTask { _ in
                    if flight.modify({ $0 + 1 }) != 1 {
                        overlaps.increment()
                    }
                    log.values.append(i)
                    flight.modify { $0 - 1 }
                    group.leave()
                })
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(overlaps.count, 0)
        for log in logs {
            assertSameSequence(log.values, Array(0 ..< perQueue))
        }
    }

    func testDifferentQueuesRunInParallel() {
        let pool = ThreadPool(threadCount: 2, threadPriority: 0.5)
        let a = pool.nextQueue()
        let b = pool.nextQueue()
        XCTAssertEqual(rendezvous(a.addTask, b.addTask), 2)
    }

    func testBusyQueueDoesNotStarveAnother() {
        // One thread: a queue with many tasks must still let a second queue run
        // before all of them are done (round-robin).
        let pool = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let busy = pool.nextQueue()
        let other = pool.nextQueue()
        let gate = DispatchSemaphore(value: 0)
        let busyRan = Counter()
        let busyRanWhenOtherRan = Atomic<Int>(value: -1)
        let done = DispatchGroup()
        done.enter()
        busy.addTask(blockingTask(until: gate))
        for _ in 0 ..< 100 {
            done.enter()
            busy.addTask(ThreadPoolTask { _ in
                busyRan.increment()
                done.leave()
            })
        }
        other.addTask(ThreadPoolTask { _ in
            _ = busyRanWhenOtherRan.swap(busyRan.count)
            done.leave()
        })
        gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(busyRan.count, 100)
        XCTAssertLessThanOrEqual(busyRanWhenOtherRan.with { $0 }, 1)
    }

    func testTaskAddedFromInsideTaskRunsAfterIt() {
        let pool = ThreadPool(threadCount: 3, threadPriority: 0.5)
        let queue = pool.nextQueue()
        let log = UnsyncedLog<Int>()
        let done = DispatchSemaphore(value: 0)
        let depth = 1_000
        func step(_ i: Int) -> ThreadPoolTask {
            return ThreadPoolTask { _ in
                log.values.append(i)
                if i + 1 < depth {
                    queue.addTask(step(i + 1))
                    log.values.append(-i)
                } else {
                    done.signal()
                }
            }
        }
        queue.addTask(step(0))
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        var expected: [Int] = []
        for i in 0 ..< depth {
            expected.append(i)
            if i + 1 < depth {
                expected.append(-i)
            }
        }
        XCTAssertEqual(log.values, expected)
    }

    func testConcurrentProducersOnOneQueueExactCount() {
        let pool = ThreadPool(threadCount: 4, threadPriority: 0.5)
        let queue = pool.nextQueue()
        let log = UnsyncedLog<Int>()
        let producers = 8
        let perProducer = 1_000
        let group = DispatchGroup()
        for _ in 0 ..< producers * perProducer {
            group.enter()
        }
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for i in 0 ..< perProducer {
                queue.addTask(ThreadPoolTask { _ in
                    log.values.append(producer * perProducer + i)
                    group.leave()
                })
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(log.values.count, producers * perProducer)
        XCTAssertEqual(Set(log.values).count, producers * perProducer)
        // Each producer's own tasks keep their order.
        for producer in 0 ..< producers {
            let own = log.values.filter { $0 / perProducer == producer }
            assertSameSequence(own, Array(producer * perProducer ..< (producer + 1) * perProducer))
        }
    }

    func testEqualityIsIdentity() {
        let pool = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let a = pool.nextQueue()
        let b = pool.nextQueue()
        let c = ThreadPoolQueue(threadPool: pool)
        XCTAssertTrue(a == a)
        XCTAssertFalse(a == b)
        XCTAssertFalse(b == c)
        XCTAssertEqual(a, a)
        XCTAssertNotEqual(a, c)
    }

    /// A queue outliving its pool keeps it working, as in the original
    /// (whose pool is never freed): its tasks run, in order.
    func testQueueOutlivingPoolRunsItsTasks() {
        var pool: ThreadPool? = ThreadPool(threadCount: 2, threadPriority: 0.5)
        let queue = ThreadPoolQueue(threadPool: pool!)
        let order = Atomic<[Int]>(value: [])
        let done = DispatchSemaphore(value: 0)
        queue.addTask(ThreadPoolTask { _ in
            _ = order.modify { $0 + [1] }
        })
        pool = nil
        queue.addTask(ThreadPoolTask { _ in
            _ = order.modify { $0 + [2] }
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(order.with { $0 }, [1, 2])
    }
}
