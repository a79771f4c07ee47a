import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_reduce_left(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ initial: UnsafePointer<sk_value>?, _ fn: sk_reduce_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return foldOperator(out, signal, initial, fn, ctx, release, .reduceLeft)
}

@c @implementation
public func sk_signal_scan(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ initial: UnsafePointer<sk_value>?, _ fn: sk_reduce_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return foldOperator(out, signal, initial, fn, ctx, release, .scan)
}

/// sk_signal_scan and sk_signal_reduce_left: the same arguments, checked in
/// the same order and words, and the same step (the C function over the
/// accumulator and the value, failable); `fold` names the core operator.
private func foldOperator(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ initial: UnsafePointer<sk_value>?, _ fn: sk_reduce_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?, function: StaticString = #function, _ fold: Fold) -> Int32 {
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
            // The step passed straight to the core (no closure of the
            // substituted type between: see `foldStep`).
            switch fold {
            case .scan:
                return signal |> scan(initialValue, foldStep(callback, end))
            case .reduceLeft:
                return signal |> reduceLeft(value: initialValue, f: foldStep(callback, end))
            }
        }
    }
}

/// The core operators of `foldOperator`.
private enum Fold {
    case scan
    case reduceLeft
}

/// The step of `foldOperator`: the C function over the accumulator and the
/// value, as a run of its own (failable). Generic over the two types,
/// though only used with `SKValue` (as `observingNext` is), so that the
/// closure is made in the abstraction the core's `scan` and `reduceLeft`
/// store it in: no conversion thunk between the core's call and this one
/// (one written for `SKValue` cost 23 instructions a value).
@inline(never)
private func foldStep<A, T>(_ callback: SKFunction<sk_reduce_fn>, _ end: SKFailureEnd) -> (A, T) -> A {
    // Invariant (the library's own): its only caller folds SKValues.
    precondition(A.self == SKValue.self && T.self == SKValue.self, "a C fold over values other than SKValue")
    return { accumulator, next in
        withCallbackRun { run in
            var result = sk_value()
            unsafeBitCast(accumulator, to: SKValue.self).withC { a in
                unsafeBitCast(next, to: SKValue.self).withC { b in
                    SKValue.withCOut(&result) { callback.function(callback.ctx, a, b, $0) }
                }
            }
            if _slowPath(run.failed) {
                // Failed (sk_callback_fail): the subscription ends with the
                // error; the accumulator kept is never delivered.
                failCall(run, end, dropping: result)
                return accumulator
            }
            return unsafeBitCast(SKValue(taking: result), to: A.self)
        }
    }
}

@c @implementation
public func sk_signal_pairwise(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        pairValues(pairwise(signal))
    }
}
