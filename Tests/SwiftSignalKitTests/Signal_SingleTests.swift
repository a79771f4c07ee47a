import XCTest
import Dispatch
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

    private final class Held {
        let id: Int
        init(_ id: Int) {
            self.id = id
        }
    }

    /// A value too big for the signal to keep in place (more than 24 bytes):
    /// its `single` captures it as before.
    private struct Wide: Equatable {
        let a: Int
        let b: Int
        let c: Int
        let held: Held

        static func == (lhs: Wide, rhs: Wide) -> Bool {
            return lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.held === rhs.held
        }
    }

    // A `single` keeps a value of up to 24 bytes in the signal itself (one
    // allocation): the value lives as long as the signal, is released with
    // it once, and every start, every way, delivers it.
    func testASingleKeepsItsValueAsLongAsTheSignalAndReleasesItWithIt() {
        weak var watched: Held?
        var signal: Signal<Held, TestError>? = {
            let held = Held(7)
            watched = held
            return Signal<Held, TestError>.single(held)
        }()
        XCTAssertNotNil(watched, "the signal holds its value")
        var ids: [Int] = []
        for _ in 0 ..< 3 {
            _ = signal!.start(next: { ids.append($0.id) }, completed: { ids.append(-1) })
        }
        _ = (signal! |> map { $0.id * 10 }).start(next: { ids.append($0) })
        _ = (signal! |> then(Signal<Held, TestError>.single(Held(8)))).start(next: { ids.append($0.id) })
        _ = (Signal<Int, TestError>.single(1) |> mapToSignal { _ in signal! }).start(next: { ids.append($0.id) })
        XCTAssertEqual(ids, [7, -1, 7, -1, 7, -1, 70, 7, 8, 7])
        XCTAssertNotNil(watched, "starts copy the value; the signal still holds it")
        signal = nil
        XCTAssertNil(watched, "released with the signal")
    }

    // The value kept in place is read, never written, by the starts: one
    // signal started on several threads at once (under ThreadSanitizer in
    // `make test`) delivers to each.
    func testOneSingleStartedOnSeveralThreadsAtOnceDeliversToEach() {
        let signal = Signal<String, TestError>.single("shared between the threads that start it")
        let delivered = Atomic<Int>(value: 0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0 ..< 500 {
                _ = signal.start(next: { value in
                    if value == "shared between the threads that start it" {
                        _ = delivered.modify { $0 + 1 }
                    }
                })
            }
        }
        XCTAssertEqual(delivered.with { $0 }, 2_000)
    }

    func testASingleOfAStringOrAnOptionalKeptInPlaceEmitsIt() {
        var events: [String] = []
        _ = Signal<String, TestError>.single("a string longer than fifteen bytes, on the heap").start(next: { events.append($0) })
        _ = Signal<String?, TestError>.single(nil).start(next: { events.append($0 ?? "nil") })
        _ = Signal<Void, NoError>.single(()).start(next: { events.append("void") }, completed: { events.append("completed") })
        XCTAssertEqual(events, ["a string longer than fifteen bytes, on the heap", "nil", "void", "completed"])
    }

    // A value of 16 bytes aligned to 16 (more than the signal's storage is
    // aligned to) is captured as a too big one is.
    func testASingleOfAValueAlignedBeyondTheStorageEmitsIt() {
        XCTAssertEqual(MemoryLayout<SIMD4<Float>>.alignment, 16)
        var seen: [SIMD4<Float>] = []
        _ = Signal<SIMD4<Float>, NoError>.single(SIMD4(1, 2, 3, 4)).start(next: { seen.append($0) })
        XCTAssertEqual(seen, [SIMD4(1, 2, 3, 4)])
    }

    func testASingleOfAValueTooBigToKeepInPlaceEmitsItAndReleasesIt() {
        XCTAssertGreaterThan(MemoryLayout<Wide>.size, 24)
        weak var watched: Held?
        var signal: Signal<Wide, TestError>? = {
            let held = Held(3)
            watched = held
            return Signal<Wide, TestError>.single(Wide(a: 1, b: 2, c: 3, held: held))
        }()
        var seen: [Wide] = []
        _ = signal!.start(next: { seen.append($0) })
        _ = signal!.start(next: { seen.append($0) })
        XCTAssertEqual(seen.count, 2)
        XCTAssertEqual(seen.first?.a, 1)
        XCTAssertEqual(seen.first?.held.id, 3)
        seen = []
        signal = nil
        XCTAssertNil(watched, "released with the signal")
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
