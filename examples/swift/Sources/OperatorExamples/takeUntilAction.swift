// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// takeUntilAction: the marble case takeUntilAction_drops_passes_and_completes_as_the_function_says
// (Tests/marbles/take.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_takeUntilAction {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2-3-4-5|", values: ["1": 1, "2": 2, "3": 3, "4": 4, "5": 5], error: "boom")
        let result = a.signal |> take(until: {
            SignalTakeAction(passthrough: $0 % 2 != 0, complete: $0 > 3)
        })
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
