import Synchronization

/// Runs an action the first time it is disposed, and never again.
///
/// Thread-safety: `dispose()` may be called from any thread, any number of
/// times; the action runs exactly once, outside any lock. If the disposable is
/// deallocated without being disposed, the action is released without running.
///
/// No lock: the first caller of `dispose()` wins an atomic flag and is then
/// the only thread that touches `action` (besides `init` and `deinit`).
public final class ActionDisposable: Disposable, @unchecked Sendable {
    private let disposed = Synchronization.Atomic<Bool>(false)
    private var action: (() -> Void)?

    /// Makes a disposable that calls `action` on its first `dispose()`.
    public init(action: @escaping () -> Void) {
        self.action = action
    }

    /// Calls the action, the first time only; later calls do nothing.
    public func dispose() {
        if self.disposed.exchange(true, ordering: .acquiringAndReleasing) {
            return
        }
        let action = self.action
        self.action = nil
        action?()
    }
}
