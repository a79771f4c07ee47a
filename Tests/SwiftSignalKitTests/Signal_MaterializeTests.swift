import XCTest
import SwiftSignalKit

final class Signal_MaterializeTests: XCTestCase {
    private func describe(_ event: SignalEvent<Int, Int>) -> String {
        switch event {
        case let .Next(value):
            return "Next(\(value))"
        case let .Error(error):
            return "Error(\(error))"
        case .Completion:
            return "Completion"
        }
    }

    func testDematerializeTurnsEventsIntoValues() {
        var values: [String] = []
        var completed = 0
        _ = dematerialize(signal: syncSignal([1, 2])).start(next: { values.append(self.describe($0)) }, completed: { completed += 1 })
        XCTAssertEqual(values, ["Next(1)", "Next(2)", "Completion"])
        XCTAssertEqual(completed, 1)
    }

    func testDematerializeTurnsErrorIntoValueThenCompletes() {
        let source = TestSource<Int, Int>()
        var values: [String] = []
        var completed = 0
        _ = dematerialize(signal: source.signal()).start(next: { values.append(self.describe($0)) }, completed: { completed += 1 })
        source.putNext(1)
        source.putError(7)
        source.putNext(2)
        source.putCompletion()
        XCTAssertEqual(values, ["Next(1)", "Error(7)"])
        XCTAssertEqual(completed, 1)
        XCTAssertEqual(source.active, 0)
    }

    func testMaterializeReplaysEvents() {
        let source = TestSource<SignalEvent<Int, Int>, NoError>()
        var events: [String] = []
        _ = materialize(signal: source.signal()).start(next: { events.append("next \($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        source.putNext(.Next(1))
        source.putNext(.Next(2))
        source.putNext(.Error(5))
        // Nothing after the terminal event; the upstream is disposed.
        source.putNext(.Next(3))
        source.putNext(.Completion)
        XCTAssertEqual(events, ["next 1", "next 2", "error 5"])
        XCTAssertEqual(source.active, 0)

        var events2: [String] = []
        _ = materialize(signal: source.signal()).start(next: { events2.append("next \($0)") }, error: { events2.append("error \($0)") }, completed: { events2.append("completed") })
        source.putNext(.Next(1))
        source.putNext(.Completion)
        source.putNext(.Next(2))
        XCTAssertEqual(events2, ["next 1", "completed"])
        XCTAssertEqual(source.active, 0)
    }

    func testMaterializeCompletesWhenUpstreamCompletesWithoutTerminalEvent() {
        let source = TestSource<SignalEvent<Int, Int>, NoError>()
        var events: [String] = []
        _ = materialize(signal: source.signal()).start(next: { events.append("next \($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        source.putNext(.Next(4))
        source.putCompletion()
        XCTAssertEqual(events, ["next 4", "completed"])
    }

    func testRoundTripRestoresTheSignal() {
        let source = TestSource<Int, Int>()
        var events: [String] = []
        _ = materialize(signal: dematerialize(signal: source.signal())).start(next: { events.append("next \($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putNext(2)
        source.putError(3)
        XCTAssertEqual(events, ["next 1", "next 2", "error 3"])
        XCTAssertEqual(source.active, 0)
    }

    func testDisposeStopsDeliveryAndReleasesCallbacks() {
        let source = TestSource<Int, Int>()
        let deallocated = Counter()
        var values: [String] = []
        var disposable: (any Disposable)?
        do {
            let tracker = Tracker(deallocated)
            disposable = dematerialize(signal: source.signal()).start(next: { event in
                tracker.touch()
                values.append(self.describe(event))
            })
        }
        source.putNext(1)
        disposable?.dispose()
        source.putNext(2)
        source.putCompletion()
        XCTAssertEqual(values, ["Next(1)"])
        XCTAssertEqual(source.active, 0)
        XCTAssertEqual(deallocated.current, 1)
    }

    func testDisposeFromInsideCallback() {
        let source = TestSource<SignalEvent<Int, Int>, NoError>()
        let box = DisposableBox()
        var values: [Int] = []
        box.disposable = materialize(signal: source.signal()).start(next: { value in
            values.append(value)
            box.disposable?.dispose()
        })
        source.putNext(.Next(1))
        source.putNext(.Next(2))
        XCTAssertEqual(values, [1])
        XCTAssertEqual(source.active, 0)
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
