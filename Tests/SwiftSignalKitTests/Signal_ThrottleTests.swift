import XCTest
import Dispatch
import SwiftSignalKit

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

private final class DeinitTracker: @unchecked Sendable {
    private let action: () -> Void

    init(_ action: @escaping () -> Void) {
        self.action = action
    }

    deinit {
        self.action()
    }
}

private final class DisposableBox: @unchecked Sendable {
    let disposable = MetaDisposable()
}

/// A hot source for the tests: forwards what is put into it to every current
/// subscriber.
private final class TestPipe<T, E>: @unchecked Sendable {
    private let subscribers = Atomic<Bag<Subscriber<T, E>>>(value: Bag())

    var signal: Signal<T, E> {
        return Signal { subscriber in
            let index = self.subscribers.with { $0.add(subscriber) }
            return ActionDisposable {
                self.subscribers.with { $0.remove(index) }
            }
        }
    }

    var subscriberCount: Int {
        return self.subscribers.with { $0.copyItems().count }
    }

    func putNext(_ value: T) {
        for subscriber in self.subscribers.with({ $0.copyItems() }) {
            subscriber.putNext(value)
        }
    }

    func putError(_ error: E) {
        for subscriber in self.subscribers.with({ $0.copyItems() }) {
            subscriber.putError(error)
        }
    }

    func putCompletion() {
        for subscriber in self.subscribers.with({ $0.copyItems() }) {
            subscriber.putCompletion()
        }
    }
}

/// Records the events of one subscription, noting whether each arrived on the
/// expected queue, and signals a semaphore per event.
private final class Recorder: @unchecked Sendable {
    let queue: Queue
    let events = Atomic<[String]>(value: [])
    let times = Atomic<[DispatchTime]>(value: [])
    let offQueue = Counter()
    let eventArrived = DispatchSemaphore(value: 0)

    init(queue: Queue) {
        self.queue = queue
    }

    func record(_ event: String) {
        if !self.queue.isCurrent() {
            self.offQueue.increment()
        }
        let now = DispatchTime.now()
        _ = self.times.modify { $0 + [now] }
        _ = self.events.modify { $0 + [event] }
        self.eventArrived.signal()
    }

    func start<E>(_ signal: Signal<Int, E>) -> any Disposable {
        return signal.start(next: { value in
            self.record("\(value)")
        }, error: { error in
            self.record("error \(error)")
        }, completed: {
            self.record("completed")
        })
    }

    func waitForEvent() -> DispatchTimeoutResult {
        return self.eventArrived.wait(timeout: .now() + 10)
    }

    var recorded: [String] {
        return self.events.with { $0 }
    }
}

/// Signals after `delay` seconds through `queue`.
private func sentinel(after delay: Double, on queue: Queue) -> DispatchSemaphore {
    let semaphore = DispatchSemaphore(value: 0)
    queue.after(delay) {
        semaphore.signal()
    }
    return semaphore
}

/// Runs `body` while `queue` is blocked, so that no timer completion on it can
/// run in the middle of `body`.
private func whileBlocking(_ queue: Queue, _ body: () -> Void) {
    let blocked = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    queue.justDispatch {
        blocked.signal()
        _ = gate.wait(timeout: .now() + 10)
    }
    _ = blocked.wait(timeout: .now() + 10)
    body()
    gate.signal()
}

final class Signal_ThrottleTests: XCTestCase {
    // MARK: debounce

