import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_map(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_map_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return stageOperator(out, signal, fn, ctx, release) { .map($0, $1) }
}

@c @implementation
public func sk_signal_filter(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_predicate_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return stageOperator(out, signal, fn, ctx, release) { .filter($0, $1) }
}

// sk_signal_map and sk_signal_filter are stages of the C layer's own, run in
// runs: a map or filter over a map or filter does not start its input's
// stage, it extends its input's run of stages (`SKStages`: the first stage's
// upstream and the C functions in order) by one, and its signal subscribes
// to that upstream once, with one value callback that calls the C functions
// of the whole run in a loop (`SKStageChain.run`). Each function is called
// as a stage of its own would call it (`Signal.init(fused:)`, as the core's
// `map` and `filter`): the subscription's liveness is checked after every
// function, a value a filter drops or that reaches an ended subscription
// goes no further, and a primitive result is passed on as a value without
// object (nothing to release afterwards). So `pipe |> map |> filter |> map`
// is one subscription of the pipe with one composed callback, whichever
// observer starts it, where each stage was a callback object of its own
// calling the next (C W1: 231.5 -> 208.5 instructions per event; see
// Benchmarks/README.md, "What limits", W1); a run of N stages delivers in
// one frame, not N nested ones.
//
// Generic over the value type, though only ever used with `SKValue` (the
// casts below are no-ops then, and checked otherwise): the composed callback
// is a `(T) -> Void` of the generic `Signal`, and a closure written in a
// generic context takes the value as such a callback is called, where a
// closure written for `SKValue` alone is wrapped in a conversion thunk (one
// more call per value).

/// The shared shape of sk_signal_map and sk_signal_filter: checks as
/// `callbackOperator` does, then records the stage `stage(fn, ctx)` in a run
/// of stages over the input (see above).
///
/// A first stage (over an input that is no run) whose function has no
/// release function is kept as it is, with its upstream (`SKStageRun.one`):
/// the handle is the only object made, and its signal is built when
/// something other than `sk_signal_start`'s absorbing path uses it (as a
/// single's is: see `SKSignal`). Not while handle checking is on (the
/// function's context is then registered, as every other, for the
/// live-object report).
private func stageOperator<F>(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: F?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?, function: StaticString = #function, _ stage: (F, UnsafeMutableRawPointer?) -> SKStage) -> Int32 {
    guard let fn else {
        out?.pointee = nil
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "fn is NULL", function: function))
    }
    if release == nil, !HandleRegistry.isEnabled {
        // Nothing to release on a failure: no context object is needed.
        return handleOperator(out, signal, function: function) { input in
            if input.stages == nil {
                return (nil, SKStages(over: input, stage(fn, ctx)))
            }
            let stages = SKStages(over: input, stage(fn, ctx), holding: nil)
            return (stages.build(), stages)
        }
    }
    let callback = SKFunction(fn, ctx: ctx, release: release)
    callback.noteMaker(function)
    return releasingOnFailure(callback) {
        handleOperator(out, signal, function: function) { input in
            let stages = SKStages(over: input, stage(fn, ctx), holding: callback)
            return (stages.build(), stages)
        }
    }
}

/// One C stage of a run: the function and its context. Trivial (no
/// reference): the run's `SKStageChain` holds the `SKFunction`s.
enum SKStage {
    case map(sk_map_fn, UnsafeMutableRawPointer?)
    case filter(sk_predicate_fn, UnsafeMutableRawPointer?)
}

/// What a run of stages starts: a signal, or a pipe's source (the signal of
/// `sk_pipe_signal`, which its handle keeps unbuilt: see `SKSignal`), which
/// a subscription starts directly.
enum SKUpstream {
    case signal(CSignal)
    case pipe(_SignalPipeSource<SKValue, SKValue>)

    /// The upstream of a run whose first stage is over `input`.
    init(_ input: SKSignal) {
        if let source = input.pipeSource {
            self = .pipe(source)
        } else {
            self = .signal(input.signal)
        }
    }

    var signal: CSignal {
        switch self {
        case .signal(let signal):
            return signal
        case .pipe(let source):
            return source.signal()
        }
    }
}

/// The stages of a run: one stage whose function has no release function,
/// kept as it is (nothing else is made), or a chain.
enum SKStageRun {
    case one(SKStage)
    case chain(SKStageChain)

    /// Whether any stage's function has a release function: such a run is not
    /// absorbed by a subscription's handle (see `SKDisposable`).
    var hasReleaseFunction: Bool {
        if case .chain(let chain) = self {
            return chain.hasReleaseFunction
        }
        return false
    }

    /// The run as a chain (a run of one made into one).
    var chain: SKStageChain {
        switch self {
        case .one(let stage):
            return SKStageChain([stage], [])
        case .chain(let chain):
            return chain
        }
    }
}

