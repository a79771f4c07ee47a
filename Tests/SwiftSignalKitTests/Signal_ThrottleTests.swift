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

/// A pipe limited by `limiter` on a queue named `queueName`, and a recorder of
/// the limited signal that expects every event on that queue.
private func startLimited<E>(_ limiter: Limiter, _ delay: Double, queueName: String, errors: E.Type) -> (queue: Queue, pipe: TestPipe<Int, E>, recorder: Recorder<Int, E>, disposable: any Disposable) {
    let queue = Queue(name: queueName)
    let pipe = TestPipe<Int, E>()
    let recorder = Recorder<Int, E>(queue: queue)
    let disposable = recorder.start(pipe.signal() |> limiter(delay, queue: queue))
    return (queue, pipe, recorder, disposable)
}

/// Puts `values` into `pipe` while `queue` is blocked: they all arrive before
/// any timer on the queue can fire.
private func burst<E>(_ values: ClosedRange<Int>, into pipe: TestPipe<Int, E>, blocking queue: Queue) {
    whileBlocking(queue) {
        for i in values {
            pipe.putNext(i)
        }
    }
}

final class Signal_ThrottleTests: XCTestCase {
    // MARK: shared by debounce and throttle

    /// The upstream completes with two values pending: the later one is
    /// emitted at once, then the completion.
    private func checkCompletionFlushesPendingValueThenCompletes(_ limiter: Limiter, queueName: String, values: (Int, Int), file: StaticString = #filePath, line: UInt = #line) {
        let (_, pipe, recorder, disposable) = startLimited(limiter, 10.0, queueName: queueName, errors: NoError.self)
        pipe.putNext(values.0)
        pipe.putNext(values.1)
        pipe.putCompletion()
        recorder.expectEvents(2, file: file, line: line)
        XCTAssertEqual(recorder.recorded, ["\(values.1)", "completed"], file: file, line: line)
        XCTAssertEqual(recorder.offQueue.count, 0, file: file, line: line)
        XCTAssertEqual(pipe.subscriberCount, 0, file: file, line: line)
        disposable.dispose()
    }

    /// An error drops the pending value, passes through, and ends the
    /// subscription: a later value goes nowhere.
    private func checkErrorDropsPendingValue(_ limiter: Limiter, queueName: String, error: Int, file: StaticString = #filePath, line: UInt = #line) {
        let (queue, pipe, recorder, disposable) = startLimited(limiter, 0.05, queueName: queueName, errors: Int.self)
        pipe.putNext(1)
        pipe.putError(error)
        pipe.putNext(2)
        recorder.expectEvents(file: file, line: line)
        drain(queue, after: 0.2, file: file, line: line)
        XCTAssertEqual(recorder.recorded, ["error \(error)"], file: file, line: line)
        XCTAssertEqual(recorder.offQueue.count, 0, file: file, line: line)
        disposable.dispose()
    }

    /// A value replaced by a newer one is released at once; disposing drops
    /// the pending one and the countdown holding it, and disposes the upstream.
    private func checkDisposeDropsPendingValueAndDisposesUpstream(_ limiter: Limiter, queueName: String, file: StaticString = #filePath, line: UInt = #line) {
        let queue = Queue(name: queueName)
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
        disposable.dispose()
        XCTAssertEqual(released.count, 2, file: file, line: line)
        XCTAssertEqual(pipe.subscriberCount, 0, file: file, line: line)
        drain(queue, after: 0.2, file: file, line: line)
        XCTAssertEqual(delivered.count, 0, file: file, line: line)
    }

    // MARK: debounce

