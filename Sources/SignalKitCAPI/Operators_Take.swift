import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_take(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ count: Int) -> Int32 {
    return unaryOperator(out, signal) { signal in
        // size_t above Int.max arrives negative: it means "no limit".
        signal |> take(count < 0 ? Int.max : count)
    }
}

@c @implementation
public func sk_signal_take_until(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_take_until_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> take(until: { value in
            let flags = UInt32(bitPattern: value.withC { callback.function(callback.ctx, $0) })
            return SignalTakeAction(passthrough: flags & SK_TAKE_PASS.rawValue != 0, complete: flags & SK_TAKE_COMPLETE.rawValue != 0)
        })
    }
}

@c @implementation
public func sk_signal_last(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        // No value at all becomes a nil value: C has no optional.
        last(signal: signal) |> map { $0 ?? SKValue.nil }
    }
}
