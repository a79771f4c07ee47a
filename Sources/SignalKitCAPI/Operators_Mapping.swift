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
// composed callback captures one object per subscription, the stage
// (`SKMapStage`, `SKFilterStage`: `callback`, which keeps the context's
// release until the signal is gone, the liveness and the next callback),
// and reads the function and its context from `callback` on every value:
// capturing those two as well made every subscription's callback context
// 16 bytes larger (C W6 197 -> 213 bytes). A closure capturing several
// values has a box of them as its context, unpacked by a forwarder before
// every call; one capturing a single object has that object as its context
// (C W1 244.0 -> 231.5 instructions per event).
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
            let stage = SKMapStage<T>(callback, liveness, makeNext(liveness))
            return { value in
                stage.run(value)
            }
        }, error: error, completed: completed)
    })
}

/// One subscription's map stage: what its composed value callback needs, in
/// one object that the callback captures alone. A closure capturing one
/// object has that object as its context: no box of captures, and no
/// forwarder unpacking one before every call (a box held the same three
/// fields, so a subscription's memory is the same).
///
/// Thread-safety: immutable once made; `run` may be called from any thread,
/// as the upstream delivers.
final class SKMapStage<T> {
    let callback: SKFunction<sk_map_fn>
    let liveness: _SubscriberLiveness
    let next: ((T) -> Void)?

    @inline(__always)
    init(_ callback: SKFunction<sk_map_fn>, _ liveness: _SubscriberLiveness, _ next: ((T) -> Void)?) {
        self.callback = callback
        self.liveness = liveness
        self.next = next
    }

    @inline(__always)
    func run(_ value: T) {
        var result = sk_value()
        SKValue.withCOut(&result) { out in
            unsafeBitCast(value, to: SKValue.self).withC { self.callback.function(self.callback.ctx, $0, out) }
        }
        if result.kind.rawValue <= SK_KIND_DOUBLE.rawValue {
            // Primitive (the common case): a value without object.
            if !self.liveness.isTerminated {
                self.next?(unsafeBitCast(SKValue(primitive: result), to: T.self))
            }
            return
        }
        let mapped = SKValue(taking: result)
        if !self.liveness.isTerminated {
            self.next?(unsafeBitCast(mapped, to: T.self))
        }
    }
}

/// sk_signal_filter's stage.
@inline(__always)
private func fusedFilter<T>(_ signal: Signal<T, SKValue>, _ callback: SKFunction<sk_predicate_fn>) -> Signal<T, SKValue> {
    // Invariant (the library's own): its only callers, in this file, pass SKValue signals.
    precondition(T.self == SKValue.self, "a C stage over values other than SKValue")
    return Signal<T, SKValue>(fused: { makeNext, error, completed in
        return signal.startFusing({ liveness in
            let stage = SKFilterStage<T>(callback, liveness, makeNext(liveness))
            return { value in
                stage.run(value)
            }
        }, error: error, completed: completed)
    })
}

/// One subscription's filter stage, as `SKMapStage`.
///
/// Thread-safety: immutable once made; `run` may be called from any thread,
/// as the upstream delivers.
final class SKFilterStage<T> {
    let callback: SKFunction<sk_predicate_fn>
    let liveness: _SubscriberLiveness
    let next: ((T) -> Void)?

    @inline(__always)
    init(_ callback: SKFunction<sk_predicate_fn>, _ liveness: _SubscriberLiveness, _ next: ((T) -> Void)?) {
        self.callback = callback
        self.liveness = liveness
        self.next = next
    }

    @inline(__always)
    func run(_ value: T) {
        let passes = unsafeBitCast(value, to: SKValue.self).withC { self.callback.function(self.callback.ctx, $0) }
        if passes && !self.liveness.isTerminated {
            self.next?(value)
        }
    }
}

@c @implementation
public func sk_signal_distinct_until_changed(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        signal |> distinctUntilChanged
    }
}