    func testDebounceEmitsOnlyTheLatestOfABurst() {
        let (queue, pipe, recorder, disposable) = startLimited(.debounce, 0.05, queueName: "debounce.burst", errors: NoError.self)
        burst(1 ... 100, into: pipe, blocking: queue)
        recorder.expectEvents()
        drain(queue, after: 0.2)
        pipe.putCompletion()
        recorder.expectEvents()
        // Nothing was pending at completion: no second value.
        XCTAssertEqual(recorder.recorded, ["100", "completed"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testDebounceEmitsEachValueAfterAQuietPeriod() {
        let (_, pipe, recorder, disposable) = startLimited(.debounce, 0.02, queueName: "debounce.quiet", errors: NoError.self)
        for i in 1 ... 3 {
            pipe.putNext(i)
            recorder.expectEvents()
        }
        XCTAssertEqual(recorder.recorded, ["1", "2", "3"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testDebounceNewValueRestartsTheCountdown() {
        // Value 1's countdown ends while the queue is blocked; value 2 arrives
        // before the queue can act on it: only 2 is emitted, and only after a
        // full countdown of its own (a throttle would emit it at once).
        let delay = 0.05
        let (queue, pipe, recorder, disposable) = startLimited(.debounce, delay, queueName: "debounce.restart", errors: NoError.self)
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

    func testDebounceCompletionFlushesPendingValueThenCompletes() {
        self.checkCompletionFlushesPendingValueThenCompletes(.debounce, queueName: "debounce.flush", values: (1, 2))
    }

    func testDebounceErrorDropsPendingValue() {
        self.checkErrorDropsPendingValue(.debounce, queueName: "debounce.error", error: 5)
    }

    func testDebounceDisposeDropsPendingValueAndDisposesUpstream() {
        self.checkDisposeDropsPendingValueAndDisposesUpstream(.debounce, queueName: "debounce.dispose")
    }

    func testDebounceCallbackMayDisposeItsSubscriptionAndEmit() {
        let queue = Queue(name: "debounce.reentrant")
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
        recorder.expectEvents(2)
        drain(queue, after: 0.1)
        XCTAssertEqual(recorder.recorded, ["1", "2"])
        XCTAssertEqual(pipe.subscriberCount, 0)
    }

    func testDebounceConcurrentEmittersDeliverTheLastValue() {
        let (_, pipe, recorder, disposable) = startLimited(.debounce, 0.05, queueName: "debounce.stress", errors: NoError.self)
        DispatchQueue.concurrentPerform(iterations: 8) { emitter in
            for i in 0 ..< 500 {
                pipe.putNext(emitter * 1_000 + i)
            }
        }
        pipe.putNext(-1)
        pipe.putCompletion()
        recorder.expectEvents(2)
        // Whatever the timers did during the burst, the last value is flushed
        // (or emitted) exactly once, followed by the completion.
        let recorded = recorder.recorded
        XCTAssertEqual(recorded.suffix(2), ["-1", "completed"])
        XCTAssertEqual(recorded.filter { $0 == "-1" }.count, 1)
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    // MARK: throttle

    func testThrottleEmitsTheLatestValueOfEachWindow() {
        let (queue, pipe, recorder, disposable) = startLimited(.throttle, 0.05, queueName: "throttle.windows", errors: NoError.self)
        burst(1 ... 50, into: pipe, blocking: queue)
        recorder.expectEvents()
        burst(51 ... 100, into: pipe, blocking: queue)
        recorder.expectEvents()
        drain(queue, after: 0.15)
        pipe.putCompletion()
        recorder.expectEvents()
        XCTAssertEqual(recorder.recorded, ["50", "100", "completed"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testThrottleDoesNotRestartWindowOnEveryValue() {
        // Unlike debounce, a steady stream still yields an emission per window.
        let (queue, pipe, recorder, disposable) = startLimited(.throttle, 0.02, queueName: "throttle.steady", errors: NoError.self)
        let producer = DispatchSemaphore(value: 0)
        let last = Atomic<Int>(value: 0)
        DispatchQueue.global().async {
            var i = 0
            // Emit without pause until three windows have been emitted.
            while recorder.recorded.count < 3 {
                i += 1
                pipe.putNext(i)
            }
            _ = last.swap(i)
            pipe.putCompletion()
            producer.signal()
        }
        XCTAssertEqual(producer.wait(timeout: .now() + 10), .success)
        drain(queue, after: 0.1)
        let recorded = recorder.recorded
        XCTAssertEqual(recorded.last, "completed")
        let values = recorded.dropLast().map { Int($0)! }
        XCTAssertGreaterThanOrEqual(values.count, 3)
        XCTAssertLessThanOrEqual(values.count, 5)
        XCTAssertEqual(values, values.sorted())
        XCTAssertEqual(Set(values).count, values.count)
        XCTAssertEqual(values.last, last.with { $0 })
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testThrottleCompletionFlushesPendingValueThenCompletes() {
        self.checkCompletionFlushesPendingValueThenCompletes(.throttle, queueName: "throttle.flush", values: (7, 8))
    }

    func testThrottleCompletionWithoutPendingValueJustCompletes() {
        let queue = Queue(name: "throttle.empty")
        let recorder = Recorder<Int, NoError>(queue: queue)
        let disposable = recorder.start(Signal<Int, NoError>.complete() |> throttle(0.05, queue: queue))
        recorder.expectEvents()
        XCTAssertEqual(recorder.recorded, ["completed"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testThrottleErrorDropsPendingValue() {
        self.checkErrorDropsPendingValue(.throttle, queueName: "throttle.error", error: 4)
    }

    func testThrottleDisposeDropsPendingValueAndDisposesUpstream() {
        self.checkDisposeDropsPendingValueAndDisposesUpstream(.throttle, queueName: "throttle.dispose")
    }

    func testThrottleCallbackMayDisposeItsSubscription() {
        let queue = Queue(name: "throttle.reentrant")
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder<Int, NoError>(queue: queue)
        let box = DisposableBox()
        box.disposable.set((pipe.signal() |> throttle(0.02, queue: queue)).start(next: { value in
            recorder.next(value)
            box.disposable.dispose()
            pipe.putNext(value + 1)
        }))
        pipe.putNext(1)
        recorder.expectEvents()
        drain(queue, after: 0.1)
        XCTAssertEqual(recorder.recorded, ["1"])
        XCTAssertEqual(pipe.subscriberCount, 0)
    }
}
