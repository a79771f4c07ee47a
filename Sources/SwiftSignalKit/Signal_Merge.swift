/// How many inputs of a `merge` are still running, and whether one has failed.
///
/// Thread-safety: every method may be called from any thread; the mutex is
/// held only to update the counters.
private final class MergeState: @unchecked Sendable {
    private let mutex = _Mutex()
    private var remaining: Int
    private var failed = false

    init(count: Int) {
        self.remaining = count
    }

    /// Counts a completion; true when all inputs have completed.
    func complete() -> Bool {
        self.mutex.lock()
        self.remaining -= 1
        let all = self.remaining == 0
        self.mutex.unlock()
        return all
    }

    /// Marks the merge failed.
    func fail() {
        self.mutex.lock()
        self.failed = true
        self.mutex.unlock()
    }

    var isFailed: Bool {
        self.mutex.lock()
        let failed = self.failed
        self.mutex.unlock()
        return failed
    }
}

/// Starts all `signals` (in array order) and forwards every value of every one
/// of them, as it arrives.
///
/// The first error passes through and disposes the other inputs (inputs not
/// yet started when it happens are never started). Completes when every input
/// has completed; an empty array completes at once.
///
/// Thread-safety: the inputs may emit from any thread; values are forwarded on
/// the thread they arrive on, without a lock, so inputs emitting concurrently
/// reach the subscriber concurrently (merge with `deliverOn` to serialize).
public func merge<T, E>(_ signals: [Signal<T, E>]) -> Signal<T, E> {
    return Signal<T, E> { subscriber in
        if signals.isEmpty {
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let state = MergeState(count: signals.count)
        let disposables = DisposableSet()
        for signal in signals {
            if state.isFailed {
                break
            }
            disposables.add(signal.start(next: { next in
                subscriber.putNext(next)
            }, error: { error in
                state.fail()
                subscriber.putError(error)
                disposables.dispose()
            }, completed: {
                if state.complete() {
                    subscriber.putCompletion()
                }
            }))
        }
        return disposables
    }
}
