import SignalKitHeader
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
    /// Whether the object is in the handle registry (created while handle
    /// checking was on).
    private let registered: Bool
    /// Which of the final classes the per-event fast paths take the object
    /// is (`withPrimitiveFastPath`, `withFastArray`): they read this byte
    /// instead of comparing the class, which calls the class's metadata
    /// accessor (a call that made those paths save every register). Fits
    /// beside the two flags above.
    final let fastKind: FastKind

    /// The classes the per-event fast paths recognize (each final), and
    /// `other` for every other object.
    enum FastKind: UInt8 {
        case other
        case array
        case subscriber
        case pipe
        /// A callback context (`SKContext`): not on a fast path; lets the
        /// live-object report tell one (of any `SKFunction<F>`) apart.
        case context
        /// The handles the per-subscription fast paths borrow
        /// (`withBorrowedHandle`).
        case signal
        case disposable
    }

    init(counted: Bool = true, fastKind: FastKind = .other) {
        HandleRegistry.applyEnvironment()
        self.counted = counted
        self.fastKind = fastKind
        self.registered = HandleRegistry.isEnabled
        if counted {
            liveObjectCount.wrappingAdd(1, ordering: .relaxed)
        }
        if self.registered {
            HandleRegistry.register(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))
        }
    }

    deinit {
        if self.registered {
            HandleRegistry.unregister(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))
        }
        if self.counted {
            liveObjectGone()
        }
    }

    /// False when handle checking is on and `handle` is not a live object
    /// (released, or never a handle): then it must not be dereferenced.
    static func isLive(_ handle: OpaquePointer) -> Bool {
        return HandleRegistry.isLive(UnsafeRawPointer(handle))
    }

    /// Hands out a new reference (+1) as an opaque C pointer; `function`
    /// (the `#function` of the public function handing it out) is recorded
    /// as the object's maker while the registry is on.
    @inline(__always)
    final func retainedHandle(madeBy function: StaticString) -> OpaquePointer {
        self.noteMaker(function)
        return OpaquePointer(Unmanaged.passRetained(self).toOpaque())
    }

    /// Records `function` (the `#function` of a public C function) as the
    /// function that made this object, when it is registered (handle
    /// checking was on at its creation): the live-object report names it.
    /// Off, one load of a field beside the reference count.
    @inline(__always)
    final func noteMaker(_ function: StaticString) {
        if self.registered {
            HandleRegistry.noteMaker(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()), function)
        }
    }

    /// The kind a report gives the object at `address` (registered, its
    /// stripe held: see `HandleRegistry.snapshot`), read from its class word
    /// and `fastKind`, without a reference; nil for a callback context whose
    /// release has run (no longer counted).
    static func kindName(at address: UInt) -> StaticString? {
        let pointer = UnsafeRawPointer(bitPattern: address)!
        for (type, name): (AnyClass, StaticString) in kindNames where pointer.load(as: UnsafeRawPointer.self) == unsafeBitCast(type, to: UnsafeRawPointer.self) {
            return name
        }
        return Unmanaged<SKObject>.fromOpaque(pointer)._withUnsafeGuaranteedRef { object -> StaticString? in
            guard object.fastKind == .context else {
                return "object"
            }
            return unsafeDowncast(object, to: SKContext.self).isCounted ? "callback" : nil
        }
    }

    /// The report's name of each final class of the C layer.
    private static let kindNames: [(AnyClass, StaticString)] = [
        (SKSignal.self, "signal"), (SKSubscriber.self, "subscriber"), (SKDisposable.self, "disposable"),
        (SKHeldDisposable.self, "disposable"),
        (SKQueue.self, "queue"), (SKPipe.self, "pipe"), (SKPromise.self, "promise"),
        (SKValuePromise.self, "value promise"), (SKTestSubscriptions.self, "test subscriptions"),
        (SKTestRecorder.self, "test recorder"), (SKString.self, "string value"), (SKBytes.self, "bytes value"),
        (SKArray.self, "array value"), (SKPointer.self, "pointer value"), (SKObserver.self, "observer"),
    ]

    /// Whether `handle` is one of the handles C holds (its class word
    /// compared, never dereferenced further: see `isExactly`).
    static func isHandle(_ handle: OpaquePointer) -> Bool {
        return handleClasses.contains { isExactly(handle, $0) }
    }

    /// Borrows the object behind a C handle, checking its class; nil for
    /// NULL, a handle of another class, or (with handle checking) a handle
    /// that is not live.
    static func borrow<H: SKObject>(_ handle: OpaquePointer?, as type: H.Type) -> H? {
        guard let handle, isLive(handle) else {
            return nil
        }
        // The handle classes are final but for SKDisposable, whose one
        // subclass SKHeldDisposable is a disposable too: the class word
        // compared (never dereferenced, as `checkKind` does). A dynamic cast
        // (`as? H`) would read the first word as a class: a handle of
        // libsignalkit-ffi, whose first word is a tag, crashed it.
        guard isExactly(handle, H.self) || (H.self == SKDisposable.self && isExactly(handle, SKHeldDisposable.self)) else {
            return nil
        }
        return unsafeDowncast(Unmanaged<SKObject>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue(), to: H.self)
    }

    /// Drops one reference held by C to a handle of class `H` (`what` names
    /// it, with its article: "a signal"). NULL does nothing. A handle that is
    /// not live (with handle checking), of another class, or not one of this
    /// library's objects at all (a handle of libsignalkit-ffi) is left alone
    /// and reported through the last error: the class is compared as the
    /// borrow path does (the first word, never dereferenced), so such a
    /// handle is never handed to the Swift runtime.
    static func release<H: SKObject>(_ handle: OpaquePointer?, as type: H.Type, _ what: String, function: StaticString = #function) {
        guard let handle else {
            return
        }
        guard checkKind(handle, as: type, what, function: function) else {
            return
        }
        Unmanaged<SKObject>.fromOpaque(UnsafeRawPointer(handle)).release()
    }

    /// Adds one reference held by C to a handle of class `H`; nil (with the
    /// last error set) for a handle that `release(_:as:_:)` would refuse.
    static func retain<H: SKObject>(_ handle: OpaquePointer?, as type: H.Type, _ what: String, function: StaticString = #function) -> OpaquePointer? {
        guard let handle else {
            return nil
        }
        guard checkKind(handle, as: type, what, function: function) else {
            return nil
        }
        _ = Unmanaged<SKObject>.fromOpaque(UnsafeRawPointer(handle)).retain()
        return handle
    }

    /// The classes of the handles C holds (each final).
    private static let handleClasses: [AnyClass] = [
        SKSignal.self, SKSubscriber.self, SKDisposable.self, SKHeldDisposable.self, SKQueue.self, SKPipe.self,
        SKPromise.self, SKValuePromise.self, SKTestSubscriptions.self, SKTestRecorder.self,
    ]

    /// Drops one reference to a handle a C callback handed over, whatever
    /// its class among the handle classes (`expected`, the class the caller
    /// asked for, is compared first: the common case costs one comparison);
    /// anything else (a handle of libsignalkit-ffi, or with handle checking
    /// one that is not live) is left alone and reported through the last
    /// error.
    static func releaseAnyHandle(_ handle: OpaquePointer?, expected: AnyClass, function: StaticString = #function) {
        guard let handle else {
            return
        }
        guard isLive(handle) else {
            fail(SK_ERR_RELEASED, "the handle was already released (or never was one)", function: function)
            return
        }
        guard isExactly(handle, expected) || handleClasses.contains(where: { isExactly(handle, $0) }) else {
            fail(SK_ERR_WRONG_KIND, "the handle is not one of this library's handles", function: function)
            return
        }
        Unmanaged<SKObject>.fromOpaque(UnsafeRawPointer(handle)).release()
    }

    /// True when the first word of `handle` (a Swift object's type pointer)
    /// is `type`'s metadata: read as a plain word, never dereferenced nor
    /// handed to the Swift runtime, so that anything that is not one of this
    /// library's objects (a handle of libsignalkit-ffi, whose first word is
    /// a tag that is no address) is told apart without a crash.
    private static func isExactly(_ handle: OpaquePointer, _ type: AnyClass) -> Bool {
        return UnsafeRawPointer(handle).load(as: UnsafeRawPointer.self) == unsafeBitCast(type, to: UnsafeRawPointer.self)
    }

    /// True when `handle` (not NULL) is live and exactly of class `H` (the
    /// handle classes are final, but for `SKDisposable`, whose one subclass
    /// `SKHeldDisposable` is a disposable too); otherwise sets the last
    /// error and returns false.
    private static func checkKind<H: SKObject>(_ handle: OpaquePointer, as type: H.Type, _ what: String, function: StaticString) -> Bool {
        guard isLive(handle) else {
            fail(SK_ERR_RELEASED, "the handle was already released (or never was one)", function: function)
            return false
        }
        guard isExactly(handle, H.self) || (H.self == SKDisposable.self && isExactly(handle, SKHeldDisposable.self)) else {
            fail(SK_ERR_WRONG_KIND, "the handle is not \(what) (nothing was released or retained)", function: function)
            return false
        }
        return true
    }
}

