import SignalKitHeader
import SwiftSignalKit

/// The shared shape of an operator entry point: checks `out`, the input signal
/// and the optional callback, and the depth of the result over the input and
/// `others` (see `pipelineDepth`), then hands back `make(signal)`.
func unaryOperator(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, others: [SKSignal] = [], isThen: Bool = false, function: StaticString = #function, _ make: (CSignal) -> CSignal) -> Int32 {
    return handleOperator(out, signal, others: others, isThen: isThen, function: function) { input in
        return (make(input.signal), nil)
    }
}

/// `unaryOperator` for an operator that sees the input's handle and may
/// record a run of C stages in its result (sk_signal_map, sk_signal_filter:
/// see `SKStages`).
func handleOperator(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, others: [SKSignal] = [], isThen: Bool = false, function: StaticString = #function, _ make: (SKSignal) -> (CSignal, SKStages?)) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL", function: function)
    }
    out.pointee = nil
    let (input, status) = borrowSignal("signal", signal, function: function)
    guard let input else {
        return status
    }
    let (depth, depthStatus) = pipelineDepth(over: [input] + others, isThen: isThen, function: function)
    if depthStatus != SKOK {
        return depthStatus
    }
    let (made, stages) = make(input)
    return output(out, made, depth: depth, isThen: isThen, stages: stages)
}

/// Like `unaryOperator`, for operators taking a C callback `fn`.
func callbackOperator<F>(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: F?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?, function: StaticString = #function, _ make: (CSignal, SKFunction<F>) -> CSignal) -> Int32 {
    guard let fn else {
        out?.pointee = nil
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "fn is NULL", function: function))
    }
    let callback = SKFunction(fn, ctx: ctx, release: release)
    return releasingOnFailure(callback) {
        unaryOperator(out, signal, function: function) { make($0, callback) }
    }
}

/// The error value describing a value of the wrong kind inside a pipeline.
func kindError(_ value: SKValue, expected: String, function: StaticString = #function) -> SKValue {
    return SKValue(string: "\(cName(function)): expected \(expected), got a value of kind \(value.kind.rawValue)")
}

/// The signal inside a value, or a failing signal when it holds another kind.
func innerSignal(_ value: SKValue, function: StaticString = #function) -> CSignal {
    if let handle = value.object as? SKSignal, value.kind == SK_KIND_SIGNAL {
        return handle.signal
    }
    return CSignal.fail(kindError(value, expected: "a signal", function: function))
}

/// The Swift signal behind a handle a C callback handed over (+1), dropping
/// that reference: NULL is an empty signal, a handle of another type a failing
/// one.
func adoptSignal(_ handle: OpaquePointer?, function: StaticString = #function) -> CSignal {
    guard let handle else {
        return CSignal.complete()
    }
    let signal = SKObject.borrow(handle, as: SKSignal.self)?.signal
    SKObject.releaseAnyHandle(handle, expected: SKSignal.self, function: function)
    return signal ?? CSignal.fail(SKValue(string: "\(cName(function)): fn returned a handle that is not a signal"))
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
    if !(seconds >= 0) {
        return fail(SK_ERR_INVALID_ARGUMENT, "seconds must be >= 0", function: function)
    }
    return queueOperator(out, signal, queue, others: others, timers: true, function: function, make)
}
