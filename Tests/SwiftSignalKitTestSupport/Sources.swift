import Dispatch
import SwiftSignalKit

// Signals the tests drive by hand: a hot source with any number of
// subscribers, a source whose latest subscriber the test drives, and a
// synchronous one.

/// A hot source: what is put into it goes to every subscriber attached at the
/// time, in the order they subscribed. A subscriber leaves when its
/// subscription is disposed. Counts subscriptions and disposals.
///
/// Thread-safety: every member may be used from any thread. Events are
/// delivered on the thread that puts them, and puts from two threads at once
/// are delivered at once (the pipe does not serialize them).
package final class TestPipe<T, E>: @unchecked Sendable {
    /// The subscribers attached now.
    package let subscribers = Atomic<Bag<Subscriber<T, E>>>(value: Bag())
    /// The subscriptions made so far; read them through `subscribed`.
    package let subscriptions = Counter()
    /// The subscriptions disposed so far; read them through `disposed`.
    package let disposals = Counter()

    package init() {
    }

    /// A signal whose subscribers are attached to the pipe until disposed.
    package func signal() -> Signal<T, E> {
        return Signal { subscriber in
            let index = self.subscribers.with { bag in
                self.subscriptions.increment()
                return bag.add(subscriber)
            }
            return ActionDisposable {
                self.subscribers.with { bag in
                    bag.remove(index)
                    self.disposals.increment()
                }
            }
        }
    }

    /// How many subscribers are attached now.
    package var subscriberCount: Int {
        return self.subscribers.with { $0.copyItems().count }
    }

    /// How many subscriptions were made so far.
    package var subscribed: Int {
        return self.subscriptions.count
    }

    /// How many subscriptions were disposed so far.
    package var disposed: Int {
        return self.disposals.count
    }

    /// Puts `value` to every subscriber attached now.
    package func putNext(_ value: T) {
        for subscriber in self.subscribers.with({ $0.copyItems() }) {
            subscriber.putNext(value)
        }
    }

    /// Puts `error` to every subscriber attached now.
    package func putError(_ error: E) {
        for subscriber in self.subscribers.with({ $0.copyItems() }) {
            subscriber.putError(error)
        }
    }

    /// Completes every subscriber attached now.
    package func putCompletion() {
        for subscriber in self.subscribers.with({ $0.copyItems() }) {
            subscriber.putCompletion()
        }
    }

    /// Puts `values`, then the completion, from a global queue; returns at
    /// once.
    package func putFromAnotherThread<S: Sequence & Sendable>(_ values: S) where S.Element == T {
        DispatchQueue.global().async {
            for value in values {
                self.putNext(value)
            }
            self.putCompletion()
        }
    }
}

/// A source whose subscriber the test drives by hand: `put`, `fail` and
/// `complete` go to the subscriber of the latest start, even once that
/// subscription is disposed (so that a test sees whether the library drops
/// them). Counts starts and disposals, and on each start signals `started`
/// (for threads) and `startedEvent` (for tasks).
///
/// Thread-safety: every member may be used from any thread; events are
/// delivered on the thread that puts them.
package final class ManualSource<T, E>: @unchecked Sendable {
    /// The subscriber of the latest start.
    package let current = Atomic<Subscriber<T, E>?>(value: nil)
    /// The starts so far.
    package let starts = Atomic(value: 0)
    /// The disposals so far.
    package let disposals = Atomic(value: 0)
    /// Signalled on each start, for a thread to wait on.
    package let started = DispatchSemaphore(value: 0)
    /// Signalled on each start, for a task to await.
    package let startedEvent = AsyncEvent()

    package init() {
    }

    /// A signal whose every start replaces `current`.
    package func signal() -> Signal<T, E> {
        return Signal { subscriber in
            self.starts.modify { $0 + 1 }
            self.current.swap(subscriber)
            self.started.signal()
            self.startedEvent.signal()
            return ActionDisposable {
                self.disposals.modify { $0 + 1 }
            }
        }
    }

    /// Puts `value` to the subscriber of the latest start.
    package func put(_ value: T) {
        self.current.with { $0 }?.putNext(value)
    }

    /// Puts `error` to the subscriber of the latest start.
    package func fail(_ error: E) {
        self.current.with { $0 }?.putError(error)
    }

    /// Completes the subscriber of the latest start.
    package func complete() {
        self.current.with { $0 }?.putCompletion()
    }

    /// Starts not yet disposed.
    package var active: Int {
        return self.starts.with { $0 } - self.disposals.with { $0 }
    }
}

/// A signal that emits `values` synchronously, then completes; `disposed`,
/// when given, counts the disposals of its subscriptions.
package func syncSignal<T>(_ values: [T], disposed: Counter? = nil) -> Signal<T, Int> {
    return Signal<T, Int> { subscriber in
        for value in values {
            subscriber.putNext(value)
        }
        subscriber.putCompletion()
        return ActionDisposable {
            disposed?.increment()
        }
    }
}
