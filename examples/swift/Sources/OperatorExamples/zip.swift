// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// zip: the marble case zip_pairs_in_order_and_completes_when_one_is_used_up
// (Tests/marbles/combine.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_zip {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1---2---3|", values: ["1": 1, "2": 2, "3": 3], error: "boom")
        let b = try scheduler.cold("--4-5|", values: ["4": 4, "5": 5], error: "boom")
        let result = zip(a.signal, b.signal)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
