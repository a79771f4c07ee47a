import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class Signal_MappingTests: XCTestCase {
    private struct TestError: Equatable {
        let code: Int
    }

    func testMapFilterChain() {
        var values: [Int] = []
        var completed = 0
        let source = Signal<Int, NoError> { subscriber in
            for i in 0 ..< 10 {
                subscriber.putNext(i)
            }
            subscriber.putCompletion()
            return EmptyDisposable
        }
        _ = (source |> map { $0 + 1 } |> filter { $0 % 2 == 0 }).start(next: { values.append($0) }, completed: { completed += 1 })
        XCTAssertEqual(values, [2, 4, 6, 8, 10])
        XCTAssertEqual(completed, 1)
    }

    // MARK: map

    func testMapTransformsValuesAndPassesTerminalEvents() {
        let source = TestPipe<Int, Int>()
        var events: [String] = []
        _ = (source.signal() |> map { "v\($0)" }).start(next: { events.append($0) }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putNext(2)
        source.putError(3)
        source.putNext(4)
        source.putCompletion()
        XCTAssertEqual(events, ["v1", "v2", "error 3"])
        XCTAssertEqual(source.subscriberCount, 0)

        var completed = 0
        _ = (syncSignal([1]) |> map { $0 * 2 }).start(completed: { completed += 1 })
        XCTAssertEqual(completed, 1)
    }

    func testMapDisposeStopsValuesAndReleasesClosure() {
        let source = TestPipe<Int, Int>()
        let deallocated = Counter()
        var values: [Int] = []
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated)
            disposable = (source.signal() |> map { (value: Int) -> Int in
                tracker.touch()
                return value * 10
            }).start(next: { values.append($0) })
        }
        source.putNext(1)
        XCTAssertEqual(deallocated.count, 0)
        disposable?.dispose()
        source.putNext(2)
        XCTAssertEqual(values, [10])
        XCTAssertEqual(source.subscriberCount, 0)
        XCTAssertEqual(deallocated.count, 1)
        withExtendedLifetime(disposable) {
        }
    }

    func testMapReentrantEmitAndConcurrentEmitters() {
        let source = TestPipe<Int, Int>()
        var values: [Int] = []
        _ = (source.signal() |> map { (value: Int) -> Int in
            if value < 3 {
                source.putNext(value + 1)
            }
            return value
        }).start(next: { values.append($0) })
        source.putNext(0)
        // The re-entrant emissions are delivered first (depth first), without deadlock.
        XCTAssertEqual(values, [3, 2, 1, 0])

        let concurrent = TestPipe<Int, Int>()
        let sum = Atomic<Int>(value: 0)
        let count = Counter()
        let disposable = (concurrent.signal() |> map { $0 * 2 }).start(next: { value in
            let _ = sum.modify { $0 + value }
            count.increment()
        })
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for i in 1 ... 1000 {
                concurrent.putNext(i)
            }
        }
        XCTAssertEqual(count.count, 4000)
        XCTAssertEqual(sum.with { $0 }, 4 * 1000 * 1001)
        disposable.dispose()
    }

    // MARK: filter

    func testFilterPassesMatchingValues() {
        let source = TestPipe<Int, Int>()
        var events: [String] = []
        _ = (source.signal() |> filter { $0 > 2 }).start(next: { events.append("\($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        for i in [1, 5, 2, 3, 0] {
            source.putNext(i)
        }
        source.putCompletion()
        source.putNext(9)
        XCTAssertEqual(events, ["5", "3", "completed"])
        XCTAssertEqual(source.subscriberCount, 0)

        var errors: [Int] = []
        _ = (source.signal() |> filter { _ in false }).start(error: { errors.append($0) })
        source.putError(8)
        XCTAssertEqual(errors, [8])
    }

    func testFilterReleasesClosureAfterDispose() {
        let source = TestPipe<Int, Int>()
        let deallocated = Counter()
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated)
            disposable = (source.signal() |> filter { (_: Int) -> Bool in
                tracker.touch()
                return true
            }).start()
        }
        XCTAssertEqual(deallocated.count, 0)
        disposable?.dispose()
        XCTAssertEqual(deallocated.count, 1)
        withExtendedLifetime(disposable) {
        }
    }

    // MARK: flatMap

    func testFlatMapMapsNonNilValuesAndKeepsNil() {
        let source = TestPipe<Int?, Int>()
        var values: [String?] = []
        var calls = 0
        var completed = 0
        _ = (source.signal() |> flatMap { (value: Int) -> String in
            calls += 1
            return "v\(value)"
        }).start(next: { values.append($0) }, completed: { completed += 1 })
        source.putNext(1)
        source.putNext(nil)
        source.putNext(2)
        source.putCompletion()
        XCTAssertEqual(values, ["v1", nil, "v2"])
        XCTAssertEqual(calls, 2)
        XCTAssertEqual(completed, 1)

        var errors: [Int] = []
        _ = (source.signal() |> flatMap { $0 + 1 }).start(error: { errors.append($0) })
        source.putError(4)
        XCTAssertEqual(errors, [4])
    }

    // MARK: mapError / castError

    func testMapErrorTransformsTheError() {
        let source = TestPipe<Int, Int>()
        var events: [String] = []
        _ = (source.signal() |> mapError { TestError(code: $0 * 100) }).start(next: { events.append("\($0)") }, error: { events.append("error \($0.code)") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putError(2)
        source.putNext(3)
        XCTAssertEqual(events, ["1", "error 200"])
        XCTAssertEqual(source.subscriberCount, 0)

        var completed = 0
        var mapped = 0
        _ = (syncSignal([1]) |> mapError { (error: Int) -> TestError in
            mapped += 1
            return TestError(code: error)
        }).start(completed: { completed += 1 })
        XCTAssertEqual(completed, 1)
        XCTAssertEqual(mapped, 0)
    }

    func testCastErrorKeepsValuesAndCompletion() {
        let source = TestPipe<Int, NoError>()
        var events: [String] = []
        let signal: Signal<Int, TestError> = source.signal() |> castError(TestError.self)
        let disposable = signal.start(next: { events.append("\($0)") }, error: { events.append("error \($0.code)") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putNext(2)
        source.putCompletion()
        XCTAssertEqual(events, ["1", "2", "completed"])
        XCTAssertEqual(source.subscriberCount, 0)
        disposable.dispose()

        let disposable2 = signal.start(next: { events.append("\($0)") })
        disposable2.dispose()
        source.putNext(3)
        XCTAssertEqual(events, ["1", "2", "completed"])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    // MARK: distinctUntilChanged

    func testDistinctUntilChangedDropsRepeats() {
        let source = TestPipe<Int, Int>()
        var events: [String] = []
        _ = distinctUntilChanged(source.signal()).start(next: { events.append("\($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        for i in [1, 1, 2, 2, 2, 1, 3, 3] {
            source.putNext(i)
        }
        source.putError(5)
        XCTAssertEqual(events, ["1", "2", "1", "3", "error 5"])

        // Each subscription starts afresh.
        var first: [Int] = []
        var second: [Int] = []
        let signal = distinctUntilChanged(source.signal())
        _ = signal.start(next: { first.append($0) })
        source.putNext(7)
        _ = signal.start(next: { second.append($0) })
        source.putNext(7)
        source.putNext(8)
        source.putCompletion()
        XCTAssertEqual(first, [7, 8])
        XCTAssertEqual(second, [7, 8])
    }

    func testDistinctUntilChangedWithIsEqual() {
        let source = TestPipe<Int, Int>()
        var compared = 0
        var values: [Int] = []
        var completed = 0
        _ = (source.signal() |> distinctUntilChanged(isEqual: { (lhs: Int, rhs: Int) -> Bool in
            compared += 1
            return abs(lhs) == abs(rhs)
        })).start(next: { values.append($0) }, completed: { completed += 1 })
        for i in [1, -1, 2, -2, 3] {
            source.putNext(i)
        }
        source.putCompletion()
        XCTAssertEqual(values, [1, 2, 3])
        // The first value is delivered without a comparison.
        XCTAssertEqual(compared, 4)
        XCTAssertEqual(completed, 1)
    }

    func testDistinctUntilChangedReleasesClosureAfterDispose() {
        let source = TestPipe<Int, Int>()
        let deallocated = Counter()
        var values: [Int] = []
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated)
            disposable = (source.signal() |> distinctUntilChanged(isEqual: { (lhs: Int, rhs: Int) -> Bool in
                tracker.touch()
                return lhs == rhs
            })).start(next: { values.append($0) })
        }
        source.putNext(1)
        source.putNext(1)
        XCTAssertEqual(deallocated.count, 0)
        disposable?.dispose()
        XCTAssertEqual(deallocated.count, 1)
        source.putNext(2)
        XCTAssertEqual(values, [1])
        XCTAssertEqual(source.subscriberCount, 0)
        withExtendedLifetime(disposable) {
        }

        // Terminating also releases it.
        let deallocated2 = Counter()
        var disposable2: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated2)
            disposable2 = (source.signal() |> distinctUntilChanged(isEqual: { (lhs: Int, rhs: Int) -> Bool in
                tracker.touch()
                return lhs == rhs
            })).start()
        }
        source.putNext(1)
        source.putCompletion()
        XCTAssertEqual(deallocated2.count, 1)
        withExtendedLifetime(disposable2) {
        }
    }

    func testDistinctUntilChangedDisposeFromInsideCallbacks() {
        let source = TestPipe<Int, Int>()
        let box = DisposableBox()
        var values: [Int] = []
        box.disposable.set(distinctUntilChanged(source.signal()).start(next: { value in
            values.append(value)
            box.disposable.dispose()
        }))
        source.putNext(1)
        source.putNext(2)
        XCTAssertEqual(values, [1])
        XCTAssertEqual(source.subscriberCount, 0)

        // Disposing from inside isEqual.
        let box2 = DisposableBox()
        var values2: [Int] = []
        box2.disposable.set((source.signal() |> distinctUntilChanged(isEqual: { (lhs: Int, rhs: Int) -> Bool in
            box2.disposable.dispose()
            return lhs == rhs
        })).start(next: { values2.append($0) }))
        source.putNext(1)
        source.putNext(2)
        source.putNext(3)
        XCTAssertEqual(values2, [1])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testDistinctUntilChangedConcurrentDistinctValues() {
        let source = TestPipe<Int, Int>()
        let count = Counter()
        let disposable = distinctUntilChanged(source.signal()).start(next: { _ in
            count.increment()
        })
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for i in 0 ..< 1000 {
                source.putNext(thread * 10_000 + i)
            }
        }
        // All values differ from one another: none is dropped.
        XCTAssertEqual(count.count, 4000)
        disposable.dispose()
    }
}
