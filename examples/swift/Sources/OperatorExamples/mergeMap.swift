// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// mergeMap: the marble case mergeMap_two_at_a_time_makes_the_third_wait
// (Tests/marbles/mapping.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_mergeMap {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("012|", values: ["0": 0, "1": 1, "2": 2], error: "boom")
        let x = try scheduler.cold("--1|", values: ["1": 1], error: "boom")
        let y = try scheduler.cold("--2|", values: ["2": 2], error: "boom")
        let z = try scheduler.cold("5|", values: ["5": 5], error: "boom")
        let result = a.signal |> mergeMap(maxConcurrent: 2) { [x.signal, y.signal, z.signal][$0] }
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
