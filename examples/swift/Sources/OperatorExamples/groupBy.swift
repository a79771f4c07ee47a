// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// groupBy: the marble case groupBy_splits_by_key_and_completes_every_group
// (Tests/marbles/mapping.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_groupBy {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2-3-4|", values: ["1": 1, "2": 2, "3": 3, "4": 4], error: "boom")
        let result = a.signal |> groupBy { $0 % 2 }
            |> mergeMap { group in group.1 |> map { [group.0, $0] } }
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
