// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// distinctUntilChanged: the marble case distinctUntilChanged_drops_repeats
// (Tests/marbles/mapping.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_distinctUntilChanged {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-1-2-2-1|", values: ["1": 1, "2": 2], error: "boom")
        let result = a.signal |> distinctUntilChanged
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
