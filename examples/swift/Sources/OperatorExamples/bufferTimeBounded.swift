// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// bufferTimeBounded: the marble case bufferTimeBounded_drops_the_newest_of_a_full_window
// (Tests/marbles/timing.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_bufferTimeBounded {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1234-----|", values: ["1": 1, "2": 2, "3": 3, "4": 4], error: "boom")
        let result = a.signal |> buffer(timeSpan: scheduler.seconds(5), queue: scheduler.queue, capacity: 2, overflow: .dropNewest)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
