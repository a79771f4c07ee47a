import SignalKitHeader
import SwiftSignalKit

/// The shared shape of an operator entry point: checks `out`, the input signal
/// and the optional callback, and the depth of the result over the input and
/// `others` (see `pipelineDepth`), then hands back `make(signal)`.
func unaryOperator(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, others: [SKSignal] = [], isThen: Bool = false, levels: Int = 1, function: StaticString = #function, _ make: (CSignal) -> CSignal) -> Int32 {
    return handleOperator(out, signal, others: others, isThen: isThen, levels: levels, function: function) { input in
        return (make(input.signal), nil)
    }
}

/// `unaryOperator` for an operator that sees the input's handle and may
/// record a run of C stages in its result (sk_signal_map, sk_signal_filter:
/// see `SKStages`), whose signal is then built when used when `make` gives
/// none (see `SKSignal`).
///
/// `levels`: how many levels of SK_SIGNAL_MAX_DEPTH the operator counts
/// (`SKDepth`).
func handleOperator(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, others: [SKSignal] = [], isThen: Bool = false, levels: Int = 1, function: StaticString = #function, _ make: (SKSignal) -> (CSignal?, SKStages?)) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL", function: function)
    }
    out.pointee = nil
    func body(_ input: SKSignal) -> Int32 {
        let (depth, depthStatus) = others.isEmpty
            ? pipelineDepth(over: input, isThen: isThen, levels: levels, function: function)
            : pipelineDepth(over: [input] + others, isThen: isThen, levels: levels, function: function)
        if depthStatus != SKOK {
            return depthStatus
        }
        let (made, stages) = make(input)
        return output(out, made, depth: depth, isThen: isThen, stages: stages, function: function)
    }
    if let status = withBorrowedHandle(signal, as: SKSignal.self, .signal, body) {
        return status
    }
    let (input, status) = borrowSignal("signal", signal, function: function)
    guard let input else {
        return status
    }
    return body(input)
}

/// Like `unaryOperator`, for operators taking a C callback `fn`.
func callbackOperator<F>(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: F?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?, levels: Int = 1, function: StaticString = #function, _ make: (CSignal, SKFunction<F>) -> CSignal) -> Int32 {
    guard let fn else {
        out?.pointee = nil
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "fn is NULL", function: function))
    }
    let callback = SKFunction(fn, ctx: ctx, release: release)
    callback.noteMaker(function)
    return releasingOnFailure(callback) {
        unaryOperator(out, signal, levels: levels, function: function) { make($0, callback) }
    }
}

/// The error value describing a value of the wrong kind inside a pipeline.
func kindError(_ value: SKValue, expected: sk_kind, function: StaticString = #function) -> SKValue {
    return SKValue(string: "\(cName(function)): expected \(SKValue.describe(expected)), got \(SKValue.describe(value.kind))")
}

/// The signal inside a value, or a failing signal when it holds another kind
/// (or when the thread's stack is nearly used up: `stackRefusal`).
func innerSignal(_ value: SKValue, function: StaticString = #function) -> CSignal {
    if let refusal = stackRefusal() {
        return CSignal.fail(SKValue(string: "\(cName(function)): \(refusal)"))
    }
    if let handle = value.object as? SKSignal, value.kind == SK_KIND_SIGNAL {
        return handle.signal
    }
    return CSignal.fail(kindError(value, expected: SK_KIND_SIGNAL, function: function))
}

/// The Swift signal behind the handle `make` (a C callback) hands over (+1),
/// dropping that reference: NULL is an empty signal, a handle of another
/// type a failing one. When the thread's stack is nearly used up
/// (`stackRefusal`), a failing signal, and `make` is not called.
func adoptSignal(function: StaticString = #function, _ make: () -> OpaquePointer?) -> CSignal {
    if let refusal = stackRefusal() {
        return CSignal.fail(SKValue(string: "\(cName(function)): \(refusal)"))
    }
    // `make` is an operator callback: it may fail (sk_callback_fail), its
    // handle then released and the signal one that fails with the error.
    let (made, failure) = callFailable(make, discard: { handle in
        if let handle {
            SKObject.releaseAnyHandle(handle, expected: SKSignal.self, function: function)
        }
    })
    if let failure {
        return CSignal.fail(failure)
    }
    guard let handle = made.unsafelyUnwrapped else {
        return CSignal.complete()
    }
    if let signal = SKObject.borrow(handle, as: SKSignal.self)?.signal {
        SKObject.releaseAnyHandle(handle, expected: SKSignal.self, function: function)
        return signal
    }
    // With handle checking on, a released handle is not in the registry:
    // say so, as every function given one does (SK_ERR_RELEASED), rather
    // than call it a handle of another kind.
    let problem = SKObject.isLive(handle) ? "a handle that is not a signal" : "a released handle (or one that never was a handle)"
    SKObject.releaseAnyHandle(handle, expected: SKSignal.self, function: function)
    return CSignal.fail(SKValue(string: "\(cName(function)): fn returned \(problem)"))
}

