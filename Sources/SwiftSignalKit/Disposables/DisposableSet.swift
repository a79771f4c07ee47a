/// A collection of disposables disposed together.
///
/// A disposable added after the set has been disposed is disposed at once.
/// `remove` takes a disposable out (by identity) without disposing it.
///
/// Thread-safety: all methods may be called from any thread; disposals run
/// outside the lock.
public final class DisposableSet: Disposable, @unchecked Sendable {
    private let mutex = _Mutex()
    private var disposed = false
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
    public func dispose() {
        self.mutex.lock()
        var disposables: [any Disposable] = []
        if !self.disposed {
            self.disposed = true
            disposables = self.disposables
            self.disposables = []
        }
        self.mutex.unlock()
        for disposable in disposables {
            disposable.dispose()
        }
    }
}
