import SignalKitHeader
import SwiftSignalKit

/// The signal a C caller sees: values and errors are `SKValue`s.
typealias CSignal = Signal<SKValue, SKValue>

/// An `sk_signal` handle.
///
/// Some handles keep what their signal is made of instead of the signal,
/// which is built when it is used (each time, by whatever uses it): the
/// handle of `sk_signal_single` keeps its value, built into a `single` that
/// keeps a copy of it in place (one object, the signal; a meta operator
/// such as `sk_signal_map_to_signal` delivers it without subscribing to
/// it); the handle of `sk_pipe_signal` keeps the
/// pipe's source (`SKUpstream.pipe`: its broadcaster, no signal object and
/// no start context); the handle of a map or filter over a signal that is no
/// run of stages, whose function has no release function, keeps its stage
/// and upstream (`SKStageRun.one`) and no signal. A subscription that
/// `sk_signal_start` runs in its own handle (see `SKDisposable`) starts
/// the pipe's source directly: a pipeline built where it is started
/// (`pipe signal -> map -> start`, Benchmarks/README.md, W2b) makes one
/// object per handle, as the Swift API does per signal.
///
/// Thread-safety: immutable.
final class SKSignal: SKObject {
    /// The signal, or the pipe source it is; nil for a single and for a run
    /// of one stage (see above). Written only by the initialisers and by
    /// deinit (see there).
    @exclusivity(unchecked) private var source: SKUpstream?
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
    /// What the handle keeps (see above), read first by `signal` and deinit
    /// (one byte beside `isThen`, where the optional enums would be copied
    /// to be tested).
    let form: Form
    /// Set by sk_signal_map and sk_signal_filter (nil for every other
    /// signal): the run of C stages this signal is, over the first stage's
    /// upstream, so that a stage over it extends the run and
    /// `sk_signal_start` can run it in the subscription's handle (see
    /// `SKStages`). Written only by the initialisers and by deinit (see
    /// there).
    @exclusivity(unchecked) private(set) var stages: SKStages?

    /// The handle of `signal`; nil only with `stages` (a run built when
    /// used, see above).
    init(_ signal: CSignal?, depth: Int = 1, isThen: Bool = false, stages: SKStages? = nil) {
        self.source = signal.map(SKUpstream.signal)
        self.heldValue = .nil
        self.depth = depth
        self.isThen = isThen
        self.form = signal == nil ? .stage : .built
        self.stages = stages
        super.init(fastKind: .signal)
    }

    /// The handle of a single emitting `value`.
    init(single value: SKValue) {
        self.source = nil
        self.heldValue = value
        self.depth = 1
        self.isThen = false
        self.form = .single
        self.stages = nil
        super.init(fastKind: .signal)
    }

    /// The handle of a pipe's signal.
    init(pipe source: _SignalPipeSource<SKValue, SKValue>) {
        self.source = .pipe(source)
        self.heldValue = .nil
        self.depth = 1
        self.isThen = false
        self.form = .pipe
        self.stages = nil
        super.init(fastKind: .signal)
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
        if self.form == .single && self.heldValue.object == nil {
            // Nothing to release (every other handle holds something).
            return
        }
        let state: UnsafeMutablePointer<sk__release_state> = sk__release_state_here()
        if let list = SKReleaseList.current(state) {
            list.append(self.source, self.heldValue, self.stages)
            self.dropHeld()
            return
        }
        // In place: what the handle holds is released here, inside the
        // budget, rather than after this deinit.
        if SKReleaseList.releaseInPlace(state, weight: Int32(clamping: self.depth), { self.dropHeld() }) {
            return
        }
        let list = SKReleaseList()
        list.append(self.source, self.heldValue, self.stages)
        self.dropHeld()
        list.drain()
    }

    /// Releases what the handle holds (see deinit).
    @inline(__always)
    private func dropHeld() {
        self.source = nil
        self.heldValue = .nil
        self.stages = nil
    }

