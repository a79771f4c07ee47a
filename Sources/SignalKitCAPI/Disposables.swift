#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SignalKitHeader
import SwiftSignalKit
import Synchronization

/// An `sk_disposable` handle: a Swift disposable, and which container it is.
///
/// The disposable of a subscription started by `sk_signal_start` whose
/// observer has no release function, or by `sk_signal_start_held`, is also
/// that subscription's observer (one object instead of two): it holds the
/// callbacks, their context and the release function, and the closures the
/// subscription holds capture it alone. Such an observer lives as long as
/// the handle, and the handle as long as the subscription holds its
/// callbacks: so its release function (`sk_signal_start_held`'s, whose
/// contract says the disposable may hold the observer) runs in the handle's
/// deinit, once both have let go, on whatever thread lets go last. An
/// `sk_signal_start` observer with a release function gets an `SKObserver`
/// of its own, let go when the subscription ends (see `sk_observer`), and so
/// does every observer while handle checking is on (a handle released by C
/// must then be reported as released, not kept alive by the subscription).
///
/// When the signal started that way is a run of map and filter stages of
/// the C layer (`SKSignal.stages`) and no stage's function has a release
/// function, the handle runs those stages too: `sk_signal_start` starts the
/// run's upstream with a value callback that captures the handle alone, and
/// the handle runs the stages as the run's own callback does
/// (`SKStageChain.run`: the same calls, the same liveness checks) and calls
/// the observer (`deliver`). The run's callback object is not made: a
/// subscription of `pipe |> map` is two objects (the pipe's entry and this
/// handle), as in the Swift API. A run of one stage is copied into the
/// handle (its function and context: trivial values), so that the handle
/// keeps nothing of the map or filter signal: a pipeline built where it is
/// started, its intermediate handles released at once (`pipe signal ->
/// map -> start`, Benchmarks/README.md, W2b and W6b), leaves the pipe's
/// entry and this handle, as when the signal is shared. A longer run's
/// chain is retained, with its functions, as long as the handle lives. Only
/// runs without release functions are absorbed, so that no release runs
/// later than the header says. Eleven words (header, the base's flags and
/// the kind, the existential, the callback and its context, the stage or
/// the chain, and the subscription's liveness): the allocator's 96-byte
/// chunk. An observer with an error or completion callback or a release
/// function (`sk_signal_start_held`) gets the subclass `SKHeldDisposable`,
/// which holds them too, and the flag of its one terminal event (four
/// words more, for those only).
///
/// Thread-safety: immutable once handed out (`disposable` is set once, by the
/// thread that makes the handle, before it hands it out; `liveness` once,
/// by the same thread, before the subscription is published to its source).
class SKDisposable: SKObject, SKObserverFields, _BroadcasterTerminalReceiver {
    enum Kind {
        case plain
        case meta
        case set
        case dict
    }

    // `kind` first: it fits beside the base's flags, and so does `failable`.
    final let kind: Kind
    /// Started by sk_signal_start_failable over absorbed stages: the
    /// observer's value callback runs inside the stages' run of callbacks,
    /// and a call of sk_callback_fail there ends the subscription (`fail`).
    private final let failable: Bool
    /// Nil only while a disposable that observes is being started (see
    /// `start`): no placeholder to retain and release.
    @exclusivity(unchecked) private final var started: (any Disposable)?
    final let next: sk_next_fn?
    final let ctx: UnsafeMutableRawPointer?
    /// The absorbed run of stages (see above), set by
    /// `init(observing:ctx:stages:)`; nil otherwise.
    private final let absorbed: SKAbsorbedStages?
    /// The liveness of the subscription of the absorbed run's upstream,
    /// set once by `startAbsorbing` before any value arrives. Its reference
    /// to the subscription's flags is unretained (see
    /// `_SubscriberLiveness`): it is read only by `deliver`, which only the
    /// value callback calls, and that callback is owned by the object that
    /// holds the flags; once the subscription has ended the handle may
    /// outlive the flags, and nothing reads them any more.
    @exclusivity(unchecked) private final var liveness: _SubscriberLiveness?

    /// Set only in an `SKHeldDisposable`.
    var error: sk_error_fn? {
        return nil
    }

    /// Set only in an `SKHeldDisposable`.
    var completed: sk_completed_fn? {
        return nil
    }

    /// The Swift disposable.
    final var disposable: any Disposable {
        // Invariant: set before the handle is handed out (see `start`).
        return self.started!
    }

    init(_ disposable: any Disposable, kind: Kind) {
        self.kind = kind
        self.started = disposable
        self.next = nil
        self.ctx = nil
        self.failable = false
        self.absorbed = nil
        self.liveness = nil
        super.init(fastKind: .disposable)
    }

