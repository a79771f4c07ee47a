import CSignalKit
import SwiftSignalKit

/// The signal inside a value, or a failing signal when it holds another kind.
private func innerSignal(_ function: String, _ value: SKValue) -> CSignal {
    if let handle = value.object as? SKSignal, value.kind == SK_KIND_SIGNAL {
        return handle.signal
    }
    return CSignal.fail(kindError(function, value, expected: "a signal"))
}

@c @implementation
public func sk_signal_map_to_signal(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_signal_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator("sk_signal_map_to_signal", out, signal, fn, ctx, release) { signal, callback in
        signal |> mapToSignal { value -> CSignal in
            guard let handle = value.withC({ callback.function(callback.ctx, $0) }) else {
                return CSignal.complete()
            }
            // The callback handed over a reference: keep the Swift signal, drop the handle.
            let inner = SKObject.borrow(handle, as: SKSignal.self)?.signal
            SKObject.release(handle)
            return inner ?? CSignal.fail(SKValue(string: "sk_signal_map_to_signal: fn returned a handle that is not a signal"))
        }
    }
}

@c @implementation
public func sk_signal_switch_to_latest(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator("sk_signal_switch_to_latest", out, signal) { signal in
        signal |> mapToSignal { innerSignal("sk_signal_switch_to_latest", $0) }
    }
}
