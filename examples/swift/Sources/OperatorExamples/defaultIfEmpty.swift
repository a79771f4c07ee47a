// GENERATED FILE, DO NOT EDIT: written by tools/docs/examples.py (make api-update).
// defaultIfEmpty: the marble case defaultIfEmpty_on_empty
// (Tests/marbles/take.marbles).
import SwiftSignalKit
import SwiftSignalKitTesting

enum Example_defaultIfEmpty {
    static func run() throws {
        let scheduler = TestScheduler()  // a frame is 1 ms of virtual time
        let a = try scheduler.cold("---|", values: [Character: Int](), error: "boom")
        let result = a.signal |> defaultIfEmpty(7)
        func show(_ event: Any, _ label: String = "") {
            print("\(scheduler.now): \(label)\(event)")
        }
        let subscription = result.start(next: { show($0) }, error: { _ in show("error") },
                                        completed: { show("completed") })
        try scheduler.run()
        subscription.dispose()
    }
}