    /// The handle of a subscription observed by the value callback `next`
    /// with `ctx`, before it starts: `start` sets the disposable. With
    /// `stages`, the handle runs them before the callback (see above).
    /// `counted` as for `SKObject`.
    init(observing next: sk_next_fn?, ctx: UnsafeMutableRawPointer?, stages: SKStageRun? = nil, failable: Bool = false, counted: Bool = true) {
        self.kind = .plain
        self.failable = failable
        self.started = nil
        self.next = next
        self.ctx = ctx
        self.absorbed = failable && stages == nil ? SKAbsorbedStages.observerOnly : stages.map(SKAbsorbedStages.init)
        self.liveness = nil
        super.init(counted: counted, fastKind: .disposable)
    }

    /// Starts `upstream` with a value callback that runs the absorbed stages
    /// in this handle (`deliver`) and captures the handle alone (so the
    /// callback has no context object of its own). Generic over the value
    /// type, though only used with `SKValue`, as the stages in
    /// Operators_Mapping.swift are (and for the same reason: a closure
    /// written for `SKValue` alone is wrapped in a conversion thunk, an
    /// object per subscription).
    @inline(__always)
    final func startAbsorbing<T>(_ upstream: Signal<T, SKValue>) -> any Disposable {
        return upstream.startFusing({ self.absorbing($0) }, error: self.errorCallback(), completed: self.completedCallback())
    }

    /// `startAbsorbing` over a pipe's source (the signal of `sk_pipe_signal`,
    /// see `SKSignal`): subscribes to the pipe directly.
    @inline(__always)
    final func startAbsorbing<T>(_ source: _SignalPipeSource<T, SKValue>) -> any Disposable {
        if self.error == nil && self.completed == nil {
            return source.startFusing({ self.absorbing($0) }, error: nil, completed: nil)
        }
        // The handle receives the pipe's terminal event itself: the pipe
        // makes nothing to hold the callbacks (see `receiveTerminal`).
        return source.startFusing({ self.absorbing($0) }, receiver: self)
    }

    /// A pipe's terminal event, for a subscription started by
    /// `startAbsorbing` over a pipe's source with an error or a completion
    /// callback: called at most once, by the thread that ends the
    /// subscription, outside the pipe's lock.
    final func receiveTerminal(_ terminal: _BroadcasterTerminal) {
        guard self.claimTerminal() else {
            return
        }
        deliverTerminal(terminal, to: self)
    }

    /// The error closure of an absorbing start: nil without an error
    /// callback (nothing to hold); otherwise one capturing the handle alone.
    /// Generic, as `absorbing` is, over the error type (only ever
    /// `SKValue`): a closure written for `SKValue` alone is wrapped in a
    /// conversion thunk where the core takes an `(E) -> Void`, an object
    /// per subscription.
    @inline(__always)
    private final func errorCallback<E>() -> ((E) -> Void)? {
        guard self.error != nil else {
            return nil
        }
        // Invariant (the library's own): its callers start SKValue signals.
        precondition(E.self == SKValue.self, "a C observer of errors other than SKValue")
        return { error in
            if let function = self.error, self.claimTerminal() {
                unsafeBitCast(error, to: SKValue.self).withC { function(self.ctx, $0) }
            }
        }
    }

    /// The completion closure of an absorbing start (see `errorCallback`).
    @inline(__always)
    private final func completedCallback() -> (() -> Void)? {
        guard self.completed != nil else {
            return nil
        }
        return {
            if self.claimTerminal() {
                self.completed?(self.ctx)
            }
        }
    }

    /// The value callback of `startAbsorbing`, for the subscription whose
    /// liveness is `liveness`. Out of line, so that the closure is made in
    /// one place: inlined into each start (`sk_signal_start`,
    /// `sk_signal_start_held`, over a signal or a pipe, with or without
    /// terminal callbacks), each copy got its own forwarder, and values
    /// reached the closure through an extra jump on some of them (C W1: 4
    /// instructions per event).
    @inline(never)
    private final func absorbing<T>(_ liveness: _SubscriberLiveness) -> (T) -> Void {
        // Invariant (the library's own): its only caller, `sk_signal_start`,
        // starts SKValue signals (`CSignal`); nothing a caller does can change that.
        precondition(T.self == SKValue.self, "a C stage over values other than SKValue")
        self.liveness = liveness
        if case .observerOnly? = self.absorbed {
            return { value in
                self.deliverFailable(unsafeBitCast(value, to: SKValue.self))
            }
        }
        return { value in
            self.deliver(unsafeBitCast(value, to: SKValue.self))
        }
    }

