// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// share: the marble case share_subscribes_the_upstream_once
// (Tests/marbles/share.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_share {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2-3-4|", values: ["1": 1, "2": 2, "3": 3, "4": 4], error: "boom")
        let result = a.signal |> share
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.advance(toFrame: 2)
        let late = result.start(next: { show($0, "late ") }, error: { _ in show("error", "late ") },
                                completed: { show("completed", "late ") })
        try scheduler.run()
        subscription.dispose()
        late.dispose()
    }
}
