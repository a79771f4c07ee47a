import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class Signal_TimingTests: XCTestCase {
    // MARK: delay

    private func checkDelaysSubscription(_ operatorUnderTest: (Signal<Int, NoError>) -> Signal<Int, NoError>, queue: Queue, timeout: Double, file: StaticString = #filePath, line: UInt = #line) {
        let starts = Counter()
        let startedOnQueue = Atomic<Bool?>(value: nil)
        let elapsedAtStart = Atomic<Double>(value: -1)
        let values = Atomic<[Int]>(value: [])
        let done = DispatchSemaphore(value: 0)
        let begin = DispatchTime.now()
        let upstream = Signal<Int, NoError> { subscriber in
            _ = elapsedAtStart.swap(seconds(from: begin))
            _ = startedOnQueue.swap(queue.isCurrent())
            starts.increment()
            subscriber.putNext(1)
            subscriber.putNext(2)
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let disposable = operatorUnderTest(upstream).start(next: { value in
            _ = values.modify { $0 + [value] }
        }, completed: {
            done.signal()
        })
        XCTAssertEqual(starts.count, 0, "started synchronously", file: file, line: line)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, file: file, line: line)
        XCTAssertEqual(starts.count, 1, file: file, line: line)
        XCTAssertEqual(startedOnQueue.with { $0 }, true, file: file, line: line)
        XCTAssertGreaterThanOrEqual(elapsedAtStart.with { $0 }, timeout * 0.9, file: file, line: line)
        XCTAssertEqual(values.with { $0 }, [1, 2], file: file, line: line)
        disposable.dispose()
    }

    private func checkDisposeBeforeFiringNeverStarts(_ operatorUnderTest: (Signal<Int, NoError>) -> Signal<Int, NoError>, queue: Queue, file: StaticString = #filePath, line: UInt = #line) {
        let starts = Counter()
        let released = Counter()
        do {
            let tracker = DeinitTracker { released.increment() }
            let upstream = Signal<Int, NoError> { _ in
                _ = tracker
                starts.increment()
                return EmptyDisposable
            }
            let disposable = operatorUnderTest(upstream).start()
            disposable.dispose()
        }
        // The invalidated timer and everything it captured are gone at once.
        XCTAssertEqual(released.count, 1, file: file, line: line)
        drain(queue, after: 0.25, file: file, line: line)
        XCTAssertEqual(starts.count, 0, file: file, line: line)
    }

    func testDelayStartsUpstreamOnQueueAfterTimeout() {
        let queue = Queue(name: "delay.start")
        checkDelaysSubscription({ $0 |> delay(0.1, queue: queue) }, queue: queue, timeout: 0.1)
    }

    func testDelayDisposedBeforeFiringNeverStartsUpstream() {
        let queue = Queue(name: "delay.dispose")
        checkDisposeBeforeFiringNeverStarts({ $0 |> delay(0.05, queue: queue) }, queue: queue)
    }

    func testDelayPassesErrorThroughAndDisposeAfterStartDisposesUpstream() {
        let queue = Queue(name: "delay.error")
        let errors = Atomic<[Int]>(value: [])
        let done = DispatchSemaphore(value: 0)
        let failing = Signal<Int, Int>.fail(3) |> delay(0.02, queue: queue)
        let d1 = failing.start(error: { error in
            _ = errors.modify { $0 + [error] }
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(errors.with { $0 }, [3])
        d1.dispose()

        let pipe = TestPipe<Int, Int>()
        let started = DispatchSemaphore(value: 0)
        let upstream = Signal<Int, Int> { subscriber in
            let disposable = pipe.signal().start(next: { subscriber.putNext($0) })
            started.signal()
            return disposable
        }
        let d2 = (upstream |> delay(0.02, queue: queue)).start()
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(pipe.subscriberCount, 1)
        d2.dispose()
        // The upstream's disposable is handed over on the queue, right after its start.
        queue.sync {
        }
        XCTAssertEqual(pipe.subscriberCount, 0)
    }

    // MARK: suspendAwareDelay

    func testSuspendAwareDelayStartsUpstreamOnQueueAfterTimeout() {
        let queue = Queue(name: "suspendAwareDelay.start")
        checkDelaysSubscription({ $0 |> suspendAwareDelay(0.1, granularity: 0.01, queue: queue) }, queue: queue, timeout: 0.1)
    }

    func testSuspendAwareDelayWithCoarseGranularityIsNotLate() {
        // With the default granularity of 4 s, a short delay must still end on
        // time: the tick period never exceeds the timeout.
        let queue = Queue(name: "suspendAwareDelay.coarse")
        let late = Atomic<Bool>(value: false)
        queue.after(1.5) {
            _ = late.swap(true)
        }
        let lateAtStart = Atomic<Bool?>(value: nil)
        let done = DispatchSemaphore(value: 0)
        let upstream = Signal<Int, NoError> { subscriber in
            _ = lateAtStart.swap(late.with { $0 })
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let disposable = (upstream |> suspendAwareDelay(0.05, queue: queue)).start(completed: {
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(lateAtStart.with { $0 }, false)
        disposable.dispose()
    }

    func testSuspendAwareDelayDisposedBeforeFiringNeverStartsUpstream() {
        let queue = Queue(name: "suspendAwareDelay.dispose")
        checkDisposeBeforeFiringNeverStarts({ $0 |> suspendAwareDelay(0.05, granularity: 0.01, queue: queue) }, queue: queue)
    }

    func testSuspendAwareDelayStartsUpstreamOnce() {
        // The repeating timer must stop after starting the upstream.
        let queue = Queue(name: "suspendAwareDelay.once")
        let starts = Counter()
        let upstream = Signal<Int, NoError> { _ in
            starts.increment()
            return EmptyDisposable
        }
        let disposable = (upstream |> suspendAwareDelay(0.02, granularity: 0.005, queue: queue)).start()
        drain(queue, after: 0.2)
        XCTAssertEqual(starts.count, 1)
        disposable.dispose()
    }

    // MARK: timeout

    func testTimeoutSwitchesToAlternateWhenUpstreamIsSilent() {
        let queue = Queue(name: "timeout.switch")
        let pipe = TestPipe<Int, NoError>()
        let log = Atomic<[String]>(value: [])
        let done = DispatchSemaphore(value: 0)
        let alternate = Signal<Int, NoError> { subscriber in
            _ = log.modify { $0 + ["alternate started on queue: \(queue.isCurrent()), upstream subscribers: \(pipe.subscriberCount)"] }
            subscriber.putNext(42)
            return EmptyDisposable
        }
        let disposable = (pipe.signal() |> timeout(0.05, queue: queue, alternate: alternate)).start(next: { value in
            _ = log.modify { $0 + ["\(value)"] }
            done.signal()
        }, completed: {
            _ = log.modify { $0 + ["completed"] }
        })
        XCTAssertEqual(pipe.subscriberCount, 1)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        // The upstream was disposed before the alternate started; it is ignored now.
        pipe.putNext(1)
        pipe.putCompletion()
        XCTAssertEqual(log.with { $0 }, ["alternate started on queue: true, upstream subscribers: 0", "42"])
        disposable.dispose()
    }

    func testTimeoutFirstUpstreamValueCancelsTimer() {
        let queue = Queue(name: "timeout.value")
        let pipe = TestPipe<Int, NoError>()
        let alternateStarts = Counter()
        let values = Atomic<[Int]>(value: [])
        let alternate = Signal<Int, NoError> { subscriber in
            alternateStarts.increment()
            subscriber.putNext(-1)
            return EmptyDisposable
        }
        let disposable = (pipe.signal() |> timeout(0.05, queue: queue, alternate: alternate)).start(next: { value in
            _ = values.modify { $0 + [value] }
        })
        pipe.putNext(1)
        drain(queue, after: 0.25)
        XCTAssertEqual(alternateStarts.count, 0)
        // Still subscribed to the upstream, long after the timeout.
        pipe.putNext(2)
        XCTAssertEqual(values.with { $0 }, [1, 2])
        disposable.dispose()
        XCTAssertEqual(pipe.subscriberCount, 0)
    }

    func testTimeoutUpstreamTerminalEventFirstCancelsTimer() {
        let queue = Queue(name: "timeout.terminal")
        let alternateStarts = Counter()
        let alternate = Signal<Int, Int> { subscriber in
            alternateStarts.increment()
            subscriber.putNext(-1)
            return EmptyDisposable
        }
        let events = Atomic<[String]>(value: [])
        _ = (Signal<Int, Int>.complete() |> timeout(0.03, queue: queue, alternate: alternate)).start(next: { value in
            _ = events.modify { $0 + ["next \(value)"] }
        }, error: { error in
            _ = events.modify { $0 + ["error \(error)"] }
        }, completed: {
            _ = events.modify { $0 + ["completed"] }
        })
        _ = (Signal<Int, Int>.fail(9) |> timeout(0.03, queue: queue, alternate: alternate)).start(next: { value in
            _ = events.modify { $0 + ["next \(value)"] }
        }, error: { error in
            _ = events.modify { $0 + ["error \(error)"] }
        }, completed: {
            _ = events.modify { $0 + ["completed"] }
        })
        drain(queue, after: 0.2)
        XCTAssertEqual(events.with { $0 }, ["completed", "error 9"])
        XCTAssertEqual(alternateStarts.count, 0)
    }

    func testTimeoutDisposedBeforeFiringDisposesUpstreamAndNeverStartsAlternate() {
        let queue = Queue(name: "timeout.dispose")
        let pipe = TestPipe<Int, NoError>()
        let alternateStarts = Counter()
        let released = Counter()
        do {
            let tracker = DeinitTracker { released.increment() }
            let alternate = Signal<Int, NoError> { _ in
                _ = tracker
                alternateStarts.increment()
                return EmptyDisposable
            }
            let disposable = (pipe.signal() |> timeout(0.05, queue: queue, alternate: alternate)).start()
            XCTAssertEqual(pipe.subscriberCount, 1)
            disposable.dispose()
        }
        XCTAssertEqual(pipe.subscriberCount, 0)
        XCTAssertEqual(released.count, 1)
        drain(queue, after: 0.25)
        XCTAssertEqual(alternateStarts.count, 0)
    }

    func testTimeoutRaceHasExactlyOneWinner() {
        let queue = Queue(name: "timeout.race")
        let subscriptions = 300
        let group = DispatchGroup()
        let results = Atomic<[[Int]]>(value: [])
        let completions = Counter()
        let upstream = Signal<Int, NoError> { subscriber in
            DispatchQueue.global().async {
                subscriber.putNext(1)
                subscriber.putNext(1)
                subscriber.putCompletion()
            }
            return EmptyDisposable
        }
        let alternate = Signal<Int, NoError> { subscriber in
            subscriber.putNext(2)
            subscriber.putCompletion()
            return EmptyDisposable
        }
        var disposables: [any Disposable] = []
        for _ in 0 ..< subscriptions {
            group.enter()
            let values = Atomic<[Int]>(value: [])
            disposables.append((upstream |> timeout(0.0005, queue: queue, alternate: alternate)).start(next: { value in
                _ = values.modify { $0 + [value] }
            }, completed: {
                let final = values.with { $0 }
                _ = results.modify { $0 + [final] }
                completions.increment()
                group.leave()
            }))
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(completions.count, subscriptions)
        for result in results.with({ $0 }) {
            XCTAssertTrue(result == [1, 1] || result == [2], "mixed result \(result)")
        }
        for disposable in disposables {
            disposable.dispose()
        }
    }
}
