import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// The synchronous operators of issue 33 (skip, skipWhile, takeWhile, first,
/// elementAt, defaultIfEmpty, takeUntil, scan, pairwise, startWith, concat,
/// zip, withLatestFrom) beyond what the shared marble table shows: early
/// disposal of a synchronous upstream, disposing from inside a callback,
/// concurrent emission, and subscriptions dropped undisposed.
final class Signal_NewOperatorsTests: XCTestCase {
    private enum TestError: Error {
        case failed
    }

    /// An upstream that never returns from its start unless the
    /// subscription is ended early (`restart` of a single value).
    private func endless() -> Signal<Int, NoError> {
        return restart(Signal<Int, NoError>.single(1)) |> scan(0, +)
    }

    func testOperatorsThatEndEarlyStopASynchronousEndlessUpstream() {
        let cases: [(String, (Signal<Int, NoError>) -> Signal<Int, NoError>, [Int])] = [
            ("takeWhile", { $0 |> takeWhile { $0 < 4 } }, [1, 2, 3]),
            ("takeWhile inclusive", { $0 |> takeWhile(inclusive: true) { $0 < 4 } }, [1, 2, 3, 4]),
            ("first", { first($0) }, [1]),
            ("first(where:)", { $0 |> first(where: { $0 > 5 }) }, [6]),
            ("elementAt", { $0 |> elementAt(3) }, [4]),
            ("skip then take", { $0 |> skip(2) |> take(2) }, [3, 4]),
            ("skipWhile then take", { $0 |> skipWhile { $0 < 3 } |> take(2) }, [3, 4]),
            ("pairwise then take", { $0 |> pairwise |> map { $0.0 * 10 + $0.1 } |> take(2) }, [12, 23]),
            ("startWith then take", { $0 |> startWith(0) |> take(3) }, [0, 1, 2]),
            ("takeUntil then take", { $0 |> takeUntil(Signal<Int, NoError>.never()) |> take(2) }, [1, 2]),
            // The first input completes after one value: the pair it makes
            // with the endless one completes the zip.
            ("zip", { zip(Signal<Int, NoError>.single(10), $0) |> map { $0.0 + $0.1 } }, [11]),
        ]
        for (name, apply, expected) in cases {
            var values: [Int] = []
            var completed = 0
            apply(self.endless()).start(next: { values.append($0) }, completed: { completed += 1 }).dispose()
            XCTAssertEqual(values, expected, name)
            XCTAssertEqual(completed, 1, name)
        }
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

    /// Each operator's subscription disposed from inside its own value
    /// callback receives nothing more and lets go of the upstream.
    func testDisposingFromInsideAValueCallback() {
        let cases: [(String, (Signal<Int, TestError>) -> Signal<Int, TestError>)] = [
            ("skip", { $0 |> skip(1) }),
            ("skipWhile", { $0 |> skipWhile { $0 < 2 } }),
            ("takeWhile", { $0 |> takeWhile { _ in true } }),
            ("defaultIfEmpty", { $0 |> defaultIfEmpty(0) }),
            ("scan", { $0 |> scan(0, +) }),
            ("pairwise", { $0 |> pairwise |> map { $0.1 } }),
            ("startWith", { $0 |> startWith(0) |> skip(1) }),
            ("takeUntil", { $0 |> takeUntil(Signal<Int, TestError>.never()) }),
            ("zip", { signal in zip(signal, signal) |> map { $0.0 } }),
            ("withLatestFrom", { $0 |> withLatestFrom(Signal<Int, TestError>.single(5)) |> map { $0.0 } }),
            ("concat", { concat([$0, .single(9)]) }),
        ]
        for (name, apply) in cases {
            let source = TestPipe<Int, TestError>()
            let box = DisposableBox()
            var values: [Int] = []
            box.disposable.set(apply(source.signal()).start(next: { value in
                values.append(value)
                box.disposable.dispose()
            }, completed: {
                values.append(-1)
            }))
            for value in 1 ... 4 {
                source.putNext(value)
            }
            source.putCompletion()
            XCTAssertEqual(values.count, 1, "\(name): \(values)")
            XCTAssertEqual(source.subscriberCount, 0, name)
        }
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
        recorder.start(Signal<Int, TestError>.fail(.failed) |> defaultIfEmpty(3)).dispose()
        XCTAssertEqual(recorder.events.with { $0 }, ["error failed"])
    }

    /// `skip` drops exactly `count` values however many threads emit; `scan`
    /// folds every value once.
    func testConcurrentEmission() {
        let pipe = ValuePipe<Int>()
        let passed = Counter()
        let total = Atomic(value: 0)
        let d1 = (pipe.signal() |> skip(100)).start(next: { _ in passed.increment() })
        let d2 = (pipe.signal() |> scan(0, +)).start(next: { sum in _ = total.swap(sum) })
        runThreads(4) { _ in
            for _ in 0 ..< 500 {
                pipe.putNext(1)
            }
        }
        XCTAssertEqual(passed.count, 2000 - 100)
        XCTAssertEqual(total.with { $0 }, 2000, "the last folded value counts every value")
        d1.dispose()
        d2.dispose()
    }

    /// A zip's waiting values are released when the subscription ends.
    func testZipReleasesWaitingValuesOnDisposal() {
        let a = ValuePipe<DeinitTracker>()
        let b = ValuePipe<DeinitTracker>()
        let released = Counter()
        let d = zip(a.signal(), b.signal()).start()
        a.putNext(DeinitTracker(released))
        a.putNext(DeinitTracker(released))
        XCTAssertEqual(released.count, 0, "held until paired")
        d.dispose()
        XCTAssertEqual(released.count, 2)
    }

    func testZipOfNothingCompletes() {
        var completed = 0
        zip([Signal<Int, NoError>]()).start(completed: { completed += 1 }).dispose()
        XCTAssertEqual(completed, 1)
    }

    func testConcatOfNothingCompletesAndOfManySynchronousOnesDoesNotGrowTheStack() {
        var completed = 0
        concat([Signal<Int, NoError>]()).start(completed: { completed += 1 }).dispose()
        XCTAssertEqual(completed, 1)
        var sum = 0
        concat(Array(repeating: Signal<Int, NoError>.single(1), count: 100_000)).start(next: { sum += $0 }).dispose()
        XCTAssertEqual(sum, 100_000)
    }

    /// A subscription dropped without being disposed is freed, callbacks
    /// included, once its sources let go (no cycle through the operator's
    /// state).
    func testAbandonedSubscriptionsAreFreedWhenTheSourceLetsGo() {
        let cases: [(String, (Signal<Int, TestError>) -> Signal<Int, TestError>)] = [
            ("skip", { $0 |> skip(1) }),
            ("takeWhile", { $0 |> takeWhile { _ in true } }),
            ("scan", { $0 |> scan(0, +) }),
            ("pairwise", { $0 |> pairwise |> map { $0.1 } }),
            ("defaultIfEmpty", { $0 |> defaultIfEmpty(0) }),
            ("startWith", { $0 |> startWith(0) }),
            ("takeUntil", { $0 |> takeUntil(Signal<Int, TestError>.never()) }),
            ("zip", { zip($0, Signal<Int, TestError>.never()) |> map { $0.0 } }),
            ("withLatestFrom", { $0 |> withLatestFrom(Signal<Int, TestError>.never()) |> map { $0.0 } }),
            ("concat", { concat([$0, .single(1)]) }),
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
