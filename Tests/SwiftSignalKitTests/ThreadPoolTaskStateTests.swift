import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class ThreadPoolTaskStateTests: XCTestCase {
    func testCancelledStartsFalseAndIsSetByCancel() {
        let pool = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let done = DispatchSemaphore(value: 0)
        let states = Atomic<[ThreadPoolTaskState]>(value: [])
        let task = ThreadPoolTask { state in
            _ = states.modify { $0 + [state] }
            done.signal()
        }
        pool.addTask(task)
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        let state = states.with { $0 }.first!
        XCTAssertFalse(state.cancelled.with { $0 })
        task.cancel()
        XCTAssertTrue(state.cancelled.with { $0 })
    }

    func testActionCanPollCancellationToStopEarly() {
        let pool = ThreadPool(threadCount: 1, threadPriority: 0.5)
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let task = ThreadPoolTask { state in
            started.signal()
            while !state.cancelled.with({ $0 }) {
            }
            done.signal()
        }
        pool.addTask(task)
        XCTAssertEqual(started.wait(timeout: .now() + waitDeadline), .success)
        task.cancel()
        // The loop can end only because cancel() set the shared state.
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
    }
}
