import SignalKitHeader
import SwiftSignalKit

/// The signal a C caller sees: values and errors are `SKValue`s.
typealias CSignal = Signal<SKValue, SKValue>

/// An `sk_signal` handle.
///
/// The handle of `sk_signal_single` keeps its value and no signal: its
/// `signal` is built when it is used, capturing the handle alone (one object
/// where a signal built at once would be two more, the signal and its
/// start's context: a one-value inner signal made per value, as in
/// `sk_signal_map_to_signal`, costs one allocation instead of three). A
/// single started many times builds a signal per start.
///
/// Thread-safety: immutable.
final class SKSignal: SKObject, _SingleValueHolder {
    /// The signal; nil for a single (see above). Written only by the
    /// initialisers and by deinit (see there).
    @exclusivity(unchecked) private var built: CSignal?
    /// The single's value (`SKValue.nil` for any other signal). Written only
    /// by the initialisers and by deinit (see there).
    @exclusivity(unchecked) private(set) var heldValue: SKValue
    /// How many operators deep the signal is built (1 for a source): starting
    /// it and delivering through it nest about that many calls, so operators
    /// refuse to build beyond SK_SIGNAL_MAX_DEPTH (see `pipelineDepth`).
    let depth: Int
    /// Made by sk_signal_then, which runs nested `then`s as one flat
    /// sequence: another `then` over it adds no level.
    let isThen: Bool
    /// Set by sk_signal_map and sk_signal_filter (nil for every other
    /// signal): the run of C stages this signal is, over the first stage's
    /// upstream, so that a stage over it extends the run and
    /// `sk_signal_start` can run it in the subscription's handle (see
    /// `SKStages`). Written only by the initialisers and by deinit (see
    /// there).
    @exclusivity(unchecked) private(set) var stages: SKStages?

    init(_ signal: CSignal, depth: Int = 1, isThen: Bool = false, stages: SKStages? = nil) {
        self.built = signal
        self.heldValue = .nil
        self.depth = depth
        self.isThen = isThen
        self.stages = stages
        super.init()
    }

    /// The handle of a single emitting `value`.
    init(single value: SKValue) {
        self.built = nil
        self.heldValue = value
        self.depth = 1
        self.isThen = false
        self.stages = nil
        super.init()
    }

    /// Releasing a signal releases what it holds: a single's value, a
    /// failure's error, a value promise's value, the values an operator
    /// keeps. Those can hold signals, which hold values, and so on without
    /// bound (no operator is involved, so SK_SIGNAL_MAX_DEPTH does not count
    /// them, and SK_VALUE_MAX_DEPTH counts arrays only): an
    /// sk_signal_single() of a value holding a signal, nested 100,000 deep,
    /// overflowed an 8 MB stack when released, one nested release per level.
    /// So nested signal releases run in place on a thread only while their
    /// pipeline depths add up to at most `SKReleaseList.inlineReleaseBudget`
    /// (releasing a signal nests about as many calls as it is deep: sixteen
    /// nested 512-deep chains, each a level, overflowed a 512 KB stack); beyond,
    /// what a signal holds goes to the thread's release list (see
    /// `SKReleaseList`), which the release that made the list drains one item
    /// at a time: the stack holds the budget's worth of nested releases and
    /// one more signal's, whatever the nesting. A map's or filter's run of
    /// stages goes with the rest: it holds the stages' contexts, whose
    /// release functions may release more signals (a list owned through
    /// contexts); released after this deinit, as a stored property, it
    /// recursed once per node, outside the budget and the list (1,000 maps,
    /// each context releasing the previous map, overflowed a 64 KB stack).
    deinit {
        var built = self.built
        self.built = nil
        var value = self.heldValue
        self.heldValue = .nil
        var stages = self.stages
        self.stages = nil
        if built == nil && value.object == nil && stages == nil {
            return
        }
        if let list = SKReleaseList.current {
            list.append(built, value, stages)
            return
        }
        if SKReleaseList.releaseInPlace(weight: Int32(clamping: self.depth), {
            built = nil
            value = .nil
            stages = nil
        }) {
            return
        }
        let list = SKReleaseList()
        list.append(built, value, stages)
        built = nil
        value = .nil
        stages = nil
        list.drain()
    }

