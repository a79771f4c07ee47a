#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SignalKitHeader
import SwiftSignalKit
import Synchronization

/// Whether handle checking is on: `handleCheckingUnknown` until the
/// environment has been read (`HandleRegistry.applyEnvironment()`, before
/// the first object is made, or by the first check of a handle, `isLive`),
/// then `handleCheckingOff` or `handleCheckingOn`. Unknown takes the
/// checking path, which reads the environment first: a pointer given
/// before any object exists is checked when `SIGNALKIT_CHECK_HANDLES` says
/// so. A global with a constant initializer, read with one load and a test
/// of zero per call.
let handleChecking = Synchronization.Atomic<Int>(2)
let handleCheckingOff = 0
let handleCheckingOn = 1
let handleCheckingUnknown = 2

/// The library's live objects, kept only while handle checking is on
/// (`sk_set_handle_checking`, or `SIGNALKIT_CHECK_HANDLES=1` or
/// `SIGNALKIT_LIVE_OBJECTS_AT_EXIT=1` in the environment), so that a handle
/// or value used after its last release (or a pointer that never was one) is
/// reported as `SK_ERR_RELEASED` instead of being dereferenced, and so that
/// `sk_live_objects_report` can list them. Lookups never touch the object
/// itself.
///
/// Checking costs a striped lock (the core's scheme, family `.handleRegistry`)
/// and a hash lookup per handle argument and per object created or freed;
/// off (the default), it costs one relaxed load.
///
/// Thread-safety: every method may be called from any thread. Switching
/// checking (`sk_set_handle_checking`) is refused while objects are alive, so
/// an object is registered exactly when it was created with checking on.
enum HandleRegistry {
    /// What the registry knows of a live object besides its address.
    struct Entry {
        /// Creation order (across stripes), for the report.
        let serial: UInt64
        /// The `#function` of the public C function that made the object
        /// (`"sk_signal_map(_:_:_:_:_:)"`), once recorded (`noteMaker`).
        var maker: StaticString?
        /// The name a user gave the handle (`sk_handle_set_name`).
        var name: String?
    }

    /// The live objects, one table per stripe of the `.handleRegistry`
    /// family, each read and written only under its stripe's lock.
    nonisolated(unsafe) private static let entries: UnsafeMutablePointer<[UInt: Entry]> = {
        let tables = UnsafeMutablePointer<[UInt: Entry]>.allocate(capacity: _stripesPerFamily)
        tables.initialize(repeating: [:], count: _stripesPerFamily)
        return tables
    }()

    /// The process that registered the exit report: a child it forked,
    /// which may not call the library (see the header's fork() rule), does
    /// not report when it exits.
    nonisolated(unsafe) private static var reportingProcess: pid_t = 0