/// Borrows a handle argument of class `H`: SK_ERR_NULL_ARGUMENT for NULL,
/// SK_ERR_RELEASED (with handle checking) for a handle that is not live,
/// SK_ERR_WRONG_KIND for a handle of another class (`what` names the class
/// expected, with its article: "a signal").
///
/// Inlined with its fast path (handle checking off, a handle of exactly
/// class `H`: one load and a compare); everything else, errors included,
/// goes through `borrowHandleChecked`.
@inline(__always)
func borrowHandle<H: SKObject>(_ name: String, _ handle: OpaquePointer?, as type: H.Type, _ what: String, function: StaticString = #function) -> (H?, Int32) {
    if let handle, !HandleRegistry.isEnabled {
        let object = Unmanaged<SKObject>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
        if Swift.type(of: object) == H.self {
            return (unsafeDowncast(object, to: H.self), SKOK)
        }
    }
    return borrowHandleChecked(name, handle, as: type, what, function: function)
}

/// `borrowHandle` with every check.
@inline(never)
func borrowHandleChecked<H: SKObject>(_ name: String, _ handle: OpaquePointer?, as type: H.Type, _ what: String, function: StaticString) -> (H?, Int32) {
    guard let handle else {
        return (nil, fail(SK_ERR_NULL_ARGUMENT, "\(name) is NULL", function: function))
    }
    guard SKObject.isLive(handle) else {
        return (nil, fail(SK_ERR_RELEASED, "\(name) was already released (or never was a handle)", function: function))
    }
    guard let object = SKObject.borrow(handle, as: type) else {
        return (nil, fail(SK_ERR_WRONG_KIND, "\(name) is not \(what)", function: function))
    }
    return (object, SKOK)
}

