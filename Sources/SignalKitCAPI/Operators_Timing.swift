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

@c @implementation
public func sk_signal_buffer_count(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ count: Int) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (size, status) = positiveCount("count", count)
    guard let size else {
        return status
    }
    return unaryOperator(out, signal) { signal in
        arrayValues(signal |> buffer(count: size))
    }
}

@c @implementation
public func sk_signal_buffer_time(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ seconds: Double, _ queue: OpaquePointer?) -> Int32 {
    return timedOperator(out, signal, seconds, queue) { signal, queue in
        arrayValues(signal |> buffer(timeSpan: seconds, queue: queue))
    }
}

@c @implementation
public func sk_signal_sample(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ sampler: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (handle, status) = borrowSignal("sampler", sampler)
    guard let handle else {
        return status
    }
    return unaryOperator(out, signal, others: [handle]) { signal in
        signal |> sample(handle.signal)
    }
}

@c @implementation
public func sk_signal_sample_period(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ seconds: Double, _ queue: OpaquePointer?) -> Int32 {
    return timedOperator(out, signal, seconds, queue) { signal, queue in
        signal |> sample(period: seconds, queue: queue)
    }
}