    /// What a handle keeps (see above).
    enum Form: UInt8 {
        /// The signal (`source` is `.signal`).
        case built
        /// A single's value (`heldValue`).
        case single
        /// A pipe's source (`source` is `.pipe`).
        case pipe
        /// A run of one stage (`stages`), no signal.
        case stage
    }

    /// The Swift signal.
    @inline(__always)
    var signal: CSignal {
        switch self.form {
        case .built:
            if case .signal(let built)? = self.source {
                return built
            }
            // Invariant: a built handle's source is its signal.
            preconditionFailure("a signal handle without its signal")
        case .single:
            // Kept in the signal (an sk_value fits: `Signal.singleStorage`),
            // which a meta operator delivers without a subscription.
            return CSignal.single(self.heldValue)
        case .pipe, .stage:
            return self.buildSignal()
        }
    }

    /// The signal of a pipe's source or of a run of one stage, built anew.
    @inline(never)
    private func buildSignal() -> CSignal {
        if case .pipe(let source)? = self.source {
            return source.signal()
        }
        // Invariant: a handle of form .stage has its stages.
        return self.stages!.build()
    }

    /// The pipe source this signal is (`sk_pipe_signal`), or nil.
    var pipeSource: _SignalPipeSource<SKValue, SKValue>? {
        if case .pipe(let source)? = self.source {
            return source
        }
        return nil
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
        observerMade(self, by: "sk_signal_start")
    }

    deinit {
        observerGone(self, releasing: self.releaseFunction, self.ctx)
    }
}

extension SKObserver: _BroadcasterTerminalReceiver {
    /// A pipe's terminal event, for an observer called by address
    /// (`rawValueCallback`): delivered once, by the thread that ends the
    /// subscription, outside the pipe's lock.
    func receiveTerminal(_ terminal: _BroadcasterTerminal) {
        deliverTerminal(terminal, to: self)
    }
}

/// Calls `callbacks`' terminal callback for a pipe's terminal event (what
/// each `_BroadcasterTerminalReceiver` of the layer does once it may).
@inline(__always)
func deliverTerminal<O: SKObserverFields>(_ terminal: _BroadcasterTerminal, to callbacks: O) {
    switch terminal {
    case .completed:
        callbacks.completed?(callbacks.ctx)
    case let .failed(failure):
        // A C pipe's errors are SKValues.
        if let function = callbacks.error, let error = failure as? SKValue {
            error.withC { function(callbacks.ctx, $0) }
        }
    }
}

/// An observer object of the C layer (`SKObserver`, `SKFailableObserver`)
/// is made: counted, and in the registry for sk_live_objects_report while
/// handle checking is on (which cannot change while it lives: it is
/// counted), noted as made by `maker`.
@inline(__always)
func observerMade(_ observer: AnyObject, by maker: StaticString) {
    liveObjectCount.wrappingAdd(1, ordering: .relaxed)
    if HandleRegistry.isEnabled {
        let address = UInt(bitPattern: Unmanaged.passUnretained(observer).toOpaque())
        HandleRegistry.register(address)
        HandleRegistry.noteMaker(address, maker)
    }
}

/// An observer object's deinit: out of the registry, uncounted before the
/// release function runs (as SKContext), so that whoever the release wakes
/// sees the registration gone; then `release(ctx)`, waited for by
/// sk_live_objects_wait until it returns (`runUserRelease`).
@inline(__always)
func observerGone(_ observer: AnyObject, releasing release: sk_release_fn?, _ ctx: UnsafeMutableRawPointer?) {
    if HandleRegistry.isEnabled {
        HandleRegistry.unregister(UInt(bitPattern: Unmanaged.passUnretained(observer).toOpaque()))
    }
    guard let release else {
        liveObjectGone()
        return
    }
    runUserRelease { release(ctx) }
}

