/// Shares one subscription per key among all the subscribers of that key.
///
/// `get(key:signal:)` returns a signal whose subscribers of the same key share
/// ONE subscription to `signal`: the first subscriber starts it, the values fan
/// out to every current subscriber, and the last subscriber to leave disposes
/// it. When the shared signal completes, every current subscriber completes and
/// the key is cleared, so the next subscriber starts `signal` anew. There is no
/// replay: a subscriber joining late receives only the values emitted after it
/// joined. While a key is live, the `signal` passed by later subscribers is
/// ignored (the running one is shared).
///
/// This is what the original's structure intends, not what it does: it never
/// records the running subscription under its key, so there every subscriber
/// starts `signal` anew, no subscription to `signal` is ever disposed, and a
/// completion reaches no subscriber. Code that worked with the original's
/// (which shared nothing) sees the same values here, from one subscription.
///
/// Ownership: a subscription keeps the `Multicast` alive until it is disposed
/// or completed; the shared subscription holds it weakly.
///
/// Thread-safety: `@unchecked Sendable` because the table of keys and every
/// key's subscribers live under one internal lock, and the source is started,
/// disposed and forwarded to subscribers outside it. Every method may be called
/// from any thread. Values are forwarded on the thread on which the shared
/// signal emits them.
public final class Multicast<T>: @unchecked Sendable {
    private final class Instance {
        let subscribers = Bag<Subscriber<T, NoError>>()
        let disposable = MetaDisposable()
        var terminated = false
    }

    private let mutex = _Mutex()
    private var instances: [String: Instance] = [:]

    /// Makes a multicast with no running signal.
    public init() {
    }

    /// A signal that shares, among all subscribers of `key`, one subscription
    /// to `signal` (see the type's documentation).
    public func get(key: String, signal: Signal<T, NoError>) -> Signal<T, NoError> {
        return Signal { subscriber in
            self.mutex.lock()
            let instance: Instance
            let isFirst: Bool
            if let existing = self.instances[key] {
                instance = existing
                isFirst = false
            } else {
                instance = Instance()
                self.instances[key] = instance
                isFirst = true
            }
            let index = instance.subscribers.add(subscriber)
            self.mutex.unlock()

            if isFirst {
                instance.disposable.set(signal.start(next: { [weak self, weak instance] next in
                    guard let self, let instance else {
                        return
                    }
                    self.mutex.lock()
                    let subscribers = instance.subscribers.copyItems()
                    self.mutex.unlock()
                    for subscriber in subscribers {
                        subscriber.putNext(next)
                    }
                }, completed: { [weak self, weak instance] in
                    guard let self, let instance else {
                        return
                    }
                    self.mutex.lock()
                    if self.instances[key] === instance {
                        self.instances.removeValue(forKey: key)
                    }
                    instance.terminated = true
                    let subscribers = instance.subscribers.copyItems()
                    instance.subscribers.removeAll()
                    self.mutex.unlock()
                    for subscriber in subscribers {
                        subscriber.putCompletion()
                    }
                }))
            }

            return ActionDisposable {
                self.mutex.lock()
                let removed = instance.subscribers.get(index)
                instance.subscribers.remove(index)
                var disposeSource = false
                if instance.subscribers.isEmpty && !instance.terminated {
                    instance.terminated = true
                    disposeSource = true
                    if self.instances[key] === instance {
                        self.instances.removeValue(forKey: key)
                    }
                }
                self.mutex.unlock()
                withExtendedLifetime(removed) {}
                if disposeSource {
                    instance.disposable.dispose()
                }
            }
        }
    }
}

/// A plain container for a hand-written multicast: a bag of subscriber
/// callbacks, the last value, and the lock that guards both. It implements no
/// behaviour of its own (as in the original).
///
/// Thread-safety: `@unchecked Sendable` because it is meant to be shared
/// between threads under its own `lock`: hold `lock` while reading or writing
/// `subscribers` and `value`, and call the callbacks after releasing it. The
/// container enforces nothing itself.
public final class MulticastPromise<T>: @unchecked Sendable {
    /// The callbacks to call with each new value; guard with `lock`.
    public let subscribers = Bag<(T) -> Void>()
    /// The lock that guards `subscribers` and `value`.
    public let lock = Lock()
    /// The last value; guard with `lock`.
    public var value: T?

    /// Makes a promise with no value and no subscribers.
    public init() {
    }
}
