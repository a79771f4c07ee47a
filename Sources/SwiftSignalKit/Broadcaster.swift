#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The engine shared by `Promise`, `ValuePromise` and `ValuePipe`: a bag of
/// subscriber callbacks, an optional cached value replayed to new subscribers
/// and some owner-defined `State`, all under one lock; callbacks always run
/// outside it.
///
/// Delivery and ordering:
/// - A value is published (the owner updates the cache) and the subscribers are
///   snapshotted in one critical section; the publishing thread then delivers
///   it. Several threads publishing at once deliver concurrently, as any
///   generator emitting from several threads does (see `Subscriber`): their
///   values may reach a subscriber in either order.
/// - The replay never comes after a newer value (the race the original has): a
///   new subscriber is registered in a "replaying" state in the same critical
///   section that reads the cached value. Values published before it have
///   snapshots without it; values published while its replay is being
///   delivered are kept in its backlog, and the subscribing thread delivers
///   them after the replay, before the subscriber goes live. (This is how
///   RxJava's `BehaviorSubject` does it.)
/// - A value published from inside a callback, on the thread that is
///   delivering, waits until that thread's current delivery is over: every
///   subscriber then receives the values in publication order, and nested
///   publications do not grow the stack. Each thread only ever delivers its own
///   publications (and a new subscriber's backlog), never another thread's.
///
/// `State` must not be an empty type (`Void`): ThreadSanitizer maps an `inout`
/// access to a zero-sized stored property onto the object's header and then
/// reports a false race with ordinary method calls.
///
/// Thread-safety: every method may be called from any thread. The closures
/// given to `publish`, `withState` and `subscribe` run under the lock and must
/// be library code only; anything they replace (the cached value, parts of the
/// state) is released after the lock is dropped, as are removed callbacks.
final class _Broadcaster<T, State>: @unchecked Sendable {
    typealias Callback = (T) -> Void

    private final class Entry {
        let callback: Callback
        /// Non-nil while the entry's replay is being delivered: the values
        /// published meanwhile wait here. Guarded by the broadcaster's lock.
        var backlog: [T]?

        init(_ callback: @escaping Callback) {
            self.callback = callback
        }
    }

    private struct Delivery {
        let value: T
        let targets: [Entry]
    }

    /// A thread that is delivering, with the publications it made from inside
    /// its callbacks, delivered once the current delivery is over.
    private struct DeliveringThread {
        let thread: pthread_t
        var pending: [Delivery]
    }

    private let mutex = _Mutex()
    private var value: T?
    private var state: State
    private let subscribers = Bag<Entry>()
    private var replayingCount = 0
    private var deliveringThreads: [DeliveringThread] = []

    init(value: T?, state: State) {
        self.value = value
        self.state = state
    }

    /// Runs `body` under the lock with the cached value and the state.
    func withState<R>(_ body: (inout T?, inout State) -> R) -> R {
        self.mutex.lock()
        let previous = (self.value, self.state)
        let result = body(&self.value, &self.state)
        self.mutex.unlock()
        withExtendedLifetime(previous) {}
        return result
    }

    /// Runs `decide` under the lock; if it returns a value, delivers that value
    /// to every current subscriber (`decide` updates the cache itself when the
    /// owner caches). Returns after the delivery, unless called from inside a
    /// callback of this broadcaster (then the value is delivered after the
    /// current delivery).
    func publish(_ decide: (inout T?, inout State) -> T?) {
        self.mutex.lock()
        let previous = (self.value, self.state)
        guard let next = decide(&self.value, &self.state) else {
            self.mutex.unlock()
            withExtendedLifetime(previous) {}
            return
        }
        let delivery = Delivery(value: next, targets: self.targets(for: next))
        let nested = self.enterDelivering(queueing: delivery)
        self.mutex.unlock()
        withExtendedLifetime(previous) {}
        if nested {
            return
        }
        Self.run(delivery)
        self.leaveDelivering()
    }

    /// Registers `callback`, after running `body` under the same lock, and
    /// delivers the cached value to it, if there is one, followed by the values
    /// published meanwhile, before returning. (The key is not known before the
    /// return, so the subscriber cannot leave during its replay: a disposed
    /// `Subscriber` drops those values itself.) Returns the key for
    /// `unsubscribe` and the result of `body`.
    func subscribe<R>(_ callback: @escaping Callback, _ body: (inout T?, inout State) -> R) -> (Int, R) {
        self.mutex.lock()
        let previous = (self.value, self.state)
        let result = body(&self.value, &self.state)
        let entry = Entry(callback)
        let index = self.subscribers.add(entry)
        guard let current = self.value else {
            self.mutex.unlock()
            withExtendedLifetime(previous) {}
            return (index, result)
        }
        entry.backlog = []
        self.replayingCount += 1
        let nested = self.enterDelivering(queueing: nil)
        self.mutex.unlock()
        withExtendedLifetime(previous) {}

        callback(current)
        while true {
            self.mutex.lock()
            let backlog = entry.backlog ?? []
            if backlog.isEmpty {
                entry.backlog = nil
                self.replayingCount -= 1
                self.mutex.unlock()
                break
            }
            entry.backlog = []
            self.mutex.unlock()
            for value in backlog {
                callback(value)
            }
        }
        if !nested {
            self.leaveDelivering()
        }
        return (index, result)
    }

    /// Removes the callback registered under `index`; a stale index is a no-op.
    func unsubscribe(_ index: Int) {
        self.mutex.lock()
        let removed = self.subscribers.get(index)
        self.subscribers.remove(index)
        self.mutex.unlock()
        withExtendedLifetime(removed) {}
    }

    /// The subscribers to deliver `value` to; a subscriber whose replay is
    /// being delivered gets it in its backlog instead. Called under the lock.
    private func targets(for value: T) -> [Entry] {
        let all = self.subscribers.copyItems()
        if self.replayingCount == 0 {
            return all
        }
        var targets: [Entry] = []
        targets.reserveCapacity(all.count)
        for entry in all {
            if entry.backlog != nil {
                entry.backlog!.append(value)
            } else {
                targets.append(entry)
            }
        }
        return targets
    }

    /// Marks the current thread as delivering and returns false; if it already
    /// is (a call from inside a callback), queues `delivery` for it and returns
    /// true. Called under the lock.
    private func enterDelivering(queueing delivery: Delivery?) -> Bool {
        let me = pthread_self()
        for i in self.deliveringThreads.indices where pthread_equal(self.deliveringThreads[i].thread, me) != 0 {
            if let delivery {
                self.deliveringThreads[i].pending.append(delivery)
            }
            return true
        }
        self.deliveringThreads.append(DeliveringThread(thread: me, pending: []))
        return false
    }

    /// Delivers what the current thread queued from inside its callbacks,
    /// until nothing is left, then marks it as no longer delivering.
    private func leaveDelivering() {
        let me = pthread_self()
        while true {
            self.mutex.lock()
            guard let i = self.deliveringThreads.firstIndex(where: { pthread_equal($0.thread, me) != 0 }) else {
                self.mutex.unlock()
                return
            }
            let pending = self.deliveringThreads[i].pending
            if pending.isEmpty {
                self.deliveringThreads.remove(at: i)
                self.mutex.unlock()
                return
            }
            self.deliveringThreads[i].pending = []
            self.mutex.unlock()
            for delivery in pending {
                Self.run(delivery)
            }
        }
    }

    private static func run(_ delivery: Delivery) {
        for entry in delivery.targets {
            entry.callback(delivery.value)
        }
    }
}
