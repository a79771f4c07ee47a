import XCTest
import Dispatch
import SwiftSignalKit

// XCTest re-exports Foundation, whose `Timer` would make the bare name
// ambiguous: every use below says `SwiftSignalKit.Timer`.
final class TimerTests: XCTestCase {
    /// A thread-safe counter.
    private final class Counter: @unchecked Sendable {
        private let value = Atomic<Int>(value: 0)

        @discardableResult
        func increment() -> Int {
            return self.value.modify { $0 + 1 }
        }

        var count: Int {
            return self.value.with { $0 }
        }
    }

    /// Waits until `delay` seconds have passed on `queue`, by scheduling a
    /// marker there: everything the queue ran before the marker has run.
    private func drain(_ queue: Queue, after delay: Double, file: StaticString = #filePath, line: UInt = #line) {
        let marker = DispatchSemaphore(value: 0)
        queue.after(delay) {
            marker.signal()
        }
        XCTAssertEqual(marker.wait(timeout: .now() + 10), .success, file: file, line: line)
    }

    func testOneShotTimerFiresOnceOnItsQueue() {
        let queue = Queue(name: "TimerTests.oneShot")
        let fired = Counter()
        let onQueue = Atomic<Bool>(value: false)
        let firedSemaphore = DispatchSemaphore(value: 0)
        let timer = SwiftSignalKit.Timer(timeout: 0.01, repeat: false, completion: {
            onQueue.swap(queue.isCurrent())
            fired.increment()
            firedSemaphore.signal()
        }, queue: queue)
        XCTAssertEqual(fired.count, 0)
        timer.start()
        XCTAssertEqual(firedSemaphore.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(onQueue.with { $0 })
        // Ten periods later it still fired only once.
        self.drain(queue, after: 0.1)
        XCTAssertEqual(fired.count, 1)
        withExtendedLifetime(timer) {}
    }

    func testTimerDoesNotFireWithoutStart() {
        let queue = Queue()
        let fired = Counter()
        let timer = SwiftSignalKit.Timer(timeout: 0.0, repeat: false, completion: {
            fired.increment()
        }, queue: queue)
        self.drain(queue, after: 0.05)
        XCTAssertEqual(fired.count, 0)
        withExtendedLifetime(timer) {}
    }

    func testCompletionReceivesTheTimer() {
        let queue = Queue()
        let received = Atomic<ObjectIdentifier?>(value: nil)
        let done = DispatchSemaphore(value: 0)
        let timer = SwiftSignalKit.Timer(timeout: 0.0, repeat: false, completion: { (timer: SwiftSignalKit.Timer) in
            received.swap(ObjectIdentifier(timer))
            done.signal()
        }, queue: queue)
        timer.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(received.with { $0 }, ObjectIdentifier(timer))
    }

    func testRepeatingTimerFiresUntilInvalidatedFromItsCompletion() {
        let queue = Queue()
        let fired = Counter()
        let done = DispatchSemaphore(value: 0)
        let timer = SwiftSignalKit.Timer(timeout: 0.01, repeat: true, completion: { (timer: SwiftSignalKit.Timer) in
            if fired.increment() == 3 {
                timer.invalidate()
                done.signal()
            }
        }, queue: queue)
        timer.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        self.drain(queue, after: 0.1)
        XCTAssertEqual(fired.count, 3)
        withExtendedLifetime(timer) {}
    }

    func testInvalidateOnTheTimersQueueStopsARepeatingTimerAtOnce() {
        let queue = Queue()
        let fired = Counter()
        let twice = DispatchSemaphore(value: 0)
        let timer = SwiftSignalKit.Timer(timeout: 0.01, repeat: true, completion: {
            if fired.increment() == 2 {
                twice.signal()
            }
        }, queue: queue)
        timer.start()
        XCTAssertEqual(twice.wait(timeout: .now() + 10), .success)
        var countAtInvalidate = -1
        queue.sync {
            timer.invalidate()
            countAtInvalidate = fired.count
        }
        self.drain(queue, after: 0.1)
        XCTAssertEqual(fired.count, countAtInvalidate)
    }

    func testInvalidateFromAnotherThreadStopsARepeatingTimer() {
        let queue = Queue()
        let fired = Counter()
        let twice = DispatchSemaphore(value: 0)
        let timer = SwiftSignalKit.Timer(timeout: 0.01, repeat: true, completion: {
            if fired.increment() == 2 {
                twice.signal()
            }
        }, queue: queue)
        timer.start()
        XCTAssertEqual(twice.wait(timeout: .now() + 10), .success)
        timer.invalidate()
        let countAtInvalidate = fired.count
        self.drain(queue, after: 0.1)
        // At most a completion already running when invalidate() returned.
        XCTAssertLessThanOrEqual(fired.count, countAtInvalidate + 1)
    }

    func testInvalidateBeforeFirePreventsIt() {
        let queue = Queue()
        let fired = Counter()
        let timer = SwiftSignalKit.Timer(timeout: 0.02, repeat: false, completion: {
            fired.increment()
        }, queue: queue)
        timer.start()
        timer.invalidate()
        self.drain(queue, after: 0.1)
        XCTAssertEqual(fired.count, 0)
        // Invalidating again is harmless.
        timer.invalidate()
    }

    func testInvalidateBeforeStartIsHarmless() {
        let queue = Queue()
        let fired = Counter()
        let done = DispatchSemaphore(value: 0)
        let timer = SwiftSignalKit.Timer(timeout: 0.0, repeat: false, completion: {
            fired.increment()
            done.signal()
        }, queue: queue)
        timer.invalidate()
        timer.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(fired.count, 1)
    }

    func testRestartingReplacesThePendingCountdown() {
        let queue = Queue()
        let fired = Counter()
        let timer = SwiftSignalKit.Timer(timeout: 0.02, repeat: false, completion: {
            fired.increment()
        }, queue: queue)
        timer.start()
        timer.start()
        timer.start()
        self.drain(queue, after: 0.15)
        XCTAssertEqual(fired.count, 1)
    }

    func testRestartingAfterFiringFiresAgain() {
        let queue = Queue()
        let fired = Counter()
        let done = DispatchSemaphore(value: 0)
        let timer = SwiftSignalKit.Timer(timeout: 0.01, repeat: false, completion: {
            fired.increment()
            done.signal()
        }, queue: queue)
        timer.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        timer.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        self.drain(queue, after: 0.1)
        XCTAssertEqual(fired.count, 2)
    }

    func testRestartingFromInsideTheCompletion() {
        let queue = Queue()
        let fired = Counter()
        let done = DispatchSemaphore(value: 0)
        let timer = SwiftSignalKit.Timer(timeout: 0.005, repeat: false, completion: { (timer: SwiftSignalKit.Timer) in
            if fired.increment() < 3 {
                timer.start()
            } else {
                done.signal()
            }
        }, queue: queue)
        timer.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        self.drain(queue, after: 0.1)
        XCTAssertEqual(fired.count, 3)
        withExtendedLifetime(timer) {}
    }

    func testReleasingAnUnfiredTimerStopsIt() {
        let queue = Queue()
        let fired = Counter()
        weak var weakTimer: SwiftSignalKit.Timer?
        do {
            let timer = SwiftSignalKit.Timer(timeout: 0.02, repeat: true, completion: {
                fired.increment()
            }, queue: queue)
            weakTimer = timer
            timer.start()
        }
        XCTAssertNil(weakTimer)
        self.drain(queue, after: 0.1)
        XCTAssertEqual(fired.count, 0)
    }

    func testReleasingARepeatingTimerStopsIt() {
        let queue = Queue()
        let fired = Counter()
        let twice = DispatchSemaphore(value: 0)
        let holder = Atomic<SwiftSignalKit.Timer?>(value: nil)
        weak var weakTimer: SwiftSignalKit.Timer?
        do {
            let timer = SwiftSignalKit.Timer(timeout: 0.01, repeat: true, completion: {
                if fired.increment() == 2 {
                    twice.signal()
                }
            }, queue: queue)
            weakTimer = timer
            holder.swap(timer)
            timer.start()
        }
        XCTAssertEqual(twice.wait(timeout: .now() + 10), .success)
        var countAtRelease = -1
        queue.sync {
            holder.swap(nil)
            countAtRelease = fired.count
        }
        XCTAssertNil(weakTimer)
        self.drain(queue, after: 0.1)
        XCTAssertEqual(fired.count, countAtRelease)
    }

    func testTimersOnTheMainQueueFireWhileXCTestWaits() {
        let fired = Atomic<Bool>(value: false)
        let done = self.expectation(description: "main-queue timer fired")
        let timer = SwiftSignalKit.Timer(timeout: 0.01, repeat: false, completion: {
            fired.swap(Queue.mainQueue().isCurrent())
            done.fulfill()
        }, queue: Queue.mainQueue())
        timer.start()
        self.wait(for: [done], timeout: 10)
        XCTAssertTrue(fired.with { $0 })
        withExtendedLifetime(timer) {}
    }
}
