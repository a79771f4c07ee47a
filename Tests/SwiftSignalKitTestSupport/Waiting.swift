import Dispatch
import XCTest
import SwiftSignalKit

// Time and waiting. Every wait has a deadline (a hang fails the test instead
// of blocking the run), and nothing here sleeps: a test waits for the event
// it expects, or for a marker behind it on the queue.

/// How long a wait of the tests gives what it waits for, in seconds: a
/// deadline, not a delay (a wait returns as soon as what it waits for has
/// happened). Generous, so that a loaded machine passes (a load average of
/// 15 to 20 on 2 cores made a 2-second test take 20: issue 50); a hang
/// still fails the test, after this long. The C suite's `SK_WAIT_SECONDS`
/// and the C++ suite's are the same figure.
package let waitDeadline: Double = 60

/// Seconds from `start` to `end` (by default, now).
package func seconds(from start: DispatchTime, to end: DispatchTime = .now()) -> Double {
    return Double(end.uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000_000.0
}

/// Waits, with a deadline, until `delay` seconds have passed on `queue`, by
/// scheduling a marker there: whatever the queue was due to run before the
/// marker has had its chance to run.
package func drain(_ queue: Queue, after delay: Double, file: StaticString = #filePath, line: UInt = #line) {
    let marker = DispatchSemaphore(value: 0)
    queue.after(delay) {
        marker.signal()
    }
    XCTAssertEqual(marker.wait(timeout: .now() + waitDeadline), .success, file: file, line: line)
}

/// Blocks `queue` until the returned gate is signalled (or 10 s pass), and
/// returns once the queue is blocked.
package func block(_ queue: Queue, file: StaticString = #filePath, line: UInt = #line) -> DispatchSemaphore {
    let blocked = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    queue.justDispatch {
        blocked.signal()
        _ = gate.wait(timeout: .now() + waitDeadline)
    }
    XCTAssertEqual(blocked.wait(timeout: .now() + waitDeadline), .success, file: file, line: line)
    return gate
}

/// Runs `body` while `queue` is blocked, so that nothing on it (a timer's
/// completion, say) can run in the middle of `body`.
package func whileBlocking(_ queue: Queue, file: StaticString = #filePath, line: UInt = #line, _ body: () -> Void) {
    let gate = block(queue, file: file, line: line)
    body()
    gate.signal()
}

/// A one-shot event that an async test can await without blocking a thread.
///
/// Thread-safety: `signal()` and `wait()` may be called from any thread or
/// task, any number of times; every wait returns once the first signal is
/// made.
package final class AsyncEvent: @unchecked Sendable {
    /// Guards `signaled` and `waiters`.
    private let lock = Lock()
    /// Whether `signal()` was called.
    private var signaled = false
    /// The tasks awaiting the event.
    private var waiters: [CheckedContinuation<Void, Never>] = []

    package init() {
    }

    /// Marks the event as happened and resumes every waiting task.
    package func signal() {
        var waiters: [CheckedContinuation<Void, Never>] = []
        self.lock.locked {
            self.signaled = true
            waiters = self.waiters
            self.waiters = []
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once `signal()` was called (at once if it already was).
    package func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            var ready = false
            self.lock.locked {
                ready = self.signaled
                if !ready {
                    self.waiters.append(continuation)
                }
            }
            if ready {
                continuation.resume()
            }
        }
    }
}

/// A callback held open by a test: the callback calls `hold()`, which says
/// that it has entered and waits (with the deadline) to be let go; the test
/// waits for that entry (`waitUntilEntered()`), does what it tests while
/// the call is in flight, and lets it go (`release()`).
///
/// Thread-safety: any thread; `hold()` on the thread of the call it holds.
package final class HeldCall: @unchecked Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let proceed = DispatchSemaphore(value: 0)

    package init() {}

    /// Inside the callback: says it has entered, and returns once released.
    package func hold(file: StaticString = #filePath, line: UInt = #line) {
        self.entered.signal()
        XCTAssertEqual(self.proceed.wait(timeout: .now() + waitDeadline), .success, file: file, line: line)
    }

    /// Waits until a callback holds (`hold()`).
    package func waitUntilEntered(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(self.entered.wait(timeout: .now() + waitDeadline), .success, file: file, line: line)
    }

    /// Lets the held callback return.
    package func release() {
        self.proceed.signal()
    }
}