    /// `SIGNALKIT_LIVE_OBJECTS_AT_EXIT`'s report, on stderr, in the process
    /// that set it up.
    private static func reportLiveObjectsAtExit() {
        if getpid() == reportingProcess {
            var text = liveObjectsText()
            text.withUTF8 { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 && errno == EINTR {
                        continue
                    }
                    guard written > 0 else {
                        return
                    }
                    offset += written
                }
            }
        }
    }

    /// The next entry's `serial`.
    private static let nextSerial = Synchronization.Atomic<UInt64>(0)

    /// Applies `SIGNALKIT_CHECK_HANDLES` and `SIGNALKIT_LIVE_OBJECTS_AT_EXIT`
    /// once: called before the first object is created and by the functions
    /// that read or switch the setting (a lazily initialized global, so its
    /// cost stays off the per-event path).
    static func applyEnvironment() {
        _ = environmentApplied
    }

    private static let environmentApplied: Bool = {
        if isSet("SIGNALKIT_LIVE_OBJECTS_AT_EXIT") {
            handleChecking.store(handleCheckingOn, ordering: .releasing)
            reportingProcess = getpid()
            atexit { reportLiveObjectsAtExit() }
            return true
        }
        guard isSet("SIGNALKIT_CHECK_HANDLES") else {
            handleChecking.store(handleCheckingOff, ordering: .releasing)
            return false
        }
        handleChecking.store(handleCheckingOn, ordering: .releasing)
        return true
    }()

    /// Whether the environment variable `name` is set to something other
    /// than "" or "0".
    private static func isSet(_ name: String) -> Bool {
        guard let value = getenv(name), value.pointee != 0, strcmp(value, "0") != 0 else {
            return false
        }
        return true
    }

    /// Whether handles are checked: on, or not known yet (no object made).
    @inline(__always)
    static var isEnabled: Bool {
        return handleChecking.load(ordering: .relaxed) != handleCheckingOff
    }

    static func register(_ address: UInt) {
        let serial = nextSerial.wrappingAdd(1, ordering: .relaxed).oldValue
        _stripedLock(forAddress: address, .handleRegistry) { stripe in
            entries[stripe][address] = Entry(serial: serial)
        }
    }

    static func unregister(_ address: UInt) {
        _stripedLock(forAddress: address, .handleRegistry) { stripe in
            _ = entries[stripe].removeValue(forKey: address)
        }
    }

    /// Records the public function that made the object at `address`, unless
    /// one was recorded already (an object handed out again by a later call
    /// keeps the function that made it).
    static func noteMaker(_ address: UInt, _ function: StaticString) {
        _stripedLock(forAddress: address, .handleRegistry) { stripe in
            if entries[stripe][address]?.maker == nil {
                entries[stripe][address]?.maker = function
            }
        }
    }

    /// Gives the live object at `address` the name `name` (nil: none).
    /// False when it is not registered.
    static func setName(_ address: UInt, _ name: String?) -> Bool {
        return _stripedLock(forAddress: address, .handleRegistry) { stripe -> Bool in
            guard entries[stripe][address] != nil else {
                return false
            }
            entries[stripe][address]?.name = name
            return true
        }
    }

    /// One live object as the report gives it.
    struct Snapshot {
        let address: UInt
        let entry: Entry
        let kind: StaticString
    }

    /// The registered objects, in creation order, each with its kind, read
    /// stripe by stripe (objects made or freed meanwhile may or may not be
    /// in it). An object whose deinit has begun is still registered until
    /// its `SKObject` deinit unregisters it, which waits for the stripe:
    /// its memory, and its class word, are valid while the stripe is held.
    /// Callback contexts whose release has run are left out, as
    /// `sk_live_objects()` no longer counts them.
    static func snapshot() -> [Snapshot] {
        var objects: [Snapshot] = []
        for stripe in 0 ..< _stripesPerFamily {
            // Any address of the stripe selects its lock.
            _stripedLock(forAddress: UInt(stripe) << 4, .handleRegistry) { index in
                for (address, entry) in entries[index] {
                    guard let kind = SKObject.kindName(at: address) else {
                        continue
                    }
                    objects.append(Snapshot(address: address, entry: entry, kind: kind))
                }
            }
        }
        objects.sort { $0.entry.serial < $1.entry.serial }
        return objects
    }

    /// True when checking is off, or when `pointer` is a live object.
    @inline(__always)
    static func isLive(_ pointer: UnsafeRawPointer) -> Bool {
        if !isEnabled {
            return true
        }
        return isLiveChecked(UInt(bitPattern: pointer))
    }

    /// `isLive` once checking is on or not known yet (the environment read
    /// now: no object was made before).
    @inline(never)
    private static func isLiveChecked(_ address: UInt) -> Bool {
        if handleChecking.load(ordering: .acquiring) == handleCheckingUnknown {
            applyEnvironment()
            if !isEnabled {
                return true
            }
        }
        return isRegistered(address)
    }

    private static func isRegistered(_ address: UInt) -> Bool {
        return _stripedLock(forAddress: address, .handleRegistry) { stripe in
            entries[stripe][address] != nil
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
    handleChecking.store(enabled ? handleCheckingOn : handleCheckingOff, ordering: .releasing)
    return SKOK
}

@c @implementation
public func sk_handle_checking() -> Bool {
    HandleRegistry.applyEnvironment()
    return HandleRegistry.isEnabled
}