    /// The Swift signal.
    var signal: CSignal {
        if let built = self.built {
            return built
        }
        return CSignal.single(heldBy: self)
    }
}

/// The callbacks of an observer and their context, as the closures of its
/// subscription read them (`startObserving`): each closure captures the
/// object holding them and nothing else, so that it needs no context of its
/// own.
protocol SKObserverFields: AnyObject {
    var next: sk_next_fn? { get }
    var error: sk_error_fn? { get }
    var completed: sk_completed_fn? { get }
    var ctx: UnsafeMutableRawPointer? { get }
}

/// An observer's callbacks; `release(ctx)` runs when the subscription lets go
/// of them (the object is the one context of the closures `sk_signal_start`
/// subscribes with), which is after the last callback has returned.
///
/// Not an `SKObject`: it is never handed to C, so it needs no handle
/// registration (it registers itself while handle checking is on, for the
/// live-object report only), and it counts itself in `sk_live_objects()` as a callback
/// registration (the same count, the same order: uncounted before the release
/// function runs). Five words, so that it fits the allocator's 56-byte
/// chunk.
///
/// Thread-safety: immutable; the release runs once, in deinit.
final class SKObserver: SKObserverFields {
    let next: sk_next_fn?
    let error: sk_error_fn?
    let completed: sk_completed_fn?
    let ctx: UnsafeMutableRawPointer?
    let releaseFunction: sk_release_fn?

    init(_ observer: sk_observer) {
        self.next = observer.next
        self.error = observer.error
        self.completed = observer.completed
        self.ctx = observer.ctx
        self.releaseFunction = observer.release
        liveObjectCount.wrappingAdd(1, ordering: .relaxed)
        // In the registry, for sk_live_objects_report, while handle checking
        // is on (which cannot change while it lives: it is counted).
        if HandleRegistry.isEnabled {
            let address = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
            HandleRegistry.register(address)
            HandleRegistry.noteMaker(address, "sk_signal_start")
        }
    }

    deinit {
        if HandleRegistry.isEnabled {
            HandleRegistry.unregister(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))
        }
        // Uncounted before the release function runs (as SKContext), so that
        // whoever the release wakes sees the registration gone.
        liveObjectCount.wrappingSubtract(1, ordering: .relaxed)
        self.releaseFunction?(self.ctx)
    }
}

/// Starts `signal` with the callbacks of `callbacks`, which the subscription
/// holds until it ends. The value callback is always given: it holds the
/// object (whose release, for an `SKObserver`, runs when the subscription
/// ends). The others only when set: a callback that is not there costs
/// nothing to hold. Each closure captures `callbacks` alone: its context is
/// that object itself.
@inline(__always)
func startObserving<O: SKObserverFields>(_ signal: CSignal, _ callbacks: O) -> any Disposable {
    var onError: ((SKValue) -> Void)?
    if callbacks.error != nil {
        onError = { error in
            if let function = callbacks.error {
                error.withC { function(callbacks.ctx, $0) }
            }
        }
    }
    var onCompleted: (() -> Void)?
    if callbacks.completed != nil {
        onCompleted = {
            callbacks.completed?(callbacks.ctx)
        }
    }
    return signal.start(next: { value in
        if let next = callbacks.next {
            value.withC { next(callbacks.ctx, $0) }
        }
    }, error: onError, completed: onCompleted)
}

