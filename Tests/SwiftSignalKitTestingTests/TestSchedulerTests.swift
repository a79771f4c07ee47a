import XCTest
import SwiftSignalKit
import SwiftSignalKitTesting
import SwiftSignalKitTestSupport

struct Boom: Error, Equatable, CustomStringConvertible {
    var description: String {
        return "Boom"
    }
}

/// The stage of a marble test: test sources, their subscription logs, the
/// recorder and its mismatch message.
final class TestSchedulerTests: XCTestCase {
    func testAColdSignalPlaysItsTimelineFromEachSubscription() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("-a-(bc)|", error: Boom())
        let first = scheduler.record(source.signal)
        let second = scheduler.record(source.signal, subscribeAt: 3)
        try scheduler.run()
        XCTAssertNil(first.mismatch("-a-(bc)|", error: Boom()))
        XCTAssertNil(second.mismatch("----a-(bc)|", error: Boom()))
        XCTAssertEqual(source.subscriptions, [SubscriptionLog(subscribed: 0, disposed: 4), SubscriptionLog(subscribed: 3, disposed: 7)])
    }

    func testAHotSignalPlaysOnceFromItsSubscriptionPointToWhoeverListens() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.hot("-x^-a-b-c|", error: Boom())
        let early = scheduler.record(source.signal)
        let late = scheduler.record(source.signal, subscribeAt: 3)
        let afterEnd = scheduler.record(source.signal, subscribeAt: 8)
        try scheduler.run()
        // x, before the subscription point, is seen by no one.
        XCTAssertNil(early.mismatch("-a-b-c|", error: Boom()))
        // b at 3 was scheduled when the source was made, before the late
        // subscription: ties run in submission order, so it misses b.
        XCTAssertNil(late.mismatch("-----c|", error: Boom()))
        XCTAssertNil(afterEnd.mismatch("", error: Boom()))
        XCTAssertEqual(source.subscriptions.map(\.subscribed), [0, 3, 8])
        XCTAssertEqual(source.subscriptions.map(\.disposed), [6, 6, nil])
    }

    func testDisposingARecordingStopsItsEventsAndLogsTheFrame() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("a-b-c-d|", error: Boom())
        let recorder = scheduler.record(source.signal, disposeAt: 3)
        try scheduler.run()
        XCTAssertNil(recorder.mismatch("a-b", error: Boom()))
        XCTAssertEqual(source.subscriptions, [SubscriptionLog(subscribed: 0, disposed: 3)])
        XCTAssertEqual(source.subscriptions.description, "[^0 !3]")
    }

    func testErrorsAndValueTables() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("-1-2#", values: ["1": 10, "2": 20], error: Boom())
        let recorder = scheduler.record(source.signal |> map { $0 + 1 })
        try scheduler.run()
        XCTAssertNil(recorder.mismatch("-x-y#", values: ["x": 11, "y": 21], error: Boom()))
        XCTAssertEqual(recorder.events.map(\.nanoseconds), [1_000_000, 3_000_000, 4_000_000])
    }

    func testAMismatchShowsBothDiagramsOneAboveTheOther() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("-a-b|", error: Boom())
        let recorder = scheduler.record(source.signal)
        try scheduler.run()
        XCTAssertEqual(recorder.mismatch("-a--b|", error: Boom()), "expected: -a--b|\nactual:   -a-b|")
        XCTAssertEqual(recorder.mismatch("-a-(", error: Boom())?.hasPrefix("the expected diagram does not parse"), true)
    }

    func testSignalsThatCannotFailCompareWithDiagrams() throws {
        let scheduler = TestScheduler()
        let pipe = ValuePipe<Character>()
        let recorder = scheduler.record(pipe.signal())
        scheduler.schedule(at: 2) {
            pipe.putNext("a")
        }
        try scheduler.run()
        XCTAssertNil(recorder.mismatch("--a"))
        XCTAssertEqual(recorder.mismatch("--b"), "expected: --b\nactual:   --a")
        XCTAssertNotNil(recorder.mismatch("--#"))
    }

    func testFramesAreWholeNanosecondsAndTheClockCountsThem() throws {
        let scheduler = TestScheduler(frame: 0.01)
        XCTAssertEqual(scheduler.frameNanoseconds, 10_000_000)
        XCTAssertEqual(scheduler.seconds(3), 0.03)
        try scheduler.advance(frames: 7)
        XCTAssertEqual(scheduler.now, 7)
        try scheduler.advance(toFrame: 9)
        XCTAssertEqual(scheduler.now, 9)
        XCTAssertEqual(scheduler.queue.virtualNowNanoseconds, 90_000_000)
        XCTAssertThrowsError(try scheduler.advance(frames: -1))
        XCTAssertThrowsError(try scheduler.advance(toFrame: 2)) { XCTAssertEqual($0 as? VirtualTimeError, .timeInPast(now: 0.09, requested: 0.02)) }
    }

    // advance(frames:) read the clock, then advanced to that time plus the
    // frames: another thread's advance in between made that a time in the
    // past, and a valid advance failed with `timeInPast`.
    func testAdvancingFramesFromTwoThreadsEndsOrIsBusy() {
        let scheduler = TestScheduler(frame: 1e-9)
        final class Outcome: @unchecked Sendable {
            var unexpected: [VirtualTimeError] = []
        }
        let outcomes = [Outcome(), Outcome()]
        let threads = outcomes.map { outcome in
            spawnThread {
                for _ in 0 ..< 100_000 {
                    do throws(VirtualTimeError) {
                        try scheduler.advance(frames: 1)
                    } catch .alreadyAdvancing {
                    } catch {
                        outcome.unexpected.append(error)
                    }
                }
            }
        }
        for thread in threads {
            pthread_join(thread, nil)
        }
        for outcome in outcomes {
            XCTAssertEqual(outcome.unexpected.count, 0, "first: \(String(describing: outcome.unexpected.first))")
        }
    }

    func testSourcesThatCannotFailRejectAnErrorInTheirDiagram() throws {
        let scheduler = TestScheduler()
        XCTAssertThrowsError(try scheduler.cold("-a-#")) { error in
            XCTAssertEqual((error as? MarbleSyntaxError)?.position, 3)
        }
        XCTAssertThrowsError(try scheduler.hot("^-#"))
        let source = try scheduler.hot("a^-b|")
        let recorder = scheduler.record(source.signal)
        try scheduler.run()
        XCTAssertNil(recorder.mismatch("-b|"))
    }

    /// Frames past the clock's end are `invalidTime` with a message that
    /// names the end (it said the duration was not finite or negative).
    func testFramesPastTheClocksEndNameTheEndInTheError() throws {
        let scheduler = TestScheduler(frame: 1e9)
        XCTAssertThrowsError(try scheduler.advance(frames: Int.max)) {
            XCTAssertTrue("\($0)".contains("past its end (2^63 ns"), "\($0)")
        }
        XCTAssertThrowsError(try scheduler.advance(toFrame: 10)) {
            XCTAssertEqual($0 as? VirtualTimeError, .invalidTime(1e10))
            XCTAssertTrue("\($0)".contains("past its end (2^63 ns"), "\($0)")
        }
        try scheduler.advance(frames: 9)
        XCTAssertThrowsError(try scheduler.advance(frames: 1)) {
            XCTAssertEqual($0 as? VirtualTimeError, .invalidTime(1e9))
            XCTAssertTrue("\($0)".contains("past its end (2^63 ns"), "\($0)")
        }
        XCTAssertThrowsError(try scheduler.advance(frames: -1)) {
            XCTAssertTrue("\($0)".contains("is not a valid duration or time"), "\($0)")
        }
    }

    // Frames past the clock's end (2^63 ns) trapped on Int64 overflow.
    func testFramesPastTheClocksEndNeverComeAndDoNotTrap() throws {
        let scheduler = TestScheduler(frame: 1e9)
        XCTAssertEqual(scheduler.seconds(Int.max), Double(Int.max) * 1e9)
        XCTAssertThrowsError(try scheduler.advance(frames: Int.max)) { XCTAssertEqual($0 as? VirtualTimeError, .invalidTime(Double(Int.max) * 1e9)) }
        try scheduler.advance(frames: 9)
        XCTAssertThrowsError(try scheduler.advance(frames: 1))
        XCTAssertEqual(scheduler.now, 9)
        var ran = false
        scheduler.schedule(at: Int.max) {
            ran = true
        }
        let source = try scheduler.cold("----------a|")
        let recorder = scheduler.record(source.signal)
        let hot = try scheduler.hot("^----------a|")
        let hotRecorder = scheduler.record(hot.signal)
        try scheduler.run()
        XCTAssertFalse(ran)
        XCTAssertTrue(recorder.events.isEmpty)
        XCTAssertTrue(hotRecorder.events.isEmpty)
        XCTAssertEqual(scheduler.queue.pendingVirtualWork, 0)
    }

    // Frames were turned into seconds (a Double) and back: past 2^52 ns
    // (about 52 days) from the clock, a Double has no whole nanosecond
    // for every frame, so an event of a cold diagram fell a few nanoseconds
    // before its frame (the recorder put it one frame early), and
    // advance(toFrame:) stopped short of the frame's start.
    func testFramesFarFromTheClockStartAtTheirExactNanosecond() throws {
        let scheduler = TestScheduler(frame: 99_999.999_999_997)
        XCTAssertEqual(scheduler.frameNanoseconds, 99_999_999_999_997)
        let source = try scheduler.cold(String(repeating: "-", count: 100) + "a|")
        let recorder = scheduler.record(source.signal)
        try scheduler.run()
        XCTAssertEqual(recorder.events.map(\.nanoseconds), [100 * 99_999_999_999_997, 101 * 99_999_999_999_997])
        XCTAssertNil(recorder.mismatch(String(repeating: "-", count: 100) + "a|"))
        var ranAt: Int64?
        scheduler.schedule(at: 250) {
            ranAt = scheduler.queue.virtualNowNanoseconds
        }
        try scheduler.advance(toFrame: 250)
        XCTAssertEqual(scheduler.queue.virtualNowNanoseconds, 250 * 99_999_999_999_997)
        XCTAssertEqual(ranAt, 250 * 99_999_999_999_997)
        XCTAssertEqual(scheduler.now, 250)
    }

    // A cold diagram's `^` was taken as the parser takes it, a hot
    // source's subscription point: the events before it played at frame 0
    // of each subscription (`--a-^-b|` gave `a` at 0). The C and Python
    // test signals refuse it; so does the Swift one now, with its position.
    func testAColdDiagramRefusesASubscriptionPoint() {
        let scheduler = TestScheduler()
        XCTAssertThrowsError(try scheduler.cold("--a-^-b|")) { error in
            XCTAssertEqual((error as? MarbleSyntaxError)?.position, 4)
            XCTAssertEqual((error as? MarbleSyntaxError)?.message, "the subscription point `^` in a cold diagram (it is for hot signals)")
        }
        XCTAssertThrowsError(try scheduler.cold("-a ^", error: Boom())) { error in
            XCTAssertEqual((error as? MarbleSyntaxError)?.position, 3)
        }
        XCTAssertThrowsError(try scheduler.cold("^a", values: ["a": 1], error: Boom())) { error in
            XCTAssertEqual((error as? MarbleSyntaxError)?.position, 0)
        }
        XCTAssertNoThrow(try scheduler.cold(Marbles.parse("--a-^-b|", error: Boom())))
    }

    // Disposing a cold subscription stopped its events but left their tasks
    // on the queue (each holding the subscriber) until their frames: a
    // test that checks that its operator leaves no work behind after a
    // disposal (pendingVirtualWork == 0) failed on the test signal's tasks.
    func testDisposingAColdSubscriptionDropsItsPendingEvents() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("-a-b-c|")
        let recorder = scheduler.record(source.signal |> map { $0 }, disposeAt: 2)
        try scheduler.advance(frames: 2)
        XCTAssertNil(recorder.mismatch("-a"))
        XCTAssertEqual(source.subscriptions, [SubscriptionLog(subscribed: 0, disposed: 2)])
        XCTAssertEqual(scheduler.queue.pendingVirtualWork, 0)
        XCTAssertEqual(try scheduler.run(), 0)
    }

    // A test that ended with work pending leaked its whole stage: the
    // pending tasks held the subscribers, which held the recorder and the
    // test signal, which held the scheduler, which held the queue and so
    // the tasks. The recorder and the test signals hold the queue and the
    // frame now, not the scheduler, and a scheduler that made its queue
    // closes it when it goes, dropping the pending work.
    func testASchedulerLeftWithWorkPendingFreesEverything() throws {
        weak var weakQueue: Queue?
        weak var weakRecorder: TestRecorder<Character, NoError>?
        weak var weakSource: TestSignal<Character, NoError>?
        do {
            let scheduler = TestScheduler()
            let source = try scheduler.cold("-a-b-c|")
            let hot = try scheduler.hot("^--x--y|")
            let recorder = scheduler.record(merge([source.signal, hot.signal]) |> delay(scheduler.seconds(1), queue: scheduler.queue))
            try scheduler.advance(frames: 3)
            XCTAssertNil(recorder.mismatch("--(xa)"))
            XCTAssertNotEqual(scheduler.queue.pendingVirtualWork, 0)
            weakQueue = scheduler.queue
            weakRecorder = recorder
            weakSource = source
        }
        XCTAssertNil(weakRecorder)
        XCTAssertNil(weakSource)
        XCTAssertNil(weakQueue)
    }

    // A scheduler on a queue it did not make leaves the queue open.
    func testASchedulerOnAGivenQueueLeavesItOpen() throws {
        let queue = Queue.virtualTime()
        do {
            let scheduler = try TestScheduler(queue: queue)
            scheduler.schedule(at: 1) {}
        }
        XCTAssertEqual(queue.pendingVirtualWork, 1)
        XCTAssertEqual(try queue.run(), 1)
    }

    // The subscribers' disposables hold a test signal weakly now: a hot one
    // that only its recording refers to is kept by its pending events.
    func testAHotSignalThatOnlyItsRecordingHoldsStillPlays() throws {
        let scheduler = TestScheduler()
        let recorder = scheduler.record(try scheduler.hot("^-a--b|").signal)
        try scheduler.run()
        XCTAssertNil(recorder.mismatch("-a--b|"))
    }

    // An expected diagram with a `^` never matched (a recording has no
    // subscription point) and the message showed the two diagrams, alike
    // but for the `^`, without saying why.
    func testAnExpectedDiagramWithASubscriptionPointSaysWhyItCannotMatch() throws {
        let scheduler = TestScheduler()
        let recorder = scheduler.record(try scheduler.cold("-a|").signal)
        try scheduler.run()
        XCTAssertNil(recorder.mismatch("-a|"))
        for message in [recorder.mismatch("^-a|"), recorder.mismatch("^-a|", values: ["a": "a"])] {
            XCTAssertEqual(message, "the expected diagram has a subscription point `^` at 0, which a recording never has: write it from the clock's frame 0, without `^`")
        }
    }
}
