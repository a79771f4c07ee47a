import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class Signal_LoopTests: XCTestCase {
    private func describe(_ state: SignalFeedbackLoopState<Int>) -> String {
        switch state {
        case .initial:
            return "initial"
        case let .loop(value):
            return "loop \(value)"
        }
    }

    func testFeedbackLoopIteratesUntilOnceReturnsNil() {
        var states: [String] = []
        var values = 0
        var completed = 0
        let signal: Signal<Int, NoError> = feedbackLoop(once: { (state: SignalFeedbackLoopState<Int>) -> Signal<Int, NoError>? in
            states.append(self.describe(state))
            switch state {
            case .initial:
                return .single(1)
            case let .loop(value):
                return value < 4 ? .single(1) : nil
            }
        }, reduce: { $0 + $1 })
        XCTAssertEqual(states, [])
        _ = signal.start(next: { _ in values += 1 }, completed: { completed += 1 })
        XCTAssertEqual(states, ["initial", "loop 1", "loop 2", "loop 3", "loop 4"])
        XCTAssertEqual(values, 0)
        XCTAssertEqual(completed, 1)
    }

    func testFirstValueReplacesInitialStateThenReduceCombines() {
        var states: [String] = []
        var reduced: [String] = []
        let signal: Signal<Int, Int> = feedbackLoop(once: { (state: SignalFeedbackLoopState<Int>) -> Signal<Int, Int>? in
            states.append(self.describe(state))
            switch state {
            case .initial:
                return syncSignal([3, 4])
            case let .loop(value):
                return value < 300 ? syncSignal([5]) : nil
            }
        }, reduce: { previous, next in
            reduced.append("\(previous),\(next)")
            return previous * 10 + next
        })
        var completed = 0
        _ = signal.start(completed: { completed += 1 })
        XCTAssertEqual(states, ["initial", "loop 34", "loop 345"])
        XCTAssertEqual(reduced, ["3,4", "34,5"])
        XCTAssertEqual(completed, 1)

        // A signal without values leaves the state as it was.
        var states2: [String] = []
        let signal2: Signal<Int, Int> = feedbackLoop(once: { (state: SignalFeedbackLoopState<Int>) -> Signal<Int, Int>? in
            states2.append(self.describe(state))
            return states2.count < 3 ? syncSignal([Int]()) : nil
        }, reduce: { $0 + $1 })
        _ = signal2.start()
        XCTAssertEqual(states2, ["initial", "initial", "initial"])
    }

    func testOnceReturningNilAtOnceCompletes() {
        var completed = 0
        let signal: Signal<String, Int> = feedbackLoop(once: { (_: SignalFeedbackLoopState<Int>) -> Signal<Int, Int>? in nil }, reduce: { $0 + $1 })
        _ = signal.start(completed: { completed += 1 })
        XCTAssertEqual(completed, 1)
    }

    func testErrorPassesThroughAndEndsTheLoop() {
        let source = TestPipe<Int, Int>()
        var calls = 0
        var errors: [Int] = []
        var completed = 0
        let signal: Signal<Int, Int> = feedbackLoop(once: { (_: SignalFeedbackLoopState<Int>) -> Signal<Int, Int>? in
            calls += 1
            return source.signal()
        }, reduce: { $0 + $1 })
        _ = signal.start(error: { errors.append($0) }, completed: { completed += 1 })
        source.putNext(1)
        source.putCompletion()
        XCTAssertEqual(calls, 2)
        source.putError(6)
        source.putCompletion()
        XCTAssertEqual(errors, [6])
        XCTAssertEqual(completed, 0)
        XCTAssertEqual(calls, 2)
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testManySynchronousIterationsDoNotGrowTheStack() throws {
        onSmallStack {
            let iterations = loadCount(100_000)
            var calls = 0
            var completed = 0
            var finalState = 0
            let signal: Signal<Int, NoError> = feedbackLoop(once: { (state: SignalFeedbackLoopState<Int>) -> Signal<Int, NoError>? in
                calls += 1
                switch state {
                case .initial:
                    return .single(1)
                case let .loop(value):
                    if value >= iterations {
                        finalState = value
                        return nil
                    }
                    return .single(1)
                }
            }, reduce: { $0 + $1 })
            _ = signal.start(completed: { completed += 1 })
            XCTAssertEqual(calls, iterations + 1)
            XCTAssertEqual(finalState, iterations)
            XCTAssertEqual(completed, 1)
        }
    }

    func testAsynchronousSignals() {
        let done = DispatchSemaphore(value: 0)
        let finalState = Atomic<Int>(value: 0)
        let signal: Signal<Int, NoError> = feedbackLoop(once: { (state: SignalFeedbackLoopState<Int>) -> Signal<Int, NoError>? in
            if case let .loop(value) = state, value >= 100 {
                let _ = finalState.swap(value)
                return nil
            }
            return Signal { subscriber in
                DispatchQueue.global().async {
                    subscriber.putNext(10)
                    subscriber.putCompletion()
                }
                return EmptyDisposable
            }
        }, reduce: { $0 + $1 })
        let disposable = signal.start(completed: {
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(finalState.with { $0 }, 100)
        disposable.dispose()
    }

    func testConcurrentValuesOfOneSignalAreReducedOneAtATime() {
        for _ in 0 ..< 10 {
            let inFlight = Atomic<Int>(value: 0)
            let overlapped = Counter()
            let finalState = Atomic<Int>(value: 0)
            let signal: Signal<Int, NoError> = feedbackLoop(once: { (state: SignalFeedbackLoopState<Int>) -> Signal<Int, NoError>? in
                if case let .loop(value) = state {
                    let _ = finalState.swap(value)
                    return nil
                }
                return Signal { subscriber in
                    DispatchQueue.concurrentPerform(iterations: 4) { _ in
                        for _ in 0 ..< 500 {
                            subscriber.putNext(1)
                        }
                    }
                    subscriber.putCompletion()
                    return EmptyDisposable
                }
            }, reduce: { previous, next in
                if inFlight.modify({ $0 + 1 }) != 1 {
                    overlapped.increment()
                }
                let _ = inFlight.modify { $0 - 1 }
                return previous + next
            })
            var completed = 0
            _ = signal.start(completed: { completed += 1 })
            XCTAssertEqual(finalState.with { $0 }, 2000)
            XCTAssertEqual(overlapped.count, 0)
            XCTAssertEqual(completed, 1)
        }
    }

    func testDisposeStopsTheLoopAndReleasesClosures() {
        let source = TestPipe<Int, Int>()
        let deallocated = Counter()
        let calls = Counter()
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated)
            let signal: Signal<Int, Int> = feedbackLoop(once: { (_: SignalFeedbackLoopState<Int>) -> Signal<Int, Int>? in
                tracker.touch()
                calls.increment()
                return source.signal()
            }, reduce: { (a: Int, b: Int) -> Int in
                tracker.touch()
                return a + b
            })
            disposable = signal.start()
        }
        source.putNext(1)
        source.putCompletion()
        XCTAssertEqual(calls.count, 2)
        XCTAssertEqual(source.subscriberCount, 1)
        disposable?.dispose()
        XCTAssertEqual(source.subscriberCount, 0)
        XCTAssertEqual(deallocated.count, 1)
        source.putCompletion()
        XCTAssertEqual(calls.count, 2)
        withExtendedLifetime(disposable) {
        }
    }

    func testDisposeFromInsideOnce() {
        let box = DisposableBox()
        let source = TestPipe<Int, Int>()
        var calls = 0
        let signal: Signal<Int, Int> = feedbackLoop(once: { (_: SignalFeedbackLoopState<Int>) -> Signal<Int, Int>? in
            calls += 1
            if calls == 2 {
                box.disposable.dispose()
            }
            return source.signal()
        }, reduce: { $0 + $1 })
        box.disposable.set(signal.start())
        source.putCompletion()
        XCTAssertEqual(calls, 2)
        // The signal returned by the call that disposed is disposed as soon as it starts.
        XCTAssertEqual(source.subscriberCount, 0)
        source.putCompletion()
        XCTAssertEqual(calls, 2)
    }
}
