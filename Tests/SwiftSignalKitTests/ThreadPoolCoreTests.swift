import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// `ThreadPoolCore` is internal: these tests drive it through the public API,
/// on a one-thread pool, where its scheduling order is fully determined.
final class ThreadPoolCoreTests: XCTestCase {
    func testLongTaskListKeepsOrderAcrossCompaction() {
        // Thousands of tasks queued behind a blocked one: popping them walks the
        // list far past its compaction threshold while items remain.
        let pool = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let queue = pool.nextQueue()
        let gate = DispatchSemaphore(value: 0)
        let log = UnsyncedLog<Int>()
        let done = DispatchSemaphore(value: 0)
        let total = 5_000
        queue.addTask(blockingTask(until: gate))
        for i in 0 ..< total {
            queue.addTask(ThreadPoolTask { _ in
                log.values.append(i)
                if i == total / 2 {
                    // Adding while the list is half consumed.
                    for j in total ..< total + 100 {
                        queue.addTask(ThreadPoolTask { _ in
                            log.values.append(j)
                        })
                    }
                }
            })
        }
        queue.addTask(ThreadPoolTask { _ in
            done.signal()
        })
        gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        // The 100 extra tasks were appended after the `done` task: wait for them
        // too before reading the log.
        let expected = Array(0 ..< total) + Array(total ..< total + 100)
        let finished = DispatchSemaphore(value: 0)
        queue.addTask(ThreadPoolTask { _ in
            finished.signal()
        })
        XCTAssertEqual(finished.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertTrue(log.values == expected, "got \(log.values.count) values")
    }

    func testReadyQueuesAreServedFirstComeFirstServed() {
        // One thread, blocked, while thousands of single-task queues become
        // ready: they then run in the order they became ready.
        let pool = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let gate = DispatchSemaphore(value: 0)
        let log = UnsyncedLog<Int>()
        let group = DispatchGroup()
        let total = 3_000
        pool.addTask(blockingTask(until: gate))
        for i in 0 ..< total {
            group.enter()
            pool.addTask(ThreadPoolTask { _ in
                log.values.append(i)
                group.leave()
            })
        }
        gate.signal()
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertTrue(log.values == Array(0 ..< total), "got \(log.values.count) values")
    }

    func testQueuesTakeTurnsOneTaskAtATime() {
        // Two queues filled while the only thread is blocked: the thread
        // alternates between them, one task per turn.
        let pool = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let blocker = pool.nextQueue()
        let a = pool.nextQueue()
        let b = pool.nextQueue()
        let gate = DispatchSemaphore(value: 0)
        let log = UnsyncedLog<Int>()
        let group = DispatchGroup()
        blocker.addTask(blockingTask(until: gate))
        for i in 0 ..< 5 {
            group.enter()
            a.addTask(ThreadPoolTask { _ in
                log.values.append(i)
                group.leave()
            })
            group.enter()
            b.addTask(ThreadPoolTask { _ in
                log.values.append(100 + i)
                group.leave()
            })
        }
        gate.signal()
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(log.values, [0, 100, 1, 101, 2, 102, 3, 103, 4, 104])
    }
}
