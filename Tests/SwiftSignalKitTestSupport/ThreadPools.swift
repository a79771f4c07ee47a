import Dispatch
import XCTest
import SwiftSignalKit

// Tasks for the tests of ThreadPool and ThreadPoolQueue: one that holds its
// thread, one whose release shows whether a queue kept it, and two that meet
// only when they run at the same time.

/// A task that holds its pool thread until `gate` is signalled (or 10 s pass).
package func blockingTask(until gate: DispatchSemaphore) -> ThreadPoolTask {
    return ThreadPoolTask { _ in
        _ = gate.wait(timeout: .now() + waitDeadline)
    }
}

/// Adds, through `addFirst` and `addSecond`, two tasks that each wait (with a
/// deadline) for the other to start, and returns how many of them met the
/// other: 2 only when they ran at the same time, on two threads.
package func rendezvous(_ addFirst: (ThreadPoolTask) -> Void, _ addSecond: (ThreadPoolTask) -> Void, file: StaticString = #filePath, line: UInt = #line) -> Int {
    let firstStarted = DispatchSemaphore(value: 0)
    let secondStarted = DispatchSemaphore(value: 0)
    let met = Counter()
    let done = DispatchGroup()
    done.enter()
    done.enter()
    addFirst(ThreadPoolTask { _ in
        firstStarted.signal()
        if secondStarted.wait(timeout: .now() + waitDeadline) == .success {
            met.increment()
        }
        done.leave()
    })
    addSecond(ThreadPoolTask { _ in
        secondStarted.signal()
        if firstStarted.wait(timeout: .now() + waitDeadline) == .success {
            met.increment()
        }
        done.leave()
    })
    XCTAssertEqual(done.wait(timeout: .now() + 15), .success, file: file, line: line)
    return met.count
}
