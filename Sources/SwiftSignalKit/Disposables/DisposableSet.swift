/// A collection of disposables disposed together.
///
/// A disposable added after the set has been disposed is disposed at once.
/// `remove` takes a disposable out (by identity) without disposing it.
///
/// Thread-safety: all methods may be called from any thread; disposals run
/// outside the lock. A `dispose()` that finds another one still running (on
/// another thread, or called back from a disposal) disposes what the set
/// holds too, so that no call returns before every disposable held has been
/// disposed (the guarantee a subscription's own disposable gives, kept
/// through the set).
public final class DisposableSet: Disposable, @unchecked Sendable {
    private let mutex = _Mutex()
    private var disposed = false
    /// The disposes still running: the set keeps its disposables until the
    /// last one has returned (see `dispose`).
    private var disposing = 0
    private var disposables: [any Disposable] = []

    /// Makes an empty set of disposables.
    public init() {
    }

    /// Adds `disposable`, or disposes it at once when the set has been disposed.
    public func add(_ disposable: any Disposable) {
        self.mutex.lock()
        let disposeImmediately = self.disposed
        if !disposeImmediately {
            self.disposables.append(disposable)
        }
        self.mutex.unlock()
        if disposeImmediately {
            disposable.dispose()
        }
    }

    /// Takes `disposable` (by identity) out of the set without disposing it.
    public func remove(_ disposable: any Disposable) {
        self.mutex.lock()
        if let index = self.disposables.firstIndex(where: { $0 === disposable }) {
            self.disposables.remove(at: index)
        }
        self.mutex.unlock()
    }

    /// Disposes every disposable in the set, and any added later.
    ///
    /// The disposables stay in the set until every dispose running has
    /// returned: one that starts meanwhile disposes them too (each disposes
    /// once; a later call waits for nothing and finds them gone), instead of
    /// returning while the first is still on its way through them.
    public func dispose() {
        let disposables = self.mutex.withLock {
            self.disposed = true
            self.disposing += 1
            return self.disposables
        }
        for disposable in disposables {
            disposable.dispose()
        }
        // Dropped after the lock is released (a last release may run a deinit
        // that calls back).
        let finished: [any Disposable] = self.mutex.withLock {
            self.disposing -= 1
            if self.disposing > 0 {
                return []
            }
            let finished = self.disposables
            self.disposables = []
            return finished
        }
        withExtendedLifetime(finished) {}
    }
}
