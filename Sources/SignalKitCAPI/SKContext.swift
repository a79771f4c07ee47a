import SignalKitHeader
import Synchronization

/// A C context pointer with its optional release function, which runs exactly
/// once: when the last Swift reference to this object goes away, or earlier
/// through `releaseNow()`.
///
/// Thread-safety: `releaseNow()` may race with other calls of it and with the
/// last reference going away; exactly one of them runs the release function.
class SKContext: SKObject {
    let ctx: UnsafeMutableRawPointer?
    let releaseFunction: sk_release_fn?
    private let released = Synchronization.Atomic<Bool>(false)

    init(ctx: UnsafeMutableRawPointer?, release: sk_release_fn?) {
        self.ctx = ctx
        self.releaseFunction = release
        liveObjectCount.wrappingAdd(1, ordering: .relaxed)
        super.init(counted: false, fastKind: .context)
    }

    /// Whether `sk_live_objects()` still counts the context: its release
    /// has not run.
    final var isCounted: Bool {
        return !self.released.load(ordering: .acquiring)
    }

    /// The last holder is gone: the release runs here unless `releaseNow()`
    /// ran it. It goes through the thread's release budget and list, as a
    /// user pointer's does (`SKReleaseList.release`): a context's release
    /// function may release handles whose contexts' release functions run
    /// inside it, and so on (a list owned through contexts: 300 action
    /// disposables, each context releasing the previous one, overflowed a
    /// 64 KB stack). `releaseNow()` still runs the release at once: its
    /// callers promise that it has run when they return.
    deinit {
        // No `releaseNow()` can run any more (it needs a reference); the
        // acquire pairs with that of one that ran on another thread.
        if self.released.load(ordering: .acquiring) {
            return
        }
        guard let release = self.releaseFunction else {
            liveObjectGone()
            return
        }
        SKReleaseList.release(release, self.ctx)
    }

    /// Runs the release function now, on the calling thread, unless it already
    /// ran. For one-shot work, so that the release runs where the work ran,
    /// whichever thread drops the last reference afterwards.
    final func releaseNow() {
        if self.claimRelease() {
            self.runRelease { self.releaseFunction?(self.ctx) }
        }
    }

    /// `releaseNow()` for a call that failed: see `releasingOnFailure`.
    fileprivate final func releaseKeepingMessage() {
        if self.claimRelease() {
            self.runRelease { sk__release_keeping_message(self.releaseFunction, self.ctx) }
        }
    }

    /// Whether the caller is the one to run the release function (it did not
    /// run yet, and will not run again).
    private func claimRelease() -> Bool {
        return !self.released.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Uncounts the context and runs `release` (its release function), as
    /// `runUserRelease` does: uncounted before it runs, so that whoever the
    /// release wakes sees the object gone, and waited for by
    /// sk_live_objects_wait until it returns. Without a release function,
    /// only uncounted.
    @inline(__always)
    private func runRelease(_ release: () -> Void) {
        guard self.releaseFunction != nil else {
            liveObjectGone()
            return
        }
        runUserRelease(release)
    }
}

/// Runs `body`, the part of a public function that can fail once the caller's
/// `ctx` and `release` are in `context`. When it fails (an error status, its
/// message set), nothing kept the context: its release runs at once, on the
/// calling thread, before the call returns (as the header promises), and the
/// failing call's message survives it. The release is user code that may
/// call the library and fail (a binding's release dropping the handles it
/// kept); left to the context's deinit, it ran after the message was set,
/// at whatever point the context was let go of, and its own failure replaced
/// the message the caller read next. Every public function that takes a
/// `release` ends its failures here (or in the overload below).
@inline(__always)
func releasingOnFailure(_ context: SKContext, _ body: () -> Int32) -> Int32 {
    let status = body()
    if status != SKOK {
        context.releaseKeepingMessage()
    }
    return status
}

/// `releasingOnFailure` for a call refused with `status` before it made a
/// context of `ctx` and `release` (it had no function for the context to
/// hold, or checks its arguments first): the release runs now, keeping the
/// message. `status` is evaluated first, so the message is set by then.
func releasingOnFailure(ctx: UnsafeMutableRawPointer?, release: sk_release_fn?, _ status: Int32) -> Int32 {
    sk__release_keeping_message(release, ctx)
    return status
}

/// A C callback of type `F` (`sk_map_fn`, `sk_work_fn`, `sk_generator_fn`...)
/// with its context; `release(ctx)` runs as `SKContext` says: when the last
/// signal, subscription, disposable or queue holding it lets it go, or
/// earlier through `releaseNow()`.
final class SKFunction<F>: SKContext {
    let function: F

    init(_ function: F, ctx: UnsafeMutableRawPointer?, release: sk_release_fn?) {
        self.function = function
        super.init(ctx: ctx, release: release)
    }
}

/// A unit of work: an action disposable's, a queue's, a timer's.
extension SKFunction where F == sk_work_fn {
    func run() {
        self.function(self.ctx)
    }

    /// Runs the work, then its release, both on the calling thread: for work
    /// that runs once (async, sync, after). Whoever still holds the object
    /// afterwards (the submitting thread, a dispatch block) no longer matters.
    func runOnce() {
        self.function(self.ctx)
        self.releaseNow()
    }
}
