/// Maps each value to a signal with `f` and runs up to `maxConcurrent` of
/// them at once, forwarding all their values; a value that comes while
/// `maxConcurrent` inner signals run waits (in order) until one completes.
/// `maxConcurrent == 1` runs them one after the other (a concat-map, as
/// `mapToQueue`); `Int.max` runs all at once (a merge-map). A count below 1
/// counts as 1; any count is a limit, never memory reserved.
///
/// An error of the upstream or of an inner signal passes through and disposes
/// everything (waiting values are dropped). Completes once the upstream has
/// completed and every inner signal has completed.
///
/// Inner signals that complete synchronously are started by a loop, not by
/// recursion: the stack does not grow with the number of waiting values.
///
/// Thread-safety: the upstream and the inner signals may emit from any
/// thread; `f` runs and inner signals start on the thread of the value or of
/// the inner completion that makes room, never under a lock.
public func mergeMap<T, R, E>(maxConcurrent: Int = Int.max, _ f: @escaping (T) -> Signal<R, E>) -> (Signal<T, E>) -> Signal<R, E> {
    return { signal in
        return Signal<R, E> { subscriber in
            let state = _MergeMapState<T, R, E>(maxConcurrent: max(1, maxConcurrent), subscriber: subscriber, f: f)
            state.setOuter(signal.start(downstream: subscriber, next: { next in
                state.enqueue(next)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                state.outerCompleted()
            }))
            return _WeakDisposable(state)
        }
    }
}

/// The state of one `mergeMap` subscription: the waiting values, the
/// running inner signals and who drives the loop that starts them.
///
/// `driving` is set while one thread runs `drive()`: the only thread that
/// starts inner signals. An event that comes meanwhile (a value, an inner
/// completion, the upstream's completion) updates the counters under the lock
/// and leaves the rest to that thread, which checks again before it stops.
///
/// Thread-safety: every method may be called from any thread; the lock is
/// never held while user code runs, a signal starts or something is disposed.
final class _MergeMapState<T, R, E>: Disposable, @unchecked Sendable {
    private let mutex = _Mutex()
    private let maxConcurrent: Int
    private var subscriber: Subscriber<R, E>?
    private var f: ((T) -> Signal<R, E>)?
    private var waiting = _ZipQueue<T>()
    private var active = 0
    private var driving = false
    private var outerDone = false
    private var finished = false
    private var outer: (any Disposable)?
    private var inners: [Int: any Disposable] = [:]
    private var nextId = 0

    init(maxConcurrent: Int, subscriber: Subscriber<R, E>, f: @escaping (T) -> Signal<R, E>) {
        self.maxConcurrent = maxConcurrent
        self.subscriber = subscriber
        self.f = f
    }

    func setOuter(_ disposable: any Disposable) {
        self.mutex.lock()
        let disposeNow = self.finished
        if !disposeNow {
            self.outer = disposable
        }
        self.mutex.unlock()
        if disposeNow {
            disposable.dispose()
        }
    }

    func enqueue(_ value: T) {
        self.mutex.lock()
        if self.finished {
            self.mutex.unlock()
            return
        }
        self.waiting.push(value)
        self.driveIfIdle()
    }

    func outerCompleted() {
        self.mutex.lock()
        self.outerDone = true
        self.driveIfIdle()
    }

    private func innerCompleted(_ id: Int) {
        self.mutex.lock()
        let inner = self.inners.removeValue(forKey: id)
        self.active -= 1
        self.driveIfIdle()
        withExtendedLifetime(inner) {}
    }

    /// Called with the lock held; unlocks. Drives unless a thread already is.
    private func driveIfIdle() {
        if self.driving || self.finished {
            self.mutex.unlock()
            return
        }
        self.driving = true
        self.mutex.unlock()
        self.drive()
    }

    private func drive() {
        while true {
            self.mutex.lock()
            guard !self.finished, let subscriber = self.subscriber, let f = self.f else {
                self.driving = false
                self.mutex.unlock()
                return
            }
            if self.active < self.maxConcurrent && !self.waiting.isEmpty {
                let value = self.waiting.pop()
                self.active += 1
                let id = self.nextId
                self.nextId += 1
                // A placeholder: the inner's completion removes it, also one
                // that comes during the start.
                self.inners[id] = EmptyDisposable
                self.mutex.unlock()
                if subscriber.isEnded {
                    self.mutex.lock()
                    self.driving = false
                    self.mutex.unlock()
                    return
                }
                let disposable = f(value).start(downstream: subscriber, next: { next in
                    subscriber.putNext(next)
                }, error: { error in
                    subscriber.putError(error)
                }, completed: {
                    self.innerCompleted(id)
                })
                self.mutex.lock()
                if !self.finished && self.inners[id] != nil {
                    self.inners[id] = disposable
                    self.mutex.unlock()
                } else {
                    self.mutex.unlock()
                    disposable.dispose()
                }
                continue
            }
            let complete = self.active == 0 && self.outerDone && self.waiting.isEmpty
            self.driving = false
            self.mutex.unlock()
            if complete {
                subscriber.putCompletion()
            }
            return
        }
    }

    func dispose() {
        self.mutex.lock()
        if self.finished {
            self.mutex.unlock()
            return
        }
        self.finished = true
        let outer = self.outer
        let inners = self.inners
        let released = (self.subscriber, self.f, self.waiting)
        self.outer = nil
        self.inners = [:]
        self.subscriber = nil
        self.f = nil
        self.waiting = _ZipQueue<T>()
        self.mutex.unlock()
        outer?.dispose()
        for (_, inner) in inners {
            inner.dispose()
        }
        withExtendedLifetime(released) {}
    }
}
