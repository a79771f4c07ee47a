// State that is deliberately not synchronized, for the tests of what is
// supposed to synchronize it (queues, pools, locks): a missing happens-before
// edge shows as a race under ThreadSanitizer, and an overlap or a lost update
// shows in the values themselves.

/// A log for checking that a serial context really is serial.
///
/// Thread-safety: none, on purpose. It is `Sendable` only so that closures
/// can carry it; touch it from one serial context at a time (a queue, the
/// tasks of one pool queue, one pool thread), and ThreadSanitizer reports a
/// race if two accesses ever overlap or lack a happens-before edge.
package final class UnsyncedLog<T>: @unchecked Sendable {
    /// The entries, in the order they were appended.
    package var values: [T] = []

    package init() {
    }
}

/// Counters for checking that a lock excludes: an overlap shows in `inside`
/// and `overlaps` (and ThreadSanitizer reports it), a lost update in `value`.
///
/// Thread-safety: none, on purpose. Call `update()` only under the lock under
/// test, and read the counters once every thread is done.
package final class Unprotected: @unchecked Sendable {
    /// The updates that were made.
    package var value = 0
    /// The updates running now.
    package var inside = 0
    /// The updates that found another one running.
    package var overlaps = 0

    package init() {
    }

    /// One update: adds one to `value`, and to `overlaps` when another update
    /// is running at the same time. Call it only under the lock under test.
    package func update() {
        self.inside += 1
        if self.inside != 1 {
            self.overlaps += 1
        }
        self.value += 1
        self.inside -= 1
    }
}
