import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_map_to_signal(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_signal_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> mapToSignal { value in
            adoptSignal { value.withC { callback.function(callback.ctx, $0) } }
        }
    }
}

@c @implementation
public func sk_signal_switch_to_latest(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        signal |> mapToSignal { innerSignal($0) }
    }
}

@c @implementation
public func sk_signal_queue(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        signal |> mapToQueue { innerSignal($0) }
    }
}

@c @implementation
public func sk_signal_throttled(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        signal |> mapToThrottled { innerSignal($0) }
    }
}

@c @implementation
public func sk_signal_then(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ next: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (handle, status) = borrowSignal("next", next)
    guard let handle else {
        return status
    }
    return unaryOperator(out, signal, others: [handle], isThen: true) { signal in
        signal |> then(handle.signal)
    }
}

@c @implementation
public func sk_signal_deferred(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ fn: sk_deferred_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    guard let fn else {
        out?.pointee = nil
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "fn is NULL"))
    }
    guard let out else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "out is NULL"))
    }
    let callback = SKFunction(fn, ctx: ctx, release: release)
    callback.noteMaker(#function)
    return output(out, deferred {
        adoptSignal { callback.function(callback.ctx) }
    })
}

@c @implementation
public func sk_signal_ignore_values(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        // The values are `Never`: the map is only there for the type.
        ignoreValues(signal) |> map { (_: Never) -> SKValue in }
    }
}

@c @implementation
public func sk_signal_start_with(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ value: UnsafePointer<sk_value>?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (first, status) = borrowValue("value", value)
    guard let first else {
        return status
    }
    return unaryOperator(out, signal) { signal in
        signal |> startWith(first)
    }
}

@c @implementation
public func sk_signal_concat(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signals: UnsafePointer<OpaquePointer?>?, _ count: Int) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (inputs, status) = borrowSignals(signals, count)
    guard let inputs else {
        return status
    }
    let (depth, depthStatus) = pipelineDepth(over: inputs)
    if depthStatus != SKOK {
        return depthStatus
    }
    return output(out, concat(inputs.map { $0.signal }), depth: depth)
}

@c @implementation
public func sk_signal_merge_map(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ maxConcurrent: Int, _ fn: sk_signal_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    let (limit, status) = positiveCount("max_concurrent", maxConcurrent)
    guard let limit else {
        out?.pointee = nil
        return releasingOnFailure(ctx: ctx, release: release, status)
    }
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> mergeMap(maxConcurrent: limit) { value in
            adoptSignal { value.withC { callback.function(callback.ctx, $0) } }
        }
    }
}
