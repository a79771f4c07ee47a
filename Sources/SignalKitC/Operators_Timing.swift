import CSignalKit
import SwiftSignalKit

@c @implementation
public func sk_signal_debounce(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ seconds: Double, _ queue: OpaquePointer?) -> Int32 {
    out?.pointee = nil
    if !(seconds >= 0) {
        return fail(SK_ERR_INVALID_ARGUMENT, "sk_signal_debounce: seconds must be >= 0")
    }
    let (handle, status) = borrowQueue("sk_signal_debounce", "queue", queue)
    guard let handle else {
        return status
    }
    return unaryOperator("sk_signal_debounce", out, signal) { signal in
        signal |> debounce(seconds, queue: handle.queue)
    }
}
