import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class Signal_TakeTests: XCTestCase {
    func testTakeCompletingWhileTheGeneratorRunsDisposesWhatItReturnsOnce() {
        // `take` disposes its upstream as soon as it completes, even before
        // the upstream's generator has returned (from another thread here):
        // the disposable the generator returns is then disposed exactly once,
        // whichever comes first.
        for round in 0 ..< 300 {
            let disposed = Counter()
            let completed = Counter()
            let emitted = DispatchSemaphore(value: 0)
            let waitForEmission = round % 2 == 0
            let source = Signal<Int, NoError> { subscriber in
                DispatchQueue.global().async {
                    subscriber.putNext(1)
                    emitted.signal()
                }
                if waitForEmission {
                    emitted.wait()
                }
                return ActionDisposable {
                    disposed.increment()
                }
            }
            let disposable = (source |> take(1)).start(completed: { completed.increment() })
            if !waitForEmission {
                emitted.wait()
            }
            XCTAssertEqual(completed.count, 1)
            XCTAssertEqual(disposed.count, 1, "round \(round)")
            disposable.dispose()
            XCTAssertEqual(disposed.count, 1, "round \(round)")
        }
    }

    func testTakePassesFirstValuesThenCompletesAndDisposesUpstream() {
        let disposed = Counter()
        var values: [Int] = []
        var completed = 0
        var errors = 0
        _ = (syncSignal(Array(0 ..< 10), disposed: disposed) |> take(3)).start(next: { values.append($0) }, error: { _ in errors += 1 }, completed: { completed += 1 })
        XCTAssertEqual(values, [0, 1, 2])
        XCTAssertEqual(completed, 1)
        XCTAssertEqual(errors, 0)
        XCTAssertEqual(disposed.count, 1)
    }

    func testTakeCompletesRightAfterTheLastValue() {
        let source = TestPipe<Int, Int>()
        var events: [String] = []
        let disposable = (source.signal() |> take(2)).start(next: { events.append("next \($0)") }, error: { _ in events.append("error") }, completed: { events.append("completed") })
        source.putNext(1)
        XCTAssertEqual(events, ["next 1"])
        XCTAssertEqual(source.subscriberCount, 1)
        source.putNext(2)
        // The completion is delivered during the second putNext, and the upstream is gone.
        XCTAssertEqual(events, ["next 1", "next 2", "completed"])
        XCTAssertEqual(source.subscriberCount, 0)
        XCTAssertEqual(source.disposed, 1)
        source.putNext(3)
        source.putCompletion()
        XCTAssertEqual(events, ["next 1", "next 2", "completed"])
        disposable.dispose()
        XCTAssertEqual(source.disposed, 1)
    }

    func testTakeZeroPassesNothingAndCompletesWithUpstream() {
        let source = TestPipe<Int, Int>()
        var values: [Int] = []
        var completed = 0
        _ = (source.signal() |> take(0)).start(next: { values.append($0) }, completed: { completed += 1 })
        source.putNext(1)
        source.putNext(2)
        XCTAssertEqual(values, [])
        XCTAssertEqual(completed, 0)
        XCTAssertEqual(source.subscriberCount, 1)
        source.putCompletion()
        XCTAssertEqual(completed, 1)
        XCTAssertEqual(source.subscriberCount, 0)

        var negativeValues: [Int] = []
        var negativeErrors: [Int] = []
        _ = (source.signal() |> take(-1)).start(next: { negativeValues.append($0) }, error: { negativeErrors.append($0) })
        source.putNext(5)
        source.putError(7)
        XCTAssertEqual(negativeValues, [])
        XCTAssertEqual(negativeErrors, [7])
    }

    func testTakeLetsErrorAndEarlyCompletionThrough() {
        let source = TestPipe<Int, Int>()
        var values: [Int] = []
        var errors: [Int] = []
        var completed = 0
        _ = (source.signal() |> take(5)).start(next: { values.append($0) }, error: { errors.append($0) }, completed: { completed += 1 })
        source.putNext(1)
        source.putError(9)
        source.putNext(2)
        source.putCompletion()
        XCTAssertEqual(values, [1])
        XCTAssertEqual(errors, [9])
        XCTAssertEqual(completed, 0)

        var completed2 = 0
        var values2: [Int] = []
        _ = (syncSignal([1, 2]) |> take(5)).start(next: { values2.append($0) }, completed: { completed2 += 1 })
        XCTAssertEqual(values2, [1, 2])
        XCTAssertEqual(completed2, 1)
    }

    func testTakeDisposeStopsValues() {
        let source = TestPipe<Int, Int>()
        var values: [Int] = []
        let disposable = (source.signal() |> take(5)).start(next: { values.append($0) })
        source.putNext(1)
        disposable.dispose()
        source.putNext(2)
        XCTAssertEqual(values, [1])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testTakeReentrantEmitAndDisposeFromCallback() {
        let source = TestPipe<Int, Int>()
        var values: [Int] = []
        var completed = 0
        _ = (source.signal() |> take(3)).start(next: { value in
            values.append(value)
            // Emitting into the upstream from inside the callback must not deadlock.
            source.putNext(value + 1)
        }, completed: {
            completed += 1
        })
        source.putNext(0)
        XCTAssertEqual(values, [0, 1, 2])
        XCTAssertEqual(completed, 1)
        XCTAssertEqual(source.subscriberCount, 0)

        let box = DisposableBox()
        var values2: [Int] = []
        box.disposable.set((source.signal() |> take(10)).start(next: { value in
            values2.append(value)
            box.disposable.dispose()
        }))
        source.putNext(1)
        source.putNext(2)
        XCTAssertEqual(values2, [1])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testTakeConcurrentEmittersDeliverExactlyCountValuesBeforeCompletion() {
        for _ in 0 ..< 20 {
            let source = TestPipe<Int, Int>()
            let delivered = Counter()
            let completions = Counter()
            let deliveredAtCompletion = Atomic<Int>(value: -1)
            let disposable = (source.signal() |> take(1000)).start(next: { _ in
                delivered.increment()
            }, completed: {
                completions.increment()
                let _ = deliveredAtCompletion.swap(delivered.count)
            })
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for i in 0 ..< 400 {
                    source.putNext(thread * 1000 + i)
                }
            }
            XCTAssertEqual(delivered.count, 1000)
            XCTAssertEqual(completions.count, 1)
            XCTAssertEqual(deliveredAtCompletion.with { $0 }, 1000)
            XCTAssertEqual(source.subscriberCount, 0)
            disposable.dispose()
        }
    }

    func testSkipConcurrentEmittersDropExactlyCountValues() {
        // skip is a fused stage with one atomic counter: exactly `count`
        // values are dropped however many threads emit at once.
        for _ in 0 ..< 20 {
            let source = TestPipe<Int, Int>()
            let delivered = Counter()
            let disposable = (source.signal() |> skip(700)).start(next: { _ in
                delivered.increment()
            })
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for i in 0 ..< 400 {
                    source.putNext(thread * 1000 + i)
                }
            }
            XCTAssertEqual(delivered.count, 1600 - 700)
            disposable.dispose()
        }
    }

    func testTakeReleasesCallbacksAfterCompletionAndDispose() {
        let deallocated = Counter()
        let source = TestPipe<Int, Int>()
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated)
            disposable = (source.signal() |> take(2)).start(next: { _ in tracker.touch() })
        }
        source.putNext(1)
        XCTAssertEqual(deallocated.count, 0)
        source.putNext(2)
        XCTAssertEqual(deallocated.count, 1)
        withExtendedLifetime(disposable) {
        }

        let deallocated2 = Counter()
        var disposable2: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated2)
            let signal = source.signal() |> take(until: { (_: Int) in
                tracker.touch()
                return SignalTakeAction(passthrough: true, complete: false)
            })
            disposable2 = signal.start()
        }
        source.putNext(1)
        XCTAssertEqual(deallocated2.count, 0)
        disposable2?.dispose()
        // The signal is gone and the subscription disposed: the closure is released
        // although the disposable is still referenced.
        XCTAssertEqual(deallocated2.count, 1)
        withExtendedLifetime(disposable2) {
        }
    }

    func testSignalTakeActionStoresItsFields() {
        let action = SignalTakeAction(passthrough: true, complete: false)
        XCTAssertTrue(action.passthrough)
        XCTAssertFalse(action.complete)
        let other = SignalTakeAction(passthrough: false, complete: true)
        XCTAssertFalse(other.passthrough)
        XCTAssertTrue(other.complete)
    }

    func testTakeUntilActions() {
        let disposed = Counter()
        var asked: [Int] = []
        var values: [Int] = []
        var completed = 0
        let signal = syncSignal(Array(0 ..< 10), disposed: disposed) |> take(until: { value in
            asked.append(value)
            switch value {
            case 0:
                return SignalTakeAction(passthrough: true, complete: false)
            case 1:
                return SignalTakeAction(passthrough: false, complete: false)
            case 2:
                return SignalTakeAction(passthrough: true, complete: false)
            default:
                return SignalTakeAction(passthrough: true, complete: true)
            }
        })
        _ = signal.start(next: { values.append($0) }, completed: { completed += 1 })
        XCTAssertEqual(values, [0, 2, 3])
        XCTAssertEqual(completed, 1)
        // `until` is not asked again once it asked to complete.
        XCTAssertEqual(asked, [0, 1, 2, 3])
        XCTAssertEqual(disposed.count, 1)
    }

    func testTakeUntilCompleteWithoutPassthrough() {
        let source = TestPipe<Int, Int>()
        var events: [String] = []
        _ = (source.signal() |> take(until: { value in
            return SignalTakeAction(passthrough: value != 5, complete: value == 5)
        })).start(next: { events.append("next \($0)") }, completed: { events.append("completed") })
        source.putNext(4)
        source.putNext(5)
        source.putNext(6)
        XCTAssertEqual(events, ["next 4", "completed"])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testTakeUntilPassesErrorAndCompletion() {
        let source = TestPipe<Int, Int>()
        var errors: [Int] = []
        var completed = 0
        _ = (source.signal() |> take(until: { _ in SignalTakeAction(passthrough: true, complete: false) })).start(error: { errors.append($0) }, completed: { completed += 1 })
        source.putError(3)
        source.putCompletion()
        XCTAssertEqual(errors, [3])
        XCTAssertEqual(completed, 0)

        _ = (source.signal() |> take(until: { _ in SignalTakeAction(passthrough: true, complete: false) })).start(error: { errors.append($0) }, completed: { completed += 1 })
        source.putCompletion()
        XCTAssertEqual(completed, 1)
    }

    func testLastEmitsLastValueOnCompletion() {
        let source = TestPipe<Int, Int>()
        var events: [String] = []
        _ = last(signal: source.signal()).start(next: { events.append("next \(String(describing: $0))") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putNext(2)
        XCTAssertEqual(events, [])
        source.putNext(3)
        source.putCompletion()
        XCTAssertEqual(events, ["next Optional(3)", "completed"])
    }

    func testLastOfEmptySignalIsNil() {
        var values: [Int?] = []
        var completed = 0
        _ = last(signal: syncSignal([Int]())).start(next: { values.append($0) }, completed: { completed += 1 })
        XCTAssertEqual(values, [nil])
        XCTAssertEqual(completed, 1)
    }

    func testLastPassesErrorWithoutValue() {
        let source = TestPipe<Int, Int>()
        var values: [Int?] = []
        var errors: [Int] = []
        _ = last(signal: source.signal()).start(next: { values.append($0) }, error: { errors.append($0) })
        source.putNext(1)
        source.putError(4)
        source.putCompletion()
        XCTAssertEqual(values, [])
        XCTAssertEqual(errors, [4])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testLastDisposeDeliversNothing() {
        let source = TestPipe<Int, Int>()
        var values: [Int?] = []
        let disposable = last(signal: source.signal()).start(next: { values.append($0) })
        source.putNext(1)
        disposable.dispose()
        source.putCompletion()
        XCTAssertEqual(values, [])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    // The operators of issue 33 in this family beyond the shared marble
    // table (Tests/SwiftSignalKitTestSupport/OperatorLifecycle.swift).

    func testOperatorsThatEndEarlyStopASynchronousEndlessUpstream() {
        assertEndsAnEndlessUpstream([
            ("takeWhile", { $0 |> takeWhile { $0 < 4 } }, [1, 2, 3]),
            ("takeWhile inclusive", { $0 |> takeWhile(inclusive: true) { $0 < 4 } }, [1, 2, 3, 4]),
            ("first", { first($0) }, [1]),
            ("first(where:)", { $0 |> first(where: { $0 > 5 }) }, [6]),
            ("elementAt", { $0 |> elementAt(3) }, [4]),
            ("skip then take", { $0 |> skip(2) |> take(2) }, [3, 4]),
            ("skipWhile then take", { $0 |> skipWhile { $0 < 3 } |> take(2) }, [3, 4]),
            ("takeUntil then take", { $0 |> takeUntil(Signal<Int, NoError>.never()) |> take(2) }, [1, 2]),
        ])
    }

    func testEndingEarlyDisposesTheUpstream() {
        let source = ManualSource<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        _ = recorder.start(source.signal() |> takeWhile { $0 < 2 })
        source.put(1)
        source.put(2)
        source.put(0)
        XCTAssertEqual(recorder.events.with { $0 }, ["1", "completed"])
        XCTAssertEqual(source.active, 0)
        XCTAssertEqual(recorder.released.count, 1)
    }

    func testDisposingFromInsideAValueCallback() {
        assertDisposableFromInsideAValueCallback([
            ("skip", { $0 |> skip(1) }),
            ("skipWhile", { $0 |> skipWhile { $0 < 2 } }),
            ("takeWhile", { $0 |> takeWhile { _ in true } }),
            ("defaultIfEmpty", { $0 |> defaultIfEmpty(0) }),
            ("takeUntil", { $0 |> takeUntil(Signal<Int, TestError>.never()) }),
        ])
    }

    /// `takeUntil`: a notifier that emits during its start ends the
    /// subscription before the upstream is started.
    func testTakeUntilANotifierAtOnceNeverStartsTheUpstream() {
        let source = ManualSource<Int, TestError>()
        var completed = 0
        (source.signal() |> takeUntil(Signal<Int, TestError>.single(0))).start(completed: { completed += 1 }).dispose()
        XCTAssertEqual(completed, 1)
        XCTAssertEqual(source.starts.with { $0 }, 0)
    }

    func testTakeUntilDisposesTheUpstreamWhenTheNotifierEmits() {
        let source = ManualSource<Int, TestError>()
        let notifier = ValuePipe<Int>()
        let recorder = Recorder<Int, TestError>()
        _ = recorder.start(source.signal() |> takeUntil(notifier.signal(errorType: TestError.self)))
        source.put(1)
        notifier.putNext(0)
        source.put(2)
        XCTAssertEqual(recorder.events.with { $0 }, ["1", "completed"])
        XCTAssertEqual(source.active, 0)
    }

    func testDefaultIfEmptyOnErrorEmitsNoDefault() {
        let recorder = Recorder<Int, TestError>()
        recorder.start(Signal<Int, TestError>.fail(.first) |> defaultIfEmpty(3)).dispose()
        XCTAssertEqual(recorder.events.with { $0 }, ["error first"])
    }

    /// `skip` drops exactly `count` values however many threads emit.
    func testSkipUnderConcurrentEmission() {
        let pipe = ValuePipe<Int>()
        let passed = Counter()
        let d = (pipe.signal() |> skip(100)).start(next: { _ in passed.increment() })
        runThreads(4) { _ in
            for _ in 0 ..< 500 {
                pipe.putNext(1)
            }
        }
        XCTAssertEqual(passed.count, 2000 - 100)
        d.dispose()
    }

    func testAbandonedSubscriptionsAreFreedWhenTheSourceLetsGo() {
        assertFreedWhenAbandoned([
            ("skip", { $0 |> skip(1) }),
            ("takeWhile", { $0 |> takeWhile { _ in true } }),
            ("defaultIfEmpty", { $0 |> defaultIfEmpty(0) }),
            ("takeUntil", { $0 |> takeUntil(Signal<Int, TestError>.never()) }),
        ])
    }
}
