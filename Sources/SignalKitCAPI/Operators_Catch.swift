import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_catch(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_signal_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> `catch` { error in
            adoptSignal { error.withC { callback.function(callback.ctx, $0) } }
        }
    }
}

@c @implementation
public func sk_signal_restart(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        restart(signal)
    }
}

@c @implementation
public func sk_signal_restart_if_error(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        restartIfError(signal) |> castError(SKValue.self)
    }
}

@c @implementation
public func sk_signal_retry(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ delayIncrement: Double, _ maxDelay: Double, _ queue: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    if let refusal = durationRefusal("delay_increment", delayIncrement) {
        return fail(SK_ERR_INVALID_ARGUMENT, refusal)
    }
    if let refusal = durationRefusal("max_delay", maxDelay) {
        return fail(SK_ERR_INVALID_ARGUMENT, refusal)
    }
    return queueOperator(out, signal, queue, timers: true) { signal, queue in
        signal |> retry(delayIncrement, maxDelay: maxDelay, onQueue: queue) |> castError(SKValue.self)
    }
}

@c @implementation
public func sk_signal_retry_count(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ count: Int, _ delay: Double, _ queue: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    // A size_t past Int.max arrives negative: retry for ever.
    let times = count < 0 ? Int.max : count
    if let refusal = durationRefusal("delay", delay) {
        return fail(SK_ERR_INVALID_ARGUMENT, refusal)
    }
    if queue == nil {
        if delay != 0 {
            return fail(SK_ERR_NULL_ARGUMENT, "queue is NULL and delay is not 0 (a delayed retry needs a queue)")
        }
        return unaryOperator(out, signal) { signal in
            signal |> retry(count: times)
        }
    }
    return timedOperator(out, signal, delay, queue) { signal, queue in
        signal |> retry(count: times, delay: delay, queue: queue)
    }
}
