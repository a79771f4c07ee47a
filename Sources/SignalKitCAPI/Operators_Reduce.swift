import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_reduce_left(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ initial: UnsafePointer<sk_value>?, _ fn: sk_reduce_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return foldOperator(out, signal, initial, fn, ctx, release) { signal, initial, step in
        signal |> reduceLeft(value: initial, f: step)
    }
}

@c @implementation
public func sk_signal_scan(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ initial: UnsafePointer<sk_value>?, _ fn: sk_reduce_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return foldOperator(out, signal, initial, fn, ctx, release) { signal, initial, step in
        signal |> scan(initial, step)
    }
}

/// sk_signal_scan and sk_signal_reduce_left: the same arguments, checked in
/// the same order and words, and the same step (the C function over the
/// accumulator and the value, failable); `fold` makes the core operator
/// (`scan` or `reduceLeft`) over the signal, the initial value and the step.
private func foldOperator(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ initial: UnsafePointer<sk_value>?, _ fn: sk_reduce_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?, function: StaticString = #function, _ fold: @escaping (CSignal, SKValue, @escaping (SKValue, SKValue) -> SKValue) -> CSignal) -> Int32 {
    guard let out else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "out is NULL", function: function))
    }
    out.pointee = nil
    let (initialValue, status) = borrowValue("initial", initial, function: function)
    guard let initialValue else {
        return releasingOnFailure(ctx: ctx, release: release, status)
    }
    return callbackOperator(out, signal, fn, ctx, release, function: function) { signal, callback in
        failableOperator { end in
            fold(signal, initialValue) { accumulator, next in
                withCallbackRun { run in
                    var result = sk_value()
                    accumulator.withC { a in next.withC { b in callback.function(callback.ctx, a, b, &result) } }
                    if _slowPath(run.failed) {
                        // Failed (sk_callback_fail): the subscription ends
                        // with the error; the accumulator kept is never
                        // delivered.
                        failCall(run, end, dropping: result)
                        return accumulator
                    }
                    return SKValue(taking: result)
                }
            }
        }
    }
}

@c @implementation
public func sk_signal_pairwise(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        pairValues(pairwise(signal))
    }
}
