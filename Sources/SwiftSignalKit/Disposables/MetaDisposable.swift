/// A slot holding one disposable at a time.
///
/// `set` disposes the disposable it replaces; once the `MetaDisposable` itself
/// is disposed, anything set afterwards is disposed at once. This is the usual
/// way to keep "the latest subscription only".
///
/// Thread-safety: all methods may be called from any thread. Disposals run
/// outside the lock, so a disposable may call back into this object.
public final class MetaDisposable: Disposable, @unchecked Sendable {
    private let mutex = _Mutex()
    private var disposed = false
    private var disposable: (any Disposable)?

    /// Makes a meta disposable that holds nothing yet.
    public init() {
    }

    /// Replaces the held disposable, disposing the previous one. Setting `nil`
    /// disposes the previous one and leaves the slot empty.
    public func set(_ disposable: (any Disposable)?) {
        self.mutex.lock()
        let disposeImmediately = self.disposed
        var previous: (any Disposable)?
        if !disposeImmediately {
            previous = self.disposable
            self.disposable = disposable
        }
        self.mutex.unlock()

        if let previous, previous !== disposable {
            previous.dispose()
        }
        if disposeImmediately {
            disposable?.dispose()
        }
    }

    /// Disposes the disposable held, and any set later.
    public func dispose() {
        self.mutex.lock()
        var disposable: (any Disposable)?
        if !self.disposed {
            self.disposed = true
            disposable = self.disposable
            self.disposable = nil
        }
        self.mutex.unlock()
        disposable?.dispose()
    }
}
