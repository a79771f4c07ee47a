// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// onBackpressureBuffer: the marble case onBackpressureBuffer_passes_values_when_none_waits
// (Tests/marbles/dispatch.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_onBackpressureBuffer {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2-3|", values: ["1": 1, "2": 2, "3": 3], error: "boom")
        let result = a.signal |> onBackpressureBuffer(capacity: 1, overflow: .dropOldest)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
