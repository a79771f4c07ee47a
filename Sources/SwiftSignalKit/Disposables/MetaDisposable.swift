/// A slot holding one disposable at a time.
///
/// `set` disposes the disposable it replaces; once the `MetaDisposable` itself
/// is disposed, anything set afterwards is disposed at once. This is the usual
/// way to keep "the latest subscription only".
///
/// Thread-safety: all methods may be called from any thread. Disposals run
/// outside the lock, so a disposable may call back into this object. A
/// `dispose()` that finds another one still running disposes the held
/// disposable too: no call returns before it has been disposed.
///
/// Containers nest without a limit: past 32 container disposes nested on a
/// thread's stack, the deeper ones run once the one they are nested in has
/// returned, before the outermost one returns (see `_NestedDisposal`), so a
/// dispose made that deep may return before what it holds is disposed.
///
/// - Complexity: disposing N containers nested in one another takes time
///   linear in N, at any depth.
public final class MetaDisposable: Disposable, _EndingContainer, @unchecked Sendable {
    private let mutex = _Mutex()
    /// See `_ContainerDisposal`.
    private var disposal = _ContainerDisposal()
    private var disposable: (any Disposable)?

    /// Makes a meta disposable that holds nothing yet.
    public init() {
    }

    deinit {
        if self.disposable != nil {
            // Nested containers are released one level at a time past a few
            // levels (see `_NestedDisposal`). Nothing else may hold the
            // member meanwhile: it is released inside `releaseMembers`.
            _NestedDisposal.releaseMembers({ self.disposable = nil }, { self.disposable.map { [$0] } ?? [] })
        }
    }

    /// Replaces the held disposable, disposing the previous one. Setting `nil`
    /// disposes the previous one and leaves the slot empty. Setting the
    /// disposable already held keeps it undisposed (the original disposes it,
    /// as the one it replaces, and keeps holding it).
    public func set(_ disposable: (any Disposable)?) {
        self.mutex.lock()
        let disposeImmediately = self.disposal.disposed
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
    ///
    /// The disposable stays in the slot until every dispose running has
    /// returned: one that starts meanwhile disposes it too, instead of
    /// returning before it is disposed.
    public func dispose() {
        let disposable = self.mutex.withLock { self.disposal.begin(self.disposable) }
        if let disposable {
            if !_ContainerDisposal.withFrame(of: self, { frame in
                _ContainerDisposal.disposeMember(disposable, in: frame)
            }) {
                return
            }
        }
        self.endDispose()
    }

    func endDispose() {
        // Released after the lock (a last release may run a deinit that calls back).
        withExtendedLifetime(self.mutex.withLock { self.disposal.end(&self.disposable, empty: nil) }) {}
    }
}