/// Starts `signal` with the callbacks of `callbacks`, which the subscription
/// holds until it ends. The value callback is always given: it holds the
/// object (whose release, for an `SKObserver`, runs when the subscription
/// ends); without a C value function, one that does nothing but hold it, so
/// that the one with a function calls it without testing for it first. The
/// others only when set: a callback that is not there costs nothing to
/// hold. Each closure captures `callbacks` alone: its context is that
/// object itself.
@inline(__always)
func startObserving<O: SKObserverFields>(_ signal: CSignal, _ callbacks: O, linkedTo downstream: CSubscriber? = nil) -> any Disposable {
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
    if let downstream {
        return signal.start(downstream: downstream, next: observingNext(callbacks), error: onError, completed: onCompleted)
    }
    return signal.start(next: observingNext(callbacks), error: onError, completed: onCompleted)
}

typealias CSubscriber = Subscriber<SKValue, SKValue>

/// The subscriber a start of `signal` is linked to: that of the custom
/// operator (`sk_signal_create_over`) whose generator runs on this thread,
/// when `signal` is its upstream. Linked, the start's subscription reads as
/// ended once the operator's downstream has ended (`Subscriber.isEnded`), as
/// a start made by one of the library's own operators does: a loop further
/// up (`sk_signal_restart`) stops when a `take` below completes, through a
/// custom operator (a binding's own stage) as through `sk_signal_map`.
@inline(__always)
func linkedDownstream(_ signal: SKSignal) -> CSubscriber? {
    let link = sk__generator_link_here()!.pointee
    guard let upstream = link.upstream, upstream == UnsafeRawPointer(Unmanaged.passUnretained(signal).toOpaque()),
          let subscriber = link.subscriber else {
        return nil
    }
    return Unmanaged<SKSubscriber>.fromOpaque(subscriber).takeUnretainedValue().subscriber
}

/// The value closure of `startObserving`. Generic over the value type,
/// though only used with `SKValue`, as `SKDisposable.absorbing` is: the
/// closure is then made in the abstraction the core stores callbacks in, so
/// no conversion thunk stands between the delivery and the callback (two,
/// written for `SKValue` alone: 8 instructions per delivery, C W3).
@inline(never)
private func observingNext<T, O: SKObserverFields>(_ callbacks: O) -> (T) -> Void {
    // Invariant (the library's own): its only caller starts SKValue
    // signals (`CSignal`).
    precondition(T.self == SKValue.self, "a C observer of values other than SKValue")
    guard callbacks.next != nil else {
        return { _ in
            withExtendedLifetime(callbacks) {}
        }
    }
    return { value in
        // Invariant: made only for callbacks with a value function (above),
        // which never changes (a `let`).
        let next = callbacks.next.unsafelyUnwrapped
        unsafeBitCast(value, to: SKValue.self).withC { next(callbacks.ctx, $0) }
    }
}

/// Hands `signal` to C through `out` (+1); `depth`, `isThen` and
/// `stages` as in `SKSignal`.
func output(_ out: UnsafeMutablePointer<OpaquePointer?>, _ signal: CSignal?, depth: Int = 1, isThen: Bool = false, stages: SKStages? = nil, function: StaticString = #function) -> Int32 {
    out.pointee = SKSignal(signal, depth: depth, isThen: isThen, stages: stages).retainedHandle(madeBy: function)
    return SKOK
}

/// The depth of an operator's result over `inputs` (one more than the
/// deepest; `then` over `then`s counts their parts, which it runs flat), or
/// the error status when that passes SK_SIGNAL_MAX_DEPTH: a chain built
/// deeper would overflow the stack of whatever thread starts it or delivers
/// through it.
func pipelineDepth(over inputs: [SKSignal], isThen: Bool = false, levels: Int = 1, function: StaticString = #function) -> (Int, Int32) {
    var deepest = 0
    for input in inputs {
        deepest = max(deepest, isThen && input.isThen ? input.depth - 1 : input.depth)
    }
    return checkedDepth(deepest + levels, function: function)
}

