/// Splits the values by `key`: the first value of each new key emits the
/// pair of that key and the group's signal, then every value of that key
/// (that first one included) goes to the group's signal. A group's signal is
/// hot, as a `SignalPipe`'s: subscribe to it from the callback that receives
/// the pair to miss none of its values, whatever the threads that emit them
/// (a later subscriber receives the values from then on).
///
/// The upstream's completion completes every group, in the order the groups
/// were made (their first values' order), then the outer signal; its error
/// fails every group, in that order, then the outer signal. A group's signal
/// subscribed after its group has ended receives that terminal event at
/// once, as a pipe's later subscriber does. Disposing the outer subscription
/// disposes the upstream and ends the groups without an event (their
/// subscriptions receive nothing more and release their callbacks, and a
/// later subscription receives nothing).
///
/// Thread-safety: the upstream may emit from any thread; `key` runs on the
/// upstream's thread, never under a lock. The groups live in a dictionary
/// (and in the order they were made, for their ends) under a lock never
/// held while anything is delivered. While the pair of a
/// new group is being delivered, the values of that key that other threads
/// emit wait, in order, and reach the group right after the first value,
/// on the thread that delivered the pair; each thread's values of one key
/// reach the group in the order it emitted them.
@inlinable
public func groupBy<T, K: Hashable, E>(_ key: @escaping (T) -> K) -> (Signal<T, E>) -> Signal<(K, Signal<T, E>), E> {
    return { signal in
        return Signal<(K, Signal<T, E>), E> { subscriber in
            let groups = _SignalGroups<K, T, E>()
            let upstream = signal.start(downstream: subscriber, next: { next in
                let k = key(next)
                switch groups.route(next, key: k) {
                case let .deliver(group):
                    group.pipe.putNext(next)
                case let .announce(group):
                    subscriber.putNext((k, group.signal()))
                    group.pipe.putNext(next)
                    groups.open(group)
                case .held:
                    break
                }
            }, error: { error in
                for group in groups.end(.failed(error)) {
                    group.pipe.putError(error)
                }
                subscriber.putError(error)
            }, completed: {
                for group in groups.end(.completed) {
                    group.pipe.putCompletion()
                }
                subscriber.putCompletion()
            })
            return ActionDisposable {
                upstream.dispose()
                groups.close()
            }
        }
    }
}

/// One group of a `groupBy` subscription: its pipe, and what waits for the
/// pair that announces it to be delivered.
///
/// Thread-safety: `pipe` may be used from any thread; the other properties
/// are guarded by the mutex of the `_SignalGroups` that made it.
@usableFromInline
final class _SignalGroup<T, E>: @unchecked Sendable {
    @usableFromInline let pipe = SignalPipe<T, E>()
    /// The pair has been delivered: values go straight to the pipe.
    @exclusivity(unchecked) @usableFromInline var open = false
    /// Values emitted while the pair was being delivered, oldest first.
    @exclusivity(unchecked) @usableFromInline var held: [T] = []
    /// The upstream's end, when it came while the pair was being delivered.
    @exclusivity(unchecked) @usableFromInline var terminal: _SignalGroupTerminal<E>?

    @inlinable
    init() {}

    /// The group's signal: it keeps the pipe alive, so that a subscriber
    /// that comes after the group's end receives its terminal event (the
    /// outer disposal closes the pipe instead).
    @inlinable
    func signal() -> Signal<T, E> {
        let pipe = self.pipe
        let source = pipe.source
        return Signal(fused: { makeNext, error, completed in
            return withExtendedLifetime(pipe) {
                source.startFusing(makeNext, error: error, completed: completed)
            }
        })
    }
}

/// How a `groupBy` upstream ended.
@usableFromInline
enum _SignalGroupTerminal<E> {
    case completed
    case failed(E)
}

/// The groups of one `groupBy` subscription.
///
/// Thread-safety: every method may be called from any thread; nothing is
/// called or released under the lock.
@usableFromInline
final class _SignalGroups<K: Hashable, T, E>: @unchecked Sendable {
    /// Where `route` sends a value.
    @usableFromInline
    enum Route {
        /// The group is open: put the value into its pipe.
        case deliver(_SignalGroup<T, E>)
        /// A new group: deliver its pair, put the value, then `open` it.
        case announce(_SignalGroup<T, E>)
        /// Kept until its group opens, or dropped (the groups have ended).
        case held
    }

