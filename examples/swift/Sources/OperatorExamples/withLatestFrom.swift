// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// withLatestFrom: the marble case withLatestFrom_pairs_with_the_latest_other
// (Tests/marbles/combine.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_withLatestFrom {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1--2--3|", values: ["1": 1, "2": 2, "3": 3], error: "boom")
        let b = try scheduler.cold("--5----6|", values: ["5": 5, "6": 6], error: "boom")
        let result = a.signal |> withLatestFrom(b.signal)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
