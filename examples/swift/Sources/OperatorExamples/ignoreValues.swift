// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// ignoreValues: the marble case ignoreValues_passes_only_the_completion
// (Tests/marbles/mapping.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_ignoreValues {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2-3|", values: ["1": 1, "2": 2, "3": 3], error: "boom")
        let result = a.signal |> ignoreValues
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(error: { _ in show("error") }, completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
