/// Disposables indexed by key: setting a key disposes what it held before.
///
/// Setting `nil` disposes and removes the key's disposable. After `dispose()`,
/// anything set is disposed at once.
///
/// Thread-safety: all methods may be called from any thread; disposals run
/// outside the lock. A `dispose()` that finds another one still running
/// disposes what the dictionary holds too: no call returns before every
/// disposable held has been disposed.
///
/// Containers nest without a limit: past 32 container disposes nested on a
/// thread's stack, the deeper ones run once the one they are nested in has
/// returned, before the outermost one returns (see `_NestedDisposal`), so a
/// dispose made that deep may return before what it holds is disposed.
///
/// - Complexity: disposing N containers nested in one another takes time
///   linear in N, at any depth.
public final class DisposableDict<T: Hashable>: Disposable, _EndingContainer, @unchecked Sendable {
    private let mutex = _Mutex()
    /// See `_ContainerDisposal`.
    private var disposal = _ContainerDisposal()
    private var disposables: [T: any Disposable] = [:]

    /// Makes an empty dictionary of disposables.
    public init() {
    }

    deinit {
        if !self.disposables.isEmpty {
            // Nested containers are released one level at a time past a few
            // levels (see `_NestedDisposal`).
            _NestedDisposal.releaseMembers({ self.disposables = [:] }, { Array(self.disposables.values) })
        }
    }

    /// Stores `disposable` under `key`, disposing what the key held before;
    /// `nil` disposes and removes it. After `dispose()`, `disposable` is disposed at once.
    public func set(_ disposable: (any Disposable)?, forKey key: T) {
        self.mutex.lock()
        let disposeImmediately = self.disposal.disposed
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
        let disposables = self.mutex.withLock { self.disposal.begin(self.disposables) }
        if _ContainerDisposal.withFrame(of: self, { frame in
            for (_, disposable) in disposables {
                _ContainerDisposal.disposeMember(disposable, in: frame)
            }
        }) {
            self.endDispose()
        }
    }

    func endDispose() {
        // Released after the lock (a last release may run a deinit that calls back).
        withExtendedLifetime(self.mutex.withLock { self.disposal.end(&self.disposables, empty: [:]) }) {}
    }
}
