import XCTest
import Dispatch
@testable import SwiftSignalKit
import SwiftSignalKitTestSupport

/// `map` and `filter` are fused: a chain of them is started as one
/// subscription to its source, with the functions composed. These tests pin
/// down that the events and the lifetimes are those of separate stages.
final class FusionTests: XCTestCase {
    private enum TestError: Error, Equatable {
        case failed(Int)
    }

    private func source(_ values: Range<Int>, end: Signal<Int, TestError>) -> Signal<Int, TestError> {
        return Signal { subscriber in
            for value in values {
                subscriber.putNext(value)
            }
            return end.start(next: { subscriber.putNext($0) }, error: { subscriber.putError($0) }, completed: { subscriber.putCompletion() })
        }
    }

    func testAFusedChainDeliversTheValuesAndTheTerminalEventOfSeparateStages() {
        let chain = self.source(0 ..< 100, end: .fail(.failed(7)))
            |> map { $0 + 1 }
            |> filter { $0 % 3 == 0 }
            |> map { "v\($0)" }
        var values: [String] = []
        var errors: [TestError] = []
        var completions = 0
        _ = chain.start(next: { values.append($0) }, error: { errors.append($0) }, completed: { completions += 1 })
        XCTAssertEqual(values, (1 ... 100).filter { $0 % 3 == 0 }.map { "v\($0)" })
        XCTAssertEqual(errors, [.failed(7)])
        XCTAssertEqual(completions, 0)

        var completedValues: [Int] = []
        _ = (self.source(0 ..< 4, end: .complete()) |> filter { _ in true } |> map { $0 * 10 }).start(next: { completedValues.append($0) }, completed: { completions += 1 })
        XCTAssertEqual(completedValues, [0, 10, 20, 30])
        XCTAssertEqual(completions, 1)
    }

    func testAStageFunctionThatDisposesStopsTheRestOfTheChainAtOnce() {
        let pipe = ValuePipe<Int>()
        let disposable = MetaDisposable()
        var mapped: [Int] = []
        var filtered: [Int] = []
        var received: [Int] = []
        disposable.set((pipe.signal()
            |> map { value -> Int in
                mapped.append(value)
                if value == 3 {
                    disposable.dispose()
                }
                return value
            }
            |> filter { value in
                filtered.append(value)
                return true
            }).start(next: { received.append($0) }))
        for value in 1 ... 5 {
            pipe.putNext(value)
        }
        XCTAssertEqual(mapped, [1, 2, 3])
        XCTAssertEqual(filtered, [1, 2])
        XCTAssertEqual(received, [1, 2])
    }

    func testAPredicateThatDisposesDoesNotDeliverTheValueItAccepted() {
        let pipe = ValuePipe<Int>()
        let disposable = MetaDisposable()
        var received: [Int] = []
        disposable.set((pipe.signal()
            |> filter { value in
                if value == 2 {
                    disposable.dispose()
                }
                return true
            }
            |> map { $0 * 2 }).start(next: { received.append($0) }))
        for value in 1 ... 3 {
            pipe.putNext(value)
        }
        XCTAssertEqual(received, [2])
    }

    func testSkipWhileAsAStageCallsItsPredicateUntilAValuePassesAndStopsAtADispose() {
        // skipWhile is a fused stage (a flag per subscription): the
        // predicate runs until it first says no, never after; a dispose
        // from inside the chain stops the value it was handling.
        let pipe = ValuePipe<Int>()
        let disposable = MetaDisposable()
        var asked: [Int] = []
        var received: [Int] = []
        disposable.set((pipe.signal()
            |> skipWhile { value in
                asked.append(value)
                return value < 3
            }
            |> map { value -> Int in
                if value == 5 {
                    disposable.dispose()
                }
                return value * 10
            }).start(next: { received.append($0) }))
        for value in [1, 2, 3, 1, 4, 5, 6] {
            pipe.putNext(value)
        }
        XCTAssertEqual(asked, [1, 2, 3])
        XCTAssertEqual(received, [30, 10, 40])
    }

    func testTakeWhileAsAStageEndsTheSubscriptionAtTheFirstRefusedValue() {
        // takeWhile is a fused stage: its completion is the subscription's
        // own terminal event (the upstream disposed after it), the predicate
        // never runs after the refused value, and `inclusive` passes that
        // value first.
        for inclusive in [false, true] {
            let pipe = SignalPipe<Int, TestError>()
            var asked: [Int] = []
            var received: [Int] = []
            var completions = 0
            var errors = 0
            var disposed = 0
            _ = (pipe.signal()
                |> afterDisposed { disposed += 1 }
                |> map { $0 + 1 }
                |> takeWhile(inclusive: inclusive) { value in
                    asked.append(value)
                    return value < 3
                }
                |> map { $0 * 10 }).start(next: { received.append($0) }, error: { _ in errors += 1 }, completed: {
                    completions += 1
                })
            for value in 0 ..< 6 {
                pipe.putNext(value)
            }
            pipe.putError(.failed(1))
            pipe.putCompletion()
            XCTAssertEqual(asked, [1, 2, 3])
            XCTAssertEqual(received, inclusive ? [10, 20, 30] : [10, 20])
            XCTAssertEqual(completions, 1)
            XCTAssertEqual(errors, 0)
            XCTAssertEqual(disposed, 1, "the upstream is disposed at the end")
        }
    }

