import SignalKitHeader
import SwiftSignalKit

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
public func sk_signal_reduce_left(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ initial: UnsafePointer<sk_value>?, _ fn: sk_reduce_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    guard let out else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "out is NULL"))
    }
    out.pointee = nil
    let (initialValue, status) = borrowValue("initial", initial)
    guard let initialValue else {
        return releasingOnFailure(ctx: ctx, release: release, status)
    }
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> reduceLeft(value: initialValue) { accumulator, next in
            var result = sk_value()
            accumulator.withC { a in next.withC { b in callback.function(callback.ctx, a, b, &result) } }
            return SKValue(taking: result)
        }
    }
}
