import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_deliver_on(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ queue: OpaquePointer?) -> Int32 {
    out?.pointee = nil
    let (handle, status) = borrowQueue("queue", queue)
    guard let handle else {
        return status
    }
    if let refused = prepareDispatch(handle.queue, timers: false) {
        return refused
    }
    return unaryOperator(out, signal) { signal in
        signal |> deliverOn(handle.queue)
    }
}

@c @implementation
public func sk_signal_run_on(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ queue: OpaquePointer?) -> Int32 {
    return queueOperator(out, signal, queue) { signal, queue in
        signal |> runOn(queue)
    }
}

// The bounded buffer (the core's Operators/SignalBoundedBuffer.swift, its
// operators in Operators/Signal_Dispatch+Bounded.swift): the C layer
// translates the policy and the drop callback, nothing more.

/// The core's policy for a C `sk_overflow`, the error values naming
/// `function`; nil for a number that is no sk_overflow.
private func overflowPolicy(_ overflow: sk_overflow) -> SignalOverflow<SKValue>? {
    let makeError: (SignalOverflowError) -> SKValue = { SKValue(string: $0.description) }
    switch overflow {
    case SK_OVERFLOW_DROP_NEWEST: return .dropNewest
    case SK_OVERFLOW_DROP_OLDEST: return .dropOldest
    case SK_OVERFLOW_LATEST: return .latest
    case SK_OVERFLOW_ERROR: return .fail(makeError)
    case SK_OVERFLOW_BLOCK: return .block(refused: makeError)
    default: return nil
    }
}

/// Checks a bounded place's capacity and policy (every `..._bounded`
/// function and the bounded buffer): the bound (a size_t above Int.max
/// arrives negative: more than memory holds, so no bound; the ring grows
/// only as values wait) and the core's policy, or nil and the failure's
/// status (the caller releases its context).
func boundedPolicy(_ capacity: Int, _ overflow: sk_overflow, function: StaticString) -> ((bound: Int, policy: SignalOverflow<SKValue>)?, Int32) {
    if capacity == 0 {
        return (nil, fail(SK_ERR_INVALID_ARGUMENT, "capacity is 0 (a bounded buffer holds at least one value)", function: function))
    }
    guard let policy = overflowPolicy(overflow) else {
        return (nil, fail(SK_ERR_INVALID_ARGUMENT, "overflow \(Int32(bitPattern: overflow.rawValue)) is no sk_overflow (SK_OVERFLOW_DROP_NEWEST ... SK_OVERFLOW_BLOCK)", function: function))
    }
    return ((capacity < 0 ? Int.max : capacity, policy), SKOK)
}

/// `onDrop` as the core's drop callback, with `context`'s ctx; it keeps
/// `context` alive for the subscription (also when `onDrop` is NULL).
func dropReport(_ onDrop: sk_drop_fn?, _ context: SKContext) -> (SKValue, Int) -> Void {
    if let onDrop {
        return { value, count in
            value.withC { onDrop(context.ctx, $0, UInt64(count)) }
        }
    }
    return { _, _ in
        withExtendedLifetime(context) {}
    }
}

/// What every bounded operator with a drop callback checks first, in the
/// same order and words: `out` (set to NULL), then the capacity and the
/// policy; then `body` with the capacity, the policy and the drop callback,
/// inside `releasingOnFailure`, so that the callback's release runs exactly
/// once whatever `body` returns.
func boundedArguments(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ capacity: Int, _ overflow: sk_overflow, _ onDrop: sk_drop_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?, function: StaticString, _ body: (Int, SignalOverflow<SKValue>, @escaping (SKValue, Int) -> Void) -> Int32) -> Int32 {
    guard out != nil else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "out is NULL", function: function))
    }
    out?.pointee = nil
    let (checked, status) = boundedPolicy(capacity, overflow, function: function)
    guard let (bound, policy) = checked else {
        return releasingOnFailure(ctx: ctx, release: release, status)
    }
    let callback = SKFunction(onDrop, ctx: ctx, release: release)
    callback.noteMaker(function)
    let report = dropReport(onDrop, callback)
    return releasingOnFailure(callback) {
        body(bound, policy, report)
    }
}

