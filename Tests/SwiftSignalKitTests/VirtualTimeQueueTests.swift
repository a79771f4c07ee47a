import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// The laws of `Queue.virtualTime()`: work runs only when the clock is
/// advanced, in deadline order, ties in submission order, on the advancing
/// thread, with the clock at each task's deadline.
final class VirtualTimeQueueTests: XCTestCase {
    /// What ran, in order, with the clock it saw. Used on the advancing
    /// thread only.
    private final class Log {
        var entries: [(String, Double)] = []
        var names: [String] {
            return self.entries.map(\.0)
        }
    }

    private func at(_ queue: Queue, _ log: Log, _ name: String) -> () -> Void {
        return {
            log.entries.append((name, queue.virtualNow ?? -1))
        }
    }

    func testNothingRunsUntilTheClockIsAdvanced() throws {
        let queue = Queue.virtualTime()
        let log = Log()
        queue.async(self.at(queue, log, "async"))
        queue.justDispatch(self.at(queue, log, "dispatch"))
        queue.after(0.5, self.at(queue, log, "after"))
        XCTAssertEqual(log.names, [])
        XCTAssertEqual(queue.pendingVirtualWork, 3)
        XCTAssertEqual(try queue.advance(by: 0), 2)
        XCTAssertEqual(log.names, ["async", "dispatch"])
        XCTAssertEqual(try queue.advance(by: 0.499), 0)
        XCTAssertEqual(queue.virtualNow, 0.499)
        XCTAssertEqual(try queue.advance(by: 0.001), 1)
        XCTAssertEqual(log.names, ["async", "dispatch", "after"])
        XCTAssertEqual(log.entries.last?.1, 0.5)
        XCTAssertEqual(queue.pendingVirtualWork, 0)
    }

    func testWorkRunsInDeadlineOrderWithTheClockAtEachDeadline() throws {
        let queue = Queue.virtualTime()
        let log = Log()
        queue.after(0.3, self.at(queue, log, "c"))
        queue.after(0.1, self.at(queue, log, "a"))
        queue.after(0.2, self.at(queue, log, "b"))
        try queue.advance(to: 1)
        XCTAssertEqual(log.names, ["a", "b", "c"])
        XCTAssertEqual(log.entries.map(\.1), [0.1, 0.2, 0.3])
        XCTAssertEqual(queue.virtualNow, 1)
    }

    func testTiesRunInSubmissionOrder() throws {
        let queue = Queue.virtualTime()
        let log = Log()
        for name in ["1", "2", "3", "4", "5"] {
            queue.after(0.1, self.at(queue, log, name))
        }
        queue.async(self.at(queue, log, "now"))
        try queue.run()
        XCTAssertEqual(log.names, ["now", "1", "2", "3", "4", "5"])
    }

    func testWorkRunsOnTheAdvancingThreadAndIsCurrentThere() throws {
        let queue = Queue.virtualTime()
        let other = Queue.virtualTime()
        var seen: [Bool] = []
        XCTAssertFalse(queue.isCurrent())
        queue.async {
            seen.append(queue.isCurrent())
            seen.append(other.isCurrent())
            // Inline when already on the queue, as on a serial queue.
            var inline = false
            queue.async {
                inline = true
            }
            seen.append(inline)
        }
        try queue.advance(by: 0)
        XCTAssertEqual(seen, [true, false, true])
        XCTAssertFalse(queue.isCurrent())
    }

    func testWorkScheduledFromWorkRunsInTheSameAdvanceWhenDue() throws {
        let queue = Queue.virtualTime()
        let log = Log()
        queue.after(0.1) {
            log.entries.append(("outer", queue.virtualNow!))
            queue.after(0.05, self.at(queue, log, "nested-due"))
            queue.after(0.5, self.at(queue, log, "nested-later"))
            // Same deadline as the running task: after it, and after the
            // task already waiting at that deadline.
            queue.justDispatch(self.at(queue, log, "dispatched"))
        }
        queue.after(0.1, self.at(queue, log, "tie"))
        try queue.advance(to: 0.2)
        XCTAssertEqual(log.names, ["outer", "tie", "dispatched", "nested-due"])
        XCTAssertEqual(log.entries.map(\.1), [0.1, 0.1, 0.1, 0.15])
        try queue.advance(to: 0.6)
        XCTAssertEqual(log.names.last, "nested-later")
        XCTAssertEqual(log.entries.last?.1, 0.6)
    }

