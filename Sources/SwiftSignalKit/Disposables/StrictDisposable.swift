/// Wraps a disposable and, in debug builds, reports a leak when it is
/// deallocated without having been disposed (the file and line say where the
/// subscription was started): it prints the leak, then stops the process
/// with `assertionFailure`, as the original asserts (in a debugger, it stops
/// there). In release builds it only forwards `dispose()`.
///
/// Thread-safety: `dispose()` may be called from any thread.
public final class StrictDisposable: Disposable, @unchecked Sendable {
    private let disposable: any Disposable
    #if DEBUG
    private let file: String
    private let line: Int
    private let isDisposed = Atomic<Bool>(value: false)
    #endif

    /// Called instead of the default report when a strict disposable leaks in a
    /// debug build. The default prints the location and stops in the debugger
    /// through `assertionFailure`.
    nonisolated(unsafe) static var leakHandler: ((String, Int) -> Void)?

    /// Wraps `disposable`; `file` and `line` are where the subscription was
    /// started, named in the leak report of a debug build.
    public init(_ disposable: any Disposable, file: String, line: Int) {
        self.disposable = disposable
        #if DEBUG
        self.file = file
        self.line = line
        #endif
    }

    deinit {
        #if DEBUG
        if !self.isDisposed.with({ $0 }) {
            if let handler = StrictDisposable.leakHandler {
                handler(self.file, self.line)
            } else {
                print("SwiftSignalKit: leaked disposable from \(self.file):\(self.line)")
                assertionFailure("leaked disposable from \(self.file):\(self.line)")
            }
        }
        #endif
    }

    /// Disposes the wrapped disposable (and marks this one as disposed, so it
    /// is not reported as leaked).
    public func dispose() {
        #if DEBUG
        self.isDisposed.swap(true)
        #endif
        self.disposable.dispose()
    }
}

public extension Disposable {
    /// Wraps `self` in a `StrictDisposable` that reports, in debug builds, if it
    /// is released without being disposed.
    func strict(file: String = #file, line: Int = #line) -> Disposable {
        return StrictDisposable(self, file: file, line: line)
    }
}
