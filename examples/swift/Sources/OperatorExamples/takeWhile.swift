// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// takeWhile: the marble case takeWhile_completes_at_the_first_miss
// (Tests/marbles/take.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_takeWhile {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2-3-4|", values: ["1": 1, "2": 2, "3": 3, "4": 4], error: "boom")
        let result = a.signal |> takeWhile { $0 < 3 }
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
