/// Something that can be cancelled: a subscription, a timer, any resource.
///
/// `dispose()` must be safe to call more than once and from any thread; only
/// the first call has an effect. Every disposable in this library follows that
/// rule.
public protocol Disposable: AnyObject {
    /// Cancels what the disposable stands for. Calling it again does nothing.
    func dispose()
}

final class _EmptyDisposable: Disposable, @unchecked Sendable {
    func dispose() {
    }
}

/// A disposable that does nothing; shared, immutable and thread-safe.
nonisolated(unsafe) public let EmptyDisposable: any Disposable = _EmptyDisposable()
