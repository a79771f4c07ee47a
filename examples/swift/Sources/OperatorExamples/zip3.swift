// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// zip3: the marble case zip_of_three_by_the_tuple_form
// (Tests/marbles/combine.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_zip3 {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("1-|", values: ["1": 1], error: "boom")
        let b = try scheduler.cold("-3|", values: ["3": 3], error: "boom")
        let c = try scheduler.cold("--5-6|", values: ["5": 5, "6": 6], error: "boom")
        let result = zip(a.signal, b.signal, c.signal)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
