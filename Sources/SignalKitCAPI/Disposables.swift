import SignalKitHeader
import SwiftSignalKit

/// An `sk_disposable` handle: a Swift disposable, and which container it is.
///
/// The disposable of a subscription started by `sk_signal_start` whose
/// observer has a value callback only (no error or completion callback, no
/// release function) is also that subscription's observer (one object
/// instead of two): it holds the callback and its context, and the closure
/// the subscription holds captures it alone. Nothing can tell when such an
/// observer is let go (no release function runs), so it may live as long as
/// the handle, and the handle as long as the subscription holds its
/// callback. Any other observer gets an `SKObserver` of its own, let go when
/// the subscription ends (see `sk_observer`), and so does every observer
/// while handle checking is on (a handle released by C must then be reported
/// as released, not kept alive by the subscription). Seven words (header,
/// the base's flags and the kind, the existential, the callback and its
/// context), so that it fits the allocator's 64-byte chunk.
///
/// Thread-safety: immutable once handed out (`disposable` is set once, by the
/// thread that makes the handle, before it hands it out).
final class SKDisposable: SKObject, SKObserverFields {
    enum Kind {
        case plain
        case meta
        case set
        case dict
    }

    // `kind` first: it fits beside the base's two flags.
    let kind: Kind
    /// Nil only while a disposable that observes is being started (see
    /// `start`): no placeholder to retain and release.
    @exclusivity(unchecked) private var started: (any Disposable)?
    let next: sk_next_fn?
    let ctx: UnsafeMutableRawPointer?

    /// Never set on a disposable that observes (see above).
    var error: sk_error_fn? {
        return nil
    }

    /// Never set on a disposable that observes (see above).
    var completed: sk_completed_fn? {
        return nil
    }

    /// The Swift disposable.
    var disposable: any Disposable {
        // Invariant: set before the handle is handed out (see `start`).
        return self.started!
    }

    init(_ disposable: any Disposable, kind: Kind) {
        self.kind = kind
        self.started = disposable
        self.next = nil
        self.ctx = nil
        super.init()
    }

    /// The handle of a subscription observed by the value callback `next`
    /// with `ctx`, before it starts: `start` sets the disposable.
    init(observing next: sk_next_fn?, ctx: UnsafeMutableRawPointer?) {
        self.kind = .plain
        self.started = nil
        self.next = next
        self.ctx = ctx
        super.init()
    }

    /// Sets the subscription's disposable; called once, before the handle
    /// is handed out.
    func start(_ disposable: any Disposable) {
        self.started = disposable
    }
}

private func outputDisposable(_ out: UnsafeMutablePointer<OpaquePointer?>?, function: StaticString = #function, _ make: () -> SKDisposable) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL", function: function)
    }
    out.pointee = make().retainedHandle()
    return SKOK
}

/// Borrows a container of the given kind and an optional disposable argument.
private func borrowContainer(_ handle: OpaquePointer?, _ kind: SKDisposable.Kind, _ name: String, function: StaticString = #function) -> (SKDisposable?, Int32) {
    let (container, status) = borrowHandle(name, handle, as: SKDisposable.self, "a \(name) disposable", function: function)
    guard let container else {
        return (nil, status)
    }
    guard container.kind == kind else {
        return (nil, fail(SK_ERR_WRONG_KIND, "\(name) is not a \(name) disposable", function: function))
    }
    return (container, SKOK)
}

private func borrowOptionalDisposable(_ handle: OpaquePointer?, function: StaticString = #function) -> (SKDisposable?, Int32) {
    guard handle != nil else {
        return (nil, SKOK)
    }
    return borrowHandle("disposable", handle, as: SKDisposable.self, "a disposable", function: function)
}

@c @implementation
public func sk_disposable_dispose(_ disposable: OpaquePointer?) {
    guard disposable != nil else {
        return
    }
    let (handle, _) = borrowHandle("disposable", disposable, as: SKDisposable.self, "a disposable")
    handle?.disposable.dispose()
}

@c @implementation
public func sk_disposable_retain(_ disposable: OpaquePointer?) -> OpaquePointer? {
    return SKObject.retain(disposable)
}

@c @implementation
public func sk_disposable_release(_ disposable: OpaquePointer?) {
    SKObject.release(disposable)
}

@c @implementation
public func sk_disposable_action(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ action: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    guard let action else {
        out?.pointee = nil
        SKContext(ctx: ctx, release: release).ignore()
        return fail(SK_ERR_NULL_ARGUMENT, "action is NULL")
    }
    let context = SKFunction(action, ctx: ctx, release: release)
    return outputDisposable(out) {
        SKDisposable(ActionDisposable {
            context.run()
        }, kind: .plain)
    }
}

@c @implementation
public func sk_disposable_meta(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    return outputDisposable(out) { SKDisposable(MetaDisposable(), kind: .meta) }
}

@c @implementation
public func sk_disposable_meta_set(_ meta: OpaquePointer?, _ disposable: OpaquePointer?) -> Int32 {
    let (container, status) = borrowContainer(meta, .meta, "meta")
    guard let container else {
        return status
    }
    let (item, itemStatus) = borrowOptionalDisposable(disposable)
    if itemStatus != SKOK {
        return itemStatus
    }
    // Invariant: `borrowContainer` checked the container's kind.
    (container.disposable as! MetaDisposable).set(item?.disposable)
    return SKOK
}

@c @implementation
public func sk_disposable_set(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    return outputDisposable(out) { SKDisposable(DisposableSet(), kind: .set) }
}

@c @implementation
public func sk_disposable_set_add(_ set: OpaquePointer?, _ disposable: OpaquePointer?) -> Int32 {
    let (container, status) = borrowContainer(set, .set, "set")
    guard let container else {
        return status
    }
    guard disposable != nil else {
        return fail(SK_ERR_NULL_ARGUMENT, "disposable is NULL")
    }
    let (item, itemStatus) = borrowOptionalDisposable(disposable)
    guard let item else {
        return itemStatus
    }
    // Invariant: `borrowContainer` checked the container's kind.
    (container.disposable as! DisposableSet).add(item.disposable)
    return SKOK
}

@c @implementation
public func sk_disposable_set_remove(_ set: OpaquePointer?, _ disposable: OpaquePointer?) -> Int32 {
    let (container, status) = borrowContainer(set, .set, "set")
    guard let container else {
        return status
    }
    guard disposable != nil else {
        return fail(SK_ERR_NULL_ARGUMENT, "disposable is NULL")
    }
    let (item, itemStatus) = borrowOptionalDisposable(disposable)
    guard let item else {
        return itemStatus
    }
    // Invariant: `borrowContainer` checked the container's kind.
    (container.disposable as! DisposableSet).remove(item.disposable)
    return SKOK
}

@c @implementation
public func sk_disposable_dict(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    return outputDisposable(out) { SKDisposable(DisposableDict<String>(), kind: .dict) }
}

@c @implementation
public func sk_disposable_dict_set(_ dict: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ disposable: OpaquePointer?) -> Int32 {
    let (container, status) = borrowContainer(dict, .dict, "dict")
    guard let container else {
        return status
    }
    guard let key else {
        return fail(SK_ERR_NULL_ARGUMENT, "key is NULL")
    }
    let (item, itemStatus) = borrowOptionalDisposable(disposable)
    if itemStatus != SKOK {
        return itemStatus
    }
    // Invariant: `borrowContainer` checked the container's kind.
    (container.disposable as! DisposableDict<String>).set(item?.disposable, forKey: String(cString: key))
    return SKOK
}
