// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// then: the marble case then_starts_the_second_when_the_first_completes
// (Tests/marbles/combine.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_then {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2|", values: ["1": 1, "2": 2], error: "boom")
        let b = try scheduler.cold("-3-4|", values: ["3": 3, "4": 4], error: "boom")
        let result = a.signal |> then(b.signal)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
