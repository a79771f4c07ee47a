// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// last: the marble case last_sends_the_last_value_at_the_completion
// (Tests/marbles/take.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_last {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2-3|", values: ["1": 1, "2": 2, "3": 3], error: "boom")
        let result = a.signal |> last |> map { $0 ?? 0 }  // last sends nil when a sends no value
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