    func testAdvanceFromInsideWorkIsAnErrorAndMovesNothing() throws {
        let queue = Queue.virtualTime()
        var errors: [VirtualTimeError] = []
        var ranLater = false
        queue.after(1) {
            ranLater = true
        }
        queue.async {
            for attempt in 0..<3 {
                do throws(VirtualTimeError) {
                    switch attempt {
                    case 0:
                        try queue.advance(by: 1)
                    case 1:
                        try queue.advance(to: 2)
                    default:
                        try queue.run()
                    }
                } catch {
                    errors.append(error)
                }
            }
        }
        try queue.advance(by: 0)
        XCTAssertEqual(errors, [.advanceFromInsideWork, .advanceFromInsideWork, .advanceFromInsideWork])
        XCTAssertFalse(ranLater)
        XCTAssertEqual(queue.virtualNow, 0)
    }

    func testAdvanceFromAnotherThreadWhileAdvancingIsAnError() throws {
        let queue = Queue.virtualTime()
        var result: Result<Int, VirtualTimeError>?
        queue.async {
            // Another thread, while this one is inside the advance.
            let thread = spawnThread {
                result = Result { () throws(VirtualTimeError) -> Int in try queue.advance(by: 1) }
            }
            pthread_join(thread, nil)
        }
        try queue.advance(by: 0)
        guard case .failure(.alreadyAdvancing)? = result else {
            return XCTFail("expected alreadyAdvancing, got \(String(describing: result))")
        }
    }

    /// A finite, non-negative duration or time that takes the clock past its
    /// end (2^63 ns from its start) is `invalidTime` too, and its message
    /// says so: it said "not a valid duration or time (finite, >= 0)", which
    /// the value it named was (found by a new-user program).
    func testPastTheClocksEndIsInvalidTimeNamingTheEnd() throws {
        let queue = Queue.virtualTime()
        for seconds in [9.3e9, 1e12] {
            XCTAssertThrowsError(try queue.advance(by: seconds)) {
                XCTAssertEqual($0 as? VirtualTimeError, .invalidTime(seconds))
                XCTAssertTrue("\($0)".contains("past its end (2^63 ns"), "\($0)")
            }
            XCTAssertThrowsError(try queue.advance(to: seconds)) {
                XCTAssertEqual($0 as? VirtualTimeError, .invalidTime(seconds))
                XCTAssertTrue("\($0)".contains("past its end (2^63 ns"), "\($0)")
            }
        }
        // Within the end, but past it from where the clock is.
        try queue.advance(by: 9e9)
        XCTAssertThrowsError(try queue.advance(by: 3e8)) {
            XCTAssertEqual($0 as? VirtualTimeError, .invalidTime(3e8))
            XCTAssertTrue("\($0)".contains("past its end (2^63 ns"), "\($0)")
        }
        XCTAssertEqual(queue.virtualNow, 9e9, "nothing moved")
        // What is invalid whatever the clock keeps its message.
        for seconds in [-1, .infinity, .nan] {
            XCTAssertThrowsError(try queue.advance(by: seconds)) {
                XCTAssertTrue("\($0)".contains("is not a valid duration or time"), "\($0)")
            }
        }
    }

    func testBadArgumentsAreErrors() {
        let queue = Queue.virtualTime()
        XCTAssertThrowsError(try queue.advance(by: -1)) { XCTAssertEqual($0 as? VirtualTimeError, .invalidTime(-1)) }
        XCTAssertThrowsError(try queue.advance(by: .nan)) { XCTAssertNotNil($0 as? VirtualTimeError) }
        XCTAssertThrowsError(try queue.advance(by: .infinity)) { XCTAssertEqual($0 as? VirtualTimeError, .invalidTime(.infinity)) }
        XCTAssertNoThrow(try queue.advance(to: 2))
        XCTAssertThrowsError(try queue.advance(to: 1)) { XCTAssertEqual($0 as? VirtualTimeError, .timeInPast(now: 2, requested: 1)) }
        XCTAssertEqual(VirtualTimeError.timeInPast(now: 2, requested: 1).description,
                       "the time 1.0 s is before the queue's clock (2.0 s): a virtual clock only moves forward")
        let real = Queue()
        XCTAssertThrowsError(try real.advance(by: 1)) { XCTAssertEqual($0 as? VirtualTimeError, .notVirtualTime) }
        XCTAssertThrowsError(try real.run()) { XCTAssertEqual($0 as? VirtualTimeError, .notVirtualTime) }
        XCTAssertNil(real.virtualNow)
        XCTAssertNil(real.pendingVirtualWork)
        XCTAssertFalse(real.isVirtualTime)
        XCTAssertTrue(queue.isVirtualTime)
        XCTAssertEqual(queue.virtualNow, 2)
    }

