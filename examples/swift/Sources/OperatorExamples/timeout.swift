// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// timeout: the marble case timeout_switches_to_the_alternate_when_the_first_event_is_late
// (Tests/marbles/timing.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_timeout {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-----1|", values: ["1": 1], error: "boom")
        let b = try scheduler.cold("-9|", values: ["9": 9], error: "boom")
        let result = a.signal |> timeout(scheduler.seconds(3), queue: scheduler.queue, alternate: b.signal)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