    func testTakeWhileStopsASynchronousLoopAtTheRefusedValue() {
        // restart over a source that completes at once loops inside its
        // start; the refused value's end reaches the loop, which stops (the
        // start returns), with no value after the end.
        var starts = 0
        let source = Signal<Int, TestError> { subscriber in
            starts += 1
            subscriber.putNext(starts)
            subscriber.putCompletion()
            return EmptyDisposable
        }
        var received: [Int] = []
        var completions = 0
        _ = (restart(source) |> takeWhile { $0 < 5 }).start(next: { received.append($0) }, completed: {
            completions += 1
        })
        XCTAssertEqual(received, [1, 2, 3, 4])
        XCTAssertEqual(completions, 1)
        XCTAssertEqual(starts, 5)
    }

    func testTakeWhileOverAConstantSignalCompletesOnce() {
        // A constant signal's subscription cannot be ended while it runs:
        // `single`'s own completion, which follows its value at once, is
        // the one terminal event.
        for inclusive in [false, true] {
            var received: [Int] = []
            var completions = 0
            _ = (Signal<Int, TestError>.single(5) |> takeWhile(inclusive: inclusive) { _ in false }).start(next: {
                received.append($0)
            }, completed: {
                completions += 1
            })
            XCTAssertEqual(received, inclusive ? [5] : [])
            XCTAssertEqual(completions, 1)
            var passed: [Int] = []
            completions = 0
            _ = (Signal<Int, TestError>.single(6) |> takeWhile { _ in true }).start(next: { passed.append($0) }, completed: {
                completions += 1
            })
            XCTAssertEqual(passed, [6])
            XCTAssertEqual(completions, 1)
        }
    }

