/// Runs an action the first time it is disposed, and never again.
///
/// Thread-safety: `dispose()` may be called from any thread, any number of
/// times; the action runs exactly once, outside the lock. If the disposable is
/// deallocated without being disposed, the action is released without running.
public final class ActionDisposable: Disposable, @unchecked Sendable {
    private let mutex = _Mutex()
    private var action: (() -> Void)?

    public init(action: @escaping () -> Void) {
        self.action = action
    }

    public func dispose() {
        self.mutex.lock()
        let action = self.action
        self.action = nil
        self.mutex.unlock()
        action?()
    }
}
