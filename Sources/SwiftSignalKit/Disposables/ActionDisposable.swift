import Synchronization
import _SwiftSignalKitShims

/// Runs an action the first time it is disposed, and never again.
///
/// Thread-safety: `dispose()` may be called from any thread, any number of
/// times; the action runs exactly once, outside any lock. If the disposable is
/// deallocated without being disposed, the action is released without running.
///
/// A later `dispose()` does not return before the action has finished: one
/// called on another thread while the action runs waits for it (so that a
/// set, meta disposable or dictionary holding this disposable keeps its
/// promise that a concurrent dispose returns only once every member has been
/// disposed). One called on the thread running the action (from the action
/// itself, or from something it calls) returns at once: it cannot wait for
/// its own caller. An action that waits for another thread which disposes
/// this same disposable therefore deadlocks; do not do that.
///
/// No lock on the way of the first dispose: it wins an atomic state (which
/// records the running thread) and is then the only thread that touches
/// `action` (besides `init` and `deinit`). A concurrent dispose waits on a
/// process-wide condition, under a lock of its own held by no one while user
/// code runs.
public final class ActionDisposable: Disposable, @unchecked Sendable {
    // 0: not disposed; 1: disposed, the action has finished; otherwise the
    // token of the thread running the action (`_sks_thread_token`, a multiple
    // of 8), plus `waiting` once another thread waits for it.
    private let state = Synchronization.Atomic<UInt>(0)
    private var action: (() -> Void)?

    private static var finished: UInt { 1 }
    private static var waiting: UInt { 2 }

    /// Makes a disposable that calls `action` on its first `dispose()`.
    public init(action: @escaping () -> Void) {
        self.action = action
    }

    /// Calls the action, the first time only; a later call returns once it
    /// has finished (at once on the thread running it).
    public func dispose() {
        let token = UInt(_sks_thread_token())
        let (won, current) = self.state.compareExchange(expected: 0, desired: token, ordering: .acquiringAndReleasing)
        if !won {
            if current != Self.finished {
                self.waitForAction(current, token: token)
            }
            return
        }
        let action = self.action
        self.action = nil
        action?()
        withExtendedLifetime(action) {
        }
        let previous = self.state.exchange(Self.finished, ordering: .acquiringAndReleasing)
        if previous & Self.waiting != 0 {
            _sks_dispose_wake_all()
        }
    }

    /// A dispose after the first: waits until the action has finished, unless
    /// it runs on this thread.
    @inline(never)
    private func waitForAction(_ observed: UInt, token: UInt) {
        if observed & ~Self.waiting == token {
            return
        }
        _sks_dispose_wait_lock()
        // Read again under the lock: the state seen before it may be stale
        // (the action may have finished, and its wake-up gone, meanwhile);
        // the wake-up takes the lock, so it cannot fall between this read
        // and the wait.
        var current = self.state.load(ordering: .acquiring)
        while current != Self.finished {
            if current & Self.waiting == 0 {
                let (marked, now) = self.state.compareExchange(expected: current, desired: current | Self.waiting, ordering: .acquiringAndReleasing)
                if !marked {
                    current = now
                    continue
                }
            }
            _sks_dispose_wait()
            current = self.state.load(ordering: .acquiring)
        }
        _sks_dispose_wait_unlock()
    }
}
