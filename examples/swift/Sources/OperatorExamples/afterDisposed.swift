// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// afterDisposed: the marble case afterDisposed_passes_the_events
// (Tests/marbles/side_effects.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_afterDisposed {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2|", values: ["1": 1, "2": 2], error: "boom")
        let result = a.signal |> afterDisposed { print("\(scheduler.now): disposed") }
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