    /// Runs the absorbed stages on `value` and passes what they let through
    /// to the observer: the same calls, in the same order, with the same
    /// liveness checks, as the run's own callback (`SKStagesRun`) followed
    /// by the observer's (`startObserving`).
    @inline(__always)
    private final func deliver(_ value: SKValue) {
        // Invariant: only a handle made with stages starts absorbing, and
        // the liveness is set before the source can deliver.
        switch self.absorbed.unsafelyUnwrapped {
        case .observerOnly:
            self.deliverFailable(value) // never: its own callback (`absorbing`)
        case .one(let stage):
            self.deliver(value) { liveness, callbacks, current, owned, mapped in
                SKStageChain.step(stage, liveness, callbacks, &current, &owned, &mapped)
            }
        case .chain(let chain):
            let stages = chain._withUnsafeGuaranteedRef { $0.stages }
            self.deliver(value) { liveness, callbacks, current, owned, mapped in
                SKStageChain.run(stages, liveness, callbacks, &current, &owned, &mapped)
            }
        }
    }

    /// Runs the stages (`stages`: `SKStageChain.step` for a run of one,
    /// `run` for a chain, each inlined in its own copy of this) on `value`.
    @inline(__always)
    private final func deliver(_ value: SKValue, _ stages: (_SubscriberLiveness, SKCallbackRun, inout sk_value, inout Unmanaged<SKObject>?, inout Bool) -> Bool) {
        let liveness = self.liveness.unsafelyUnwrapped
        var current = value.raw
        var owned: Unmanaged<SKObject>?
        var mapped = false
        let passes = withCallbackRun { callbacks in
            if stages(liveness, callbacks, &current, &owned, &mapped) {
                guard self.failable, let next = self.next else {
                    return true
                }
                // A failable observer's call, inside the run.
                SKValue.withCIn(&current) { next(self.ctx, $0) }
                if _slowPath(callbacks.failed) {
                    self.fail(callbacks.takeFailure(), liveness)
                }
                return false
            }
            if _slowPath(callbacks.failed) {
                self.fail(callbacks.takeFailure(), liveness)
            }
            return false
        }
        if passes, let next = self.next {
            SKValue.withCIn(&current) { next(self.ctx, $0) }
        }
        // A map's heap result, released once the callback has returned.
        owned?.release()
    }

    /// A failable observer's value over a signal that is no run: the
    /// callback's call as a run of callbacks of its own.
    @inline(__always)
    private final func deliverFailable(_ value: SKValue) {
        let liveness = self.liveness.unsafelyUnwrapped
        withCallbackRun { callbacks in
            // Invariant: a failable handle without stages has a value
            // callback (sk_signal_start_failable makes one only then).
            let next = self.next.unsafelyUnwrapped
            value.withC { next(self.ctx, $0) }
            if _slowPath(callbacks.failed) {
                self.fail(callbacks.takeFailure(), liveness)
            }
        }
    }

    /// A stage's callback failed (sk_callback_fail): the subscription ends
    /// as `SKFailureEnd.fail` ends one, with the observer's error callback,
    /// if it has one, called with the failure once the value calls in
    /// flight have returned (a value-only observer's subscription just
    /// ends). Nothing when the subscription had ended (a dispose or the
    /// upstream's own terminal event wins). Off the path of values.
    @inline(never)
    private final func fail(_ failure: SKValue, _ liveness: _SubscriberLiveness) {
        if liveness.isTerminated {
            return
        }
        let deliver = {
            if self.claimTerminal(), let function = self.error {
                failure.withC { function(self.ctx, $0) }
            }
        }
        if liveness.canBeDisposed {
            _ = liveness.end(delivering: deliver)
        } else {
            deliver()
        }
    }

    /// Claims the subscription's one terminal event (the upstream's error
    /// or completion, or a stage's failure): true for the first caller
    /// only. A value-only observer has no terminal callback to call, and
    /// ends through its disposal alone: always true here;
    /// `SKHeldDisposable`, which holds the terminal callbacks, keeps the
    /// flag.
    func claimTerminal() -> Bool {
        return true
    }

    deinit {
        if case .chain(let chain)? = self.absorbed {
            chain.release()
        }
    }

    /// Disposes the Swift disposable.
    @inline(__always)
    final func dispose() {
        // Invariant: set before the handle is handed out (see `start`).
        self.started.unsafelyUnwrapped.dispose()
    }

    /// Sets the subscription's disposable; called once, before the handle
    /// is handed out.
    final func start(_ disposable: any Disposable) {
        self.started = disposable
    }
}

/// The handle of a subscription whose observer has an error or completion
/// callback or a release function, which it holds (see `SKDisposable`):
/// the release runs in deinit, once the subscription and C have both let
/// go, on the thread that lets go last; the handle then counts itself in
/// `sk_live_objects()`, uncounted before the release runs (as an
/// `SKObserver`).
///
/// Thread-safety: immutable.
final class SKHeldDisposable: SKDisposable {
    private let heldError: sk_error_fn?
    private let heldCompleted: sk_completed_fn?
    private let releaseFunction: sk_release_fn?
    /// Whether the one terminal event was let through (`claimTerminal`):
    /// the upstream's error or completion and a stage's failure may come
    /// from two threads at once.
    private let terminated = Synchronization.Atomic<Bool>(false)