/// The run of C stages a signal made by sk_signal_map or sk_signal_filter
/// is: the upstream of its first stage (a signal that is not such a stage)
/// and the stages. `sk_signal_start` runs the stages in the subscription's
/// handle for an observer without a release function (and
/// `sk_signal_start_held` for any observer), when no stage's function has a
/// release function (see `SKDisposable`).
struct SKStages {
    let upstream: SKUpstream
    let run: SKStageRun

    /// A first stage over `input` (which is no run), whose function has no
    /// release function: kept as it is.
    init(over input: SKSignal, _ stage: SKStage) {
        self.upstream = SKUpstream(input)
        self.run = .one(stage)
    }

    /// `stage` (whose function and context `function` holds, nil when it has
    /// no release function) over `input`: `input`'s run extended by one, or
    /// a run of one.
    init(over input: SKSignal, _ stage: SKStage, holding function: SKContext?) {
        let functions = function.map { [$0] } ?? []
        if let run = input.stages {
            self.upstream = run.upstream
            switch run.run {
            case .one(let first):
                self.run = .chain(SKStageChain([first, stage], functions))
            case .chain(let chain):
                self.run = .chain(SKStageChain(chain.stageList + [stage], chain.functions + functions))
            }
        } else {
            self.upstream = SKUpstream(input)
            self.run = .chain(SKStageChain([stage], functions))
        }
    }

    /// The signal of the run.
    func build() -> CSignal {
        return fusedStages(self.upstream.signal, self.run.chain)
    }
}

/// The stages of a run, in order, shared by the signal and its
/// subscriptions: a buffer of trivial `SKStage`s that the value callback
/// walks without retaining anything, and the `SKFunction`s behind them,
/// whose release functions run once the last signal or subscription holding
/// the chain lets it go (as each stage's did when it held its own).
///
/// Thread-safety: immutable.
final class SKStageChain {
    let stages: UnsafeMutableBufferPointer<SKStage>
    let functions: [SKContext]
    /// Whether any stage's function has a release function: such a run is not
    /// absorbed by a subscription's handle (see `SKDisposable`).
    let hasReleaseFunction: Bool

    /// `functions` holds the stages' functions that have a release function
    /// (the others need no object).
    init(_ stages: [SKStage], _ functions: [SKContext]) {
        self.stages = UnsafeMutableBufferPointer<SKStage>.allocate(capacity: stages.count)
        _ = self.stages.initialize(from: stages)
        self.functions = functions
        self.hasReleaseFunction = functions.contains { $0.releaseFunction != nil }
    }

    deinit {
        self.stages.deinitialize()
        self.stages.deallocate()
    }

    var stageList: [SKStage] {
        return Array(self.stages)
    }

    /// Runs `stages` on the value `current` (whose object, if any, its
    /// caller keeps alive), in order, as the callback run `callbacks` (see
    /// CallbackFailure.swift), checking after each function whether it
    /// failed (sk_callback_fail), then `liveness`. Returns false when a
    /// filter dropped the value, a function failed (`callbacks.failed`
    /// then: a map's result is released) or the subscription ended;
    /// otherwise `current` is the value to pass on.
    /// `owned` is the reference to the object of the last map's heap result
    /// (adopted from the C value; nil when no map ran or the last map's
    /// result is primitive), which the caller releases after passing the
    /// value on, whatever this returns: unmanaged, so that the common case,
    /// primitives only, costs no release of nil. `mapped` tells whether a
    /// map ran (when none did, `current` is the caller's value itself).
    @inline(__always)
    static func run(_ stages: UnsafeMutableBufferPointer<SKStage>, _ liveness: _SubscriberLiveness, _ callbacks: SKCallbackRun, _ current: inout sk_value, _ owned: inout Unmanaged<SKObject>?, _ mapped: inout Bool) -> Bool {
        var index = 0
        while index < stages.count {
            if !step(stages[index], liveness, callbacks, &current, &owned, &mapped) {
                return false
            }
            index += 1
        }
        return true
    }

