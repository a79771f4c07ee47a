import Dispatch
import XCTest
import SwiftSignalKit

// What a test observes of a subscription, and how it compares long results.

/// Records the events of subscriptions: the values, the errors, the
/// completions, and all three as a text log ("1", "error 2", "completed")
/// with the time of each. Given a queue, it counts the events that arrive off
/// that queue. Every event signals `waitForEvent()`. The callbacks of `start`
/// and `makeSubscriber` capture a tracker of `released`, so that a test sees
/// when the library lets go of them.
///
/// Thread-safety: every member may be used from any thread, and events may
/// arrive on any thread. Each list is updated atomically; events that arrive
/// at the same time on two threads are all recorded, but each list may have
/// them in its own order.
package final class Recorder<T, E>: @unchecked Sendable {
    /// Where events are expected, if anywhere in particular.
    package let queue: Queue?
    /// The values, in order.
    package let values = Atomic<[T]>(value: [])
    /// The errors, in order.
    package let errors = Atomic<[E]>(value: [])
    /// The completions.
    package let completions = Counter()
    /// The text log of every event.
    package let events = Atomic<[String]>(value: [])
    /// When each event of the text log arrived.
    package let times = Atomic<[DispatchTime]>(value: [])
    /// When `queue` is a virtual-time queue: its clock (seconds) at each
    /// event of the text log.
    package let virtualTimes = Atomic<[Double]>(value: [])
    /// The events that arrived off `queue`.
    package let offQueue = Counter()
    /// Releases of the callbacks handed out (each set counts once).
    package let released = Counter()
    /// Signalled once per event.
    package let eventArrived = DispatchSemaphore(value: 0)

    /// Events are expected on `queue`, when given.
    package init(queue: Queue? = nil) {
        self.queue = queue
    }

    /// Records a value.
    package func next(_ value: T) {
        self.values.modify { $0 + [value] }
        self.log("\(value)")
    }

    /// Records an error.
    package func error(_ error: E) {
        self.errors.modify { $0 + [error] }
        self.log("error \(error)")
    }

    /// Records a completion.
    package func completed() {
        self.completions.increment()
        self.log("completed")
    }

    /// Notes `event` in the text log, checks the queue, and signals.
    package func log(_ event: String) {
        if let queue = self.queue, !queue.isCurrent() {
            self.offQueue.increment()
        }
        let now = DispatchTime.now()
        self.times.modify { $0 + [now] }
        if let virtualNow = self.queue?.virtualNow {
            self.virtualTimes.modify { $0 + [virtualNow] }
        }
        self.events.modify { $0 + [event] }
        self.eventArrived.signal()
    }

    /// Recording callbacks, which capture a tracker of `released`.
    package func callbacks() -> (next: (T) -> Void, error: (E) -> Void, completed: () -> Void) {
        let tracker = DeinitTracker(self.released)
        return ({ value in
            withExtendedLifetime(tracker) {
                self.next(value)
            }
        }, { error in
            withExtendedLifetime(tracker) {
                self.error(error)
            }
        }, {
            withExtendedLifetime(tracker) {
                self.completed()
            }
        })
    }

    /// Starts `signal` with recording callbacks.
    package func start(_ signal: Signal<T, E>) -> Disposable {
        let callbacks = self.callbacks()
        return signal.start(next: callbacks.next, error: callbacks.error, completed: callbacks.completed)
    }

    /// A subscriber with recording callbacks.
    package func makeSubscriber() -> Subscriber<T, E> {
        let callbacks = self.callbacks()
        return Subscriber(next: callbacks.next, error: callbacks.error, completed: callbacks.completed)
    }

    /// Waits, with a deadline, for the next event not waited for yet.
    package func waitForEvent() -> DispatchTimeoutResult {
        return self.eventArrived.wait(timeout: .now() + waitDeadline)
    }

    /// Asserts that `count` more events arrive, each within the deadline.
    package func expectEvents(_ count: Int = 1, file: StaticString = #filePath, line: UInt = #line) {
        for _ in 0 ..< count {
            XCTAssertEqual(self.waitForEvent(), .success, file: file, line: line)
        }
    }

    /// The values so far.
    package var recordedValues: [T] {
        return self.values.with { $0 }
    }

    /// The errors so far.
    package var recordedErrors: [E] {
        return self.errors.with { $0 }
    }

    /// The text log.
    package var recorded: [String] {
        return self.events.with { $0 }
    }

    /// The text log with the virtual time of each event, in milliseconds
    /// ("100@50"), for a recorder of a virtual-time queue.
    package var recordedAt: [String] {
        let events = self.events.with { $0 }
        let times = self.virtualTimes.with { $0 }
        return zip(events, times).map { "\($0)@\(Int(($1 * 1000).rounded()))" }
    }
}

/// Asserts that two long sequences are equal, reporting the first difference
/// rather than both arrays.
package func assertSameSequence(_ actual: [Int], _ expected: [Int], file: StaticString = #filePath, line: UInt = #line) {
    if actual == expected {
        return
    }
    let mismatch = zip(actual, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })
    if let mismatch {
        XCTFail("first difference at index \(mismatch.offset): \(mismatch.element.0) instead of \(mismatch.element.1) (counts \(actual.count) / \(expected.count))", file: file, line: line)
    } else {
        XCTFail("counts differ: \(actual.count) instead of \(expected.count)", file: file, line: line)
    }
}