    func testTakeWhileRacingTheSourcesTerminalEventDeliversExactlyOne() {
        // A refused value on one thread, the source's error or completion on
        // another: exactly one terminal event, whichever comes first, and
        // nothing after it.
        for round in 0 ..< 400 {
            let pipe = SignalPipe<Int, TestError>()
            let terminals = Atomic<Int>(value: 0)
            let late = Atomic<Int>(value: 0)
            _ = (pipe.signal() |> takeWhile { $0 < 1 }).start(next: { _ in
                if terminals.with({ $0 }) > 0 {
                    late.modify { $0 + 1 }
                }
            }, error: { _ in
                terminals.modify { $0 + 1 }
            }, completed: {
                terminals.modify { $0 + 1 }
            })
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    pipe.putNext(0)
                    pipe.putNext(1)
                } else if round % 2 == 0 {
                    pipe.putCompletion()
                } else {
                    pipe.putError(.failed(round))
                }
            }
            XCTAssertEqual(terminals.with { $0 }, 1, "round \(round)")
            XCTAssertEqual(late.with { $0 }, 0, "round \(round)")
        }
    }

    func testTheFunctionsRunEvenWithoutAValueCallback() {
        // As with separate stages: a stage calls its function whatever is
        // downstream of it.
        var calls = 0
        _ = (self.source(0 ..< 5, end: .complete()) |> map { value -> Int in
            calls += 1
            return value
        }).start()
        XCTAssertEqual(calls, 5)
    }

    func testDisposingReleasesTheComposedFunctionsAndCallbacks() {
        final class Token {}
        weak var weakInFunction: Token?
        weak var weakInCallback: Token?
        let pipe = ValuePipe<Int>()
        var disposable: (any Disposable)?
        do {
            let inFunction = Token()
            let inCallback = Token()
            weakInFunction = inFunction
            weakInCallback = inCallback
            disposable = (pipe.signal() |> map { value -> Int in
                withExtendedLifetime(inFunction) {}
                return value
            } |> filter { _ in true }).start(next: { _ in
                withExtendedLifetime(inCallback) {}
            })
        }
        XCTAssertNotNil(weakInFunction)
        XCTAssertNotNil(weakInCallback)
        disposable?.dispose()
        // The subscription held the function (composed into its callback) and
        // the callback; the signals themselves were temporaries.
        XCTAssertNil(weakInFunction)
        XCTAssertNil(weakInCallback)
        _ = pipe
    }

    func testAnUndisposedChainIsFreedWhenItsSourceLetsGoOfTheSubscriber() {
        final class Token {}
        weak var weakToken: Token?
        var held: Subscriber<Int, NoError>?
        let source = Signal<Int, NoError> { subscriber in
            held = subscriber
            return EmptyDisposable
        }
        var disposable: (any Disposable)?
        do {
            let token = Token()
            weakToken = token
            disposable = (source |> map { $0 + 1 } |> filter { _ in true }).start(next: { _ in
                withExtendedLifetime(token) {}
            })
        }
        held?.putNext(1)
        XCTAssertNotNil(weakToken)
        held = nil
        XCTAssertNil(weakToken)
        _ = disposable
    }

    func testAChainCanBeStartedThroughItsGenerator() {
        // A fused signal handed a subscriber directly (as an operator built on
        // `Signal.init` over another signal's start would do) still delivers.
        let chain = self.source(0 ..< 3, end: .complete()) |> map { $0 + 1 }
        let wrapped = Signal<Int, TestError> { subscriber in
            return chain.start(next: { subscriber.putNext($0) }, error: { subscriber.putError($0) }, completed: { subscriber.putCompletion() })
        }
        var values: [Int] = []
        var completed = false
        _ = wrapped.start(next: { values.append($0) }, completed: { completed = true })
        XCTAssertEqual(values, [1, 2, 3])
        XCTAssertTrue(completed)
    }

    func testTheConstantSignalsDeliverTheirEventsAndReleaseTheCallbacksWhenTheStartReturns() {
        // `single`, `complete`, `fail` and `never` are fused sources: no
        // subscriber, the same events and lifetimes as with one.
        func run(_ signal: Signal<Int, TestError>) -> (events: [String], releasedOnReturn: Int) {
            let released = Counter()
            var events: [String] = []
            do {
                let tracker = DeinitTracker(released)
                let disposable = signal.start(next: { value in
                    tracker.touch()
                    events.append("next \(value)")
                }, error: { error in
                    tracker.touch()
                    events.append("error \(error)")
                }, completed: {
                    tracker.touch()
                    events.append("completed")
                })
                disposable.dispose()
            }
            return (events, released.count)
        }
        let single = run(.single(5))
        XCTAssertEqual(single.events, ["next 5", "completed"])
        XCTAssertEqual(single.releasedOnReturn, 1)
        let complete = run(.complete())
        XCTAssertEqual(complete.events, ["completed"])
        XCTAssertEqual(complete.releasedOnReturn, 1)
        let fail = run(.fail(.failed(3)))
        XCTAssertEqual(fail.events, ["error failed(3)"])
        XCTAssertEqual(fail.releasedOnReturn, 1)
        let never = run(.never())
        XCTAssertEqual(never.events, [])
        XCTAssertEqual(never.releasedOnReturn, 1, "nothing can ever call them: released at once, as before")
    }

    func testFusedStagesOverAConstantSignal() {
        var values: [String] = []
        var completions = 0
        for value in 0 ..< 6 {
            _ = (Signal<Int, TestError>.single(value) |> filter { $0 % 2 == 0 } |> map { "v\($0)" }).start(next: { values.append($0) }, completed: { completions += 1 })
        }
        XCTAssertEqual(values, ["v0", "v2", "v4"])
        XCTAssertEqual(completions, 6, "a filtered-out value still completes")

        var errors: [TestError] = []
        _ = (Signal<Int, TestError>.fail(.failed(1)) |> map { $0 + 1 }).start(next: { _ in XCTFail("no value") }, error: { errors.append($0) })
        XCTAssertEqual(errors, [.failed(1)])
    }

    func testAConstantSignalHandedASubscriberOfItsOwnDeliversToIt() {
        // What an operator that runs a signal's generator with its own
        // subscriber gets from a fused constant signal.
        let recorder = Recorder<Int, TestError>()
        let subscriber = recorder.makeSubscriber()
        _ = Signal<Int, TestError>.single(9).generator(subscriber)
        XCTAssertEqual(recorder.recordedValues, [9])
        XCTAssertEqual(recorder.released.count, 1, "the subscriber completed and released its callbacks")
        let failing = Recorder<Int, TestError>()
        _ = Signal<Int, TestError>.fail(.failed(2)).generator(failing.makeSubscriber())
        XCTAssertEqual(failing.recordedErrors, [.failed(2)])
    }

    func testConcurrentEmittersAndADisposeRaceWithoutLosingOrDuplicatingBeforeTheDispose() {
        let pipe = ValuePipe<Int>()
        let count = Atomic<Int>(value: 0)
        let disposable = (pipe.signal() |> map { $0 } |> filter { _ in true }).start(next: { _ in
            count.modify { $0 + 1 }
        })
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for i in 0 ..< 1_000 {
                pipe.putNext(i)
            }
        }
        XCTAssertEqual(count.with { $0 }, 4_000)
        let group = DispatchGroup()
        for _ in 0 ..< 2 {
            DispatchQueue.global().async(group: group) {
                for i in 0 ..< 1_000 {
                    pipe.putNext(i)
                }
            }
        }
        disposable.dispose()
        let atDispose = count.with { $0 }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        // Nothing starts after dispose() returned on this thread; calls already
        // running on the emitters may finish.
        XCTAssertLessThanOrEqual(count.with { $0 } - atDispose, 2)
    }
}
