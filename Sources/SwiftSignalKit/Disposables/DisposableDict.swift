/// Disposables indexed by key: setting a key disposes what it held before.
///
/// Setting `nil` disposes and removes the key's disposable. After `dispose()`,
/// anything set is disposed at once.
///
/// Thread-safety: all methods may be called from any thread; disposals run
/// outside the lock.
public final class DisposableDict<T: Hashable>: Disposable, @unchecked Sendable {
    private let mutex = _Mutex()
    private var disposed = false
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
    public func dispose() {
        self.mutex.lock()
        var disposables: [T: any Disposable] = [:]
        if !self.disposed {
            self.disposed = true
            disposables = self.disposables
            self.disposables = [:]
        }
        self.mutex.unlock()
        for (_, disposable) in disposables {
            disposable.dispose()
        }
    }
}
