import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// `groupBy` (issue 33) beyond the shared marble table.
final class Signal_GroupByTests: XCTestCase {
    private struct Failure: Error, Equatable {}

    func testGroupsReceiveTheirValuesAndTheTerminalEvent() {
        let source = ValuePipe<Int>()
        let odd = Recorder<Int, NoError>()
        let even = Recorder<Int, NoError>()
        var keys: [Int] = []
        var oddGroup: Signal<Int, NoError>?
        var disposables: [Disposable] = []
        let d = (source.signal() |> groupBy { $0 % 2 }).start(next: { key, group in
            keys.append(key)
            if key == 1 {
                oddGroup = group
            }
            disposables.append((key == 1 ? odd : even).start(group))
        })
        source.putNext(1)
        source.putNext(2)
        // A subscriber that comes later receives the values from then on.
        let late = Recorder<Int, NoError>()
        if let oddGroup {
            disposables.append(late.start(oddGroup))
        }
        source.putNext(3)
        source.putCompletion()
        XCTAssertEqual(keys, [1, 0])
        XCTAssertEqual(odd.events.with { $0 }, ["1", "3", "completed"])
        XCTAssertEqual(even.events.with { $0 }, ["2", "completed"])
        XCTAssertEqual(late.events.with { $0 }, ["3", "completed"])
        d.dispose()
        disposables.forEach { $0.dispose() }
    }

    func testAnErrorFailsEveryGroupThenTheOuter() {
        let source = SignalPipe<Int, Failure>()
        var events: [String] = []
        let d = (source.signal() |> groupBy { $0 }).start(next: { key, group in
            _ = group.start(error: { _ in events.append("group \(key) failed") })
        }, error: { _ in
            events.append("outer failed")
        })
        source.putNext(1)
        source.putError(Failure())
        XCTAssertEqual(events, ["group 1 failed", "outer failed"])
        d.dispose()
    }

    /// Disposing the outer subscription ends the groups without an event:
    /// their subscribers' callbacks are released.
    func testDisposingTheOuterEndsTheGroups() {
        let source = TestPipe<Int, Failure>()
        let group = Recorder<Int, Failure>()
        var held: Disposable?
        let d = (source.signal() |> groupBy { $0 }).start(next: { _, signal in
            held = group.start(signal)
        })
        source.putNext(1)
        d.dispose()
        XCTAssertEqual(source.subscriberCount, 0)
        XCTAssertEqual(group.events.with { $0 }, ["1"])
        XCTAssertEqual(group.released.count, 1, "the group's subscription ended")
        source.putNext(1)
        XCTAssertEqual(group.events.with { $0 }, ["1"])
        held?.dispose()
    }
}
