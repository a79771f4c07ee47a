import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// The two rate limiters: what they share is checked once, for both.
private enum Limiter {
    case debounce
    case throttle

    func callAsFunction<T, E>(_ delay: Double, queue: Queue) -> (Signal<T, E>) -> Signal<T, E> {
        switch self {
        case .debounce:
            return SwiftSignalKit.debounce(delay, queue: queue)
        case .throttle:
            return SwiftSignalKit.throttle(delay, queue: queue)
        }
    }
}

/// A pipe limited by `limiter` on a virtual-time queue, and a recorder of the
/// limited signal that expects every event on that queue (with its virtual
/// time: `recordedAt`).
private func startLimited<E>(_ limiter: Limiter, _ delay: Double, errors: E.Type) -> (queue: Queue, pipe: TestPipe<Int, E>, recorder: Recorder<Int, E>, disposable: any Disposable) {
    let queue = Queue.virtualTime()
    let pipe = TestPipe<Int, E>()
    let recorder = Recorder<Int, E>(queue: queue)
    let disposable = recorder.start(pipe.signal() |> limiter(delay, queue: queue))
    return (queue, pipe, recorder, disposable)
}

/// Puts `values` into `pipe`, from the test thread, while the virtual clock
/// stands still.
private func burst<E>(_ values: ClosedRange<Int>, into pipe: TestPipe<Int, E>) {
    for i in values {
        pipe.putNext(i)
    }
}

/// Orderings and deadlines on a virtual-time queue (times in the logs are
/// virtual milliseconds); the real clock is used only where the behaviour
/// under test is a race with a real timer.
final class Signal_ThrottleTests: XCTestCase {
    // MARK: shared by debounce and throttle

    /// The upstream completes with two values pending: the later one is
    /// emitted at once (at the completion's time, not the countdown's), then
    /// the completion.
    private func checkCompletionFlushesPendingValueThenCompletes(_ limiter: Limiter, values: (Int, Int), file: StaticString = #filePath, line: UInt = #line) throws {
        let (queue, pipe, recorder, disposable) = startLimited(limiter, 10.0, errors: NoError.self)
        try queue.advance(by: 0.005)
        pipe.putNext(values.0)
        pipe.putNext(values.1)
        pipe.putCompletion()
        try queue.advance(by: 0)
        XCTAssertEqual(recorder.recordedAt, ["\(values.1)@5", "completed@5"], file: file, line: line)
        XCTAssertEqual(recorder.offQueue.count, 0, file: file, line: line)
        XCTAssertEqual(pipe.subscriberCount, 0, file: file, line: line)
        XCTAssertEqual(queue.pendingVirtualWork, 0, "the countdown was dropped", file: file, line: line)
        disposable.dispose()
    }

    /// An error drops the pending value, passes through, and ends the
    /// subscription: a later value goes nowhere, and no countdown is left.
    private func checkErrorDropsPendingValue(_ limiter: Limiter, error: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let (queue, pipe, recorder, disposable) = startLimited(limiter, 0.05, errors: Int.self)
        pipe.putNext(1)
        pipe.putError(error)
        pipe.putNext(2)
        XCTAssertEqual(queue.pendingVirtualWork, 1, "the error waits for the queue", file: file, line: line)
        try queue.run()
        XCTAssertEqual(recorder.recordedAt, ["error \(error)@0"], file: file, line: line)
        XCTAssertEqual(recorder.offQueue.count, 0, file: file, line: line)
        disposable.dispose()
    }