    /// One stage of `run` (its arguments and result as there): a run of one
    /// stage (`SKStageRun.one`, absorbed by a subscription's handle) calls it
    /// directly, with no buffer (one made on the stack for it cost the
    /// absorbing callback a frame of its own: C's map row, 35 instructions a
    /// put).
    @inline(__always)
    static func step(_ stage: SKStage, _ liveness: _SubscriberLiveness, _ callbacks: SKCallbackRun, _ current: inout sk_value, _ owned: inout Unmanaged<SKObject>?, _ mapped: inout Bool) -> Bool {
        switch stage {
        case .map(let function, let ctx):
            var result = sk_value()
            SKValue.withCOut(&result) { out in
                SKValue.withCIn(&current) { function(ctx, $0, out) }
            }
            if let previous = owned {
                // The previous map's heap result: this map has read it.
                previous.release()
                owned = nil
            }
            if _slowPath(callbacks.failed) {
                // Failed: its result is dropped.
                releaseFailedResult(result)
                return false
            }
            if result.kind.rawValue <= SK_KIND_DOUBLE.rawValue {
                // Primitive (the common case): a value without object.
                current = SKValue(primitive: result).raw
            } else {
                // Adopts the reference the C value owns (`SKValue(taking:)`).
                current = result
                if SKValue.isHeapKind(result.kind), let pointer = result.u.object {
                    owned = Unmanaged<SKObject>.fromOpaque(pointer)
                }
            }
            mapped = true
            return !liveness.isTerminated
        case .filter(let function, let ctx):
            let passes = SKValue.withCIn(&current) { function(ctx, $0) }
            return passes && !_slowPath(callbacks.failed) && !liveness.isTerminated
        }
    }
}

/// Releases the result a failed map wrote (off the path of values; taken
/// by value, so that the map's buffer stays without the stack protector's
/// canary: see `SKValue.withCOut`).
@inline(never)
func releaseFailedResult(_ result: sk_value) {
    var dropped = result
    sk_value_release(&dropped)
}

/// The signal of a run of stages over `upstream` (see above).
@inline(__always)
private func fusedStages<T>(_ upstream: Signal<T, SKValue>, _ chain: SKStageChain) -> Signal<T, SKValue> {
    // Invariant (the library's own): its only caller, in this file, passes SKValue signals.
    precondition(T.self == SKValue.self, "a C stage over values other than SKValue")
    return Signal<T, SKValue>(fused: { makeNext, error, completed in
        // The run is also the subscription's end (`SKFailureEnd`), which
        // lets one terminal event through: the upstream's, or a stage's
        // failure (sk_callback_fail), which a constant source (`single`)
        // would otherwise follow with its completion. Made before the
        // start, completed by the value callback's factory.
        let run = SKStagesRun<T>(chain, error: error, completed: completed)
        return upstream.startFusing({ liveness in
            run.liveness = liveness
            run.next = _BorrowedCallback(makeNext(liveness))
            return { value in
                run.run(value)
            }
        }, error: { run.forwardError($0) }, completed: { run.forwardCompletion() })
    })
}

/// One subscription of a run of stages: what its composed value callback
/// needs, in one object that the callback captures alone (a closure
/// capturing one object has that object as its context: no box of captures
/// and no forwarder unpacking one before every call), and the
/// subscription's end (`SKFailureEnd`: the error and completion callbacks,
/// which the upstream calls through it).
///
/// Thread-safety: `next` (and the base's `liveness`) are set once, by the
/// thread that starts the subscription, before the upstream can deliver;
/// `run` may be called from any thread, as the upstream delivers.
final class SKStagesRun<T>: SKFailureEnd, @unchecked Sendable {
    let chain: SKStageChain
    /// Called borrowed (`_BorrowedCallback`): read as a plain optional
    /// closure, a property that may change, each call retained and released
    /// its context (about 40 instructions a value, libffi NP). Written once,
    /// before the upstream can deliver, and never taken: the closure that
    /// calls `run` holds this object, and so the callback, for every call.
    @exclusivity(unchecked) var next = _BorrowedCallback<T>(nil)

    @inline(__always)
    init(_ chain: SKStageChain, error: ((SKValue) -> Void)?, completed: (() -> Void)?) {
        self.chain = chain
        super.init(error: error, completed: completed)
    }

    @inline(__always)
    func run(_ value: T) {
        var current = unsafeBitCast(value, to: SKValue.self).raw
        var owned: Unmanaged<SKObject>?
        var mapped = false
        // Invariant: set before the upstream can deliver (see above).
        let liveness = self.liveness.unsafelyUnwrapped
        let passes = withCallbackRun { callbacks in
            if SKStageChain.run(self.chain.stages, liveness, callbacks, &current, &owned, &mapped) {
                return true
            }
            if _slowPath(callbacks.failed) {
                self.fail(callbacks.takeFailure())
            }
            return false
        }
        if passes {
            if current.kind.rawValue <= SK_KIND_DOUBLE.rawValue {
                self.next.call(unsafeBitCast(SKValue(raw: current, object: nil), to: T.self))
            } else if mapped {
                self.next.call(unsafeBitCast(SKValue(raw: current, object: owned?.takeUnretainedValue()), to: T.self))
            } else {
                self.next.call(value)
            }
        }
        owned?.release()
    }
}

@c @implementation
public func sk_signal_distinct_until_changed(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        signal |> distinctUntilChanged
    }
}
