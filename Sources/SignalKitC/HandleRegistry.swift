#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// The addresses of the library's live objects, kept only while handle
/// checking is on (`sk_set_handle_checking`, or `SIGNALKIT_CHECK_HANDLES=1`
/// in the environment), so that a handle or value used after its last release
/// (or a pointer that never was one) is reported as `SK_ERR_RELEASED` instead
/// of being dereferenced. Lookups never touch the object itself.
///
/// Checking costs a striped lock and a hash lookup per handle argument and per
/// object created or freed; off (the default), it costs one relaxed load.
///
/// Thread-safety: every method may be called from any thread. `setEnabled` is
/// refused while objects are alive, so an object is registered exactly when
/// it was created with checking on.
enum HandleRegistry {
    private final class Stripe: Sendable {
        let addresses = Mutex<Set<UInt>>([])
    }

    private static let stripes: [Stripe] = (0 ..< 64).map { _ in Stripe() }

    /// Whether checking is on; initially from `SIGNALKIT_CHECK_HANDLES`.
    static let enabled = Synchronization.Atomic<Bool>(HandleRegistry.environmentDefault())

    private static func environmentDefault() -> Bool {
        guard let value = getenv("SIGNALKIT_CHECK_HANDLES") else {
            return false
        }
        return value.pointee != 0 && strcmp(value, "0") != 0
    }

    @inline(__always)
    static var isEnabled: Bool {
        return enabled.load(ordering: .relaxed)
    }

    private static func stripe(_ address: UInt) -> Stripe {
        // Objects are 16-byte aligned: mix the bits above the alignment.
        let mixed = (address >> 4) ^ (address >> 10) ^ (address >> 16)
        return stripes[Int(mixed & 63)]
    }

    static func register(_ address: UInt) {
        _ = stripe(address).addresses.withLock { $0.insert(address) }
    }

    static func unregister(_ address: UInt) {
        _ = stripe(address).addresses.withLock { $0.remove(address) }
    }

    /// True when checking is off, or when `pointer` is a live object.
    static func isLive(_ pointer: UnsafeRawPointer) -> Bool {
        if !isEnabled {
            return true
        }
        let address = UInt(bitPattern: pointer)
        return stripe(address).addresses.withLock { $0.contains(address) }
    }
}
