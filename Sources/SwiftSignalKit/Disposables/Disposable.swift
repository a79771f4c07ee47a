/// Something that can be cancelled: a subscription, a timer, any resource.
///
/// `dispose()` must be safe to call more than once and from any thread; only
/// the first call has an effect. Every disposable in this library follows that
/// rule.
///
/// Thread-safety: the protocol is not `Sendable`, as in the original (a type
/// conforming to it need not be), so in the Swift 6 language mode an
/// `any Disposable`, such as the one `Signal.start` returns, cannot be
/// captured by a `@Sendable` closure or a `Task`. Every disposable this
/// library makes is `Sendable`: hold the subscription in a `MetaDisposable`
/// or a `DisposableSet` to dispose it from another task or thread.
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
