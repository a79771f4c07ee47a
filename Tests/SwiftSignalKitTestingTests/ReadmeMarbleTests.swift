import XCTest
import SwiftSignalKit
import SwiftSignalKitTesting

final class ReadmeMarbleTests: XCTestCase {
    func testDebounceWaitsForThreeQuietFrames() throws {
        let scheduler = TestScheduler()              // a frame is 1 ms of virtual time
        let keys = try scheduler.cold("-a-b-------c|")
        let results = scheduler.record(keys.signal |> debounce(scheduler.seconds(3), queue: scheduler.queue))
        try scheduler.run()                          // no real clock: microseconds
        XCTAssertNil(results.mismatch("------b-----(c|)"))
        XCTAssertEqual(keys.subscriptions, [SubscriptionLog(subscribed: 0, disposed: 12)])
    }
}
