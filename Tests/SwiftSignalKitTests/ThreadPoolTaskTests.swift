import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class ThreadPoolTaskTests: XCTestCase {
    func testCancelBeforeRunMeansNeverRunsAndReleasesAction() {
        let pool = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let queue = pool.nextQueue()
        let gate = DispatchSemaphore(value: 0)
        let ran = Counter()
        let released = Counter()
        queue.addTask(blockingTask(until: gate))
        let task: ThreadPoolTask
        do {
            let tracker = DeinitTracker { released.increment() }
            task = ThreadPoolTask { _ in
                _ = tracker
                ran.increment()
            }
        }
        queue.addTask(task)
        let done = DispatchSemaphore(value: 0)
        queue.addTask(ThreadPoolTask { _ in
            done.signal()
        })
        XCTAssertEqual(released.count, 0)
        task.cancel()
        // The queued task object still exists, but its action is gone already.
        XCTAssertEqual(released.count, 1)
        gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(ran.count, 0)
    }

    func testActionObservesCancelWhileRunning() {
        let pool = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let observed = Atomic<[Bool]>(value: [])
        let task = ThreadPoolTask { state in
            let before = state.cancelled.with { $0 }
            started.signal()
            _ = proceed.wait(timeout: .now() + waitDeadline)
            let after = state.cancelled.with { $0 }
            _ = observed.swap([before, after])
            done.signal()
        }
        pool.addTask(task)
        XCTAssertEqual(started.wait(timeout: .now() + waitDeadline), .success)
        task.cancel()
        proceed.signal()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(observed.with { $0 }, [false, true])
    }

    func testActionReleasedAfterRunningWhileTaskLivesOn() {
        let pool = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let released = DispatchSemaphore(value: 0)
        let ran = Counter()
        var task: ThreadPoolTask?
        do {
            let tracker = DeinitTracker { released.signal() }
            task = ThreadPoolTask { _ in
                _ = tracker
                ran.increment()
            }
        }
        pool.addTask(task!)
        XCTAssertEqual(released.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(ran.count, 1)
        XCTAssertNotNil(task)
    }

    func testTaskRunsAtMostOnceEvenIfAddedTwice() {
        let pool = ThreadPool(threadCount: 2, threadPriority: 0.5)
        let ran = Counter()
        let task = ThreadPoolTask { _ in
        ran.increment()
        }
        let queue = pool.nextQueue()
        queue.addTask(task)
        queue.addTask(task)
        let done = DispatchSemaphore(value: 0)
        queue.addTask(ThreadPoolTask { _ in
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(ran.count, 1)
    }

    func testConcurrentCancelAndRunEitherRunsOnceOrNever() {
        let pool = ThreadPool(threadCount: 4, threadPriority: 0.5)
        let ran = Counter()
        let total = 2_000
        let tasks = (0 ..< total).map { _ in
            ThreadPoolTask { _ in
            ran.increment()
            }
        }
        let queue = pool.nextQueue()
        for task in tasks {
            queue.addTask(task)
        }
        DispatchQueue.concurrentPerform(iterations: 4) { part in
            for i in stride(from: part, to: total, by: 4) {
                tasks[i].cancel()
            }
        }
        let done = DispatchSemaphore(value: 0)
        queue.addTask(ThreadPoolTask { _ in
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertLessThanOrEqual(ran.count, total)
        // Every task is now cancelled or finished: running the queue again runs nothing.
        let before = ran.count
        for task in tasks {
            queue.addTask(task)
        }
        let again = DispatchSemaphore(value: 0)
        queue.addTask(ThreadPoolTask { _ in
            again.signal()
        })
        XCTAssertEqual(again.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(ran.count, before)
    }
}
