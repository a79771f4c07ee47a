// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// takeUntil: the marble case takeUntil_completes_when_the_notifier_emits
// (Tests/marbles/take.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_takeUntil {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2-3-4|", values: ["1": 1, "2": 2, "3": 3, "4": 4], error: "boom")
        let b = try scheduler.cold("----0|", values: ["0": 0], error: "boom")
        let result = a.signal |> takeUntil(b.signal)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
