// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// catch: the marble case catch_switches_to_the_fallback_on_the_error
// (Tests/marbles/catch.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_catch {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2#", values: ["1": 1, "2": 2], error: "boom")
        let b = try scheduler.cold("-7-8|", values: ["7": 7, "8": 8], error: "boom")
        let result = a.signal |> `catch` { _ in b.signal }
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
