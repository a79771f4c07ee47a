// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// deliverOnBounded: the marble case deliverOnBounded_delivers_on_the_queue_in_order
// (Tests/marbles/dispatch.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_deliverOnBounded {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-(12)-3|", values: ["1": 1, "2": 2, "3": 3], error: "boom")
        let result = a.signal |> deliverOn(scheduler.queue, capacity: 1, overflow: .dropNewest)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
