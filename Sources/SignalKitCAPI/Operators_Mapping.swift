import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_map(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_map_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        // The function and its context are captured as they are (read from
        // the closure's own context on every value); `callback` keeps the
        // context's release until the signal is gone.
        let function = callback.function
        let context = callback.ctx
        return signal |> map { value -> SKValue in
            var result = sk_value()
            withExtendedLifetime(callback) {
                value.withC { function(context, $0, &result) }
            }
            return SKValue(taking: result)
        }
    }
}

@c @implementation
public func sk_signal_filter(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_predicate_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        // As sk_signal_map.
        let function = callback.function
        let context = callback.ctx
        return signal |> filter { value in
            withExtendedLifetime(callback) {
                value.withC { function(context, $0) }
            }
        }
    }
}

@c @implementation
public func sk_signal_distinct_until_changed(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        signal |> distinctUntilChanged
    }
}
