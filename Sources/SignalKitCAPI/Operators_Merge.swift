import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_merge(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signals: UnsafePointer<OpaquePointer?>?, _ count: Int) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (inputs, status) = borrowSignals(signals, count)
    guard let inputs else {
        return status
    }
    let (depth, depthStatus) = pipelineDepth(over: inputs)
    if depthStatus != SKOK {
        return depthStatus
    }
    return output(out, merge(inputs.map { $0.signal }), depth: depth)
}
