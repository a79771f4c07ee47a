// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// zipBounded: the marble case zipBounded_drops_the_newest_when_an_input_has_its_capacity_waiting
// (Tests/marbles/combine.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_zipBounded {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2-3|", values: ["1": 1, "2": 2, "3": 3], error: "boom")
        let b = try scheduler.cold("-------7-8|", values: ["7": 7, "8": 8], error: "boom")
        let result = zip([a.signal, b.signal], capacity: 1, overflow: .dropNewest)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
