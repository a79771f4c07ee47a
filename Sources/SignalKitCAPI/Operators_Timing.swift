import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_delay(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ seconds: Double, _ queue: OpaquePointer?) -> Int32 {
    return timedOperator(out, signal, seconds, queue) { signal, queue in
        signal |> delay(seconds, queue: queue)
    }
}

@c @implementation
public func sk_signal_timeout(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ seconds: Double, _ queue: OpaquePointer?, _ alternate: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (handle, status) = borrowSignal("alternate", alternate)
    guard let handle else {
        return status
    }
    return timedOperator(out, signal, seconds, queue, others: [handle]) { signal, queue in
        signal |> timeout(seconds, queue: queue, alternate: handle.signal)
    }
}
