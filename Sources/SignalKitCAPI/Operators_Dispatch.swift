import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_deliver_on(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ queue: OpaquePointer?) -> Int32 {
    out?.pointee = nil
    let (handle, status) = borrowQueue("queue", queue)
    guard let handle else {
        return status
    }
    if let refused = prepareDispatch(handle.queue, timers: false) {
        return refused
    }
    return unaryOperator(out, signal) { signal in
        signal |> deliverOn(handle.queue)
    }
}

@c @implementation
public func sk_signal_run_on(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ queue: OpaquePointer?) -> Int32 {
    return queueOperator(out, signal, queue) { signal, queue in
        signal |> runOn(queue)
    }
}