/// Hands `signal` to C through `out` (+1); `depth`, `isThen` and
/// `stages` as in `SKSignal`.
func output(_ out: UnsafeMutablePointer<OpaquePointer?>, _ signal: CSignal, depth: Int = 1, isThen: Bool = false, stages: SKStages? = nil, function: StaticString = #function) -> Int32 {
    out.pointee = SKSignal(signal, depth: depth, isThen: isThen, stages: stages).retainedHandle(madeBy: function)
    return SKOK
}

/// The depth of an operator's result over `inputs` (one more than the
/// deepest; `then` over `then`s counts their parts, which it runs flat), or
/// the error status when that passes SK_SIGNAL_MAX_DEPTH: a chain built
/// deeper would overflow the stack of whatever thread starts it or delivers
/// through it.
func pipelineDepth(over inputs: [SKSignal], isThen: Bool = false, function: StaticString = #function) -> (Int, Int32) {
    var deepest = 0
    for input in inputs {
        deepest = max(deepest, isThen && input.isThen ? input.depth - 1 : input.depth)
    }
    let depth = deepest + 1
    if depth > Int(SK_SIGNAL_MAX_DEPTH) {
        return (depth, fail(SK_ERR_INVALID_ARGUMENT, "the pipeline would be \(depth) operators deep (the limit is SK_SIGNAL_MAX_DEPTH, \(SK_SIGNAL_MAX_DEPTH))", function: function))
    }
    return (depth, SKOK)
}

/// Borrows a value argument, reporting NULL and malformed values.
func borrowValue(_ name: String, _ value: UnsafePointer<sk_value>?, function: StaticString = #function) -> (SKValue?, Int32) {
    guard let value else {
        return (nil, fail(SK_ERR_NULL_ARGUMENT, "\(name) is NULL", function: function))
    }
    if let problem = SKValue.validate(value) {
        return (nil, fail(problem.status, "\(name): \(problem.message)", function: function))
    }
    return (SKValue(borrowing: value), SKOK)
}

/// Borrows a signal argument, reporting NULL and handles of another kind.
func borrowSignal(_ name: String, _ handle: OpaquePointer?, function: StaticString = #function) -> (SKSignal?, Int32) {
    return borrowHandle(name, handle, as: SKSignal.self, "a signal", function: function)
}

@c @implementation
public func sk_signal_create(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ generator: sk_generator_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return createSignal(out, over: nil, generator, ctx, release)
}

@c @implementation
public func sk_signal_create_over(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ upstream: OpaquePointer?, _ generator: sk_generator_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    guard let upstream else {
        out?.pointee = nil
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "upstream is NULL"))
    }
    return createSignal(out, over: upstream, generator, ctx, release)
}

/// sk_signal_create, and with `upstream` sk_signal_create_over: the signal's
/// depth is one more than the upstream's, and it keeps the upstream.
private func createSignal(_ out: UnsafeMutablePointer<OpaquePointer?>?, over upstreamHandle: OpaquePointer?, _ generator: sk_generator_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?, function: StaticString = #function) -> Int32 {
    guard let out else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "out is NULL", function: function))
    }
    out.pointee = nil
    guard let generator else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "generator is NULL", function: function))
    }
    var depth = 1
    var upstream: SKSignal?
    if let upstreamHandle {
        let (handle, status) = borrowSignal("upstream", upstreamHandle, function: function)
        guard let handle else {
            return releasingOnFailure(ctx: ctx, release: release, status)
        }
        let (upstreamDepth, depthStatus) = pipelineDepth(over: [handle], function: function)
        if depthStatus != SKOK {
            return releasingOnFailure(ctx: ctx, release: release, depthStatus)
        }
        depth = upstreamDepth
        upstream = handle
    }
    let context = SKContext(ctx: ctx, release: release)
    context.noteMaker(function)
    let callback = SKFunction(generator, ctx: ctx, release: nil)
    callback.noteMaker(function)
    return output(out, CSignal { subscriber in
        withExtendedLifetime(upstream) {}
        let handle = SKSubscriber(subscriber)
        handle.noteMaker(function)
        let disposable = withExtendedLifetime(context) {
            callback.function(callback.ctx, OpaquePointer(Unmanaged.passUnretained(handle).toOpaque()))
        }
        guard let disposable else {
            return EmptyDisposable
        }
        // The generator handed over a reference: take the Swift disposable and
        // drop the handle (anything that is not a disposable is just dropped).
        let taken = SKObject.borrow(disposable, as: SKDisposable.self)?.disposable
        SKObject.releaseAnyHandle(disposable, expected: SKDisposable.self, function: function)
        return taken ?? EmptyDisposable
    }, depth: depth, function: function)
}

