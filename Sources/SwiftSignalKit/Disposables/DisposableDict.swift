/// Disposables indexed by key: setting a key disposes what it held before.
///
/// Setting `nil` disposes and removes the key's disposable. After `dispose()`,
/// anything set is disposed at once.
///
/// Thread-safety: all methods may be called from any thread; disposals run
/// outside the lock. A `dispose()` that finds another one still running
/// disposes what the dictionary holds too: no call returns before every
/// disposable held has been disposed.
public final class DisposableDict<T: Hashable>: Disposable, @unchecked Sendable {
    private let mutex = _Mutex()
    private var disposed = false
    /// The disposes still running: the dictionary keeps its disposables until
    /// the last one has returned (see `dispose`).
    private var disposing = 0
    private var disposables: [T: any Disposable] = [:]

    /// Makes an empty dictionary of disposables.
    public init() {
    }

    /// Stores `disposable` under `key`, disposing what the key held before;
    /// `nil` disposes and removes it. After `dispose()`, `disposable` is disposed at once.
    public func set(_ disposable: (any Disposable)?, forKey key: T) {
        self.mutex.lock()
        let disposeImmediately = self.disposed
        var previous: (any Disposable)?
        if !disposeImmediately {
            previous = self.disposables[key]
            self.disposables[key] = disposable
        }
        self.mutex.unlock()
        if let previous, previous !== disposable {
            previous.dispose()
        }
        if disposeImmediately {
            disposable?.dispose()
        }
    }

    /// Disposes every disposable held, and any set later.
    ///
    /// The disposables stay until every dispose running has returned: one
    /// that starts meanwhile disposes them too, instead of returning before
    /// they are disposed.
    public func dispose() {
        let disposables = self.mutex.withLock {
            self.disposed = true
            self.disposing += 1
            return self.disposables
        }
        for (_, disposable) in disposables {
            disposable.dispose()
        }
        // Dropped after the lock is released.
        let finished: [T: any Disposable] = self.mutex.withLock {
            self.disposing -= 1
            if self.disposing > 0 {
                return [:]
            }
            let finished = self.disposables
            self.disposables = [:]
            return finished
        }
        withExtendedLifetime(finished) {}
    }
}
