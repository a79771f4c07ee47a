// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// concat: the marble case concat_runs_one_after_the_other
// (Tests/marbles/combine.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_concat {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1|", values: ["1": 1], error: "boom")
        let b = try scheduler.cold("-2|", values: ["2": 2], error: "boom")
        let result = concat([a.signal, b.signal])
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
