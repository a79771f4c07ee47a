import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class Signal_SingleTests: XCTestCase {
    private struct TestError: Equatable {
        let code: Int
    }

    func testSingleEmitsValueThenCompletes() {
        var events: [String] = []
        let signal: Signal<Int, TestError> = single(5, TestError.self)
        _ = signal.start(next: { events.append("next \($0)") }, error: { events.append("error \($0.code)") }, completed: { events.append("completed") })
        XCTAssertEqual(events, ["next 5", "completed"])
        // Cold: each start replays it.
        _ = signal.start(next: { events.append("next \($0)") }, completed: { events.append("completed") })
        XCTAssertEqual(events, ["next 5", "completed", "next 5", "completed"])
    }

    func testFailFailsAtOnce() {
        var events: [String] = []
        let signal: Signal<String, TestError> = fail(String.self, TestError(code: 3))
        _ = signal.start(next: { events.append("next \($0)") }, error: { events.append("error \($0.code)") }, completed: { events.append("completed") })
        XCTAssertEqual(events, ["error 3"])
    }

    func testCompleteCompletesWithoutValues() {
        var events: [String] = []
        let signal: Signal<Int, TestError> = complete(Int.self, TestError.self)
        _ = signal.start(next: { events.append("next \($0)") }, error: { events.append("error \($0.code)") }, completed: { events.append("completed") })
        XCTAssertEqual(events, ["completed"])
    }

    // never() keeps no reference to its subscriber, and the disposable holds
    // it weakly (as in the original): nothing can call the callbacks, so they
    // are released as soon as start returns.
    func testNeverDoesNothingAndReleasesCallbacksAtOnce() {
        var events: [String] = []
        var deallocated = 0
        let signal: Signal<Int, TestError> = never(Int.self, TestError.self)
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker { deallocated += 1 }
            disposable = signal.start(next: { _ in
                _ = tracker
                events.append("next")
            }, error: { _ in events.append("error") }, completed: { events.append("completed") })
        }
        XCTAssertEqual(events, [])
        XCTAssertEqual(deallocated, 1)
        disposable?.dispose()
        XCTAssertEqual(deallocated, 1)
        XCTAssertEqual(events, [])
    }

    func testFreeFunctionsCompose() {
        var values: [Int] = []
        var completed = 0
        _ = (single(2, NoError.self) |> map { $0 * 3 }).start(next: { values.append($0) }, completed: { completed += 1 })
        XCTAssertEqual(values, [6])
        XCTAssertEqual(completed, 1)
    }
}
