/// Splits the values by `key`: the first value of each new key emits the
/// pair of that key and the group's signal, then every value of that key
/// (that first one included) goes to the group's signal. A group's signal is
/// hot, as a `SignalPipe`'s: subscribe to it from the callback that receives
/// the pair to miss none of its values (a later subscriber receives the
/// values from then on).
///
/// The upstream's completion completes every group, then the outer signal;
/// its error fails every group, then the outer signal. Disposing the outer
/// subscription disposes the upstream and ends the groups without an event
/// (their subscriptions receive nothing more and release their callbacks).
///
/// Thread-safety: the upstream may emit from any thread; `key` runs on the
/// upstream's thread, never under a lock. The groups live in a dictionary
/// under a lock never held while anything is delivered. (Two threads that
/// emit the first values of one key at once: one of them emits the group,
/// and the other's value may reach the group before the pair does, so before
/// anyone could subscribe to it.)
public func groupBy<T, K: Hashable, E>(_ key: @escaping (T) -> K) -> (Signal<T, E>) -> Signal<(K, Signal<T, E>), E> {
    return { signal in
        return Signal<(K, Signal<T, E>), E> { subscriber in
            let groups = _SignalGroups<K, T, E>()
            let upstream = signal.start(downstream: subscriber, next: { next in
                let k = key(next)
                let (pipe, isNew) = groups.pipe(for: k)
                guard let pipe else {
                    return
                }
                if isNew {
                    subscriber.putNext((k, pipe.signal()))
                }
                pipe.putNext(next)
            }, error: { error in
                for pipe in groups.end() {
                    pipe.putError(error)
                }
                subscriber.putError(error)
            }, completed: {
                for pipe in groups.end() {
                    pipe.putCompletion()
                }
                subscriber.putCompletion()
            })
            return ActionDisposable {
                upstream.dispose()
                // Dropped here, outside the lock: each pipe's release ends
                // its group's subscriptions without an event.
                _ = groups.end()
            }
        }
    }
}

/// The groups of one `groupBy` subscription.
///
/// Thread-safety: every method may be called from any thread; nothing is
/// called or released under the lock.
final class _SignalGroups<K: Hashable, T, E>: @unchecked Sendable {
    private let mutex = _Mutex()
    private var pipes: [K: SignalPipe<T, E>] = [:]
    private var ended = false

    init() {}

    /// The group of `key`, made if new (then `isNew`); nil once ended.
    func pipe(for key: K) -> (SignalPipe<T, E>?, isNew: Bool) {
        self.mutex.lock()
        if self.ended {
            self.mutex.unlock()
            return (nil, false)
        }
        if let pipe = self.pipes[key] {
            self.mutex.unlock()
            return (pipe, false)
        }
        let pipe = SignalPipe<T, E>()
        self.pipes[key] = pipe
        self.mutex.unlock()
        return (pipe, true)
    }

    /// Ends the groups: returns them (to be terminated or released by the
    /// caller); later values make none.
    func end() -> [SignalPipe<T, E>] {
        self.mutex.lock()
        self.ended = true
        let pipes = Array(self.pipes.values)
        self.pipes = [:]
        self.mutex.unlock()
        return pipes
    }
}
