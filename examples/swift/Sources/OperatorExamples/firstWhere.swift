// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// firstWhere: the marble case firstWhere_skips_to_a_match
// (Tests/marbles/take.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_firstWhere {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-3-4-6|", values: ["1": 1, "3": 3, "4": 4, "6": 6], error: "boom")
        let result = a.signal |> first(where: { $0 % 2 == 0 })
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
