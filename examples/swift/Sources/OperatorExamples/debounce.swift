// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// debounce: the marble case debounce_emits_after_a_quiet_spell
// (Tests/marbles/timing.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_debounce {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("-1-2-------3|", values: ["1": 1, "2": 2, "3": 3], error: "boom")
        let result = a.signal |> debounce(scheduler.seconds(3), queue: scheduler.queue)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