/// The message refusing a start when the calling thread has less than a
/// quarter of its stack left, nil otherwise. The signals an operator starts
/// at run time (`adoptSignal`, `innerSignal`) nest inside the start or
/// delivery that made them, to any depth a program builds (see "Depth" in
/// signalkit.h): their start fails while there is still stack to report
/// it, instead of the process dying of a stack overflow. The reserve is a
/// share of the stack, not a fixed size, because the error still has to
/// travel back through every level nested so far, each level's forwarding
/// frames on top of the frames that nested it: measured through nested
/// sk_signal_deferred, sk_signal_map_to_signal, sk_signal_catch and
/// sk_signal_switch_to_latest (Tests/C/test_limits.c,
/// `signals_nested_at_run_time_past_the_stack_fail_with_an_error`), the way
/// back took a sixth to a seventh of the way in: 64 KB and an eighth of the
/// stack overflowed, three sixteenths held. Not more than a quarter, so
/// that what fitted in a stack before still runs (a chain of
/// SK_SIGNAL_MAX_DEPTH sk_signal_map_to_signal stages on a 512 KB thread).
/// Generators that start signals with sk_signal_start are not checked: the
/// way back through C callbacks forwarding with sk_subscriber_put_error
/// took half of the way in, and chains of them within SK_SIGNAL_MAX_DEPTH
/// (the ffi's typed operators) need more than half of a small stack. A
/// thread whose stack is not known (`sk__stack_is_low`) is not checked.
@inline(__always)
func stackRefusal() -> String? {
    guard sk__stack_is_low() != 0 else {
        return nil
    }
    return stackRefusalMessage()
}

@inline(never)
private func stackRefusalMessage() -> String {
    var size = 0
    let left = sk__stack_left(&size)
    return "not started: \(left) bytes left of the thread's \(size)-byte stack, "
        + "less than a quarter (signals started at run time nest too deep; see Depth in signalkit.h)"
}

/// Like `unaryOperator`, for operators that also take a queue (required).
/// libdispatch is made ready first for what the operator will give the
/// queue (`prepareDispatch`; `timers` for an operator that sets timers on
/// it), so that no event delivered later can meet the failure.
func queueOperator(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ queue: OpaquePointer?, others: [SKSignal] = [], timers: Bool = false, function: StaticString = #function, _ make: (CSignal, Queue) -> CSignal) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL", function: function)
    }
    out.pointee = nil
    let (handle, status) = borrowQueue("queue", queue, function: function)
    guard let handle else {
        return status
    }
    if let refused = prepareDispatch(handle.queue, timers: timers, function: function) {
        return refused
    }
    return unaryOperator(out, signal, others: others, function: function) { make($0, handle.queue) }
}

/// Like `queueOperator`, for operators that also take a duration, which must
/// be >= 0 (infinity means never).
func timedOperator(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ seconds: Double, _ queue: OpaquePointer?, others: [SKSignal] = [], function: StaticString = #function, _ make: (CSignal, Queue) -> CSignal) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL", function: function)
    }
    out.pointee = nil
    if let refusal = durationRefusal("seconds", seconds) {
        return fail(SK_ERR_INVALID_ARGUMENT, refusal, function: function)
    }
    return queueOperator(out, signal, queue, others: others, timers: true, function: function, make)
}

/// The words that refuse the duration `seconds`, the argument `name` of a C
/// function: nil when it is one (a number >= 0; infinity means never). A
/// NaN is named as such: it is not negative.
func durationRefusal(_ name: String, _ seconds: Double) -> String? {
    if seconds >= 0 {
        return nil
    }
    if seconds.isNaN {
        return "\(name) is NaN: a duration is a number of seconds >= 0 (infinity: never)"
    }
    return "\(name) is \(seconds): a duration is a number of seconds >= 0 (infinity: never)"
}

/// Borrows `count` signals from a C array, in order (the first NULL or
/// wrong handle ends it with its error). A count whose array of pointers
/// would be larger than PTRDIFF_MAX bytes (a size_t past Int.max arrives
/// negative) is refused; any other is the array's length, not a
/// reservation: the array of handles grows as they are read.
func borrowSignals(_ signals: UnsafePointer<OpaquePointer?>?, _ count: Int, function: StaticString = #function) -> ([SKSignal]?, Int32) {
    if count < 0 || count > Int.max / MemoryLayout<OpaquePointer?>.stride {
        return (nil, fail(SK_ERR_INVALID_ARGUMENT, "count \(UInt(bitPattern: count)) is larger than any array of signals can be", function: function))
    }
    if signals == nil && count != 0 {
        return (nil, fail(SK_ERR_NULL_ARGUMENT, "signals is NULL and count is not 0", function: function))
    }
    var result: [SKSignal] = []
    result.reserveCapacity(Swift.min(count, 64))
    for index in 0 ..< count {
        // Invariant: `signals` is not NULL when count > 0 (checked above).
        let (handle, status) = borrowSignal("signals[\(index)]", signals![index], function: function)
        guard let handle else {
            return (nil, status)
        }
        result.append(handle)
    }
    return (result, SKOK)
}

