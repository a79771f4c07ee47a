import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// `mergeMap(maxConcurrent:)` and `retry(count:)` (issue 33) beyond the
/// shared marble table.
final class Signal_MergeMapRetryTests: XCTestCase {
    private enum TestError: Error {
        case failed
    }

    func testSynchronousInnersDoNotGrowTheStack() {
        onSmallStack {
            let count = loadCount(100_000)
            var sum = 0
            var completed = 0
            let values = Signal<Int, NoError> { subscriber in
                for _ in 0 ..< count {
                    subscriber.putNext(1)
                }
                subscriber.putCompletion()
                return EmptyDisposable
            }
            (values |> mergeMap(maxConcurrent: 1) { Signal<Int, NoError>.single($0) }).start(next: { sum += $0 }, completed: { completed += 1 }).dispose()
            XCTAssertEqual(sum, count)
            XCTAssertEqual(completed, 1)
        }
    }

    /// Inner signals completing on other threads: never more than
    /// `maxConcurrent` run at once, every value's inner runs, and the
    /// completion comes once, after the last.
    func testTheLimitHoldsWhenInnersCompleteOnOtherThreads() {
        let running = Atomic(value: 0)
        let most = Atomic(value: 0)
        let values = Counter()
        let done = DispatchSemaphore(value: 0)
        let workers = DispatchQueue(label: "Signal_MergeMapRetryTests.workers", attributes: .concurrent)
        let inner = Signal<Int, NoError> { subscriber in
            let now = running.modify { $0 + 1 }
            _ = most.modify { Swift.max($0, now) }
            workers.async {
                _ = running.modify { $0 - 1 }
                subscriber.putNext(1)
                subscriber.putCompletion()
            }
            return EmptyDisposable
        }
        let outer = Signal<Int, NoError> { subscriber in
            for i in 0 ..< 500 {
                subscriber.putNext(i)
            }
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let d = (outer |> mergeMap(maxConcurrent: 3) { _ in inner }).start(next: { _ in values.increment() }, completed: { done.signal() })
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(values.count, 500)
        XCTAssertLessThanOrEqual(most.with { $0 }, 3)
        d.dispose()
    }

    func testDisposingStopsTheRunningAndTheWaitingInners() {
        let outer = TestPipe<Int, TestError>()
        let inners = [TestPipe<Int, TestError>(), TestPipe<Int, TestError>(), TestPipe<Int, TestError>()]
        let recorder = Recorder<Int, TestError>()
        let d = recorder.start(outer.signal() |> mergeMap(maxConcurrent: 2) { inners[$0].signal() })
        outer.putNext(0)
        outer.putNext(1)
        outer.putNext(2)
        XCTAssertEqual(inners.map(\.subscriberCount), [1, 1, 0])
        d.dispose()
        XCTAssertEqual(inners.map(\.subscriberCount), [0, 0, 0])
        XCTAssertEqual(outer.subscriberCount, 0)
        XCTAssertEqual(inners[2].subscribed, 0, "the waiting value never starts")
        XCTAssertEqual(recorder.released.count, 1)
    }

    func testDisposingFromInsideAnInnerValue() {
        let outer = TestPipe<Int, TestError>()
        let inner = TestPipe<Int, TestError>()
        let box = DisposableBox()
        var values: [Int] = []
        box.disposable.set((outer.signal() |> mergeMap(maxConcurrent: 2) { _ in inner.signal() }).start(next: { value in
            values.append(value)
            box.disposable.dispose()
        }))
        outer.putNext(0)
        outer.putNext(1)
        inner.putNext(7)
        XCTAssertEqual(values, [7])
        XCTAssertEqual(inner.subscriberCount, 0)
        XCTAssertEqual(outer.subscriberCount, 0)
    }

    func testRetryOfASynchronousFailureDoesNotGrowTheStack() {
        onSmallStack {
            let count = loadCount(100_000)
            let starts = Counter()
            let failing = Signal<Int, TestError> { subscriber in
                starts.increment()
                subscriber.putError(.failed)
                return EmptyDisposable
            }
            var errors = 0
            (failing |> retry(count: count)).start(error: { _ in errors += 1 }).dispose()
            XCTAssertEqual(starts.count, count + 1)
            XCTAssertEqual(errors, 1)
        }
    }

    func testRetryStopsWhenADownstreamTakeEnds() {
        let starts = Counter()
        let source = Signal<Int, TestError> { subscriber in
            starts.increment()
            subscriber.putNext(1)
            subscriber.putError(.failed)
            return EmptyDisposable
        }
        var values: [Int] = []
        (source |> retry(count: 1_000) |> take(3)).start(next: { values.append($0) }).dispose()
        XCTAssertEqual(values, [1, 1, 1])
        XCTAssertEqual(starts.count, 3)
    }

    func testAbandonedSubscriptionsAreFreedWhenTheSourceLetsGo() {
        let queue = Queue.virtualTime()
        let cases: [(String, (Signal<Int, TestError>) -> Signal<Int, TestError>)] = [
            ("mergeMap", { $0 |> mergeMap(maxConcurrent: 2) { Signal<Int, TestError>.single($0) } }),
            ("retry(count:)", { $0 |> retry(count: 3) }),
            ("retry(count:delay:queue:)", { $0 |> retry(count: 3, delay: 1, queue: queue) }),
        ]
        for (name, apply) in cases {
            let released = Counter()
            let held = Atomic<Subscriber<Int, TestError>?>(value: nil)
            let source = Signal<Int, TestError> { subscriber in
                held.swap(subscriber)
                return EmptyDisposable
            }
            do {
                _ = apply(source).start(next: { [tracker = DeinitTracker(released)] _ in
                    withExtendedLifetime(tracker) {}
                })
            }
            XCTAssertEqual(released.count, 0, "\(name): released while the source holds it")
            held.swap(nil)
            XCTAssertEqual(released.count, 1, "\(name): not freed after the source let go")
        }
    }
}
