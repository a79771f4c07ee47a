// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// retry: the marble case retry_twice_then_the_error
// (Tests/marbles/catch.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_retry {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1#", values: ["1": 1], error: "boom")
        let result = a.signal |> retry(count: 2)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