    /// A value replaced by a newer one is released at once; disposing drops
    /// the pending one and the countdown holding it (its task leaves the
    /// queue), and disposes the upstream.
    private func checkDisposeDropsPendingValueAndDisposesUpstream(_ limiter: Limiter, file: StaticString = #filePath, line: UInt = #line) throws {
        let queue = Queue.virtualTime()
        let pipe = TestPipe<DeinitTracker, NoError>()
        let delivered = Counter()
        let released = Counter()
        let disposable = (pipe.signal() |> limiter(0.05, queue: queue)).start(next: { _ in
            delivered.increment()
        })
        pipe.putNext(DeinitTracker(released))
        XCTAssertEqual(released.count, 0, file: file, line: line)
        pipe.putNext(DeinitTracker(released))
        XCTAssertEqual(released.count, 1, file: file, line: line)
        XCTAssertEqual(queue.pendingVirtualWork, 1, file: file, line: line)
        disposable.dispose()
        XCTAssertEqual(released.count, 2, file: file, line: line)
        XCTAssertEqual(pipe.subscriberCount, 0, file: file, line: line)
        XCTAssertEqual(queue.pendingVirtualWork, 0, file: file, line: line)
        try queue.run()
        XCTAssertEqual(delivered.count, 0, file: file, line: line)
    }

    /// Disposing with a countdown running leaves nothing behind: the
    /// subscription's timer (which holds the queue) and its state (which the
    /// timer's completion holds) are released, so the queue goes once the
    /// test lets go of it. A cycle between the state and its timer kept the
    /// queue alive.
    private func checkDisposeReleasesTheTimerAndItsQueue(_ limiter: Limiter, file: StaticString = #filePath, line: UInt = #line) throws {
        let pipe = TestPipe<Int, NoError>()
        weak var released: Queue?
        try {
            let queue = Queue.virtualTime()
            released = queue
            let disposable = (pipe.signal() |> limiter(0.05, queue: queue)).start()
            pipe.putNext(1)
            try queue.advance(by: 0.01)
            pipe.putNext(2)
            XCTAssertEqual(queue.pendingVirtualWork, 1, "one countdown", file: file, line: line)
            disposable.dispose()
            XCTAssertEqual(queue.pendingVirtualWork, 0, file: file, line: line)
        }()
        XCTAssertNil(released, "the queue was released with the timer", file: file, line: line)
        XCTAssertEqual(pipe.subscriberCount, 0, file: file, line: line)
    }

    /// A subscription abandoned once its countdown has emitted (its pipe and
    /// its disposable released, never disposed, never terminated) is freed
    /// with them: an idle subscription holds no timer. One that kept its
    /// timer for life kept itself, its subscriber and, through the timer,
    /// its queue (the C abandonment soak's leak).
    private func checkAbandonedIdleSubscriptionIsReleased(_ limiter: Limiter, file: StaticString = #filePath, line: UInt = #line) throws {
        weak var released: Queue?
        let delivered = Counter()
        try {
            let queue = Queue.virtualTime()
            released = queue
            let pipe = ValuePipe<Int>()
            let disposable = (pipe.signal() |> limiter(0.05, queue: queue)).start(next: { _ in
                delivered.increment()
            })
            pipe.putNext(1)
            try queue.run()
            withExtendedLifetime(disposable) {
            }
        }()
        XCTAssertEqual(delivered.count, 1, file: file, line: line)
        XCTAssertNil(released, "the abandoned subscription was released with its queue", file: file, line: line)
    }

    func testDebounceAbandonedIdleSubscriptionIsReleased() throws {
        try self.checkAbandonedIdleSubscriptionIsReleased(.debounce)
    }

    func testThrottleAbandonedIdleSubscriptionIsReleased() throws {
        try self.checkAbandonedIdleSubscriptionIsReleased(.throttle)
    }

    func testDebounceDisposeReleasesTheTimerAndItsQueue() throws {
        try self.checkDisposeReleasesTheTimerAndItsQueue(.debounce)
    }

    func testThrottleDisposeReleasesTheTimerAndItsQueue() throws {
        try self.checkDisposeReleasesTheTimerAndItsQueue(.throttle)
    }

    // MARK: debounce