/// The core's arrays of values (zip, pairwise, buffer, withLatestFrom,
/// groupBy's pairs) as array values, each a new SKArray: a fused stage over
/// the core's signal (`Signal.init(fused:)`, as sk_signal_combine_latest's),
/// so that the core operator's subscriber is the one the downstream's stages
/// check (a downstream that ended during the start, a take above, stops the
/// starts still to come below). When the system refuses the memory for an
/// array's C view (where a delivery can return no status), the subscription
/// ends with an error value naming the operator ("sk_signal_zip: out of
/// memory for an array of 2 values"), as sk_signal_combine_latest's does.
///
/// Generic over the value type, though only ever used with `SKValue`, as
/// `pairValues` is (a closure written for `SKValue` was called through a
/// conversion thunk, 20 instructions an array).
func arrayValues<R>(_ arrays: Signal<[SKValue], SKValue>, function: StaticString = #function) -> Signal<R, SKValue> {
    // Invariant (the library's own): its only callers emit SKValue.
    precondition(R.self == SKValue.self, "a C stage emitting values other than SKValue")
    return Signal<R, SKValue>(fused: { makeNext, error, completed in
        // The C view's array reused, as `pairValues` does, while the arrays
        // keep one size (a buffer's of a count, a zip's); emptied when kept,
        // so that a buffer's values go with their delivery.
        let reuse = SKArrayReuse()
        return arrays.startFusing({ liveness in
            guard let next = makeNext(liveness) else {
                return nil
            }
            return { items in
                guard let array = reuse.take(sized: items.count, { items[$0].raw }) else {
                    endOutOfMemory(liveness, count: items.count, function: function)
                    return
                }
                reuse.giveBack(lend(consume array, to: { next(unsafeBitCast($0, to: R.self)) }), releasingItems: true)
            }
        }, error: error, completed: completed)
    })
}

/// The core's pairs of values (two-signal zip, pairwise, withLatestFrom) as
/// array values of two items: `arrayValues` without a Swift array per pair,
/// and with the C view's array reused (`SKArrayReuse`, as
/// sk_signal_combine_latest's): lent to the downstream for the call, and
/// refilled for a later pair when nothing kept it, so that a steady stream
/// of pairs allocates nothing (Benchmarks/README.md, W10).
///
/// It emits `SKValue` itself, not a generic value type, as the combinations
/// of sk_signal_combine_latest do (see there).
func pairValues(_ pairs: Signal<(SKValue, SKValue), SKValue>, function: StaticString = #function) -> Signal<SKValue, SKValue> {
    return Signal<SKValue, SKValue>(fused: { makeNext, error, completed in
        let arrays = SKArrayReuse()
        return pairs.startFusing({ liveness in
            guard let next = makeNext(liveness) else {
                return nil
            }
            return { pair in
                guard let array = arrays.take(pair.0, pair.1) else {
                    endOutOfMemory(liveness, count: 2, function: function, source: Subscriber<(SKValue, SKValue), SKValue>.self)
                    return
                }
                arrays.giveBack(lend(consume array, to: next))
            }
        }, error: error, completed: completed)
    })
}

/// Ends an array stage's subscription (`liveness`, the core operator's
/// subscriber's) with the error value "NAME: out of memory for an array of
/// `count` values": the error callback, then the upstream disposed, as for
/// any error. `source` is the type of the core operator's subscriber. Off
/// the path of values (never inlined).
@inline(never)
private func endOutOfMemory<Source>(_ liveness: _SubscriberLiveness, count: Int, function: StaticString, source: Subscriber<Source, SKValue>.Type = Subscriber<[SKValue], SKValue>.self) {
    let message = SKValue(string: "\(cName(function)): out of memory for an array of \(count) values")
    _ = liveness.putError(message, source: source)
}

/// Checks that the count-like argument `name` is at least 1 (a size_t past
/// Int.max, arriving negative, is taken as Int.max): the value to use, or
/// the status of the failure.
func positiveCount(_ name: String, _ count: Int, function: StaticString = #function) -> (Int?, Int32) {
    if count == 0 {
        return (nil, fail(SK_ERR_INVALID_ARGUMENT, "\(name) must be at least 1", function: function))
    }
    return (count < 0 ? Int.max : count, SKOK)
}
