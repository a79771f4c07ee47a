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

    /// The meta operators, `then` and `mergeMap` hold their state without a
    /// Swift weak reference (`_UnretainedDisposable`: the state's deinit
    /// clears the pointer). Their subscriptions, built over a source that
    /// holds its subscriber until told to let go, each with a tracker the
    /// state's closures keep.
    private func stateOperators(_ released: Counter) -> [(String, (Signal<Int, TestError>) -> Signal<Int, TestError>)] {
        func tracked(_ name: String, _ make: @escaping (@escaping (Int) -> Signal<Int, TestError>) -> (Signal<Int, TestError>) -> Signal<Int, TestError>) -> (String, (Signal<Int, TestError>) -> Signal<Int, TestError>) {
            return (name, { signal in
                let tracker = DeinitTracker(released)
                return signal |> make({ value in withExtendedLifetime(tracker) { .single(value) } })
            })
        }
        return [
            tracked("mapToSignal") { mapToSignal($0) },
            tracked("mapToQueue") { mapToQueue($0) },
            tracked("mapToThrottled") { mapToThrottled($0) },
            tracked("mergeMap") { mergeMap($0) },
            tracked("mergeMap(capacity:)") { mergeMap(maxConcurrent: 1, capacity: 2, overflow: .dropNewest, $0) },
        ]
    }

    /// A subscription's disposable kept after its state was freed (the
    /// source let go of it) does nothing when disposed: the state's deinit
    /// cleared the pointer it would follow.
    func testDisposableKeptAfterItsStateIsFreedDoesNothing() {
        let released = Counter()
        for (index, (name, apply)) in stateOperators(released).enumerated() {
            let held = Atomic<Subscriber<Int, TestError>?>(value: nil)
            let source = Signal<Int, TestError> { subscriber in
                held.swap(subscriber)
                return EmptyDisposable
            }
            let disposable = apply(source).start()
            held.with { $0 }?.putNext(1)
            XCTAssertEqual(released.count, index, "\(name): released while the source holds the subscription")
            held.swap(nil)
            XCTAssertEqual(released.count, index + 1, "\(name): its state not freed after the source let go")
            disposable.dispose()
            disposable.dispose()
        }
    }

    /// The same, with the freed state's memory used again: states of the same
    /// operator made after it is freed (the allocator gives the block just
    /// freed back first) must all go on delivering when the old disposable
    /// is disposed. A disposable that followed its freed pointer would
    /// dispose whichever of them took that block (AddressSanitizer cannot
    /// see it: the pointer is read inside the Swift runtime).
    func testDisposableKeptAfterItsStateIsFreedLeavesNewStatesAlone() {
        let released = Counter()
        for (name, apply) in stateOperators(released) {
            let held = Atomic<Subscriber<Int, TestError>?>(value: nil)
            let source = Signal<Int, TestError> { subscriber in
                held.swap(subscriber)
                return EmptyDisposable
            }
            let disposable = apply(source).start()
            held.swap(nil)
            let pipe = ValuePipe<Int>()
            let delivered = Counter()
            let others = (0 ..< 64).map { _ in
                apply(pipe.signal() |> castError(TestError.self)).start(next: { _ in _ = delivered.increment() })
            }
            disposable.dispose()
            pipe.putNext(1)
            XCTAssertEqual(delivered.count, others.count, "\(name): the old disposable ended another subscription")
            for other in others {
                other.dispose()
            }
        }
    }

    /// The source letting go (the state's deinit) and the dispose, on two
    /// threads at once, many times: the state is freed exactly once and the
    /// dispose never follows a freed pointer (ThreadSanitizer's and
    /// AddressSanitizer's builds run this too).
    func testDisposeRacingTheStatesEnd() {
        let released = Counter()
        let operators = stateOperators(released)
        let rounds = 400
        for round in 0 ..< rounds {
            let (name, apply) = operators[round % operators.count]
            let held = Atomic<Subscriber<Int, TestError>?>(value: nil)
            let source = Signal<Int, TestError> { subscriber in
                held.swap(subscriber)
                return EmptyDisposable
            }
            nonisolated(unsafe) let disposable = apply(source).start()
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                if side == 0 {
                    held.swap(nil)
                } else {
                    disposable.dispose()
                }
            }
            XCTAssertEqual(released.count, round + 1, "\(name), round \(round)")
        }
    }
}
