import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class Signal_ReduceTests: XCTestCase {
    // MARK: reduceLeft(value:f:)

    func testReduceLeftEmitsAccumulatedValueOnCompletion() {
        let source = TestPipe<Int, Int>()
        var events: [String] = []
        _ = (source.signal() |> reduceLeft(value: 10, f: { $0 + $1 })).start(next: { events.append("next \($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putNext(2)
        source.putNext(3)
        XCTAssertEqual(events, [])
        source.putCompletion()
        XCTAssertEqual(events, ["next 16", "completed"])
        XCTAssertEqual(source.subscriberCount, 0)

        var empty: [Int] = []
        _ = (syncSignal([Int]()) |> reduceLeft(value: 7, f: { $0 + $1 })).start(next: { empty.append($0) })
        XCTAssertEqual(empty, [7])
    }

    func testReduceLeftFoldsInOrder() {
        var values: [[Int]] = []
        _ = (syncSignal([[1], [2], [3]]) |> reduceLeft(value: [0], f: { $0 + $1 })).start(next: { values.append($0) })
        XCTAssertEqual(values, [[0, 1, 2, 3]])
    }

    func testReduceLeftPassesErrorWithoutValue() {
        let source = TestPipe<Int, Int>()
        var events: [String] = []
        _ = (source.signal() |> reduceLeft(value: 0, f: { $0 + $1 })).start(next: { events.append("next \($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putError(5)
        source.putCompletion()
        XCTAssertEqual(events, ["error 5"])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testReduceLeftDisposeDeliversNothingAndReleasesClosure() {
        let source = TestPipe<Int, Int>()
        let deallocated = Counter()
        var values: [Int] = []
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated)
            disposable = (source.signal() |> reduceLeft(value: 0, f: { (a: Int, b: Int) -> Int in
                tracker.touch()
                return a + b
            })).start(next: { values.append($0) })
        }
        source.putNext(1)
        disposable?.dispose()
        source.putCompletion()
        XCTAssertEqual(values, [])
        XCTAssertEqual(source.subscriberCount, 0)
        XCTAssertEqual(deallocated.count, 1)
        withExtendedLifetime(disposable) {
        }
    }

    func testReduceLeftSerializesConcurrentValues() {
        for _ in 0 ..< 10 {
            let source = TestPipe<Int, Int>()
            let inFlight = Atomic<Int>(value: 0)
            let overlapped = Counter()
            let results = Atomic<[Int]>(value: [])
            let completed = Counter()
            let disposable = (source.signal() |> reduceLeft(value: 0, f: { (a: Int, b: Int) -> Int in
                if inFlight.modify({ $0 + 1 }) != 1 {
                    overlapped.increment()
                }
                let result = a + b
                let _ = inFlight.modify { $0 - 1 }
                return result
            })).start(next: { value in
                let _ = results.modify { $0 + [value] }
            }, completed: {
                completed.increment()
            })
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0 ..< 2500 {
                    source.putNext(1)
                }
            }
            source.putCompletion()
            XCTAssertEqual(results.with { $0 }, [10_000])
            XCTAssertEqual(completed.count, 1)
            XCTAssertEqual(overlapped.count, 0)
            disposable.dispose()
        }
    }

    func testReduceLeftReentrantEmitIsQueuedInOrder() {
        let source = TestPipe<[Int], Int>()
        var folded: [[Int]] = []
        var values: [[Int]] = []
        _ = (source.signal() |> reduceLeft(value: [Int](), f: { (acc: [Int], value: [Int]) -> [Int] in
            folded.append(value)
            if value[0] < 3 {
                // Re-entrant: queued and folded after this call returns.
                source.putNext([value[0] + 1])
                XCTAssertEqual(folded.count, value[0])
            }
            return acc + value
        })).start(next: { values.append($0) })
        source.putNext([1])
        XCTAssertEqual(folded, [[1], [2], [3]])
        source.putCompletion()
        XCTAssertEqual(values, [[1, 2, 3]])
    }

    // MARK: reduceLeft(value:f:) with emit

    func testReduceLeftWithEmitDeliversIntermediateValues() {
        let source = TestPipe<Int, Int>()
        var events: [String] = []
        _ = (source.signal() |> reduceLeft(value: 0, f: { (acc: Int, value: Int, emit: (Int) -> Void) -> Int in
            let sum = acc + value
            if value % 2 == 0 {
                emit(sum)
            }
            return sum
        })).start(next: { events.append("next \($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putNext(2)
        XCTAssertEqual(events, ["next 3"])
        source.putNext(3)
        source.putNext(4)
        source.putCompletion()
        XCTAssertEqual(events, ["next 3", "next 10", "next 10", "completed"])
    }

    func testReduceLeftWithEmitPassesErrorAndDispose() {
        let source = TestPipe<Int, Int>()
        var events: [String] = []
        _ = (source.signal() |> reduceLeft(value: 0, f: { (acc: Int, value: Int, emit: (Int) -> Void) -> Int in
            emit(value)
            return acc + value
        })).start(next: { events.append("next \($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putError(2)
        source.putNext(3)
        XCTAssertEqual(events, ["next 1", "error 2"])

        let box = DisposableBox()
        var values: [Int] = []
        box.disposable.set((source.signal() |> reduceLeft(value: 0, f: { (acc: Int, value: Int, emit: (Int) -> Void) -> Int in
            emit(value)
            return acc + value
        })).start(next: { value in
            values.append(value)
            box.disposable.dispose()
        }))
        source.putNext(1)
        source.putNext(2)
        source.putCompletion()
        XCTAssertEqual(values, [1])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    // MARK: reduceLeft(_:generator:)

    func testGeneratorReduceWithSynchronousSignals() {
        var calls: [String] = []
        var values: [Int] = []
        var completed = 0
        _ = (syncSignal([1, 2, 3]) |> reduceLeft(100, generator: { (current: Int, value: Int) -> Signal<(Int, Passthrough<Int>), Int> in
            calls.append("\(current)+\(value)")
            let sum = current + value
            return .single((sum, value == 2 ? .None : .Some(sum * 10)))
        })).start(next: { values.append($0) }, completed: { completed += 1 })
        XCTAssertEqual(calls, ["100+1", "101+2", "103+3"])
        XCTAssertEqual(values, [1010, 1060, 106])
        XCTAssertEqual(completed, 1)
    }

    func testGeneratorReduceQueuesValuesWhileASignalRuns() {
        let upstream = TestPipe<Int, Int>()
        let generated = [TestPipe<(Int, Passthrough<Int>), Int>(), TestPipe<(Int, Passthrough<Int>), Int>()]
        var calls: [String] = []
        var events: [String] = []
        _ = (upstream.signal() |> reduceLeft(0, generator: { (current: Int, value: Int) -> Signal<(Int, Passthrough<Int>), Int> in
            calls.append("\(current)+\(value)")
            return generated[calls.count - 1].signal()
        })).start(next: { events.append("next \($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        upstream.putNext(1)
        upstream.putNext(2)
        XCTAssertEqual(calls, ["0+1"])
        generated[0].putNext((5, .Some(50)))
        generated[0].putNext((7, .None))
        XCTAssertEqual(events, ["next 50"])
        upstream.putCompletion()
        XCTAssertEqual(events, ["next 50"])
        generated[0].putCompletion()
        // The queued value is processed with the updated current value.
        XCTAssertEqual(calls, ["0+1", "7+2"])
        XCTAssertEqual(events, ["next 50"])
        generated[1].putNext((9, .Some(90)))
        generated[1].putCompletion()
        XCTAssertEqual(events, ["next 50", "next 90", "next 9", "completed"])
        XCTAssertEqual(upstream.subscriberCount, 0)
        XCTAssertEqual(generated[0].subscriberCount, 0)
        XCTAssertEqual(generated[1].subscriberCount, 0)
    }

    func testGeneratorReduceErrorsPassThrough() {
        let upstream = TestPipe<Int, Int>()
        let generated = TestPipe<(Int, Passthrough<Int>), Int>()
        var calls = 0
        var events: [String] = []
        _ = (upstream.signal() |> reduceLeft(0, generator: { (_: Int, _: Int) -> Signal<(Int, Passthrough<Int>), Int> in
            calls += 1
            return generated.signal()
        })).start(next: { events.append("next \($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        upstream.putNext(1)
        upstream.putNext(2)
        generated.putError(3)
        XCTAssertEqual(events, ["error 3"])
        XCTAssertEqual(calls, 1)
        XCTAssertEqual(upstream.subscriberCount, 0)
        XCTAssertEqual(generated.subscriberCount, 0)

        // An upstream error passes at once and disposes the running signal.
        var events2: [String] = []
        _ = (upstream.signal() |> reduceLeft(0, generator: { (_: Int, _: Int) -> Signal<(Int, Passthrough<Int>), Int> in
            return generated.signal()
        })).start(next: { events2.append("next \($0)") }, error: { events2.append("error \($0)") }, completed: { events2.append("completed") })
        upstream.putNext(1)
        XCTAssertEqual(generated.subscriberCount, 1)
        upstream.putError(4)
        XCTAssertEqual(events2, ["error 4"])
        XCTAssertEqual(generated.subscriberCount, 0)
    }

    func testGeneratorReduceManySynchronousSignalsDoNotGrowTheStack() throws {
        onSmallStack {
            let count = loadCount(100_000)
            let upstream = TestPipe<Int, Int>()
            let first = TestPipe<(Int, Passthrough<Int>), Int>()
            var values: [Int] = []
            var completed = 0
            _ = (upstream.signal() |> reduceLeft(0, generator: { (current: Int, value: Int) -> Signal<(Int, Passthrough<Int>), Int> in
                if value == 0 {
                    return first.signal()
                }
                return .single((current + value, .Some(value)))
            })).start(next: { value in
                values.append(value)
            }, completed: {
                completed += 1
            })
            // The first value's signal stays open while the others queue up.
            upstream.putNext(0)
            for i in 1 ... count {
                upstream.putNext(i)
            }
            upstream.putCompletion()
            XCTAssertEqual(values.count, 0)
            // Completing it drains the whole queue with synchronous signals, in a loop.
            first.putNext((0, .Some(-1)))
            first.putCompletion()
            XCTAssertEqual(values.count, count + 2)
            XCTAssertEqual(values.first, -1)
            XCTAssertTrue(values[1 ... count] == ArraySlice(1 ... count), "passthrough values out of order")
            XCTAssertEqual(values.last, count * (count + 1) / 2)
            XCTAssertEqual(completed, 1)
        }
    }

    func testGeneratorReduceConcurrentUpstream() {
        for _ in 0 ..< 10 {
            let upstream = TestPipe<Int, Int>()
            let results = Atomic<[Int]>(value: [])
            let passthroughs = Counter()
            let inFlight = Atomic<Int>(value: 0)
            let overlapped = Counter()
            let disposable = (upstream.signal() |> reduceLeft(0, generator: { (current: Int, value: Int) -> Signal<(Int, Passthrough<Int>), Int> in
                if inFlight.modify({ $0 + 1 }) != 1 {
                    overlapped.increment()
                }
                let _ = inFlight.modify { $0 - 1 }
                return .single((current + value, .Some(value)))
            })).start(next: { value in
                if value == 1 {
                    passthroughs.increment()
                } else {
                    let _ = results.modify { $0 + [value] }
                }
            })
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0 ..< 500 {
                    upstream.putNext(1)
                }
            }
            upstream.putCompletion()
            XCTAssertEqual(passthroughs.count, 2000)
            XCTAssertEqual(results.with { $0 }, [2000])
            XCTAssertEqual(overlapped.count, 0)
            disposable.dispose()
        }
    }

    func testGeneratorReduceAsynchronousSignals() {
        let done = DispatchSemaphore(value: 0)
        let results = Atomic<[Int]>(value: [])
        let disposable = (syncSignal(Array(1 ... 100)) |> reduceLeft(0, generator: { (current: Int, value: Int) -> Signal<(Int, Passthrough<Int>), Int> in
            return Signal { subscriber in
                DispatchQueue.global().async {
                    subscriber.putNext((current + value, .None))
                    subscriber.putCompletion()
                }
                return EmptyDisposable
            }
        })).start(next: { value in
            let _ = results.modify { $0 + [value] }
        }, completed: {
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(results.with { $0 }, [5050])
        disposable.dispose()
    }

    func testGeneratorReduceDisposeReleasesEverything() {
        let upstream = TestPipe<Int, Int>()
        let generated = TestPipe<(Int, Passthrough<Int>), Int>()
        let deallocated = Counter()
        var events: [String] = []
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated)
            disposable = (upstream.signal() |> reduceLeft(0, generator: { (_: Int, _: Int) -> Signal<(Int, Passthrough<Int>), Int> in
                tracker.touch()
                return generated.signal()
            })).start(next: { events.append("next \($0)") }, completed: { events.append("completed") })
        }
        upstream.putNext(1)
        upstream.putNext(2)
        XCTAssertEqual(generated.subscriberCount, 1)
        disposable?.dispose()
        XCTAssertEqual(generated.subscriberCount, 0)
        XCTAssertEqual(upstream.subscriberCount, 0)
        XCTAssertEqual(deallocated.count, 1)
        generated.putNext((1, .Some(1)))
        generated.putCompletion()
        upstream.putCompletion()
        XCTAssertEqual(events, [])
        withExtendedLifetime(disposable) {
        }
    }

    func testPassthroughCases() {
        let values: [Passthrough<Int>] = [.None, .Some(3)]
        var described: [String] = []
        for value in values {
            switch value {
            case .None:
                described.append("none")
            case let .Some(x):
                described.append("some \(x)")
            }
        }
        XCTAssertEqual(described, ["none", "some 3"])
    }

    // scan and pairwise (issue 33) beyond the shared marble table
    // (Tests/SwiftSignalKitTestSupport/OperatorLifecycle.swift).

    func testOperatorsThatEndEarlyStopASynchronousEndlessUpstream() {
        assertEndsAnEndlessUpstream([
            ("pairwise then take", { $0 |> pairwise |> map { $0.0 * 10 + $0.1 } |> take(2) }, [12, 23]),
        ])
    }

    func testDisposingFromInsideAValueCallback() {
        assertDisposableFromInsideAValueCallback([
            ("scan", { $0 |> scan(0, +) }),
            ("pairwise", { $0 |> pairwise |> map { $0.1 } }),
        ])
    }

    /// A fold queued behind another thread's (its put returned at once) is
    /// not run once the subscription is disposed: no callback begins after
    /// the dispose has returned (the fold ran on, its results dropped,
    /// before; a C fold that failed was likewise called for the values
    /// queued behind it, after its error had been delivered).
    func testFoldsQueuedBehindAnotherThreadsAreNotRunAfterADispose() {
        for stage in ["scan", "reduceLeft"] {
            let pipe = ValuePipe<Int>()
            let inFold = DispatchSemaphore(value: 0)
            let leaveFold = DispatchSemaphore(value: 0)
            let calls = Atomic(value: [Int]())
            let fold: (Int, Int) -> Int = { accumulator, value in
                _ = calls.modify { $0 + [value] }
                if value == 1 {
                    inFold.signal()
                    leaveFold.wait()
                }
                return accumulator + value
            }
            let signal: Signal<Int, NoError>
            if stage == "scan" {
                signal = pipe.signal() |> scan(0, fold)
            } else {
                signal = pipe.signal() |> reduceLeft(value: 0, f: fold)
            }
            let disposable = signal.start(next: { _ in })
            let folding = DispatchSemaphore(value: 0)
            startDetachedThread(stackSize: 1 << 20) {
                pipe.putNext(1)
                folding.signal()
            }
            inFold.wait()
            // Another thread's puts: queued behind the fold, they return.
            let queued = DispatchSemaphore(value: 0)
            startDetachedThread(stackSize: 1 << 20) {
                for value in 2 ... 4 {
                    pipe.putNext(value)
                }
                queued.signal()
            }
            queued.wait()
            disposable.dispose()
            leaveFold.signal()
            folding.wait()
            XCTAssertEqual(calls.with { $0 }, [1], "\(stage): no fold begins after the dispose returned")
        }
    }

    /// Values queued behind another thread's fold (their puts returned)
    /// before a completion is put on a third thread are folded and
    /// delivered before that completion, over a pipe and over a
    /// generator's subscriber, as the unfused chain delivers them: a
    /// terminal event waits for the value calls in flight, and the values
    /// those calls had taken in are part of them. (The fused stages
    /// dropped them: the completion's thread marked the subscription ended
    /// at once, before the calls in flight had returned.)
    func testValuesQueuedBehindAFoldBeforeACompletionAreDeliveredBeforeIt() {
        for source in ["pipe", "generator"] {
            for stage in ["scan", "map after scan"] {
                let input = PipeOrGenerator(source)
                let upstream = input.signal
                let putNext = input.putNext
                let inFold = DispatchSemaphore(value: 0)
                let leaveFold = DispatchSemaphore(value: 0)
                let fold: (Int, Int) -> Int = { accumulator, value in
                    if value == 1 {
                        inFold.signal()
                        leaveFold.wait()
                    }
                    return accumulator + value
                }
                var signal = upstream |> scan(0, fold)
                if stage == "map after scan" {
                    signal = signal |> map { $0 * 10 }
                }
                let events = Atomic(value: [String]())
                let disposable = signal.start(next: { value in
                    _ = events.modify { $0 + ["\(value)"] }
                }, completed: {
                    _ = events.modify { $0 + ["completed"] }
                })
                let folding = DispatchSemaphore(value: 0)
                startDetachedThread(stackSize: 1 << 20) {
                    putNext(1)
                    folding.signal()
                }
                inFold.wait()
                let queued = DispatchSemaphore(value: 0)
                startDetachedThread(stackSize: 1 << 20) {
                    for value in 2 ... 4 {
                        putNext(value)
                    }
                    queued.signal()
                }
                queued.wait()
                input.putCompletion()
                leaveFold.signal()
                folding.wait()
                let scale = stage == "scan" ? 1 : 10
                XCTAssertEqual(events.with { $0 }, ["\(1 * scale)", "\(3 * scale)", "\(6 * scale)", "\(10 * scale)", "completed"],
                               "\(source), \(stage): the values taken in before the completion, then the completion")
                disposable.dispose()
            }
        }
    }

    /// The same when the completion is put from inside the value callback of
    /// the thread running the step (it ends its own stream): the value
    /// another thread queued behind that step meanwhile (its put returned)
    /// is delivered before the completion, which the stage's gate holds
    /// behind it; through a second `scan` too, and over a pipe. (Over a
    /// generator's subscriber the queued value was dropped: the
    /// subscription was marked ended when the completion reached the gate,
    /// not when the gate passed it on.)
    func testAValueQueuedBehindAStepIsDeliveredBeforeACompletionPutFromInsideACallback() {
        for source in ["generator", "pipe"] {
            for stage in ["scan", "pairwise", "scan then scan"] {
                let input = PipeOrGenerator(source)
                let upstream = input.signal
                let putNext = input.putNext
                let putCompletion = input.putCompletion
                let signal: Signal<Int, NoError>
                switch stage {
                case "scan":
                    signal = upstream |> scan(0, +)
                case "pairwise":
                    signal = upstream |> pairwise |> map { $0.0 * 10 + $0.1 }
                default:
                    signal = upstream |> scan(0, +) |> scan(0, +)
                }
                let inNext = DispatchSemaphore(value: 0)
                let go = DispatchSemaphore(value: 0)
                // The thread that puts 1, and holds its callback (0: none yet).
                let holder = Atomic<UInt>(value: 0)
                let events = Atomic(value: [String]())
                let disposable = signal.start(next: { value in
                    _ = events.modify { $0 + ["\(value)"] }
                    if holder.with({ $0 }) == UInt(pthread_self()) {
                        _ = holder.swap(0)
                        inNext.signal()
                        go.wait()
                        putCompletion()
                    }
                }, completed: {
                    _ = events.modify { $0 + ["completed"] }
                })
                if stage == "pairwise" {
                    putNext(0)
                }
                let holderDone = DispatchSemaphore(value: 0)
                startDetachedThread(stackSize: 1 << 20) {
                    _ = holder.swap(UInt(pthread_self()))
                    putNext(1)
                    holderDone.signal()
                }
                inNext.wait()
                let queued = DispatchSemaphore(value: 0)
                startDetachedThread(stackSize: 1 << 20) {
                    putNext(2)
                    queued.signal()
                }
                queued.wait()
                go.signal()
                holderDone.wait()
                let expected: [String]
                switch stage {
                case "scan":
                    expected = ["1", "3", "completed"]
                case "pairwise":
                    expected = ["1", "12", "completed"]
                default:
                    expected = ["1", "4", "completed"]
                }
                XCTAssertEqual(events.with { $0 }, expected, "\(source), \(stage): the queued value, then the completion")
                disposable.dispose()
            }
        }
    }

    /// A `scan` over a constant signal, which completes through the stage's
    /// gate, leaves every other constant signal's subscription delivering:
    /// their subscriptions share one flags object, which the stage's hold
    /// of the completion must not write (it did, and from then on the
    /// fused stages over any constant signal dropped every value: the model
    /// tester's shrunk case, `skipWhile` over `just([0])`).
    func testAScanOverAConstantSignalLeavesOtherConstantSignalsDelivering() {
        var folded: [Int] = []
        _ = (Signal<Int, NoError>.single(1) |> scan(0, +)).start(next: { folded.append($0) })
        XCTAssertEqual(folded, [1])
        var values: [Int] = []
        var completed = false
        _ = (Signal<Int, NoError>.single(0) |> skipWhile { $0 > 0 } |> map { $0 + 5 }).start(next: { values.append($0) }, completed: { completed = true })
        XCTAssertEqual(values, [5], "a constant signal's fused stages still deliver")
        XCTAssertTrue(completed)
    }

    /// `scan` folds every value once however many threads emit.
    func testScanUnderConcurrentEmission() {
        let pipe = ValuePipe<Int>()
        let total = Atomic(value: 0)
        let d = (pipe.signal() |> scan(0, +)).start(next: { sum in _ = total.swap(sum) })
        runThreads(4) { _ in
            for _ in 0 ..< 500 {
                pipe.putNext(1)
            }
        }
        XCTAssertEqual(total.with { $0 }, 2000, "the last folded value counts every value")
        d.dispose()
    }

    func testAbandonedSubscriptionsAreFreedWhenTheSourceLetsGo() {
        assertFreedWhenAbandoned([
            ("scan", { $0 |> scan(0, +) }),
            ("pairwise", { $0 |> pairwise |> map { $0.1 } }),
        ])
    }
}

/// A source of the tests that run a case over a pipe and over a generator
/// (`kind` "pipe" or "generator"): its signal, started once, and puts into
/// the pipe or into the generator's subscriber.
private final class PipeOrGenerator: @unchecked Sendable {
    let pipe = SignalPipe<Int, NoError>()
    let subscriber = Atomic<Subscriber<Int, NoError>?>(value: nil)
    let isPipe: Bool

    init(_ kind: String) {
        self.isPipe = kind == "pipe"
    }

    var signal: Signal<Int, NoError> {
        if self.isPipe {
            return self.pipe.signal()
        }
        return Signal { subscriber in
            _ = self.subscriber.swap(subscriber)
            return EmptyDisposable
        }
    }

    func putNext(_ value: Int) {
        if self.isPipe {
            self.pipe.putNext(value)
        } else {
            self.subscriber.with { $0 }!.putNext(value)
        }
    }

    func putCompletion() {
        if self.isPipe {
            self.pipe.putCompletion()
        } else {
            self.subscriber.with { $0 }!.putCompletion()
        }
    }
}
