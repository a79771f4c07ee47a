import SignalKitHeader
import SwiftSignalKit

// The capacities of the places where values wait besides a delivery (the
// core's zip, mergeMap and buffer(timeSpan:) with a capacity, over its one
// ring and rule): the C layer checks the arguments and translates the
// policy and the drop callback (boundedPolicy, dropReport), nothing more.

@c @implementation
public func sk_signal_zip_bounded(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signals: UnsafePointer<OpaquePointer?>?, _ count: Int, _ capacity: Int, _ overflow: sk_overflow, _ on_drop: sk_drop_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    guard let out else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "out is NULL"))
    }
    out.pointee = nil
    let (checked, status) = boundedPolicy(capacity, overflow, function: #function)
    guard let (bound, policy) = checked else {
        return releasingOnFailure(ctx: ctx, release: release, status)
    }
    let callback = SKFunction(on_drop, ctx: ctx, release: release)
    callback.noteMaker(#function)
    let report = dropReport(on_drop, callback)
    return releasingOnFailure(callback) {
        let (inputs, status) = borrowSignals(signals, count)
        guard let inputs else {
            return status
        }
        let (depth, depthStatus) = pipelineDepth(over: inputs)
        if depthStatus != SKOK {
            return depthStatus
        }
        return output(out, arrayValues(zip(inputs.map { $0.signal }, capacity: bound, overflow: policy, onDrop: report, operatorName: "sk_signal_zip_bounded")), depth: depth)
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
    guard out != nil else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "out is NULL"))
    }
    out?.pointee = nil
    let (checked, status) = boundedPolicy(capacity, overflow, function: #function)
    guard let (bound, policy) = checked else {
        return releasingOnFailure(ctx: ctx, release: release, status)
    }
    let callback = SKFunction(on_drop, ctx: ctx, release: release)
    callback.noteMaker(#function)
    let report = dropReport(on_drop, callback)
    return releasingOnFailure(callback) {
        unaryOperator(out, signal) { signal in
            signal |> mergeMap(maxConcurrent: 1, capacity: bound, overflow: policy, onDrop: report, operatorName: "sk_signal_queue_bounded") { innerSignal($0) }
        }
    }
}

@c @implementation
public func sk_signal_buffer_time_bounded(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ seconds: Double, _ queue: OpaquePointer?, _ capacity: Int, _ overflow: sk_overflow, _ on_drop: sk_drop_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    guard out != nil else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "out is NULL"))
    }
    out?.pointee = nil
    let (checked, status) = boundedPolicy(capacity, overflow, function: #function)
    guard let (bound, policy) = checked else {
        return releasingOnFailure(ctx: ctx, release: release, status)
    }
    let callback = SKFunction(on_drop, ctx: ctx, release: release)
    callback.noteMaker(#function)
    let report = dropReport(on_drop, callback)
    return releasingOnFailure(callback) {
        timedOperator(out, signal, seconds, queue) { signal, queue in
            arrayValues(signal |> buffer(timeSpan: seconds, queue: queue, capacity: bound, overflow: policy, onDrop: report, operatorName: "sk_signal_buffer_time_bounded"))
        }
    }
}
