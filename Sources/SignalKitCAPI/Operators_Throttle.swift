import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_debounce(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ seconds: Double, _ queue: OpaquePointer?) -> Int32 {
    return timedOperator(out, signal, seconds, queue) { signal, queue in
        signal |> debounce(seconds, queue: queue)
    }
}

@c @implementation
public func sk_signal_throttle(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ seconds: Double, _ queue: OpaquePointer?) -> Int32 {
    return timedOperator(out, signal, seconds, queue) { signal, queue in
        signal |> throttle(seconds, queue: queue)
    }
}
