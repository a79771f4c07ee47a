// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// skipWhile: the marble case skipWhile_passes_from_the_first_miss
// (Tests/marbles/take.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_skipWhile {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-3-1-4|", values: ["1": 1, "3": 3, "4": 4], error: "boom")
        let result = a.signal |> skipWhile { $0 < 3 }
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
