import XCTest
import Dispatch
@testable import SwiftSignalKit
import SwiftSignalKitTestSupport

final class SignalTests: XCTestCase {
    private enum TestError: Error, Equatable {
        case failed
    }

    // MARK: - Cold signals

    func testGeneratorDoesNotRunBeforeStart() {
        let runs = Counter()
        let signal = Signal<Int, TestError> { subscriber in
            runs.increment()
            subscriber.putNext(1)
            return EmptyDisposable
        }
        XCTAssertEqual(runs.count, 0)
        withExtendedLifetime(signal) {}
        XCTAssertEqual(runs.count, 0)
    }

    func testGeneratorRunsOncePerStartWithAFreshSubscriber() {
        let runs = Counter()
        let subscribers = Atomic<[Subscriber<Int, TestError>]>(value: [])
        let signal = Signal<Int, TestError> { subscriber in
            let run = runs.increment()
            subscribers.modify { $0 + [subscriber] }
            subscriber.putNext(run)
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let first = Recorder<Int, TestError>()
        let second = Recorder<Int, TestError>()
        _ = signal.start(next: first.next, error: first.error, completed: first.completed)
        XCTAssertEqual(runs.count, 1)
        _ = signal.start(next: second.next, error: second.error, completed: second.completed)
        XCTAssertEqual(runs.count, 2)
        XCTAssertEqual(first.recordedValues, [1])
        XCTAssertEqual(second.recordedValues, [2])
        XCTAssertEqual(first.completions.count, 1)
        XCTAssertEqual(second.completions.count, 1)
        let all = subscribers.swap([])
        XCTAssertEqual(all.count, 2)
        XCTAssertFalse(all[0] === all[1])
    }

    func testStartDeliversSynchronousEventsBeforeReturning() {
        let events = Recorder<Int, TestError>()
        let disposable = Signal<Int, TestError> { subscriber in
            subscriber.putNext(1)
            subscriber.putNext(2)
            subscriber.putError(.failed)
            subscriber.putNext(3)
            return EmptyDisposable
        }.start(next: events.next, error: events.error, completed: events.completed)
        XCTAssertEqual(events.recordedValues, [1, 2])
        XCTAssertEqual(events.recordedErrors, [.failed])
        XCTAssertEqual(events.completions.count, 0)
        disposable.dispose()
    }

    func testStartWithoutCallbacks() {
        let upstream = CountingDisposable()
        let disposable = Signal<Int, TestError> { subscriber in
            subscriber.putNext(1)
            return upstream
        }.start()
        XCTAssertEqual(upstream.count, 0)
        disposable.dispose()
        XCTAssertEqual(upstream.count, 1)
    }

    func testDisposingTheSubscriptionDisposesTheGeneratorsDisposableOnce() {
        let upstream = CountingDisposable()
        let signal = Signal<Int, TestError> { _ in
            return upstream
        }
        let disposable = signal.start()
        XCTAssertEqual(upstream.count, 0)
        disposable.dispose()
        disposable.dispose()
        XCTAssertEqual(upstream.count, 1)
    }

    func testEachSubscriptionIsIndependent() {
        let subscribers = Atomic<[Subscriber<Int, TestError>]>(value: [])
        let upstreams = Atomic<[CountingDisposable]>(value: [])
        let signal = Signal<Int, TestError> { subscriber in
            let upstream = CountingDisposable()
            subscribers.modify { $0 + [subscriber] }
            upstreams.modify { $0 + [upstream] }
            return upstream
        }
        let first = Recorder<Int, TestError>()
        let second = Recorder<Int, TestError>()
        let firstDisposable = signal.start(next: first.next)
        let secondDisposable = signal.start(next: second.next)
        firstDisposable.dispose()
        for subscriber in subscribers.with({ $0 }) {
            subscriber.putNext(7)
        }
        XCTAssertEqual(first.recordedValues, [])
        XCTAssertEqual(second.recordedValues, [7])
        XCTAssertEqual(upstreams.with { $0.map { $0.count } }, [1, 0])
        secondDisposable.dispose()
        XCTAssertEqual(upstreams.with { $0.map { $0.count } }, [1, 1])
        subscribers.swap([])
    }

    func testStartReleasesCallbacksOnDispose() {
        let released = Counter()
        let held = Atomic<Subscriber<Int, TestError>?>(value: nil)
        let source = Signal<Int, TestError> { subscriber in
            held.swap(subscriber)
            return EmptyDisposable
        }
        let disposable = source.start(next: { [tracker = DeinitTracker(released)] _ in
            withExtendedLifetime(tracker) {}
        })
        XCTAssertEqual(released.count, 0)
        disposable.dispose()
        XCTAssertEqual(released.count, 1)
        held.swap(nil)
        withExtendedLifetime(disposable) {}
    }

    // As in the original, the disposable holds its subscriber weakly: a source
    // that keeps no reference (never) cannot call back, so the callbacks go.
    func testCallbacksReleasedWhenNoSourceHoldsTheSubscriber() {
        let released = Counter()
        let disposable = Signal<Int, TestError>.never().start(next: { [tracker = DeinitTracker(released)] _ in
            withExtendedLifetime(tracker) {}
        })
        XCTAssertEqual(released.count, 1)
        disposable.dispose()
        XCTAssertEqual(released.count, 1)
    }

    // A chain through operators whose source goes away without terminating is
    // freed although its disposable was dropped undisposed (no cycle between
    // the operators' inner subscriptions).
    func testChainFreedWhenItsSourceGoesAwayUndisposed() {
        let released = Counter()
        let upstream = CountingDisposable()
        var pipe: ValuePipe<Int>? = ValuePipe<Int>()
        let recorder = Recorder<Int, NoError>()
        do {
            let signal = pipe!.signal() |> map { $0 * 2 } |> filter { $0 > 0 } |> castError(TestError.self)
            let chained = Signal<Int, TestError> { subscriber in
                let inner = signal.start(next: subscriber.putNext, error: subscriber.putError, completed: subscriber.putCompletion)
                return ActionDisposable {
                    upstream.dispose()
                    inner.dispose()
                }
            }
            _ = chained.start(next: { [tracker = DeinitTracker(released)] value in
                withExtendedLifetime(tracker) {}
                recorder.next(value)
            })
        }
        pipe!.putNext(1)
        XCTAssertEqual(recorder.recordedValues, [2])
        XCTAssertEqual(released.count, 0)
        pipe = nil
        XCTAssertEqual(released.count, 1)
        XCTAssertEqual(upstream.count, 0)
    }

    func testDisposingAfterTheSubscriberIsGoneStillDisposesTheSourceOnce() {
        let upstream = CountingDisposable()
        let disposable = Signal<Int, TestError> { _ in upstream }.start()
        disposable.dispose()
        disposable.dispose()
        XCTAssertEqual(upstream.count, 1)
    }

    func testConcurrentStartsRunTheGeneratorOncePerStart() {
        let threadCount = 8
        let perThread = 500
        let runs = Counter()
        let values = Counter()
        let completions = Counter()
        let upstreamDisposals = Counter()
        let signal = Signal<Int, TestError> { subscriber in
            runs.increment()
            subscriber.putNext(1)
            subscriber.putCompletion()
            return ActionDisposable {
                upstreamDisposals.increment()
            }
        }
        runThreads(threadCount) { _ in
            for _ in 0 ..< perThread {
                let disposable = signal.start(next: { _ in values.increment() }, completed: { completions.increment() })
                disposable.dispose()
            }
        }
        let total = threadCount * perThread
        XCTAssertEqual(runs.count, total)
        XCTAssertEqual(values.count, total)
        XCTAssertEqual(completions.count, total)
        XCTAssertEqual(upstreamDisposals.count, total)
    }

    // MARK: - start variants

    func testStartStandaloneBehavesLikeStart() {
        let upstream = CountingDisposable()
        let events = Recorder<Int, TestError>()
        let subscriberHolder = Atomic<Subscriber<Int, TestError>?>(value: nil)
        let disposable = Signal<Int, TestError> { subscriber in
            subscriberHolder.swap(subscriber)
            subscriber.putNext(1)
            return upstream
        }.startStandalone(next: events.next, error: events.error, completed: events.completed)
        XCTAssertEqual(events.recordedValues, [1])
        disposable.dispose()
        subscriberHolder.with { $0 }?.putNext(2)
        subscriberHolder.with { $0 }?.putCompletion()
        XCTAssertEqual(events.recordedValues, [1])
        XCTAssertEqual(events.completions.count, 0)
        XCTAssertEqual(upstream.count, 1)
    }

    func testStartStrictDeliversAndDisposes() {
        let upstream = CountingDisposable()
        let events = Recorder<Int, TestError>()
        let disposable = Signal<Int, TestError> { subscriber in
            subscriber.putNext(1)
            return upstream
        }.startStrict(next: events.next, error: events.error, completed: events.completed)
        XCTAssertEqual(events.recordedValues, [1])
        XCTAssertEqual(upstream.count, 0)
        disposable.dispose()
        XCTAssertEqual(upstream.count, 1)
        XCTAssertTrue(disposable is StrictDisposable)
    }

    func testStartStrictReportsALeakWithTheCallersLocation() {
        #if DEBUG
        let reports = Atomic<[String]>(value: [])
        let previous = StrictDisposable.leakHandler
        StrictDisposable.leakHandler = { file, line in
            reports.modify { $0 + ["\(file):\(line)"] }
        }
        defer {
            StrictDisposable.leakHandler = previous
        }
        let upstream = CountingDisposable()
        var line = 0
        do {
            line = #line + 1
            let disposable = Signal<Int, TestError> { _ in upstream }.startStrict()
            withExtendedLifetime(disposable) {}
        }
        XCTAssertEqual(reports.with { $0 }, ["\(#file):\(line)"])
        // A leaked subscription is reported, not disposed.
        XCTAssertEqual(upstream.count, 0)

        do {
            let disposable = Signal<Int, TestError> { _ in upstream }.startStrict()
            disposable.dispose()
        }
        XCTAssertEqual(reports.with { $0 }.count, 1)
        XCTAssertEqual(upstream.count, 1)
        #endif
    }

    // MARK: - Factories

    func testSingleEmitsTheValueThenCompletes() {
        let events = Recorder<String, TestError>()
        _ = Signal<String, TestError>.single("a").start(next: events.next, error: events.error, completed: events.completed)
        XCTAssertEqual(events.recordedValues, ["a"])
        XCTAssertEqual(events.completions.count, 1)
        XCTAssertEqual(events.recordedErrors, [])
        // Cold: a second start replays the value.
        let again = Recorder<String, TestError>()
        let signal = Signal<String, TestError>.single("b")
        _ = signal.start(next: again.next, completed: again.completed)
        _ = signal.start(next: again.next, completed: again.completed)
        XCTAssertEqual(again.recordedValues, ["b", "b"])
        XCTAssertEqual(again.completions.count, 2)
    }

    func testSingleReleasesCallbacksAfterCompleting() {
        let released = Counter()
        let disposable = Signal<Int, TestError>.single(1).start(next: { [tracker = DeinitTracker(released)] _ in
            withExtendedLifetime(tracker) {}
        })
        XCTAssertEqual(released.count, 1)
        withExtendedLifetime(disposable) {}
    }

    func testCompleteCompletesWithoutValues() {
        let events = Recorder<Int, TestError>()
        _ = Signal<Int, TestError>.complete().start(next: events.next, error: events.error, completed: events.completed)
        XCTAssertEqual(events.recordedValues, [])
        XCTAssertEqual(events.recordedErrors, [])
        XCTAssertEqual(events.completions.count, 1)
    }

    func testFailFailsWithTheError() {
        let events = Recorder<Int, TestError>()
        _ = Signal<Int, TestError>.fail(.failed).start(next: events.next, error: events.error, completed: events.completed)
        XCTAssertEqual(events.recordedValues, [])
        XCTAssertEqual(events.recordedErrors, [.failed])
        XCTAssertEqual(events.completions.count, 0)
    }

    func testNeverDeliversNothing() {
        let events = Recorder<Int, TestError>()
        let disposable = Signal<Int, TestError>.never().start(next: events.next, error: events.error, completed: events.completed)
        XCTAssertEqual(events.recordedValues, [])
        XCTAssertEqual(events.recordedErrors, [])
        XCTAssertEqual(events.completions.count, 0)
        disposable.dispose()
        XCTAssertEqual(events.completions.count, 0)
    }

    func testNoErrorAndNoValueSignals() {
        var completed = 0
        _ = Signal<NoValue, NoError>.complete().start(completed: { completed += 1 })
        XCTAssertEqual(completed, 1)
        var values: [Int] = []
        _ = Signal<Int, NoError>.single(5).start(next: { values.append($0) })
        XCTAssertEqual(values, [5])
    }

    // MARK: - identity and |>

    func testIdentityReturnsItsArgument() {
        XCTAssertEqual(identity(a: 5), 5)
        let object = Counter()
        XCTAssertTrue(identity(a: object) === object)
    }

    func testPipeOperatorAppliesLeftToRight() {
        let add: (Int) -> Int = { $0 + 1 }
        let double: (Int) -> Int = { $0 * 2 }
        XCTAssertEqual(3 |> add |> double, 8)
        XCTAssertEqual(3 |> double |> add, 7)
        let description: (Int) -> String = { "value \($0)" }
        XCTAssertEqual(4 |> add |> description, "value 5")
    }
}