    // Guarded by `mutex` (as are the groups' `open`, `held` and `terminal`).
    @usableFromInline let mutex = _Mutex()
    @exclusivity(unchecked) @usableFromInline var groups: [K: _SignalGroup<T, E>] = [:]
    /// The groups in the order they were made: the order they end in (a
    /// dictionary's order changes from one process to the next).
    @exclusivity(unchecked) @usableFromInline var made: [_SignalGroup<T, E>] = []
    @exclusivity(unchecked) @usableFromInline var ended = false
    /// The group of the last value routed, by key: a run of values of one
    /// key is routed without hashing the key.
    @exclusivity(unchecked) @usableFromInline var lastKey: K?
    @exclusivity(unchecked) @usableFromInline var lastGroup: _SignalGroup<T, E>?

    @inlinable
    init() {}

    /// Where `value`, of the key `key`, goes: to its open group; to a new
    /// group, to be announced by the caller; or held by a group whose pair
    /// is still being delivered (nowhere, once the groups have ended).
    @inlinable
    func route(_ value: T, key: K) -> Route {
        self.mutex.lock()
        if self.ended {
            self.mutex.unlock()
            return .held
        }
        if self.lastKey == key, let group = self.lastGroup {
            self.mutex.unlock()
            return .deliver(group)
        }
        if let group = self.groups[key] {
            if group.open {
                // Only open groups are remembered; the one replaced is
                // released after the unlock.
                let replaced = (self.lastKey, self.lastGroup)
                self.lastKey = key
                self.lastGroup = group
                self.mutex.unlock()
                withExtendedLifetime(replaced) {}
                return .deliver(group)
            }
            group.held.append(value)
            self.mutex.unlock()
            return .held
        }
        let group = _SignalGroup<T, E>()
        self.groups[key] = group
        self.made.append(group)
        self.mutex.unlock()
        return .announce(group)
    }

    /// Called by the thread that announced `group`, once the pair and the
    /// first value are delivered: delivers what other threads emitted
    /// meanwhile, then opens the group (and ends it, if the upstream ended
    /// meanwhile).
    @inlinable
    func open(_ group: _SignalGroup<T, E>) {
        while true {
            self.mutex.lock()
            if group.held.isEmpty {
                group.open = true
                let terminal = group.terminal
                group.terminal = nil
                self.mutex.unlock()
                switch terminal {
                case .completed:
                    group.pipe.putCompletion()
                case let .failed(error):
                    group.pipe.putError(error)
                case nil:
                    break
                }
                return
            }
            let held = group.held
            group.held = []
            self.mutex.unlock()
            for value in held {
                group.pipe.putNext(value)
            }
        }
    }

    /// Ends the groups with the upstream's `terminal`: returns the open ones,
    /// in the order they were made, for the caller to end; a group still
    /// being announced ends when it opens. Later values make no group.
    @inlinable
    func end(_ terminal: _SignalGroupTerminal<E>) -> [_SignalGroup<T, E>] {
        self.mutex.lock()
        self.ended = true
        let last = (self.lastKey, self.lastGroup)
        self.lastKey = nil
        self.lastGroup = nil
        var open: [_SignalGroup<T, E>] = []
        for group in self.made {
            if group.open {
                open.append(group)
            } else {
                group.terminal = terminal
            }
        }
        let groups = self.groups
        self.groups = [:]
        self.made = []
        self.mutex.unlock()
        withExtendedLifetime((last, groups)) {}
        return open
    }

    /// The outer subscription was disposed: ends every group's
    /// subscriptions without an event (and a later subscription's at once),
    /// outside the lock.
    @inlinable
    func close() {
        self.mutex.lock()
        self.ended = true
        let groups = self.made
        let keyed = self.groups
        let last = (self.lastKey, self.lastGroup)
        self.groups = [:]
        self.made = []
        self.lastKey = nil
        self.lastGroup = nil
        self.mutex.unlock()
        withExtendedLifetime((last, keyed)) {}
        for group in groups {
            group.pipe.broadcaster.close()
        }
    }
}
