import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_map(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_map_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release, stage: { .map($0) }) { signal, callback in
        return fusedMap(signal, callback)
    }
}

@c @implementation
public func sk_signal_filter(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_predicate_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release, stage: { .filter($0) }) { signal, callback in
        return fusedFilter(signal, callback)
    }
}

// sk_signal_map and sk_signal_filter are fused stages of the C layer's own
// (`Signal.init(fused:)`, as the core's `map` and `filter`, with the same
// liveness checks): the C function is called from the composed value
// callback itself, with no Swift closure between, and a primitive result is
// passed on as a value without object (nothing to release afterwards). The
// composed callback captures `callback` alone (which keeps the context's
// release until the signal is gone) and reads the function and its context
// from it on every value: capturing those two as well made every
// subscription's callback context 16 bytes larger (C W6 197 -> 213 bytes).
//
// Generic over the value type, though only ever used with `SKValue` (the
// casts below are no-ops then, and checked otherwise): a stage's composed
// callback is a `(T) -> Void` of the generic `Signal`, and a closure written
// in a generic context takes the value as such a callback is called, where a
// closure written for `SKValue` alone is wrapped in a conversion thunk (one
// more call per stage and value).

/// sk_signal_map's stage.
@inline(__always)
private func fusedMap<T>(_ signal: Signal<T, SKValue>, _ callback: SKFunction<sk_map_fn>) -> Signal<T, SKValue> {
    // Invariant (the library's own): its only callers, in this file, pass SKValue signals.
    precondition(T.self == SKValue.self, "a C stage over values other than SKValue")
    return Signal<T, SKValue>(fused: { makeNext, error, completed in
        return signal.startFusing({ liveness in
            let next = makeNext(liveness)
            return { value in
                var result = sk_value()
                SKValue.withCOut(&result) { out in
                    unsafeBitCast(value, to: SKValue.self).withC { callback.function(callback.ctx, $0, out) }
                }
                if result.kind.rawValue <= SK_KIND_DOUBLE.rawValue {
                    // Primitive (the common case): a value without object.
                    if !liveness.isTerminated {
                        next?(unsafeBitCast(SKValue(primitive: result), to: T.self))
                    }
                    return
                }
                let mapped = SKValue(taking: result)
                if !liveness.isTerminated {
                    next?(unsafeBitCast(mapped, to: T.self))
                }
            }
        }, error: error, completed: completed)
    })
}

/// sk_signal_filter's stage.
@inline(__always)
private func fusedFilter<T>(_ signal: Signal<T, SKValue>, _ callback: SKFunction<sk_predicate_fn>) -> Signal<T, SKValue> {
    // Invariant (the library's own): its only callers, in this file, pass SKValue signals.
    precondition(T.self == SKValue.self, "a C stage over values other than SKValue")
    return Signal<T, SKValue>(fused: { makeNext, error, completed in
        return signal.startFusing({ liveness in
            let next = makeNext(liveness)
            return { value in
                let passes = unsafeBitCast(value, to: SKValue.self).withC { callback.function(callback.ctx, $0) }
                if passes && !liveness.isTerminated {
                    next?(value)
                }
            }
        }, error: error, completed: completed)
    })
}

@c @implementation
public func sk_signal_distinct_until_changed(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        signal |> distinctUntilChanged
    }
}