/// Checks a bounded buffer's capacity, policy and callback, then builds it
/// with `make` (given the capacity, the policy and the drop callback).
private func boundedOperator(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ queue: OpaquePointer?, needsQueue: Bool, _ capacity: Int, _ overflow: sk_overflow, _ onDrop: sk_drop_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?, function: StaticString, _ make: (CSignal, Queue?, Int, SignalOverflow<SKValue>, ((SKValue, Int) -> Void)?) -> CSignal) -> Int32 {
    return boundedArguments(out, capacity, overflow, onDrop, ctx, release, function: function) { bound, policy, report in
        if needsQueue {
            let (handle, status) = borrowQueue("queue", queue, function: function)
            guard let handle else {
                return status
            }
            if let refused = prepareDispatch(handle.queue, timers: false, function: function) {
                return refused
            }
            return unaryOperator(out, signal, function: function) { make($0, handle.queue, bound, policy, report) }
        }
        return unaryOperator(out, signal, function: function) { make($0, nil, bound, policy, report) }
    }
}

@c @implementation
public func sk_signal_on_backpressure_buffer(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ capacity: Int, _ overflow: sk_overflow, _ on_drop: sk_drop_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return boundedOperator(out, signal, nil, needsQueue: false, capacity, overflow, on_drop, ctx, release, function: #function) { signal, _, capacity, policy, report in
        signal |> onBackpressureBuffer(capacity: capacity, overflow: policy, onDrop: report, operatorName: "sk_signal_on_backpressure_buffer")
    }
}

@c @implementation
public func sk_signal_deliver_on_bounded(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ queue: OpaquePointer?, _ capacity: Int, _ overflow: sk_overflow, _ on_drop: sk_drop_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return boundedOperator(out, signal, queue, needsQueue: true, capacity, overflow, on_drop, ctx, release, function: #function) { signal, queue, capacity, policy, report in
        signal |> deliverOn(queue.unsafelyUnwrapped, capacity: capacity, overflow: policy, onDrop: report, operatorName: "sk_signal_deliver_on_bounded")
    }
}

// The capacities of the places where values wait besides a delivery (the
// core's zip, mergeMap and buffer(timeSpan:) with a capacity, over its one
// ring and rule): the C layer checks the arguments and translates the
// policy and the drop callback (boundedPolicy, dropReport), nothing more.

@c @implementation
public func sk_signal_zip_bounded(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signals: UnsafePointer<OpaquePointer?>?, _ count: Int, _ capacity: Int, _ overflow: sk_overflow, _ on_drop: sk_drop_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return boundedArguments(out, capacity, overflow, on_drop, ctx, release, function: #function) { bound, policy, report in
        let (inputs, status) = borrowSignals(signals, count)
        guard let inputs else {
            return status
        }
        let (depth, depthStatus) = pipelineDepth(over: inputs)
        if depthStatus != SKOK {
            return depthStatus
        }
        return output(out.unsafelyUnwrapped, arrayValues(zip(inputs.map { $0.signal }, capacity: bound, overflow: policy, onDrop: report, operatorName: "sk_signal_zip_bounded")), depth: depth)
    }
}

@c @implementation
public func sk_signal_merge_map_bounded(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ maxConcurrent: Int, _ capacity: Int, _ overflow: sk_overflow, _ fn: sk_signal_fn?, _ on_drop: sk_drop_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    let (limit, status) = positiveCount("max_concurrent", maxConcurrent)
    guard let limit else {
        out?.pointee = nil
        return releasingOnFailure(ctx: ctx, release: release, status)
    }
    let (checked, policyStatus) = boundedPolicy(capacity, overflow, function: #function)
    guard let (bound, policy) = checked else {
        out?.pointee = nil
        return releasingOnFailure(ctx: ctx, release: release, policyStatus)
    }
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> mergeMap(maxConcurrent: limit, capacity: bound, overflow: policy, onDrop: dropReport(on_drop, callback), operatorName: "sk_signal_merge_map_bounded") { value in
            adoptSignal { value.withC { callback.function(callback.ctx, $0) } }
        }
    }
}

@c @implementation
public func sk_signal_queue_bounded(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ capacity: Int, _ overflow: sk_overflow, _ on_drop: sk_drop_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return boundedArguments(out, capacity, overflow, on_drop, ctx, release, function: #function) { bound, policy, report in
        unaryOperator(out, signal) { signal in
            signal |> mergeMap(maxConcurrent: 1, capacity: bound, overflow: policy, onDrop: report, operatorName: "sk_signal_queue_bounded") { innerSignal($0) }
        }
    }
}

@c @implementation
public func sk_signal_buffer_time_bounded(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ seconds: Double, _ queue: OpaquePointer?, _ capacity: Int, _ overflow: sk_overflow, _ on_drop: sk_drop_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return boundedArguments(out, capacity, overflow, on_drop, ctx, release, function: #function) { bound, policy, report in
        timedOperator(out, signal, seconds, queue) { signal, queue in
            arrayValues(signal |> buffer(timeSpan: seconds, queue: queue, capacity: bound, overflow: policy, onDrop: report, operatorName: "sk_signal_buffer_time_bounded"))
        }
    }
}
