import XCTest
import SwiftSignalKit
import SwiftSignalKitTesting

/// The examples of the public doc comments, copied as they are written there
/// (as ReadmeMarbleTests copies the README's): a user copies them, so they
/// must compile and pass.
final class DocCommentExampleTests: XCTestCase {
    private struct TestError: Error, Equatable {}

    /// `TestScheduler`'s type comment.
    func testTheTestSchedulerExample() throws {
        let scheduler = TestScheduler()
        let input = try scheduler.cold("-a-b-------c|", error: TestError())
        let recorder = scheduler.record(input.signal |> debounce(scheduler.seconds(3), queue: scheduler.queue))
        try scheduler.run()
        XCTAssertNil(recorder.mismatch("------b-----(c|)", error: TestError()))
    }

    /// `Queue.virtualTime()`'s comment.
    func testTheVirtualTimeQueueExample() throws {
        let queue = Queue.virtualTime()
        let values = ValuePipe<Int>()
        var seen: [(Int, Double)] = []
        let d = (values.signal() |> debounce(0.3, queue: queue))
            .start(next: { seen.append(($0, queue.virtualNow!)) })
        values.putNext(1)
        try queue.advance(by: 0.1)
        values.putNext(2)
        try queue.advance(by: 1)      // seen == [(2, 0.4)]
        XCTAssertEqual(seen.map(\.0), [2])
        XCTAssertEqual(seen.map(\.1), [0.4])
        d.dispose()
        queue.closeHostDrained()
    }
}