    func testDebounceEmitsOnlyTheLatestOfABurst() {
        let queue = Queue(name: "debounce.burst")
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder(queue: queue)
        let disposable = recorder.start(pipe.signal |> debounce(0.05, queue: queue))
        whileBlocking(queue) {
            for i in 1 ... 100 {
                pipe.putNext(i)
            }
        }
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(sentinel(after: 0.2, on: queue).wait(timeout: .now() + 10), .success)
        pipe.putCompletion()
        XCTAssertEqual(recorder.waitForEvent(), .success)
        // Nothing was pending at completion: no second value.
        XCTAssertEqual(recorder.recorded, ["100", "completed"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testDebounceEmitsEachValueAfterAQuietPeriod() {
        let queue = Queue(name: "debounce.quiet")
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder(queue: queue)
        let disposable = recorder.start(pipe.signal |> debounce(0.02, queue: queue))
        for i in 1 ... 3 {
            pipe.putNext(i)
            XCTAssertEqual(recorder.waitForEvent(), .success)
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
        let queue = Queue(name: "debounce.restart")
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder(queue: queue)
        let disposable = recorder.start(pipe.signal |> debounce(delay, queue: queue))
        let gate = DispatchSemaphore(value: 0)
        queue.justDispatch {
            _ = gate.wait(timeout: .now() + 10)
        }
        pipe.putNext(1)
        XCTAssertEqual(sentinel(after: delay * 3, on: Queue(name: "debounce.restart.clock")).wait(timeout: .now() + 10), .success)
        let secondPut = DispatchTime.now()
        pipe.putNext(2)
        gate.signal()
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(sentinel(after: delay * 2, on: queue).wait(timeout: .now() + 10), .success)
        XCTAssertEqual(recorder.recorded, ["2"])
        let emittedAt = recorder.times.with { $0 }[0]
        let quiet = Double(emittedAt.uptimeNanoseconds - secondPut.uptimeNanoseconds) / 1_000_000_000.0
        XCTAssertGreaterThanOrEqual(quiet, delay * 0.9)
        disposable.dispose()
    }

    func testDebounceCompletionFlushesPendingValueThenCompletes() {
        let queue = Queue(name: "debounce.flush")
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder(queue: queue)
        let disposable = recorder.start(pipe.signal |> debounce(10.0, queue: queue))
        pipe.putNext(1)
        pipe.putNext(2)
        pipe.putCompletion()
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(recorder.recorded, ["2", "completed"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        XCTAssertEqual(pipe.subscriberCount, 0)
        disposable.dispose()
    }

    func testDebounceErrorDropsPendingValue() {
        let queue = Queue(name: "debounce.error")
        let pipe = TestPipe<Int, Int>()
        let recorder = Recorder(queue: queue)
        let disposable = recorder.start(pipe.signal |> debounce(0.05, queue: queue))
        pipe.putNext(1)
        pipe.putError(5)
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(sentinel(after: 0.2, on: queue).wait(timeout: .now() + 10), .success)
        XCTAssertEqual(recorder.recorded, ["error 5"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testDebounceDisposeDropsPendingValueAndDisposesUpstream() {
        let queue = Queue(name: "debounce.dispose")
        let pipe = TestPipe<DeinitTracker, NoError>()
        let delivered = Counter()
        let released = Counter()
        let disposable = (pipe.signal |> debounce(0.05, queue: queue)).start(next: { _ in
            delivered.increment()
        })
        pipe.putNext(DeinitTracker { released.increment() })
        XCTAssertEqual(released.count, 0)
        disposable.dispose()
        // The pending value and the countdown holding it are dropped at once.
        XCTAssertEqual(released.count, 1)
        XCTAssertEqual(pipe.subscriberCount, 0)
        XCTAssertEqual(sentinel(after: 0.2, on: queue).wait(timeout: .now() + 10), .success)
        XCTAssertEqual(delivered.count, 0)
    }

    func testDebounceCallbackMayDisposeItsSubscriptionAndEmit() {
        let queue = Queue(name: "debounce.reentrant")
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder(queue: queue)
        let box = DisposableBox()
        box.disposable.set((pipe.signal |> debounce(0.02, queue: queue)).start(next: { value in
            recorder.record("\(value)")
            if value == 1 {
                // Emitting from inside the callback starts a new countdown.
                pipe.putNext(2)
            } else {
                box.disposable.dispose()
                pipe.putNext(3)
            }
        }))
        pipe.putNext(1)
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(sentinel(after: 0.1, on: queue).wait(timeout: .now() + 10), .success)
        XCTAssertEqual(recorder.recorded, ["1", "2"])
        XCTAssertEqual(pipe.subscriberCount, 0)
    }

    func testDebounceConcurrentEmittersDeliverTheLastValue() {
        let queue = Queue(name: "debounce.stress")
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder(queue: queue)
        let disposable = recorder.start(pipe.signal |> debounce(0.05, queue: queue))
        DispatchQueue.concurrentPerform(iterations: 8) { emitter in
            for i in 0 ..< 500 {
                pipe.putNext(emitter * 1_000 + i)
            }
        }
        pipe.putNext(-1)
        pipe.putCompletion()
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(recorder.waitForEvent(), .success)
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
        let queue = Queue(name: "throttle.windows")
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder(queue: queue)
        let disposable = recorder.start(pipe.signal |> throttle(0.05, queue: queue))
        whileBlocking(queue) {
            for i in 1 ... 50 {
                pipe.putNext(i)
            }
        }
        XCTAssertEqual(recorder.waitForEvent(), .success)
        whileBlocking(queue) {
            for i in 51 ... 100 {
                pipe.putNext(i)
            }
        }
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(sentinel(after: 0.15, on: queue).wait(timeout: .now() + 10), .success)
        pipe.putCompletion()
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(recorder.recorded, ["50", "100", "completed"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testThrottleDoesNotRestartWindowOnEveryValue() {
        // Unlike debounce, a steady stream still yields an emission per window.
        let queue = Queue(name: "throttle.steady")
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder(queue: queue)
        let disposable = recorder.start(pipe.signal |> throttle(0.02, queue: queue))
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
        XCTAssertEqual(sentinel(after: 0.1, on: queue).wait(timeout: .now() + 10), .success)
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
        let queue = Queue(name: "throttle.flush")
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder(queue: queue)
        let disposable = recorder.start(pipe.signal |> throttle(10.0, queue: queue))
        pipe.putNext(7)
        pipe.putNext(8)
        pipe.putCompletion()
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(recorder.recorded, ["8", "completed"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testThrottleCompletionWithoutPendingValueJustCompletes() {
        let queue = Queue(name: "throttle.empty")
        let recorder = Recorder(queue: queue)
        let disposable = recorder.start(Signal<Int, NoError>.complete() |> throttle(0.05, queue: queue))
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(recorder.recorded, ["completed"])
        XCTAssertEqual(recorder.offQueue.count, 0)
        disposable.dispose()
    }

    func testThrottleErrorDropsPendingValue() {
        let queue = Queue(name: "throttle.error")
        let pipe = TestPipe<Int, Int>()
        let recorder = Recorder(queue: queue)
        let disposable = recorder.start(pipe.signal |> throttle(0.05, queue: queue))
        pipe.putNext(1)
        pipe.putError(4)
        pipe.putNext(2)
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(sentinel(after: 0.2, on: queue).wait(timeout: .now() + 10), .success)
        XCTAssertEqual(recorder.recorded, ["error 4"])
        disposable.dispose()
    }

    func testThrottleDisposeDropsPendingValueAndDisposesUpstream() {
        let queue = Queue(name: "throttle.dispose")
        let pipe = TestPipe<DeinitTracker, NoError>()
        let delivered = Counter()
        let released = Counter()
        let disposable = (pipe.signal |> throttle(0.05, queue: queue)).start(next: { _ in
            delivered.increment()
        })
        pipe.putNext(DeinitTracker { released.increment() })
        pipe.putNext(DeinitTracker { released.increment() })
        // The value replaced by a newer one is released at once.
        XCTAssertEqual(released.count, 1)
        disposable.dispose()
        XCTAssertEqual(released.count, 2)
        XCTAssertEqual(pipe.subscriberCount, 0)
        XCTAssertEqual(sentinel(after: 0.2, on: queue).wait(timeout: .now() + 10), .success)
        XCTAssertEqual(delivered.count, 0)
    }

    func testThrottleCallbackMayDisposeItsSubscription() {
        let queue = Queue(name: "throttle.reentrant")
        let pipe = TestPipe<Int, NoError>()
        let recorder = Recorder(queue: queue)
        let box = DisposableBox()
        box.disposable.set((pipe.signal |> throttle(0.02, queue: queue)).start(next: { value in
            recorder.record("\(value)")
            box.disposable.dispose()
            pipe.putNext(value + 1)
        }))
        pipe.putNext(1)
        XCTAssertEqual(recorder.waitForEvent(), .success)
        XCTAssertEqual(sentinel(after: 0.1, on: queue).wait(timeout: .now() + 10), .success)
        XCTAssertEqual(recorder.recorded, ["1"])
        XCTAssertEqual(pipe.subscriberCount, 0)
    }
}