/// `pipelineDepth` over one input (no array made).
func pipelineDepth(over input: SKSignal, isThen: Bool = false, levels: Int = 1, function: StaticString = #function) -> (Int, Int32) {
    return checkedDepth(isThen && input.isThen ? input.depth : input.depth + levels, function: function)
}

/// The levels of SK_SIGNAL_MAX_DEPTH an operator counts: one, but two for
/// those whose events nest deeper than the others' through each level
/// (signalkit.h, "Depth"). Measured with chains of one operator over a pipe
/// on a 512 KB thread: every operator delivers its values and completion
/// through 512 levels but share and replay (their completion passes the
/// broadcaster's entry and the shared subscription: 397 levels) and
/// group_by (a group per value, the completion through each: 321).
enum SKDepth {
    static let share = 2
    static let groupBy = 2
}

private func checkedDepth(_ depth: Int, function: StaticString) -> (Int, Int32) {
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
        let handle = SKSubscriber(subscriber)
        handle.noteMaker(function)
        // A custom operator: the generator's start of `upstream` on this
        // thread is linked to `subscriber` (`linkedDownstream`); a plain
        // generator inside one's clears the link while it runs. Neither:
        // one load.
        let link = sk__generator_link_here()!
        let saved = link.pointee
        let linking = upstream != nil || saved.upstream != nil
        if linking {
            link.pointee = upstream.map {
                sk__generator_link(upstream: Unmanaged.passUnretained($0).toOpaque(),
                                   subscriber: Unmanaged.passUnretained(handle).toOpaque())
            } ?? sk__generator_link(upstream: nil, subscriber: nil)
        }
        let disposable = withExtendedLifetime((context, handle, upstream)) {
            callback.function(callback.ctx, OpaquePointer(Unmanaged.passUnretained(handle).toOpaque()))
        }
        if linking {
            link.pointee = saved
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
    if let out, fields.release == nil {
        // Nothing to release: nothing tells when the observer is let go, so
        // the disposable handed out may be the observer too (as
        // sk_signal_start_held's does).
        return startHeld(out, signal, fields)
    }
    return startWithObserver(out, signal, fields)
}

@c @implementation
public func sk_signal_start_held(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ observer: UnsafePointer<sk_observer>?) -> Int32 {
    out?.pointee = nil
    guard let observer else {
        return fail(SK_ERR_NULL_ARGUMENT, "observer is NULL")
    }
    let fields = observer.pointee
    guard let out else {
        // No disposable to hold the observer: as sk_signal_start.
        return startWithObserver(nil, signal, fields)
    }
    return startHeld(out, signal, fields)
}

@c @implementation
public func sk_signal_start_failable(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ observer: UnsafePointer<sk_observer>?, _ held: Int32) -> Int32 {
    out?.pointee = nil
    guard let observer else {
        return fail(SK_ERR_NULL_ARGUMENT, "observer is NULL")
    }
    let fields = observer.pointee
    guard let next = fields.next else {
        // No value callback, nothing that can fail: a plain start.
        if let out, held != 0 || fields.release == nil {
            return startHeld(out, signal, fields)
        }
        return startWithObserver(out, signal, fields)
    }
    // The handle borrowed without a retain where it can be (as
    // sk_signal_start_held's is), else checked.
    if let status = withBorrowedHandle(signal, as: SKSignal.self, .signal, { startFailable(out, $0, fields, next, held) }) {
        return status
    }
    let (handle, status) = borrowSignal("signal", signal)
    guard let handle else {
        return releasingOnFailure(ctx: fields.ctx, release: fields.release, status)
    }
    return startFailable(out, handle, fields, next, held)
}

/// sk_signal_start_failable's start of `handle`'s signal with `fields`,
/// whose value callback is `next`.
@inline(__always)
private func startFailable(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ handle: SKSignal, _ fields: sk_observer, _ next: sk_next_fn, _ held: Int32) -> Int32 {
    // Three ways, each making what sk_signal_start would. With the
    // disposable holding the observer: over a run of the C layer's stages
    // whose functions have no release function, the handle runs the stages
    // and the callback joins their run (`SKDisposable.failable`); over any
    // other signal, the handle calls the callback as a run of callbacks of
    // its own (`SKAbsorbedStages.observerOnly`). Otherwise (not held, or
    // started by a custom operator's generator, which links the start) an
    // observer that is also the subscription's end (`SKFailableObserver`).
    // Either way a failure through sk_callback_fail ends the subscription
    // as a failing map does (`SKDisposable.fail`, `SKFailureEnd.fail`).
    let downstream = linkedDownstream(handle)
    let function: StaticString = "sk_signal_start_failable"
    let holds = out != nil && (held != 0 || fields.release == nil) && !HandleRegistry.isEnabled
    if holds, let out, downstream == nil {
        // A run whose functions have a release function is not absorbed
        // (see `SKDisposable`): the handle observes the run's signal.
        let stages = handle.stages?.run.hasReleaseFunction == true ? nil : handle.stages
        let upstream = stages?.upstream ?? (handle.stages == nil ? SKUpstream(handle) : .signal(handle.signal))
        let subscription = makeObservingHandle(fields, stages: stages?.run, failable: true)
        switch upstream {
        case .signal(let upstream):
            subscription.start(subscription.startAbsorbing(upstream))
        case .pipe(let source):
            subscription.start(subscription.startAbsorbing(source))
        }
        out.pointee = subscription.retainedHandle(madeBy: function)
        return SKOK
    }
    let failable = SKFailableObserver(fields, next: next)
    let disposable = failable.start(handle.signal, linkedTo: downstream)
    out?.pointee = SKDisposable(disposable, kind: .plain).retainedHandle(madeBy: function)
    return SKOK
}

/// sk_signal_start's general path: an observer of its own (`SKObserver`),
/// let go, and its release run, when the subscription ends. Always inlined:
/// a start nests one sk_signal_start per level of a pipeline whose stages
/// start their upstream through the C API (libsignalkit-ffi's typed maps),
/// and as a call of its own this path added 208 bytes of stack to each
/// level, so a chain at SK_SIGNAL_MAX_DEPTH no longer started within the
/// stack the header promises (test_ffi_deep_values: 848 bytes per level
/// against 656 inlined).
@inline(__always)
private func startWithObserver(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fields: sk_observer, function: StaticString = #function) -> Int32 {
    // The signal first: the observer's release runs in its deinit, and on a
    // failure it must run keeping the message (`releasingOnFailure`).
    let (handle, status) = borrowSignal("signal", signal, function: function)
    guard let handle else {
        return releasingOnFailure(ctx: fields.ctx, release: fields.release, status)
    }
    let callbacks = SKObserver(fields)
    let downstream = linkedDownstream(handle)
    let disposable: any Disposable
    if downstream == nil, let source = handle.pipeSource, let next = fields.next {
        // A pipe's own signal: called by address, as in `startHeldObserver`.
        disposable = source.start(raw: rawValueCallback(next, fields.ctx), held: callbacks)
    } else {
        disposable = startObserving(handle.signal, callbacks, linkedTo: downstream)
    }
    out?.pointee = SKDisposable(disposable, kind: .plain).retainedHandle(madeBy: function)
    return SKOK
}

/// Starts `signal` with an observer the disposable handed out through `out`
/// holds (it is the observer too, see `SKDisposable`): its release runs once
/// both the subscription and the disposable's last reference have let go.
/// Not with handle checking on: the closures keep the object alive after its
/// last release by C until the subscription ends, and a released handle must
/// read as released; then the observer is one of its own (`startWithObserver`),
/// let go when the subscription ends, which is no later.
@inline(__always)
private func startHeld(_ out: UnsafeMutablePointer<OpaquePointer?>, _ signal: OpaquePointer?, _ fields: sk_observer, function: StaticString = #function) -> Int32 {
    if HandleRegistry.isEnabled {
        return startWithObserver(out, signal, fields, function: function)
    }
    if let subscription = withBorrowedHandle(signal, as: SKSignal.self, .signal, { startHeldObserver(fields, $0, function: function) }) {
        out.pointee = subscription
        return SKOK
    }
    let (handle, status) = borrowSignal("signal", signal, function: function)
    guard let handle else {
        return releasingOnFailure(ctx: fields.ctx, release: fields.release, status)
    }
    out.pointee = startHeldObserver(fields, handle, function: function)
    return SKOK
}

/// Starts `handle`'s signal with `fields`, held by the disposable handed out
/// (+1), which is the observer too (see `SKDisposable`); handle checking off.
@inline(__always)
private func startHeldObserver(_ fields: sk_observer, _ handle: SKSignal, function: StaticString) -> OpaquePointer {
    if let downstream = linkedDownstream(handle) {
        let subscription = makeObservingHandle(fields, stages: nil)
        subscription.start(startObserving(handle.signal, subscription, linkedTo: downstream))
        return subscription.retainedHandle(madeBy: function)
    }
    if let stages = handle.stages, !stages.run.hasReleaseFunction {
        // A run of map and filter stages of the C layer without release
        // function: the handle runs them (see `SKDisposable`), over the
        // first stage's upstream.
        let subscription = makeObservingHandle(fields, stages: stages.run)
        switch stages.upstream {
        case .signal(let upstream):
            subscription.start(subscription.startAbsorbing(upstream))
        case .pipe(let source):
            subscription.start(subscription.startAbsorbing(source))
        }
        return subscription.retainedHandle(madeBy: function)
    }
    let subscription = makeObservingHandle(fields, stages: nil)
    if let source = handle.pipeSource, let next = fields.next {
        // A pipe's own signal: its values go to the C function by address
        // (the sk_value at the start of each SKValue, `rawValueCallback`),
        // with no closure between; the handle, which is the observer, is
        // held until the subscription ends and receives its terminal event.
        subscription.start(source.start(raw: rawValueCallback(next, fields.ctx), held: subscription))
        return subscription.retainedHandle(madeBy: function)
    }
    subscription.start(startObserving(handle.signal, subscription))
    return subscription.retainedHandle(madeBy: function)
}

/// `next(ctx, value)` as a callback the core calls with the address of each
/// `SKValue` it delivers: the address of its `sk_value` (`SKValue.raw` is
/// its first field, checked once here).
@inline(__always)
func rawValueCallback(_ next: sk_next_fn, _ ctx: UnsafeMutableRawPointer?) -> _RawValueCallback {
    // Invariant (the library's own): SKValue's layout.
    precondition(SKValue.rawIsFirst, "SKValue's sk_value is not at its start")
    return _RawValueCallback(function: unsafeBitCast(next, to: (@convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer) -> Void).self), context: ctx)
}

/// The handle of a subscription that holds its observer: an `SKDisposable`
/// for a value callback alone (eleven words), an `SKHeldDisposable` when
/// there is more to hold.
@inline(__always)
private func makeObservingHandle(_ fields: sk_observer, stages: SKStageRun?, failable: Bool = false) -> SKDisposable {
    if fields.error == nil && fields.completed == nil && fields.release == nil {
        return SKDisposable(observing: fields.next, ctx: fields.ctx, stages: stages, failable: failable)
    }
    return SKHeldDisposable(observing: fields, stages: stages, failable: failable)
}

@c @implementation
public func sk_signal_retain(_ signal: OpaquePointer?) -> OpaquePointer? {
    return SKObject.retain(signal, as: SKSignal.self, "a signal")
}

@c @implementation
public func sk_signal_release(_ signal: OpaquePointer?) {
    SKObject.release(signal, as: SKSignal.self, "a signal")
}
