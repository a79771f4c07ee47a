import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_share(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal, levels: SKDepth.share) { signal in
        share(signal)
    }
}

@c @implementation
public func sk_signal_replay(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ count: Int) -> Int32 {
    return unaryOperator(out, signal, levels: SKDepth.share) { signal in
        // A size_t past Int.max arrives negative: keep every value.
        signal |> replay(count < 0 ? Int.max : count)
    }
}
