/// The inputs of an operator that runs several signals at once (`merge`,
/// `combineLatest`): one disposable set for all of them, the first error ends
/// the whole group, and completion comes once every input has completed.
///
/// With a `queue`, errors and completions are handled on it (inline when
/// already on it), as the operator's values are.
///
/// Thread-safety: `error` and `completed` may be called from any thread; the
/// mutex guards only the counters, never a delivery.
@usableFromInline
final class _SignalInputGroup<T, E>: @unchecked Sendable {
    @usableFromInline let mutex = _Mutex()
    @exclusivity(unchecked) @usableFromInline var remaining: Int
    @exclusivity(unchecked) @usableFromInline var failed = false
    @usableFromInline let subscriber: Subscriber<T, E>
    @usableFromInline let queue: Queue?
    @usableFromInline let disposables = DisposableSet()

    @inlinable
    init(count: Int, subscriber: Subscriber<T, E>, queue: Queue? = nil) {
        self.remaining = count
        self.subscriber = subscriber
        self.queue = queue
    }

    /// Starts the inputs in order with `start(index)`, stopping at the first
    /// error, or as soon as the subscriber has terminated (a downstream
    /// `take` completed it during this start): inputs not started by then
    /// never are. Returns the disposable of the whole group.
    @inlinable
    func start(_ start: (Int) -> any Disposable) -> any Disposable {
        let count = self.withLock { self.remaining }
        for index in 0 ..< count {
            if self.withLock({ self.failed }) || self.subscriber.isEnded {
                break
            }
            self.disposables.add(start(index))
        }
        return self.disposables
    }

    /// The error callback of every input: the first error passes through and
    /// disposes every input.
    @inlinable
    func error(_ error: E) {
        self.deliver {
            self.withLock { self.failed = true }
            self.subscriber.putError(error)
            self.disposables.dispose()
        }
    }

    /// The completion callback of every input: completes after the last one.
    @inlinable
    func completed() {
        self.deliver {
            let all = self.withLock { () -> Bool in
                self.remaining -= 1
                return self.remaining == 0
            }
            if all {
                self.subscriber.putCompletion()
            }
        }
    }

    @inlinable
    func deliver(_ f: @escaping () -> Void) {
        if let queue = self.queue {
            queue.async(f)
        } else {
            f()
        }
    }

    @inlinable
    func withLock<R>(_ body: () -> R) -> R {
        self.mutex.lock()
        defer { self.mutex.unlock() }
        return body()
    }
}
