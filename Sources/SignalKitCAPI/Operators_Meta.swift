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
