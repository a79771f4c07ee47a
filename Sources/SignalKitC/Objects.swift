import CSignalKit
import Synchronization

/// The number of library objects alive: handles, heap values and callback
/// registrations. `sk_live_objects()` reports it.
let liveObjectCount = Synchronization.Atomic<Int>(0)

/// The base class of every object the C layer hands out or keeps for C
/// callers. Counting them lets tests prove that nothing outlives its release.
///
/// Thread-safety: immutable after init; subclasses state their own rules.
class SKObject {
    /// False for objects that keep their own count (see `SKContext`).
    private let counted: Bool

    init(counted: Bool = true) {
        self.counted = counted
        if counted {
            liveObjectCount.wrappingAdd(1, ordering: .relaxed)
        }
    }

    deinit {
        if self.counted {
            liveObjectCount.wrappingSubtract(1, ordering: .relaxed)
        }
    }

    /// Hands out a new reference (+1) as an opaque C pointer.
    final func retainedHandle() -> OpaquePointer {
        return OpaquePointer(Unmanaged.passRetained(self).toOpaque())
    }

    /// Borrows the object behind a C handle, checking its class.
    static func borrow<H: SKObject>(_ handle: OpaquePointer?, as type: H.Type) -> H? {
        guard let handle else {
            return nil
        }
        return Unmanaged<SKObject>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue() as? H
    }

    /// Drops one reference held by C.
    static func release(_ handle: OpaquePointer?) {
        guard let handle else {
            return
        }
        Unmanaged<SKObject>.fromOpaque(UnsafeRawPointer(handle)).release()
    }

    /// Adds one reference held by C.
    static func retain(_ handle: OpaquePointer?) -> OpaquePointer? {
        guard let handle else {
            return nil
        }
        _ = Unmanaged<SKObject>.fromOpaque(UnsafeRawPointer(handle)).retain()
        return handle
    }
}

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

@c @implementation
public func sk_live_objects() -> Int {
    return liveObjectCount.load(ordering: .relaxed)
}
