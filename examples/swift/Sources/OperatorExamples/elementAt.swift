// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// elementAt: the marble case elementAt_two
// (Tests/marbles/take.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_elementAt {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2-3-4|", values: ["1": 1, "2": 2, "3": 3, "4": 4], error: "boom")
        let result = a.signal |> elementAt(2)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