    func testARepeatingTimerUnderRunStopsAtTheTaskLimit() throws {
        let queue = Queue.virtualTime()
        let fired = Counter()
        let timer = SwiftSignalKit.Timer(timeout: 0.25, repeat: true, completion: {
            fired.increment()
        }, queue: queue)
        timer.start()
        XCTAssertThrowsError(try queue.run(limit: 10)) { XCTAssertEqual($0 as? VirtualTimeError, .taskLimitReached(ran: 10)) }
        XCTAssertEqual(fired.count, 10)
        XCTAssertEqual(queue.virtualNow, 2.5)
        timer.invalidate()
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        XCTAssertEqual(try queue.run(), 0)
    }

    func testARepeatingTimerFiresEveryPeriodWithoutDrift() throws {
        let queue = Queue.virtualTime()
        var times: [Int64] = []
        let timer = SwiftSignalKit.Timer(timeout: 0.001, repeat: true, completion: {
            times.append(queue.virtualNowNanoseconds!)
        }, queue: queue)
        timer.start()
        try queue.advance(by: 1)
        XCTAssertEqual(times.count, 1000)
        XCTAssertEqual(times, (1...1000).map { Int64($0) * 1_000_000 })
        withExtendedLifetime(timer) {
        }
    }

    func testATimerRestartedBeforeItFiresFiresOnceFromTheRestart() throws {
        let queue = Queue.virtualTime()
        var times: [Double] = []
        let timer = SwiftSignalKit.Timer(timeout: 1, repeat: false, completion: {
            times.append(queue.virtualNow!)
        }, queue: queue)
        timer.start()
        try queue.advance(to: 0.5)
        timer.start()
        XCTAssertEqual(queue.pendingVirtualWork, 1)
        try queue.run()
        XCTAssertEqual(times, [1.5])
        withExtendedLifetime(timer) {
        }
    }

    func testDisposingScheduledWorkReleasesItAtOnce() throws {
        let queue = Queue.virtualTime()
        final class Payload {
        }
        weak var weakPayload: Payload?
        var fired = false
        var timer: SwiftSignalKit.Timer?
        do {
            let payload = Payload()
            weakPayload = payload
            timer = SwiftSignalKit.Timer(timeout: 1, repeat: false, completion: {
                withExtendedLifetime(payload) {
                    fired = true
                }
            }, queue: queue)
            timer?.start()
        }
        XCTAssertNotNil(weakPayload)
        XCTAssertEqual(queue.pendingVirtualWork, 1)
        timer?.invalidate()
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        timer = nil
        XCTAssertNil(weakPayload)
        try queue.run()
        XCTAssertFalse(fired)
    }

    func testReleasingATimerReleasesItsTask() throws {
        let queue = Queue.virtualTime()
        var fired = false
        var timer: SwiftSignalKit.Timer? = SwiftSignalKit.Timer(timeout: 1, repeat: true, completion: {
            fired = true
        }, queue: queue)
        timer?.start()
        XCTAssertEqual(queue.pendingVirtualWork, 1)
        timer = nil
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        try queue.advance(by: 5)
        XCTAssertFalse(fired)
    }

    func testDisposingADelayBeforeItFiresDropsItsWorkAndNeverStarts() throws {
        let queue = Queue.virtualTime()
        var started = false
        let signal = Signal<Int, NoError> { subscriber in
            started = true
            subscriber.putNext(1)
            return EmptyDisposable
        }
        let disposable = (signal |> delay(1, queue: queue)).start()
        XCTAssertEqual(queue.pendingVirtualWork, 1)
        disposable.dispose()
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        try queue.run()
        XCTAssertFalse(started)
    }

    func testSyncFromOutsideRunsTheWorkDueNowThenItsBlock() throws {
        let queue = Queue.virtualTime()
        let log = Log()
        queue.async(self.at(queue, log, "before"))
        queue.after(1, self.at(queue, log, "later"))
        var current = false
        queue.sync {
            current = queue.isCurrent()
            log.entries.append(("sync", queue.virtualNow!))
        }
        XCTAssertTrue(current)
        XCTAssertEqual(log.names, ["before", "sync"])
        XCTAssertEqual(queue.pendingVirtualWork, 1)
    }

    func testClosingDropsPendingAndLaterWork() throws {
        let queue = Queue.virtualTime()
        var ran = false
        queue.after(1) {
            ran = true
        }
        queue.closeHostDrained()
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        queue.async {
            ran = true
        }
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        try queue.run()
        XCTAssertFalse(ran)
    }

