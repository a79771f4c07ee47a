import CSignalKit
import SwiftSignalKit

@c @implementation
public func sk_signal_deliver_on(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ queue: OpaquePointer?) -> Int32 {
    out?.pointee = nil
    let (handle, status) = borrowQueue("sk_signal_deliver_on", "queue", queue)
    guard let handle else {
        return status
    }
    return unaryOperator("sk_signal_deliver_on", out, signal) { signal in
        signal |> deliverOn(handle.queue)
    }
}
