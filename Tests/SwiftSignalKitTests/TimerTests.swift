import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

// XCTest re-exports Foundation, whose `Timer` would make the bare name
// ambiguous: every use below says `SwiftSignalKit.Timer`.
final class TimerTests: XCTestCase {
    /// A timer on `queue` whose completion (the form without an argument)
    /// counts its firings in `fired`, and signals `signal`, when given, at
    /// firing number `firing` (at every firing when `firing` is nil).
    private func countingTimer(_ timeout: Double, repeat repeats: Bool = false, on queue: Queue, fired: Counter, signal: DispatchSemaphore? = nil, atFiring firing: Int? = nil) -> SwiftSignalKit.Timer {
        return SwiftSignalKit.Timer(timeout: timeout, repeat: repeats, completion: {
            let count = fired.increment()
            if firing == nil || firing == count {
                signal?.signal()
            }
        }, queue: queue)
    }

    /// Starts `timer` and waits for `done`; then lets 0.1 s more pass on
    /// `queue` (ten periods and more), by which time the timer must have fired
    /// exactly `expected` times: no firing after the last one expected.
    private func startAndCheckFiresExactly(_ expected: Int, _ timer: SwiftSignalKit.Timer, on queue: Queue, fired: Counter, done: DispatchSemaphore, file: StaticString = #filePath, line: UInt = #line) {
        timer.start()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success, file: file, line: line)
        drain(queue, after: 0.1, file: file, line: line)
        XCTAssertEqual(fired.count, expected, file: file, line: line)
    }

    /// A timer on `queue` whose completion (the form that receives the timer)
    /// counts its firings in `fired`, hands the timer and the count to
    /// `react`, and signals `done` when `react` returns true.
    private func reactingTimer(_ timeout: Double, repeat repeats: Bool, on queue: Queue, fired: Counter, done: DispatchSemaphore, _ react: @escaping (SwiftSignalKit.Timer, Int) -> Bool) -> SwiftSignalKit.Timer {
        return SwiftSignalKit.Timer(timeout: timeout, repeat: repeats, completion: { (timer: SwiftSignalKit.Timer) in
            if react(timer, fired.increment()) {
                done.signal()
            }
        }, queue: queue)
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
        // Ten periods later it still fired only once.
        self.startAndCheckFiresExactly(1, timer, on: queue, fired: fired, done: firedSemaphore)
        XCTAssertTrue(onQueue.with { $0 })
        withExtendedLifetime(timer) {}
    }

    func testTimerDoesNotFireWithoutStart() {
        let queue = Queue()
        let fired = Counter()
        let timer = self.countingTimer(0.0, on: queue, fired: fired)
        drain(queue, after: 0.05)
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
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(received.with { $0 }, ObjectIdentifier(timer))
    }

    func testRepeatingTimerFiresUntilInvalidatedFromItsCompletion() {
        let queue = Queue()
        let fired = Counter()
        let done = DispatchSemaphore(value: 0)
        let timer = self.reactingTimer(0.01, repeat: true, on: queue, fired: fired, done: done) { timer, count in
            if count == 3 {
                timer.invalidate()
                return true
            }
            return false
        }
        self.startAndCheckFiresExactly(3, timer, on: queue, fired: fired, done: done)
        withExtendedLifetime(timer) {}
    }

    func testInvalidateOnTheTimersQueueStopsARepeatingTimerAtOnce() {
        let queue = Queue()
        let fired = Counter()
        let twice = DispatchSemaphore(value: 0)
        let timer = self.countingTimer(0.01, repeat: true, on: queue, fired: fired, signal: twice, atFiring: 2)
        timer.start()
        XCTAssertEqual(twice.wait(timeout: .now() + waitDeadline), .success)
        var countAtInvalidate = -1
        queue.sync {
            timer.invalidate()
            countAtInvalidate = fired.count
        }
        drain(queue, after: 0.1)
        XCTAssertEqual(fired.count, countAtInvalidate)
    }

    func testInvalidateFromAnotherThreadStopsARepeatingTimer() {
        let queue = Queue()
        let fired = Counter()
        let twice = DispatchSemaphore(value: 0)
        let timer = self.countingTimer(0.01, repeat: true, on: queue, fired: fired, signal: twice, atFiring: 2)
        timer.start()
        XCTAssertEqual(twice.wait(timeout: .now() + waitDeadline), .success)
        timer.invalidate()
        let countAtInvalidate = fired.count
        drain(queue, after: 0.1)
        // At most a completion already running when invalidate() returned.
        XCTAssertLessThanOrEqual(fired.count, countAtInvalidate + 1)
    }

    func testInvalidateBeforeFirePreventsIt() {
        let queue = Queue()
        let fired = Counter()
        let timer = self.countingTimer(0.02, on: queue, fired: fired)
        timer.start()
        timer.invalidate()
        drain(queue, after: 0.1)
        XCTAssertEqual(fired.count, 0)
        // Invalidating again is harmless.
        timer.invalidate()
    }

    func testTimeoutsTooLongForIntNanosecondsNeverFire() {
        // 1e12 s and infinity overflow an Int of nanoseconds: such a timer
        // must neither trap nor fire.
        let queue = Queue()
        let fired = Counter()
        let timers = [
            self.countingTimer(1e12, on: queue, fired: fired),
            self.countingTimer(.infinity, on: queue, fired: fired),
            self.countingTimer(.infinity, repeat: true, on: queue, fired: fired),
        ]
        for timer in timers {
            timer.start()
        }
        drain(queue, after: 0.05)
        XCTAssertEqual(fired.count, 0)
        for timer in timers {
            timer.invalidate()
        }
    }

    func testNotANumberTimeoutNeverFires() {
        // NaN is no duration: as with Queue.after and the original (where
        // `DispatchTime.now() + .nan` is `distantFuture`), such a timer never
        // fires. (It fired at once, and a repeating one every instant, a
        // busy loop on its queue: NaN was clamped to 0.)
        let queue = Queue()
        let fired = Counter()
        let timers = [
            self.countingTimer(.nan, on: queue, fired: fired),
            self.countingTimer(.nan, repeat: true, on: queue, fired: fired),
            self.countingTimer(-.nan, repeat: true, on: queue, fired: fired),
        ]
        for timer in timers {
            timer.start()
        }
        drain(queue, after: 0.05)
        XCTAssertEqual(fired.count, 0)
        for timer in timers {
            timer.invalidate()
        }
    }

    func testNotANumberTimeoutNeverFiresOnAVirtualTimeQueue() throws {
        let queue = Queue.virtualTime()
        let fired = Counter()
        let timers = [
            self.countingTimer(.nan, on: queue, fired: fired),
            self.countingTimer(.nan, repeat: true, on: queue, fired: fired),
        ]
        for timer in timers {
            timer.start()
        }
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        XCTAssertNoThrow(try queue.advance(by: 10, limit: 100))
        XCTAssertEqual(fired.count, 0)
        for timer in timers {
            timer.invalidate()
        }
        queue.closeHostDrained()
    }

    func testInvalidateBeforeStartIsHarmless() {
        let queue = Queue()
        let fired = Counter()
        let done = DispatchSemaphore(value: 0)
        let timer = self.countingTimer(0.0, on: queue, fired: fired, signal: done)
        timer.invalidate()
        timer.start()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(fired.count, 1)
    }

    func testRestartingReplacesThePendingCountdown() {
        let queue = Queue()
        let fired = Counter()
        let timer = self.countingTimer(0.02, on: queue, fired: fired)
        timer.start()
        timer.start()
        timer.start()
        drain(queue, after: 0.15)
        XCTAssertEqual(fired.count, 1)
    }

    func testRestartingAfterFiringFiresAgain() {
        let queue = Queue()
        let fired = Counter()
        let done = DispatchSemaphore(value: 0)
        let timer = self.countingTimer(0.01, on: queue, fired: fired, signal: done)
        timer.start()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        timer.start()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        drain(queue, after: 0.1)
        XCTAssertEqual(fired.count, 2)
    }

    func testRestartingFromInsideTheCompletion() {
        let queue = Queue()
        let fired = Counter()
        let done = DispatchSemaphore(value: 0)
        let timer = self.reactingTimer(0.005, repeat: false, on: queue, fired: fired, done: done) { timer, count in
            if count < 3 {
                timer.start()
                return false
            }
            return true
        }
        self.startAndCheckFiresExactly(3, timer, on: queue, fired: fired, done: done)
        withExtendedLifetime(timer) {}
    }

    func testReleasingAnUnfiredTimerStopsIt() {
        let queue = Queue()
        let fired = Counter()
        weak var weakTimer: SwiftSignalKit.Timer?
        do {
            let timer = self.countingTimer(0.02, repeat: true, on: queue, fired: fired)
            weakTimer = timer
            timer.start()
        }
        XCTAssertNil(weakTimer)
        drain(queue, after: 0.1)
        XCTAssertEqual(fired.count, 0)
    }

    func testReleasingARepeatingTimerStopsIt() {
        let queue = Queue()
        let fired = Counter()
        let twice = DispatchSemaphore(value: 0)
        let holder = Atomic<SwiftSignalKit.Timer?>(value: nil)
        weak var weakTimer: SwiftSignalKit.Timer?
        do {
            let timer = self.countingTimer(0.01, repeat: true, on: queue, fired: fired, signal: twice, atFiring: 2)
            weakTimer = timer
            holder.swap(timer)
            timer.start()
        }
        XCTAssertEqual(twice.wait(timeout: .now() + waitDeadline), .success)
        var countAtRelease = -1
        queue.sync {
            holder.swap(nil)
            countAtRelease = fired.count
        }
        XCTAssertNil(weakTimer)
        drain(queue, after: 0.1)
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
    // Closing a host-drained or virtual-time queue ends the timers started
    // on it: their completions are released on the closing thread. Each
    // completion below holds what holds its timer, the cycle the time-based
    // operators make (their state holds the timer, the completion the state);
    // before, nothing broke it once the queue had closed.

    /// Whether `descriptor` becomes readable within 10 seconds.
    private func waitReadable(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 10_000) == 1
    }

    /// Starts, on `queue`, a timer of `timeout` seconds whose completion
    /// holds a `TimerHolder` that holds the timer; returns the holder
    /// weakly (alive only through that cycle).
    private func startCycle(_ timeout: Double, on queue: Queue, fired: Counter) -> () -> TimerHolder? {
        let holder = TimerHolder()
        let timer = SwiftSignalKit.Timer(timeout: timeout, repeat: false, completion: {
            withExtendedLifetime(holder) {
            }
            fired.increment()
        }, queue: queue)
        holder.timer = timer
        timer.start()
        return { [weak holder] in holder }
    }

    func testClosingAHostDrainedQueueReleasesTheCompletionOfAStartedTimer() throws {
        // Not due yet (a dispatch timer counting down), and due (its firing
        // waiting in the queue for a drain).
        for timeout in [100.0, 0.0] {
            let queue = try Queue.makeHostDrained(name: "TimerTests.hostClose")
            let fired = Counter()
            let holder = self.startCycle(timeout, on: queue, fired: fired)
            if timeout == 0 {
                XCTAssertTrue(self.waitReadable(try XCTUnwrap(queue.hostFileDescriptor)), "the timer never fired")
            }
            XCTAssertNotNil(holder(), "timeout \(timeout): the cycle let go before the close")
            queue.closeHostDrained()
            XCTAssertNil(holder(), "timeout \(timeout): the completion was not released at the close")
            XCTAssertEqual(fired.count, 0)
        }
    }

    func testClosingAVirtualTimeQueueReleasesTheCompletionOfAStartedTimer() {
        let queue = Queue.virtualTime()
        let fired = Counter()
        let holder = self.startCycle(0.01, on: queue, fired: fired)
        XCTAssertNotNil(holder())
        queue.closeHostDrained()
        XCTAssertNil(holder(), "the completion was not released at the close")
        XCTAssertEqual(fired.count, 0)
    }

    func testStartingATimerOnAClosedQueueReleasesItsCompletionAtOnce() throws {
        let host = try Queue.makeHostDrained(name: "TimerTests.closedHost")
        host.closeHostDrained()
        let virtual = Queue.virtualTime()
        virtual.closeHostDrained()
        for queue in [host, virtual] {
            let fired = Counter()
            let holder = self.startCycle(0, on: queue, fired: fired)
            XCTAssertNil(holder(), "the completion was kept by a timer on a closed queue")
            XCTAssertEqual(fired.count, 0)
        }
    }

    /// A timer on a host-drained queue that is neither closed nor drained
    /// is not kept alive by the queue: releasing it still stops it.
    func testReleasingAStartedTimerOnAHostDrainedQueueStopsIt() throws {
        let queue = try Queue.makeHostDrained(name: "TimerTests.hostRelease")
        let fired = Counter()
        weak var weakTimer: SwiftSignalKit.Timer?
        do {
            let timer = self.countingTimer(0, on: queue, fired: fired)
            weakTimer = timer
            timer.start()
        }
        XCTAssertNil(weakTimer)
        queue.closeHostDrained()
        XCTAssertEqual(fired.count, 0)
    }

    /// A cancelled timer's dispatch source keeps its event handler until
    /// libdispatch lets go of it, later, on a thread of its own (here: not
    /// before the queue's dispatch queue, held busy, runs again). The
    /// handler held the timer's queue, so a queue released with its timers
    /// gone was freed there, after its last release had returned (a host
    /// queue's executor with it: valgrind saw its memory lost when a C
    /// program ended meanwhile, 15 of 20 runs). The queue goes with its
    /// last reference.
    func testAQueueGoesWithItsLastReferenceWhileItsCancelledTimersHandlerWaits() {
        for (kind, make) in [("serial", { Queue(name: "TimerTests.handlerKeepsNoQueue") }),
                             ("host-drained", { Queue.hostDrained(name: "TimerTests.handlerKeepsNoQueue") })] {
            let busy = DispatchSemaphore(value: 0)
            let running = DispatchSemaphore(value: 0)
            weak var weakQueue: Queue?
            do {
                let queue = make()
                weakQueue = queue
                queue.queue.async {
                    running.signal()
                    busy.wait()
                }
                running.wait()
                let timer = SwiftSignalKit.Timer(timeout: 0.001, repeat: true, completion: {}, queue: queue)
                timer.start()
                timer.invalidate()
                queue.closeHostDrained()
            }
            XCTAssertNil(weakQueue, "\(kind): the queue outlived its last reference")
            busy.signal()
        }
    }
}

/// Holds a timer (see `startCycle`).
private final class TimerHolder: @unchecked Sendable {
    var timer: SwiftSignalKit.Timer?
}