    /// `sync` on a closed virtual-time queue returns at once without
    /// running its block (before: it waited for ever for work the closed
    /// queue had dropped). Called on another thread, so that a hang fails
    /// the test.
    func testSyncOnAClosedQueueReturnsWithoutRunning() {
        let queue = Queue.virtualTime()
        queue.closeHostDrained()
        let ran = Counter()
        let returned = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            queue.sync {
                ran.increment()
            }
            returned.signal()
        }
        XCTAssertEqual(returned.wait(timeout: .now() + waitDeadline), .success, "sync on a closed queue never returned")
        XCTAssertEqual(ran.count, 0)
    }

    func testDurationsAreRoundedToWholeNanosecondsSoFramesAddUpExactly() throws {
        let queue = Queue.virtualTime()
        var times: [Int64] = []
        for frame in 1...30 {
            queue.after(Double(frame) * 0.01) {
                times.append(queue.virtualNowNanoseconds!)
            }
        }
        for _ in 1...30 {
            try queue.advance(by: 0.01)
        }
        XCTAssertEqual(times, (1...30).map { Int64($0) * 10_000_000 })
        XCTAssertEqual(queue.virtualNowNanoseconds, 300_000_000)
    }

    /// Random schedules, with work that schedules more work, against a model:
    /// a list of (deadline, sequence number) scanned for its minimum.
    func testRandomSchedulesMatchASortedListModel() throws {
        for seed in UInt64(1)...200 {
            try self.checkRandomSchedule(seed: seed)
        }
    }

    private func checkRandomSchedule(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        // Every task's children (delays in nanoseconds), decided up front so
        // that the queue and the model schedule the same ones.
        var children: [[Int64]] = []
        func makeTask() -> Int {
            let count = random.below(4) == 0 ? random.below(3) + 1 : 0
            children.append((0..<count).map { _ in Int64(random.below(4) * 1000) })
            return children.count - 1
        }
        // The plan: top-level tasks (id, delay) and advances, interleaved.
        enum Step {
            case schedule(Int, Int64)
            case advance(Int64)
        }
        var steps: [Step] = []
        for _ in 0..<(random.below(40) + 1) {
            if random.below(3) == 0 {
                steps.append(.advance(Int64(random.below(6) * 500)))
            } else {
                steps.append(.schedule(makeTask(), Int64(random.below(5) * 1000)))
            }
        }
        steps.append(.advance(100_000))
        // Children of children are made lazily, in the order tasks run; the
        // model and the queue must then agree on that order for the same
        // ids to be made. The model runs first and makes them.
        var modelLog: [(Int, Int64)] = []
        do {
            var now: Int64 = 0
            var sequence = 0
            var pending: [(deadline: Int64, sequence: Int, id: Int)] = []
            var grandchildren: [Int: [Int]] = [:]
            for step in steps {
                switch step {
                case let .schedule(id, delay):
                    pending.append((now + delay, sequence, id))
                    sequence += 1
                case let .advance(by):
                    let target = now + by
                    while let index = pending.indices.filter({ pending[$0].deadline <= target }).min(by: { (pending[$0].deadline, pending[$0].sequence) < (pending[$1].deadline, pending[$1].sequence) }) {
                        let task = pending.remove(at: index)
                        now = task.deadline
                        modelLog.append((task.id, now))
                        var made: [Int] = []
                        for delay in children[task.id] {
                            let child = makeTask()
                            made.append(child)
                            pending.append((now + delay, sequence, child))
                            sequence += 1
                        }
                        grandchildren[task.id] = made
                    }
                    now = target
                }
            }
            // The queue replays the model's children by id.
            let queue = Queue.virtualTime()
            var log: [(Int, Int64)] = []
            func body(_ id: Int) -> () -> Void {
                return {
                    log.append((id, queue.virtualNowNanoseconds!))
                    for (child, delay) in zip(grandchildren[id] ?? [], children[id]) {
                        queue.after(Double(delay) / 1e9, body(child))
                    }
                }
            }
            for step in steps {
                switch step {
                case let .schedule(id, delay):
                    queue.after(Double(delay) / 1e9, body(id))
                case let .advance(by):
                    try queue.advance(by: Double(by) / 1e9)
                }
            }
            XCTAssertEqual(log.map(\.0), modelLog.map(\.0), "seed \(seed)")
            XCTAssertEqual(log.map(\.1), modelLog.map(\.1), "seed \(seed)")
            XCTAssertEqual(queue.pendingVirtualWork, 0, "seed \(seed)")
        }
    }
}
