// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// scan: the marble case scan_from_an_initial_value
// (Tests/marbles/reduce.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_scan {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-4-5-6|", values: ["4": 4, "5": 5, "6": 6], error: "boom")
        let result = a.signal |> scan(10) { $0 + $1 }
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
