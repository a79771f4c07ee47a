import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_map(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_map_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> map { value -> SKValue in
            var result = sk_value()
            value.withC { callback.function(callback.ctx, $0, &result) }
            return SKValue(taking: result)
        }
    }
}

@c @implementation
public func sk_signal_filter(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_predicate_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> filter { value in
            value.withC { callback.function(callback.ctx, $0) }
        }
    }
}

@c @implementation
public func sk_signal_distinct_until_changed(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        signal |> distinctUntilChanged
    }
}
