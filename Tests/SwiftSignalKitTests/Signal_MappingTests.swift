import XCTest
import Dispatch
import SwiftSignalKit

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
        let source = TestSource<Int, Int>()
        var events: [String] = []
        _ = (source.signal() |> map { "v\($0)" }).start(next: { events.append($0) }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putNext(2)
        source.putError(3)
        source.putNext(4)
        source.putCompletion()
        XCTAssertEqual(events, ["v1", "v2", "error 3"])
        XCTAssertEqual(source.active, 0)

        var completed = 0
        _ = (syncSignal([1]) |> map { $0 * 2 }).start(completed: { completed += 1 })
        XCTAssertEqual(completed, 1)
    }

    func testMapDisposeStopsValuesAndReleasesClosure() {
        let source = TestSource<Int, Int>()
        let deallocated = Counter()
        var values: [Int] = []
        var disposable: (any Disposable)?
        do {
            let tracker = Tracker(deallocated)
            disposable = (source.signal() |> map { (value: Int) -> Int in
                tracker.touch()
                return value * 10
            }).start(next: { values.append($0) })
        }
        source.putNext(1)
        XCTAssertEqual(deallocated.current, 0)
        disposable?.dispose()
        source.putNext(2)
        XCTAssertEqual(values, [10])
        XCTAssertEqual(source.active, 0)
        XCTAssertEqual(deallocated.current, 1)
        withExtendedLifetime(disposable) {
        }
    }

    func testMapReentrantEmitAndConcurrentEmitters() {
        let source = TestSource<Int, Int>()
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

        let concurrent = TestSource<Int, Int>()
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
        XCTAssertEqual(count.current, 4000)
        XCTAssertEqual(sum.with { $0 }, 4 * 1000 * 1001)
        disposable.dispose()
    }

    // MARK: filter

    func testFilterPassesMatchingValues() {
        let source = TestSource<Int, Int>()
        var events: [String] = []
        _ = (source.signal() |> filter { $0 > 2 }).start(next: { events.append("\($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        for i in [1, 5, 2, 3, 0] {
            source.putNext(i)
        }
        source.putCompletion()
        source.putNext(9)
        XCTAssertEqual(events, ["5", "3", "completed"])
        XCTAssertEqual(source.active, 0)

        var errors: [Int] = []
        _ = (source.signal() |> filter { _ in false }).start(error: { errors.append($0) })
        source.putError(8)
        XCTAssertEqual(errors, [8])
    }

    func testFilterReleasesClosureAfterDispose() {
        let source = TestSource<Int, Int>()
        let deallocated = Counter()
        var disposable: (any Disposable)?
        do {
            let tracker = Tracker(deallocated)
            disposable = (source.signal() |> filter { (_: Int) -> Bool in
                tracker.touch()
                return true
            }).start()
        }
        XCTAssertEqual(deallocated.current, 0)
        disposable?.dispose()
        XCTAssertEqual(deallocated.current, 1)
        withExtendedLifetime(disposable) {
        }
    }

    // MARK: flatMap

    func testFlatMapMapsNonNilValuesAndKeepsNil() {
        let source = TestSource<Int?, Int>()
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
        let source = TestSource<Int, Int>()
        var events: [String] = []
        _ = (source.signal() |> mapError { TestError(code: $0 * 100) }).start(next: { events.append("\($0)") }, error: { events.append("error \($0.code)") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putError(2)
        source.putNext(3)
        XCTAssertEqual(events, ["1", "error 200"])
        XCTAssertEqual(source.active, 0)

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
        let source = TestSource<Int, NoError>()
        var events: [String] = []
        let signal: Signal<Int, TestError> = source.signal() |> castError(TestError.self)
        let disposable = signal.start(next: { events.append("\($0)") }, error: { events.append("error \($0.code)") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putNext(2)
        source.putCompletion()
        XCTAssertEqual(events, ["1", "2", "completed"])
        XCTAssertEqual(source.active, 0)
        disposable.dispose()

        let disposable2 = signal.start(next: { events.append("\($0)") })
        disposable2.dispose()
        source.putNext(3)
        XCTAssertEqual(events, ["1", "2", "completed"])
        XCTAssertEqual(source.active, 0)
    }

    // MARK: distinctUntilChanged

    func testDistinctUntilChangedDropsRepeats() {
        let source = TestSource<Int, Int>()
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
        let source = TestSource<Int, Int>()
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
        let source = TestSource<Int, Int>()
        let deallocated = Counter()
        var values: [Int] = []
        var disposable: (any Disposable)?
        do {
            let tracker = Tracker(deallocated)
            disposable = (source.signal() |> distinctUntilChanged(isEqual: { (lhs: Int, rhs: Int) -> Bool in
                tracker.touch()
                return lhs == rhs
            })).start(next: { values.append($0) })
        }
        source.putNext(1)
        source.putNext(1)
        XCTAssertEqual(deallocated.current, 0)
        disposable?.dispose()
        XCTAssertEqual(deallocated.current, 1)
        source.putNext(2)
        XCTAssertEqual(values, [1])
        XCTAssertEqual(source.active, 0)
        withExtendedLifetime(disposable) {
        }

        // Terminating also releases it.
        let deallocated2 = Counter()
        var disposable2: (any Disposable)?
        do {
            let tracker = Tracker(deallocated2)
            disposable2 = (source.signal() |> distinctUntilChanged(isEqual: { (lhs: Int, rhs: Int) -> Bool in
                tracker.touch()
                return lhs == rhs
            })).start()
        }
        source.putNext(1)
        source.putCompletion()
        XCTAssertEqual(deallocated2.current, 1)
        withExtendedLifetime(disposable2) {
        }
    }

    func testDistinctUntilChangedDisposeFromInsideCallbacks() {
        let source = TestSource<Int, Int>()
        let box = DisposableBox()
        var values: [Int] = []
        box.disposable = distinctUntilChanged(source.signal()).start(next: { value in
            values.append(value)
            box.disposable?.dispose()
        })
        source.putNext(1)
        source.putNext(2)
        XCTAssertEqual(values, [1])
        XCTAssertEqual(source.active, 0)

        // Disposing from inside isEqual.
        let box2 = DisposableBox()
        var values2: [Int] = []
        box2.disposable = (source.signal() |> distinctUntilChanged(isEqual: { (lhs: Int, rhs: Int) -> Bool in
            box2.disposable?.dispose()
            return lhs == rhs
        })).start(next: { values2.append($0) })
        source.putNext(1)
        source.putNext(2)
        source.putNext(3)
        XCTAssertEqual(values2, [1])
        XCTAssertEqual(source.active, 0)
    }

    func testDistinctUntilChangedConcurrentDistinctValues() {
        let source = TestSource<Int, Int>()
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
        XCTAssertEqual(count.current, 4000)
        disposable.dispose()
    }
}

/// Holds a disposable so that a callback can dispose its own subscription.
private final class DisposableBox: @unchecked Sendable {
    var disposable: (any Disposable)?
}

/// A thread-safe counter.
private final class Counter: @unchecked Sendable {
    private let value = Atomic<Int>(value: 0)

    @discardableResult
    func increment() -> Int {
        return self.value.modify { $0 + 1 }
    }

    var current: Int {
        return self.value.with { $0 }
    }
}

/// Counts its own deallocation.
private final class Tracker: @unchecked Sendable {
    private let deallocated: Counter

    init(_ deallocated: Counter) {
        self.deallocated = deallocated
    }

    func touch() {
    }

    deinit {
        self.deallocated.increment()
    }
}

/// A hot source: every event put into it goes to all its current subscribers.
/// Counts subscriptions and disposals.
private final class TestSource<T, E>: @unchecked Sendable {
    private let lock = Lock()
    private var subscribers: [Int: Subscriber<T, E>] = [:]
    private var nextId = 0
    private var subscribedCount = 0
    private var disposedCount = 0

    var subscribed: Int {
        var result = 0
        self.lock.locked { result = self.subscribedCount }
        return result
    }

    var disposed: Int {
        var result = 0
        self.lock.locked { result = self.disposedCount }
        return result
    }

    var active: Int {
        var result = 0
        self.lock.locked { result = self.subscribers.count }
        return result
    }

    func signal() -> Signal<T, E> {
        return Signal<T, E> { subscriber in
            var id = 0
            self.lock.locked {
                id = self.nextId
                self.nextId += 1
                self.subscribers[id] = subscriber
                self.subscribedCount += 1
            }
            return ActionDisposable {
                self.lock.locked {
                    self.subscribers[id] = nil
                    self.disposedCount += 1
                }
            }
        }
    }

    private func current() -> [Subscriber<T, E>] {
        var result: [Subscriber<T, E>] = []
        self.lock.locked { result = Array(self.subscribers.values) }
        return result
    }

    func putNext(_ value: T) {
        for subscriber in self.current() {
            subscriber.putNext(value)
        }
    }

    func putError(_ error: E) {
        for subscriber in self.current() {
            subscriber.putError(error)
        }
    }

    func putCompletion() {
        for subscriber in self.current() {
            subscriber.putCompletion()
        }
    }
}

/// A signal that emits `values` synchronously, then completes; counts disposals.
private func syncSignal<T>(_ values: [T], disposed: Counter? = nil) -> Signal<T, Int> {
    return Signal<T, Int> { subscriber in
        for value in values {
            subscriber.putNext(value)
        }
        subscriber.putCompletion()
        return ActionDisposable {
            disposed?.increment()
        }
    }
}
