import SwiftSignalKit

// Counting and tracking: how many times something happened, when a closure
// or an object was released, how many times a disposable was disposed.

/// A counter that tests increment from callbacks, on any thread, and read at
/// the end.
///
/// Thread-safety: every member may be used from any thread.
package final class Counter: @unchecked Sendable {
    /// The count; read it through `count`.
    package let value = Atomic<Int>(value: 0)

    package init() {
    }

    /// Adds one and returns the new count.
    @discardableResult
    package func increment() -> Int {
        return self.value.modify { $0 + 1 }
    }

    /// The count so far.
    package var count: Int {
        return self.value.with { $0 }
    }
}

/// Runs an action from its deinit. Captured by a closure, or kept by an object
/// under test, it tells when that closure or object is released.
///
/// Thread-safety: immutable. The action runs on whichever thread lets go of
/// the last reference, so it must itself be safe there (the `Counter` and
/// `Atomic` forms are).
package final class DeinitTracker: @unchecked Sendable {
    /// What the deinit runs.
    package let action: () -> Void

    /// Runs `action` when released.
    package init(_ action: @escaping () -> Void) {
        self.action = action
    }

    /// Increments `counter` when released.
    package convenience init(_ counter: Counter) {
        self.init {
            counter.increment()
        }
    }

    /// Adds one to `counter` when released.
    package convenience init(_ counter: Atomic<Int>) {
        self.init {
            _ = counter.modify { $0 + 1 }
        }
    }

    /// Does nothing: calling it from a closure makes the closure capture the
    /// tracker.
    package func touch() {
    }

    deinit {
        self.action()
    }
}

/// A disposable that counts how many times it is disposed: every call, not
/// only the first, so that a test sees a second dispose.
///
/// Thread-safety: `dispose()` and `count` may be called from any thread.
package final class CountingDisposable: Disposable, @unchecked Sendable {
    /// The disposals; read them through `count`.
    package let counter = Counter()

    package init() {
    }

    /// Counts one more disposal.
    package func dispose() {
        self.counter.increment()
    }

    /// How many times `dispose()` was called.
    package var count: Int {
        return self.counter.count
    }
}

/// Holds the disposable of a subscription, so that the subscription's own
/// callbacks can dispose it.
///
/// Thread-safety: it is a `MetaDisposable`, so it may be set and disposed from
/// any thread, and a dispose that comes before the set disposes what is set.
package final class DisposableBox: @unchecked Sendable {
    /// The subscription's disposable, once set.
    package let disposable = MetaDisposable()

    package init() {
    }
}
