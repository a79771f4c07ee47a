import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

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
        let source = TestPipe<Int, Int>()
        var values: [String] = []
        var completed = 0
        _ = dematerialize(signal: source.signal()).start(next: { values.append(self.describe($0)) }, completed: { completed += 1 })
        source.putNext(1)
        source.putError(7)
        source.putNext(2)
        source.putCompletion()
        XCTAssertEqual(values, ["Next(1)", "Error(7)"])
        XCTAssertEqual(completed, 1)
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testMaterializeReplaysEvents() {
        let source = TestPipe<SignalEvent<Int, Int>, NoError>()
        var events: [String] = []
        _ = materialize(signal: source.signal()).start(next: { events.append("next \($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        source.putNext(.Next(1))
        source.putNext(.Next(2))
        source.putNext(.Error(5))
        // Nothing after the terminal event; the upstream is disposed.
        source.putNext(.Next(3))
        source.putNext(.Completion)
        XCTAssertEqual(events, ["next 1", "next 2", "error 5"])
        XCTAssertEqual(source.subscriberCount, 0)

        var events2: [String] = []
        _ = materialize(signal: source.signal()).start(next: { events2.append("next \($0)") }, error: { events2.append("error \($0)") }, completed: { events2.append("completed") })
        source.putNext(.Next(1))
        source.putNext(.Completion)
        source.putNext(.Next(2))
        XCTAssertEqual(events2, ["next 1", "completed"])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testMaterializeCompletesWhenUpstreamCompletesWithoutTerminalEvent() {
        let source = TestPipe<SignalEvent<Int, Int>, NoError>()
        var events: [String] = []
        _ = materialize(signal: source.signal()).start(next: { events.append("next \($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        source.putNext(.Next(4))
        source.putCompletion()
        XCTAssertEqual(events, ["next 4", "completed"])
    }

    func testRoundTripRestoresTheSignal() {
        let source = TestPipe<Int, Int>()
        var events: [String] = []
        _ = materialize(signal: dematerialize(signal: source.signal())).start(next: { events.append("next \($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        source.putNext(1)
        source.putNext(2)
        source.putError(3)
        XCTAssertEqual(events, ["next 1", "next 2", "error 3"])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testDisposeStopsDeliveryAndReleasesCallbacks() {
        let source = TestPipe<Int, Int>()
        let deallocated = Counter()
        var values: [String] = []
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated)
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
        XCTAssertEqual(source.subscriberCount, 0)
        XCTAssertEqual(deallocated.count, 1)
    }

    func testDisposeFromInsideCallback() {
        let source = TestPipe<SignalEvent<Int, Int>, NoError>()
        let box = DisposableBox()
        var values: [Int] = []
        box.disposable.set(materialize(signal: source.signal()).start(next: { value in
            values.append(value)
            box.disposable.dispose()
        }))
        source.putNext(.Next(1))
        source.putNext(.Next(2))
        XCTAssertEqual(values, [1])
        XCTAssertEqual(source.subscriberCount, 0)
    }
}
