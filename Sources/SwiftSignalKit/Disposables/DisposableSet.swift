/// A collection of disposables disposed together.
///
/// A disposable added after the set has been disposed is disposed at once.
/// `remove` takes a disposable out (by identity) without disposing it, and
/// `removeLast` the one added last.
///
/// Thread-safety: all methods may be called from any thread; disposals run
/// outside the lock. A `dispose()` that finds another one still running (on
/// another thread, or called back from a disposal) disposes what the set
/// holds too, so that no call returns before every disposable held has been
/// disposed (the guarantee a subscription's own disposable gives, kept
/// through the set).
///
/// Containers nest without a limit: past 32 container disposes nested on a
/// thread's stack, the deeper ones run once the one they are nested in has
/// returned, before the outermost one returns (see `_NestedDisposal`), so a
/// dispose made that deep may return before what it holds is disposed.
///
/// - Complexity: disposing N containers nested in one another takes time
///   linear in N, at any depth.
public final class DisposableSet: Disposable, _EndingContainer, @unchecked Sendable {
    private let mutex = _Mutex()
    /// See `_ContainerDisposal`.
    private var disposal = _ContainerDisposal()
    private var disposables: [any Disposable] = []

    /// Makes an empty set of disposables.
    public init() {
    }

    deinit {
        if !self.disposables.isEmpty {
            // Nested containers are released one level at a time past a few
            // levels (see `_NestedDisposal`).
            _NestedDisposal.releaseMembers({ self.disposables = [] }, { self.disposables })
        }
    }

    /// Adds `disposable`, or disposes it at once when the set has been disposed.
    public func add(_ disposable: any Disposable) {
        self.mutex.lock()
        let disposeImmediately = self.disposal.disposed
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

    /// Takes the disposable added last (of those still in the set) out of the
    /// set without disposing it, as the original's `removeLast()` does (code
    /// calls it to undo its last `add`). Does nothing when the set holds none,
    /// also after `dispose()` (the original stops the process then, as
    /// `Array.removeLast` does).
    public func removeLast() {
        self.mutex.lock()
        // Released after the lock, as `remove` is (a last release may run a
        // deinit that calls back).
        let removed = self.disposables.popLast()
        self.mutex.unlock()
        withExtendedLifetime(removed) {}
    }

    /// Disposes every disposable in the set, and any added later.
    ///
    /// The disposables stay in the set until every dispose running has
    /// returned: one that starts meanwhile disposes them too (each disposes
    /// once; a later call waits for nothing and finds them gone), instead of
    /// returning while the first is still on its way through them.
    public func dispose() {
        let disposables = self.mutex.withLock { self.disposal.begin(self.disposables) }
        if _ContainerDisposal.withFrame(of: self, { frame in
            for disposable in disposables {
                _ContainerDisposal.disposeMember(disposable, in: frame)
            }
        }) {
            self.endDispose()
        }
    }

    func endDispose() {
        // Released after the lock (a last release may run a deinit that calls back).
        withExtendedLifetime(self.mutex.withLock { self.disposal.end(&self.disposables, empty: []) }) {}
    }
}
