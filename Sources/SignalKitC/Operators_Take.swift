import CSignalKit
import SwiftSignalKit

@c @implementation
public func sk_signal_take(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ count: Int) -> Int32 {
    return unaryOperator("sk_signal_take", out, signal) { signal in
        // size_t above Int.max arrives negative: it means "no limit".
        signal |> take(count < 0 ? Int.max : count)
    }
}
