import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// Operators whose state object is what their generator returns (reduce,
/// mapToSignal/switchToLatest/queue/throttled, restart/retry/then, loops)
/// hand it out through `_WeakDisposable`: a subscription whose disposable is
/// dropped undisposed is freed, callbacks included, once its sources let go
/// (the leak the C API fuzzer found with reduce-left).
final class WeakDisposableTests: XCTestCase {
    private enum TestError: Error {
        case failed
    }

    private func assertFreedWhenTheSourceLetsGo(_ name: String, _ apply: (Signal<Int, TestError>) -> Signal<Int, TestError>, file: StaticString = #filePath, line: UInt = #line) {
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
        XCTAssertEqual(released.count, 0, "\(name): released while the source holds the subscription", file: file, line: line)
        held.swap(nil)
        XCTAssertEqual(released.count, 1, "\(name): not freed after the source let go", file: file, line: line)
    }

    func testReduceLeftFreed() {
        assertFreedWhenTheSourceLetsGo("reduceLeft") { $0 |> reduceLeft(value: 0, f: +) }
        assertFreedWhenTheSourceLetsGo("reduceLeft(generator:)") { signal in
            signal |> reduceLeft(0, generator: { acc, value in .single((acc + value, .None)) })
        }
    }

    func testMetaOperatorsFreed() {
        assertFreedWhenTheSourceLetsGo("mapToSignal") { $0 |> mapToSignal { .single($0) } }
        assertFreedWhenTheSourceLetsGo("mapToQueue") { $0 |> mapToQueue { .single($0) } }
        assertFreedWhenTheSourceLetsGo("mapToThrottled") { $0 |> mapToThrottled { .single($0) } }
    }

    func testResubscribingOperatorsFreed() {
        assertFreedWhenTheSourceLetsGo("restart") { restart($0) }
        assertFreedWhenTheSourceLetsGo("then") { $0 |> then(.single(1)) }
        assertFreedWhenTheSourceLetsGo("restartIfError") { signal in
            restartIfError(signal) |> castError(TestError.self)
        }
    }

    func testRetryFreed() {
        let queue = Queue.virtualTime()
        assertFreedWhenTheSourceLetsGo("retry") { signal in
            signal |> retry(1.0, maxDelay: 1.0, onQueue: queue) |> castError(TestError.self)
        }
        // A retry that can never come (a delay the clock cannot reach) holds
        // nothing: a subscription dropped undisposed while it "waits" is
        // freed once its source has failed and let go.
        for delay in [Double.infinity, 1e300] {
            let released = Counter()
            let held = Atomic<Subscriber<Int, TestError>?>(value: nil)
            let source = Signal<Int, TestError> { subscriber in
                held.swap(subscriber)
                return EmptyDisposable
            }
            do {
                _ = (source |> retry(delay, maxDelay: delay, onQueue: queue)).start(next: { [tracker = DeinitTracker(released)] _ in
                    withExtendedLifetime(tracker) {}
                })
            }
            held.with { $0 }?.putError(.failed)
            held.swap(nil)
            XCTAssertEqual(released.count, 1, "retry(\(delay)): not freed after the source failed and let go")
            XCTAssertEqual(queue.pendingVirtualWork, 0)
        }
    }

    func testStateStaysAliveWhileAnInnerSignalCanDeliver() {
        let inner = Atomic<Subscriber<Int, TestError>?>(value: nil)
        let values = Atomic<[Int]>(value: [])
        let disposable = (Signal<Int, TestError>.single(1) |> mapToSignal { _ in
            Signal<Int, TestError> { subscriber in
                inner.swap(subscriber)
                return EmptyDisposable
            }
        }).start(next: { value in values.modify { $0 + [value] } })
        // The outer signal has completed; only the inner subscriber keeps the
        // state (and the downstream subscription) alive.
        inner.with { $0 }?.putNext(7)
        XCTAssertEqual(values.with { $0 }, [7])
        inner.swap(nil)
        withExtendedLifetime(disposable) {}
    }
}
