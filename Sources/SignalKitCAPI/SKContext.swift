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
        super.init(counted: false)
    }

    deinit {
        self.releaseNow()
    }

    /// Runs the release function now, on the calling thread, unless it already
    /// ran. For one-shot work, so that the release runs where the work ran,
    /// whichever thread drops the last reference afterwards.
    final func releaseNow() {
        if self.released.exchange(true, ordering: .acquiringAndReleasing) {
            return
        }
        // Uncounted before the release function runs, so that whoever the
        // release wakes sees the object gone.
        liveObjectCount.wrappingSubtract(1, ordering: .relaxed)
        self.releaseFunction?(self.ctx)
    }

    /// Lets the context go at once: its release function runs now. Used when a
    /// call fails before anything kept the context.
    final func ignore() {
        self.releaseNow()
    }
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