/// The fast path of the functions that take a handle (`sk_signal_start`,
/// `sk_signal_map`, `sk_pipe_signal`, `sk_disposable_dispose`): with handle
/// checking off and a handle of exactly class `H` (whose objects are of
/// `fastKind`), runs `body` with the object borrowed without a retain (the
/// caller's reference keeps it alive for the call) and returns its result;
/// returns nil, having run nothing, in every other case: the caller then
/// takes its checked path. (`borrowHandle` hands back a reference of its
/// own: a retain and a release per handle argument.)
@inline(__always)
func withBorrowedHandle<H: SKObject, R>(_ handle: OpaquePointer?, as type: H.Type, _ fastKind: SKObject.FastKind, _ body: (H) -> R) -> R? {
    guard let handle, !HandleRegistry.isEnabled else {
        return nil
    }
    return Unmanaged<SKObject>.fromOpaque(UnsafeRawPointer(handle))._withUnsafeGuaranteedRef { object -> R? in
        guard object.fastKind == fastKind else {
            return nil
        }
        return body(unsafeDowncast(object, to: H.self))
    }
}

/// The per-event fast path of the functions that take a handle and a value
/// (`sk_subscriber_put_next`, `sk_pipe_put`): with handle checking off, a
/// handle of exactly class `H` (whose objects are of `fastKind`) and a
/// primitive value, runs `body` with the
/// object borrowed without a retain (the caller's reference keeps it alive
/// for the call) and returns true. Returns false, having run nothing, in
/// every other case: the caller then takes its checked path.
@inline(__always)
func withPrimitiveFastPath<H: SKObject>(_ handle: OpaquePointer?, _ value: UnsafePointer<sk_value>?, as type: H.Type, _ fastKind: SKObject.FastKind, _ body: (H, SKValue) -> Void) -> Bool {
    guard let handle, let value, !HandleRegistry.isEnabled, value.pointee.kind.rawValue <= SK_KIND_DOUBLE.rawValue else {
        return false
    }
    return Unmanaged<SKObject>.fromOpaque(UnsafeRawPointer(handle))._withUnsafeGuaranteedRef { object -> Bool in
        guard object.fastKind == fastKind else {
            return false
        }
        body(unsafeDowncast(object, to: H.self), SKValue(primitive: value.pointee))
        return true
    }
}

@c @implementation
public func sk_live_objects() -> Int {
    return liveObjectCount.load(ordering: .relaxed)
}
