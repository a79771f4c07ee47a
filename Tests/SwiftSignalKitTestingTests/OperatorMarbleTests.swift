import XCTest
import SwiftSignalKit
import SwiftSignalKitTesting

/// Every time-based operator of the core as marble tests on a virtual-time
/// queue (the C suite, Tests/C/test_virtual_time.c, checks the same
/// diagrams through the C API). A frame is 1 ms of virtual time; nothing
/// waits on a real clock.
final class OperatorMarbleTests: XCTestCase {
    private func assertMarbles<V: Equatable>(_ recorder: TestRecorder<V, Boom>, _ expected: String, values: [Character: V], file: StaticString = #filePath, line: UInt = #line) {
        if let mismatch = recorder.mismatch(expected, values: values, error: Boom()) {
            XCTFail("\n" + mismatch, file: file, line: line)
        }
    }

    private func assertMarbles(_ recorder: TestRecorder<Character, Boom>, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        if let mismatch = recorder.mismatch(expected, error: Boom()) {
            XCTFail("\n" + mismatch, file: file, line: line)
        }
    }

    // MARK: sources that cannot fail

    /// A `NoError` source whose letters stand for values of its own type
    /// (Telegram's usual `Signal<T, NoError>`): before, only a `Character`
    /// source could be made without an error value.
    func testASourceThatCannotFailTakesAValueMap() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("-x-y|", values: ["x": 1, "y": 2])
        let recorder = scheduler.record(source.signal |> map { $0 * 10 })
        try scheduler.run()
        XCTAssertNil(recorder.mismatch("-a-b|", values: ["a": 10, "b": 20]))
        XCTAssertThrowsError(try scheduler.cold("-x#", values: ["x": 1]))
        XCTAssertThrowsError(try scheduler.cold("^-x|", values: ["x": 1]))
        let hotScheduler = TestScheduler()
        let hot = try hotScheduler.hot("x^-y|", values: ["x": 1, "y": 2])
        let hotRecorder = hotScheduler.record(hot.signal)
        try hotScheduler.run()
        XCTAssertNil(hotRecorder.mismatch("-b|", values: ["b": 2]))
    }

    // MARK: debounce

    /// The issue's example: a value waits until the upstream has been quiet
    /// for 3 frames (b at 3 comes out at 6); the completion emits the
    /// pending value at once (c at 11 comes out with the completion at 12).
    func testDebounce() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("-a-b-------c|", error: Boom())
        let recorder = scheduler.record(source.signal |> debounce(scheduler.seconds(3), queue: scheduler.queue))
        try scheduler.run()
        self.assertMarbles(recorder, "------b-----(c|)")
        XCTAssertEqual(source.subscriptions, [SubscriptionLog(subscribed: 0, disposed: 12)])
    }

    func testDebounceEmitsEachValueAfterAQuietSpell() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("a----b-c-d-----e---|", error: Boom())
        let recorder = scheduler.record(source.signal |> debounce(scheduler.seconds(3), queue: scheduler.queue))
        try scheduler.run()
        self.assertMarbles(recorder, "---a--------d-----e|")
    }

    func testDebounceDropsThePendingValueOnError() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("a-b#", error: Boom())
        let recorder = scheduler.record(source.signal |> debounce(scheduler.seconds(3), queue: scheduler.queue))
        try scheduler.run()
        self.assertMarbles(recorder, "---#")
    }

    func testDisposingADebounceDropsThePendingValueAndItsTimer() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("-a--------|", error: Boom())
        let recorder = scheduler.record(source.signal |> debounce(scheduler.seconds(3), queue: scheduler.queue), disposeAt: 2)
        try scheduler.advance(toFrame: 2)
        XCTAssertEqual(source.subscriptions, [SubscriptionLog(subscribed: 0, disposed: 2)])
        try scheduler.run()
        self.assertMarbles(recorder, "")
    }

    // MARK: throttle

    /// A value opens a 3-frame window; its end emits the latest value of
    /// the window.
    func testThrottle() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("-a-b-c---d|", error: Boom())
        let recorder = scheduler.record(source.signal |> throttle(scheduler.seconds(3), queue: scheduler.queue))
        try scheduler.run()
        self.assertMarbles(recorder, "----b---c-(d|)")
    }

    // MARK: delay

    /// `delay` delays the subscription, not the values.
    func testDelayDelaysTheSubscription() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("a-b|", error: Boom())
        let recorder = scheduler.record(source.signal |> delay(scheduler.seconds(2), queue: scheduler.queue))
        try scheduler.run()
        self.assertMarbles(recorder, "--a-b|")
        XCTAssertEqual(source.subscriptions, [SubscriptionLog(subscribed: 2, disposed: 5)])
    }

    func testDisposingADelayBeforeItFiresNeverSubscribes() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("a|", error: Boom())
        let recorder = scheduler.record(source.signal |> delay(scheduler.seconds(5), queue: scheduler.queue), disposeAt: 4)
        try scheduler.run()
        self.assertMarbles(recorder, "")
        XCTAssertEqual(source.subscriptions, [])
    }

    /// `suspendAwareDelay` ticks every `granularity` and starts the upstream
    /// at the first tick whose elapsed (virtual) time reaches the delay.
    func testSuspendAwareDelayStartsAtTheFirstTickPastTheDelay() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("a|", error: Boom())
        let recorder = scheduler.record(source.signal |> suspendAwareDelay(scheduler.seconds(5), granularity: scheduler.seconds(2), queue: scheduler.queue))
        try scheduler.run()
        self.assertMarbles(recorder, "------a|")
        XCTAssertEqual(source.subscriptions, [SubscriptionLog(subscribed: 6, disposed: 7)])
    }

    // MARK: timeout

    func testTimeoutPassesAnUpstreamThatAnswersInTime() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("--a-b|", error: Boom())
        let alternate = try scheduler.cold("x|", error: Boom())
        let recorder = scheduler.record(source.signal |> timeout(scheduler.seconds(3), queue: scheduler.queue, alternate: alternate.signal))
        try scheduler.run()
        self.assertMarbles(recorder, "--a-b|")
        XCTAssertEqual(alternate.subscriptions, [])
    }

    func testTimeoutSwitchesToTheAlternateWhenTheUpstreamIsSilent() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("-----a|", error: Boom())
        let alternate = try scheduler.cold("x-y|", error: Boom())
        let recorder = scheduler.record(source.signal |> timeout(scheduler.seconds(3), queue: scheduler.queue, alternate: alternate.signal))
        try scheduler.run()
        self.assertMarbles(recorder, "---x-y|")
        XCTAssertEqual(source.subscriptions, [SubscriptionLog(subscribed: 0, disposed: 3)])
        XCTAssertEqual(alternate.subscriptions, [SubscriptionLog(subscribed: 3, disposed: 6)])
    }

    /// The upstream is started before the timer is armed (as in the
    /// original), so on the virtual clock, where work at the same frame runs
    /// in the order it was scheduled, an upstream event at the timeout's
    /// frame comes first and wins.
    func testTimeoutAnUpstreamEventAtTheTimeoutsFrameWins() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("----a|", error: Boom())
        let alternate = try scheduler.cold("x|", error: Boom())
        let recorder = scheduler.record(source.signal |> timeout(scheduler.seconds(4), queue: scheduler.queue, alternate: alternate.signal))
        try scheduler.run()
        self.assertMarbles(recorder, "----a|")
        XCTAssertEqual(alternate.subscriptions, [])
    }

    /// The same at frame 0: the upstream's first event, due at the start,
    /// was scheduled before the timer of 0 seconds, and wins.
    func testTimeoutAnUpstreamEventAtFrameZeroBeatsATimeoutOfZero() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("(a|)", error: Boom())
        let alternate = try scheduler.cold("x|", error: Boom())
        let recorder = scheduler.record(source.signal |> timeout(0, queue: scheduler.queue, alternate: alternate.signal))
        try scheduler.run()
        self.assertMarbles(recorder, "(a|)")
        XCTAssertEqual(alternate.subscriptions, [])
    }

    /// An upstream that decides the race while it starts (synchronously)
    /// wins, and no timer is armed at all: nothing is left on the clock.
    func testTimeoutAnUpstreamAnsweringWhileItStartsArmsNoTimer() throws {
        let scheduler = TestScheduler()
        let source = Signal<Character, Boom> { subscriber in
            subscriber.putNext("a")
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let alternate = try scheduler.cold("x|", error: Boom())
        let recorder = scheduler.record(source |> timeout(0, queue: scheduler.queue, alternate: alternate.signal))
        XCTAssertEqual(scheduler.queue.pendingVirtualWork, 0)
        try scheduler.run()
        self.assertMarbles(recorder, "(a|)")
        XCTAssertEqual(alternate.subscriptions, [])
    }

    // MARK: retry with a delay

    /// The n-th retry waits n * 2 frames (up to 10): subscriptions at 0, 4
    /// (2 after the error at 2), 10 (4 after 6), until disposed at 14.
    func testRetryWithAGrowingDelay() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("-a#", error: Boom())
        let retried: Signal<Character, NoError> = source.signal |> retry(scheduler.seconds(2), maxDelay: scheduler.seconds(10), onQueue: scheduler.queue)
        let recorder = scheduler.record(retried, disposeAt: 14)
        try scheduler.run()
        XCTAssertNil(recorder.mismatch("-a---a-----a"))
        XCTAssertEqual(source.subscriptions, [
            SubscriptionLog(subscribed: 0, disposed: 2),
            SubscriptionLog(subscribed: 4, disposed: 6),
            SubscriptionLog(subscribed: 10, disposed: 12),
        ])
    }

    /// At most `maxRetries` subscriptions in all (as in the original), each
    /// retry waiting min(maxDelay, n * 2 frames); then the error passes.
    func testRetryGivesUpAfterMaxRetries() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("-a#", error: Boom())
        let recorder = scheduler.record(source.signal |> retry(retryOnError: { _ in true }, delayIncrement: scheduler.seconds(2), maxDelay: scheduler.seconds(3), maxRetries: 3, onQueue: scheduler.queue))
        try scheduler.run()
        self.assertMarbles(recorder, "-a---a----a#")
        XCTAssertEqual(source.subscriptions.map(\.subscribed), [0, 4, 9])
    }

    // MARK: timers

    /// A repeating `Timer` of 2 frames driving a signal: an interval.
    func testARepeatingTimerAsAnInterval() throws {
        let scheduler = TestScheduler()
        let interval = Signal<Int, Boom> { subscriber in
            var count = 0
            let timer = SwiftSignalKit.Timer(timeout: scheduler.seconds(2), repeat: true, completion: {
                subscriber.putNext(count)
                count += 1
            }, queue: scheduler.queue)
            timer.start()
            return ActionDisposable {
                timer.invalidate()
            }
        }
        let recorder = scheduler.record(interval |> take(3))
        try scheduler.run()
        self.assertMarbles(recorder, "--0-1-(2|)", values: ["0": 0, "1": 1, "2": 2])
        XCTAssertEqual(scheduler.queue.pendingVirtualWork, 0)
    }

    func testQueueAfter() throws {
        let scheduler = TestScheduler()
        let after = Signal<Character, Boom> { subscriber in
            scheduler.queue.after(scheduler.seconds(4)) {
                subscriber.putNext("a")
                subscriber.putCompletion()
            }
            return EmptyDisposable
        }
        let recorder = scheduler.record(after, subscribeAt: 1)
        try scheduler.run()
        self.assertMarbles(recorder, "-----(a|)")
    }

    // MARK: deliverOn, runOn

    /// Values put from outside the queue are delivered when the clock next
    /// moves, at the frame they were put in.
    func testDeliverOnTheVirtualQueue() throws {
        let scheduler = TestScheduler()
        let pipe = ValuePipe<Character>()
        let recorder = scheduler.record(pipe.signal() |> deliverOn(scheduler.queue))
        pipe.putNext("a")
        XCTAssertTrue(recorder.events.isEmpty)
        try scheduler.advance(frames: 2)
        pipe.putNext("b")
        pipe.putNext("c")
        try scheduler.advance(frames: 1)
        XCTAssertNil(recorder.mismatch("a-(bc)"))
    }

    /// A subscription made from outside the queue starts the upstream at
    /// the next advance; one made from the queue starts it inline.
    func testRunOnTheVirtualQueue() throws {
        let scheduler = TestScheduler()
        let source = try scheduler.cold("a|", error: Boom())
        let outside = scheduler.record(source.signal |> runOn(scheduler.queue))
        XCTAssertEqual(source.subscriptions, [])
        let inside = scheduler.record(source.signal |> runOn(scheduler.queue), subscribeAt: 3)
        try scheduler.run()
        self.assertMarbles(outside, "a|")
        self.assertMarbles(inside, "---a|")
        XCTAssertEqual(source.subscriptions.map(\.subscribed), [0, 3])
    }

    // MARK: the README's search-as-you-type pipeline

    /// Keystrokes → lowercased → distinct → debounce(3) → a search taking 5
    /// frames per query (mapToSignal cancels the one in flight) → deliverOn.
    /// "s", "si", "Si", "sig" in a burst: only "sig" is searched (at 7, its
    /// results at 12). Then "s" (searched at 14) and "sw" a frame after its
    /// debounce: the search for "s" is cancelled at 18, when "sw" starts.
    func testSearchAsYouType() throws {
        let scheduler = TestScheduler()
        let queries: [Character: String] = ["s": "s", "i": "si", "I": "Si", "g": "sig", "w": "sw"]
        let keystrokes = try scheduler.hot("-siIg------s---w---------|", values: queries, error: Boom())
        var searches: [String: TestSignal<String, Boom>] = [:]
        for query in ["s", "sig", "sw"] {
            searches[query] = try scheduler.cold("-----(r|)", values: ["r": query.uppercased()], error: Boom())
        }
        let results = keystrokes.signal
            |> map { $0.lowercased() }
            |> distinctUntilChanged
            |> debounce(scheduler.seconds(3), queue: scheduler.queue)
            |> mapToSignal { query in searches[query]!.signal }
            |> deliverOn(scheduler.queue)
        let recorder = scheduler.record(results)
        try scheduler.run()
        self.assertMarbles(recorder, "------------G----------W-|", values: ["G": "SIG", "W": "SW"])
        XCTAssertEqual(searches["sig"]?.subscriptions, [SubscriptionLog(subscribed: 7, disposed: 12)])
        XCTAssertEqual(searches["s"]?.subscriptions, [SubscriptionLog(subscribed: 14, disposed: 18)])
        XCTAssertEqual(searches["sw"]?.subscriptions, [SubscriptionLog(subscribed: 18, disposed: 23)])
    }
}