@c @implementation
public func sk_signal_single(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ value: UnsafePointer<sk_value>?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (borrowed, status) = borrowValue("value", value)
    guard let borrowed else {
        return status
    }
    if HandleRegistry.isEnabled {
        // With handle checking, a handle released by C must read as released
        // at once: no signal may keep it (see `SKSignal`).
        return output(out, CSignal.single(borrowed))
    }
    out.pointee = SKSignal(single: borrowed).retainedHandle(madeBy: #function)
    return SKOK
}

@c @implementation
public func sk_signal_complete(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    return output(out, CSignal.complete())
}

@c @implementation
public func sk_signal_fail(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafePointer<sk_value>?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (borrowed, status) = borrowValue("error", error)
    guard let borrowed else {
        return status
    }
    return output(out, CSignal.fail(borrowed))
}

@c @implementation
public func sk_signal_never(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    return output(out, CSignal.never())
}

@c @implementation
public func sk_signal_start(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ observer: UnsafePointer<sk_observer>?) -> Int32 {
    out?.pointee = nil
    guard let observer else {
        return fail(SK_ERR_NULL_ARGUMENT, "observer is NULL")
    }
    let fields = observer.pointee
    if let out, fields.release == nil, fields.error == nil, fields.completed == nil, !HandleRegistry.isEnabled {
        // A value callback and nothing to release: the disposable handed out
        // is the observer too (see `SKDisposable`). Not with handle checking
        // on: the closure keeps the object alive after its last release by C
        // until the subscription ends, and a released handle must read as
        // released.
        let (handle, status) = borrowSignal("signal", signal)
        guard let handle else {
            return status
        }
        if let stages = handle.stages, !stages.chain.hasReleaseFunction {
            // A run of map and filter stages of the C layer without release
            // function: the handle runs them (see `SKDisposable`), over the
            // first stage's upstream.
            let subscription = SKDisposable(observing: fields.next, ctx: fields.ctx, stages: stages.chain)
            subscription.start(subscription.startAbsorbing(stages.upstream))
            out.pointee = subscription.retainedHandle(madeBy: #function)
            return SKOK
        }
        let subscription = SKDisposable(observing: fields.next, ctx: fields.ctx)
        subscription.start(startObserving(handle.signal, subscription))
        out.pointee = subscription.retainedHandle(madeBy: #function)
        return SKOK
    }
    // The signal first: the observer's release runs in its deinit, and on a
    // failure it must run keeping the message (`releasingOnFailure`).
    let (handle, status) = borrowSignal("signal", signal)
    guard let handle else {
        return releasingOnFailure(ctx: fields.ctx, release: fields.release, status)
    }
    let callbacks = SKObserver(fields)
    let disposable = startObserving(handle.signal, callbacks)
    out?.pointee = SKDisposable(disposable, kind: .plain).retainedHandle(madeBy: #function)
    return SKOK
}

@c @implementation
public func sk_signal_retain(_ signal: OpaquePointer?) -> OpaquePointer? {
    return SKObject.retain(signal, as: SKSignal.self, "a signal")
}

@c @implementation
public func sk_signal_release(_ signal: OpaquePointer?) {
    SKObject.release(signal, as: SKSignal.self, "a signal")
}
