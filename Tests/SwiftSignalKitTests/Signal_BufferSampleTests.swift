import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// `buffer(count:)`, `buffer(timeSpan:queue:)`, `sample(_:)` and
/// `sample(period:queue:)` (issue 33) beyond the shared marble table.
final class Signal_BufferSampleTests: XCTestCase {
    private enum TestError: Error {
        case failed
    }

    /// Disposing a timed buffer or sample with values pending stops its
    /// timer at once: nothing stays on the queue, and the values and the
    /// callbacks are released.
    func testDisposingWithWorkPendingLeavesNothing() throws {
        let cases: [(String, (Signal<DeinitTracker, TestError>, Queue) -> Signal<Int, TestError>)] = [
            ("buffer(timeSpan:)", { $0 |> buffer(timeSpan: 1, queue: $1) |> map { $0.count } }),
            ("sample(period:)", { $0 |> sample(period: 1, queue: $1) |> map { _ in 1 } }),
        ]
        for (name, apply) in cases {
            let queue = Queue.virtualTime()
            let pipe = ValuePipe<DeinitTracker>()
            let values = Counter()
            let recorder = Recorder<Int, TestError>()
            let d = recorder.start(apply(pipe.signal(errorType: TestError.self), queue))
            pipe.putNext(DeinitTracker(values))
            XCTAssertEqual(queue.pendingVirtualWork, 1, "\(name): the timer")
            d.dispose()
            XCTAssertEqual(queue.pendingVirtualWork, 0, "\(name): the timer left the queue")
            XCTAssertEqual(values.count, 1, "\(name): the pending value is released")
            XCTAssertEqual(recorder.released.count, 1, name)
            _ = try queue.run()
            XCTAssertEqual(recorder.events.with { $0 }, [], name)
        }
    }

    func testAPeriodThatIsNotPositiveNeverTicks() throws {
        let queue = Queue.virtualTime()
        let pipe = ValuePipe<Int>()
        var arrays: [[Int]] = []
        let d = (pipe.signal() |> buffer(timeSpan: 0, queue: queue)).start(next: { arrays.append($0) })
        pipe.putNext(1)
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        pipe.putCompletion()
        _ = try queue.run()
        XCTAssertEqual(arrays, [[1]], "the completion emits what was collected")
        d.dispose()
    }

    func testBufferCountBelowOneCountsAsOne() {
        var arrays: [[Int]] = []
        (syncSignal([1, 2]) |> buffer(count: 0)).start(next: { arrays.append($0) }).dispose()
        XCTAssertEqual(arrays, [[1], [2]])
    }

    func testSampleDisposesTheSamplerWhenTheUpstreamCompletes() {
        let source = TestPipe<Int, TestError>()
        let sampler = TestPipe<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        _ = recorder.start(source.signal() |> sample(sampler.signal()))
        source.putNext(1)
        sampler.putNext(0)
        sampler.putNext(0)
        source.putCompletion()
        XCTAssertEqual(recorder.events.with { $0 }, ["1", "completed"])
        XCTAssertEqual(sampler.subscriberCount, 0)
    }
}
