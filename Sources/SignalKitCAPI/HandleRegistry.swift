#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SignalKitHeader
import SwiftSignalKit
import Synchronization

/// Whether handle checking is on. A global with a constant initializer (no
/// lazy initialization on the per-event path); `SIGNALKIT_CHECK_HANDLES` is
/// applied by `HandleRegistry.applyEnvironment()`.
let handleCheckingEnabled = Synchronization.Atomic<Bool>(false)

/// The addresses of the library's live objects, kept only while handle
/// checking is on (`sk_set_handle_checking`, or `SIGNALKIT_CHECK_HANDLES=1`
/// in the environment), so that a handle or value used after its last release
/// (or a pointer that never was one) is reported as `SK_ERR_RELEASED` instead
/// of being dereferenced. Lookups never touch the object itself.
///
/// Checking costs a striped lock (the core's scheme, family `.handleRegistry`)
/// and a hash lookup per handle argument and per object created or freed;
/// off (the default), it costs one relaxed load.
///
/// Thread-safety: every method may be called from any thread. Switching
/// checking (`sk_set_handle_checking`) is refused while objects are alive, so
/// an object is registered exactly when it was created with checking on.
enum HandleRegistry {
    /// The live addresses, one set per stripe of the `.handleRegistry`
    /// family, each read and written only under its stripe's lock.
    nonisolated(unsafe) private static let addresses: UnsafeMutablePointer<Set<UInt>> = {
        let sets = UnsafeMutablePointer<Set<UInt>>.allocate(capacity: _stripesPerFamily)
        sets.initialize(repeating: [], count: _stripesPerFamily)
        return sets
    }()

    /// Applies `SIGNALKIT_CHECK_HANDLES` once: called before the first object
    /// is created and by the functions that read or switch the setting (a
    /// lazily initialized global, so its cost stays off the per-event path).
    static func applyEnvironment() {
        _ = environmentApplied
    }

    private static let environmentApplied: Bool = {
        guard let value = getenv("SIGNALKIT_CHECK_HANDLES"), value.pointee != 0, strcmp(value, "0") != 0 else {
            return false
        }
        handleCheckingEnabled.store(true, ordering: .releasing)
        return true
    }()

    @inline(__always)
    static var isEnabled: Bool {
        return handleCheckingEnabled.load(ordering: .relaxed)
    }

    static func register(_ address: UInt) {
        _stripedLock(forAddress: address, .handleRegistry) { stripe in
            _ = addresses[stripe].insert(address)
        }
    }

    static func unregister(_ address: UInt) {
        _stripedLock(forAddress: address, .handleRegistry) { stripe in
            _ = addresses[stripe].remove(address)
        }
    }

    /// True when checking is off, or when `pointer` is a live object.
    @inline(__always)
    static func isLive(_ pointer: UnsafeRawPointer) -> Bool {
        if !isEnabled {
            return true
        }
        return isRegistered(UInt(bitPattern: pointer))
    }

    private static func isRegistered(_ address: UInt) -> Bool {
        return _stripedLock(forAddress: address, .handleRegistry) { stripe in
            addresses[stripe].contains(address)
        }
    }
}

@c @implementation
public func sk_set_handle_checking(_ enabled: Bool) -> Int32 {
    HandleRegistry.applyEnvironment()
    if HandleRegistry.isEnabled == enabled {
        return SKOK
    }
    if liveObjectCount.load(ordering: .acquiring) != 0 {
        return fail(SK_ERR_BUSY, "library objects are alive (\(liveObjectCount.load(ordering: .relaxed))); switch before creating any")
    }
    handleCheckingEnabled.store(enabled, ordering: .releasing)
    return SKOK
}

@c @implementation
public func sk_handle_checking() -> Bool {
    HandleRegistry.applyEnvironment()
    return HandleRegistry.isEnabled
}
