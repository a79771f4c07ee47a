// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// deferred: the marble case deferred_makes_the_signal_at_each_start
// (Tests/marbles/mapping.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_deferred {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2|", values: ["1": 1, "2": 2], error: "boom")
        let result = deferred { a.signal }
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.advance(toFrame: 3)
        let late = result.start(next: { show($0, "late ") }, error: { _ in show("error", "late ") },
                                completed: { show("completed", "late ") })
        try scheduler.run()
        subscription.dispose()
        late.dispose()
    }
}