    override func claimTerminal() -> Bool {
        return !self.terminated.exchange(true, ordering: .acquiringAndReleasing)
    }

    override var error: sk_error_fn? {
        return self.heldError
    }

    override var completed: sk_completed_fn? {
        return self.heldCompleted
    }

    /// The handle of a subscription observed by `observer`, before it
    /// starts (see `SKDisposable.init(observing:ctx:stages:counted:)`).
    init(observing observer: sk_observer, stages: SKStageRun? = nil, failable: Bool = false) {
        self.heldError = observer.error
        self.heldCompleted = observer.completed
        self.releaseFunction = observer.release
        if observer.release != nil {
            liveObjectCount.wrappingAdd(1, ordering: .relaxed)
        }
        super.init(observing: observer.next, ctx: observer.ctx, stages: stages, failable: failable, counted: observer.release == nil)
    }

    deinit {
        if let release = self.releaseFunction {
            // Both the subscription and C have let go: no callback runs any
            // more. Through the thread's release budget, as a context's.
            SKReleaseList.release(release, self.ctx)
        }
    }
}

/// The run of stages a subscription's handle absorbed (see `SKDisposable`).
enum SKAbsorbedStages {
    /// No stage: a failable observer's value callback over a signal that is
    /// no run (sk_signal_start_failable), called as a run of its own.
    case observerOnly
    /// A run of one stage, copied: the handle holds nothing of the signal.
    case one(SKStage)
    /// A longer run: its chain, retained by `init` and released by the
    /// handle's deinit. Unmanaged, and read without a retain: the handle
    /// holds it for the whole call, and the compiler would otherwise retain
    /// and release it around the C calls.
    case chain(Unmanaged<SKStageChain>)

    init(_ run: SKStageRun) {
        switch run {
        case .one(let stage):
            self = .one(stage)
        case .chain(let chain) where chain.stages.count == 1:
            self = .one(chain.stages[0])
        case .chain(let chain):
            self = .chain(Unmanaged.passRetained(chain))
        }
    }
}

private func outputDisposable(_ out: UnsafeMutablePointer<OpaquePointer?>?, function: StaticString = #function, _ make: () -> SKDisposable) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL", function: function)
    }
    out.pointee = make().retainedHandle(madeBy: function)
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
    if withBorrowedHandle(disposable, as: SKDisposable.self, .disposable, { $0.dispose() }) != nil {
        return
    }
    let (handle, _) = borrowHandle("disposable", disposable, as: SKDisposable.self, "a disposable")
    handle?.dispose()
}

@c @implementation
public func sk_disposable_retain(_ disposable: OpaquePointer?) -> OpaquePointer? {
    return SKObject.retain(disposable, as: SKDisposable.self, "a disposable")
}

@c @implementation
public func sk_disposable_release(_ disposable: OpaquePointer?) {
    SKObject.release(disposable, as: SKDisposable.self, "a disposable")
}

@c @implementation
public func sk_disposable_action(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ action: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    guard let action else {
        out?.pointee = nil
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "action is NULL"))
    }
    guard let out else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "out is NULL"))
    }
    let context = SKFunction(action, ctx: ctx, release: release)
    context.noteMaker(#function)
    return outputDisposable(out) {
        // The release runs here, right after the action, while the action
        // disposable still counts as running: a dispose made meanwhile on
        // another thread waits until this closure returns, so it returns only
        // once the release has returned too (as the header promises). Left to
        // the closure being let go of, the release ran after the action
        // disposable had marked itself finished, and such a dispose returned
        // while it still ran.
        SKDisposable(ActionDisposable {
            context.runOnce()
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

/// A key of an `sk_disposable_dict`: the bytes of the C string, without its
/// NUL, compared byte for byte.
///
/// Not a `String`: Swift compares strings by Unicode canonical equivalence
/// ("e\u{301}" equals "\u{e9}") and `String(cString:)` repairs invalid UTF-8
/// to U+FFFD, so keys that differ in their bytes would be one entry.
struct SKDictKey: Hashable {
    let bytes: [UInt8]

    /// Copies the bytes of `cString` up to its NUL.
    init(cString: UnsafePointer<CChar>) {
        self.bytes = Array(UnsafeRawBufferPointer(start: cString, count: strlen(cString)))
    }
}

@c @implementation
public func sk_disposable_dict(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    return outputDisposable(out) { SKDisposable(DisposableDict<SKDictKey>(), kind: .dict) }
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
    (container.disposable as! DisposableDict<SKDictKey>).set(item?.disposable, forKey: SKDictKey(cString: key))
    return SKOK
}