    /// Values during a countdown move its deadline without a timer of
    /// their own: the countdown's firing before the deadline arms it again
    /// for the time left, and the last value comes out `delay` after it,
    /// to the nanosecond.
    func testDebounceFiringBeforeTheDeadlineWaitsForTheTimeLeft() throws {
        let (queue, pipe, recorder, disposable) = startLimited(.debounce, 0.02, errors: NoError.self)
        pipe.putNext(1)
        try queue.advance(by: 0.015)
        pipe.putNext(2)
        XCTAssertEqual(queue.pendingVirtualWork, 1)
        // The first countdown ends at 20 ms: 2 is due at 35 ms.
        try queue.advance(by: 0.0199)
        XCTAssertEqual(recorder.recorded, [])
        XCTAssertEqual(queue.pendingVirtualWork, 1, "armed again, for the time left")
        try queue.advance(by: 0.0001)
        XCTAssertEqual(recorder.recordedAt, ["2@35"])
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        disposable.dispose()
    }

    func testDebounceEmitsOnlyTheLatestOfABurstAfterItsDelay() throws {
        let (queue, pipe, recorder, disposable) = startLimited(.debounce, 0.05, errors: NoError.self)
        burst(1 ... 100, into: pipe)
        try queue.advance(by: 0.049)
        XCTAssertEqual(recorder.recorded, [])
        try queue.advance(by: 0.001)
        XCTAssertEqual(recorder.recordedAt, ["100@50"])
        try queue.advance(by: 1)
        pipe.putCompletion()
        try queue.advance(by: 0)
        // Nothing was pending at completion: no second value.
        XCTAssertEqual(recorder.recordedAt, ["100@50", "completed@1050"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testDebounceEmitsEachValueAfterAQuietPeriod() throws {
        let (queue, pipe, recorder, disposable) = startLimited(.debounce, 0.02, errors: NoError.self)
        for i in 1 ... 3 {
            pipe.putNext(i)
            try queue.advance(by: 0.03)
        }
        XCTAssertEqual(recorder.recordedAt, ["1@20", "2@50", "3@80"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    /// Each value restarts the countdown: values 10 ms apart never let a
    /// 20 ms countdown end; the last one is emitted 20 ms after it.
    func testDebounceNewValueRestartsTheCountdown() throws {
        let (queue, pipe, recorder, disposable) = startLimited(.debounce, 0.02, errors: NoError.self)
        for i in 1 ... 5 {
            pipe.putNext(i)
            try queue.advance(by: 0.01)
        }
        XCTAssertEqual(recorder.recorded, [])
        XCTAssertEqual(queue.pendingVirtualWork, 1, "one countdown, the others were dropped")
        try queue.run()
        XCTAssertEqual(recorder.recordedAt, ["5@60"])
        disposable.dispose()
    }

    /// A real-timer race, which virtual time cannot produce: value 1's
    /// countdown ends while the queue is blocked (its firing waits for the
    /// queue); value 2 arrives before the queue can act on it. Only 2 is
    /// emitted, and only after a full countdown of its own.
    func testDebounceStaleFiringOfARealTimerIsIgnored() {
        let delay = 0.05
        let queue = Queue(name: "debounce.restart")
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder<Int, NoError>(queue: queue)
        let disposable = recorder.start(pipe.signal() |> debounce(delay, queue: queue))
        let gate = block(queue)
        pipe.putNext(1)
        drain(Queue(name: "debounce.restart.clock"), after: delay * 3)
        let secondPut = DispatchTime.now()
        pipe.putNext(2)
        gate.signal()
        recorder.expectEvents()
        drain(queue, after: delay * 2)
        XCTAssertEqual(recorder.recorded, ["2"])
        let emittedAt = recorder.times.with { $0 }[0]
        XCTAssertGreaterThanOrEqual(seconds(from: secondPut, to: emittedAt), delay * 0.9)
        disposable.dispose()
    }

    func testDebounceCompletionFlushesPendingValueThenCompletes() throws {
        try self.checkCompletionFlushesPendingValueThenCompletes(.debounce, values: (1, 2))
    }

    func testDebounceErrorDropsPendingValue() throws {
        try self.checkErrorDropsPendingValue(.debounce, error: 5)
    }

    func testDebounceDisposeDropsPendingValueAndDisposesUpstream() throws {
        try self.checkDisposeDropsPendingValueAndDisposesUpstream(.debounce)
    }

    func testDebounceCallbackMayDisposeItsSubscriptionAndEmit() throws {
        let queue = Queue.virtualTime()
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder<Int, NoError>(queue: queue)
        let box = DisposableBox()
        box.disposable.set((pipe.signal() |> debounce(0.02, queue: queue)).start(next: { value in
            recorder.next(value)
            if value == 1 {
                // Emitting from inside the callback starts a new countdown.
                pipe.putNext(2)
            } else {
                box.disposable.dispose()
                pipe.putNext(3)
            }
        }))
        pipe.putNext(1)
        try queue.run()
        XCTAssertEqual(recorder.recordedAt, ["1@20", "2@40"])
        XCTAssertEqual(pipe.subscriberCount, 0)
        XCTAssertEqual(queue.pendingVirtualWork, 0)
    }

    /// Emitters on 8 threads while the virtual clock stands still: no
    /// countdown can end, so the completion flushes exactly the last value.
    func testDebounceConcurrentEmittersDeliverTheLastValue() throws {
        let (queue, pipe, recorder, disposable) = startLimited(.debounce, 0.05, errors: NoError.self)
        DispatchQueue.concurrentPerform(iterations: 8) { emitter in
            for i in 0 ..< 500 {
                pipe.putNext(emitter * 1_000 + i)
            }
        }
        pipe.putNext(-1)
        pipe.putCompletion()
        try queue.run()
        XCTAssertEqual(recorder.recordedAt, ["-1@0", "completed@0"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        disposable.dispose()
    }

    // MARK: throttle

    func testThrottleEmitsTheLatestValueOfEachWindow() throws {
        let (queue, pipe, recorder, disposable) = startLimited(.throttle, 0.05, errors: NoError.self)
        burst(1 ... 50, into: pipe)
        try queue.advance(by: 0.05)
        burst(51 ... 100, into: pipe)
        try queue.advance(by: 0.1)
        pipe.putCompletion()
        try queue.advance(by: 0)
        XCTAssertEqual(recorder.recordedAt, ["50@50", "100@100", "completed@150"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    /// Unlike debounce, a steady stream still yields an emission per window:
    /// a value every 10 ms through a 20 ms throttle comes out every 20 ms.
    func testThrottleDoesNotRestartWindowOnEveryValue() throws {
        let (queue, pipe, recorder, disposable) = startLimited(.throttle, 0.02, errors: NoError.self)
        for i in 1 ... 9 {
            pipe.putNext(i)
            try queue.advance(by: 0.01)
        }
        pipe.putCompletion()
        try queue.advance(by: 0)
        XCTAssertEqual(recorder.recordedAt, ["2@20", "4@40", "6@60", "8@80", "9@90", "completed@90"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testThrottleCompletionFlushesPendingValueThenCompletes() throws {
        try self.checkCompletionFlushesPendingValueThenCompletes(.throttle, values: (7, 8))
    }

    func testThrottleCompletionWithoutPendingValueJustCompletes() throws {
        let queue = Queue.virtualTime()
        let recorder = Recorder<Int, NoError>(queue: queue)
        let disposable = recorder.start(Signal<Int, NoError>.complete() |> throttle(0.05, queue: queue))
        try queue.run()
        XCTAssertEqual(recorder.recordedAt, ["completed@0"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testThrottleErrorDropsPendingValue() throws {
        try self.checkErrorDropsPendingValue(.throttle, error: 4)
    }

    func testThrottleDisposeDropsPendingValueAndDisposesUpstream() throws {
        try self.checkDisposeDropsPendingValueAndDisposesUpstream(.throttle)
    }

    func testThrottleCallbackMayDisposeItsSubscription() throws {
        let queue = Queue.virtualTime()
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder<Int, NoError>(queue: queue)
        let box = DisposableBox()
        box.disposable.set((pipe.signal() |> throttle(0.02, queue: queue)).start(next: { value in
            recorder.next(value)
            box.disposable.dispose()
            pipe.putNext(value + 1)
        }))
        pipe.putNext(1)
        try queue.run()
        XCTAssertEqual(recorder.recordedAt, ["1@20"])
        XCTAssertEqual(pipe.subscriberCount, 0)
        XCTAssertEqual(queue.pendingVirtualWork, 0)
    }
}
