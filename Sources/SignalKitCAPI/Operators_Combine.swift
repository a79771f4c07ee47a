import SignalKitHeader
import SwiftSignalKit

/// Borrows `count` signals from a C array.
private func borrowSignals(_ signals: UnsafePointer<OpaquePointer?>?, _ count: Int, function: StaticString = #function) -> ([SKSignal]?, Int32) {
    if count < 0 {
        return (nil, fail(SK_ERR_INVALID_ARGUMENT, "count is larger than any array", function: function))
    }
    if signals == nil && count != 0 {
        return (nil, fail(SK_ERR_NULL_ARGUMENT, "signals is NULL and count is not 0", function: function))
    }
    var result: [SKSignal] = []
    result.reserveCapacity(count)
    for index in 0 ..< count {
        // Invariant: `signals` is not NULL when count > 0 (checked above).
        let (handle, status) = borrowSignal("signals[\(index)]", signals![index], function: function)
        guard let handle else {
            return (nil, status)
        }
        result.append(handle)
    }
    return (result, SKOK)
}

@c @implementation
public func sk_signal_combine_latest(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signals: UnsafePointer<OpaquePointer?>?, _ count: Int, _ queue: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    var deliveryQueue: Queue?
    if queue != nil {
        let (handle, status) = borrowQueue("queue", queue)
        guard let handle else {
            return status
        }
        deliveryQueue = handle.queue
    }
    let (inputs, status) = borrowSignals(signals, count)
    guard let inputs else {
        return status
    }
    let (depth, depthStatus) = pipelineDepth(over: inputs)
    if depthStatus != SKOK {
        return depthStatus
    }
    // Each subscription emits its arrays through an `SKArrayReuse` of its
    // own: an array that nothing kept once its emission returned is refilled
    // for a later one. Two signals (the common case) are combined by the
    // core's typed pair, which keeps no array of its own.
    if inputs.count == 2 {
        let combined = combineLatest(queue: deliveryQueue, inputs[0].signal, inputs[1].signal)
        return output(out, CSignal { subscriber in
            let arrays = SKArrayReuse()
            return combined.start(next: { pair in
                let array = arrays.take(pair.0, pair.1)
                emit(SKValue(object: array, kind: SK_KIND_ARRAY), to: subscriber)
                arrays.giveBack(array)
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                subscriber.putCompletion()
            })
        }, depth: depth)
    }
    let combined = combineLatest(queue: deliveryQueue, inputs.map { $0.signal })
    return output(out, CSignal { subscriber in
        let arrays = SKArrayReuse()
        return combined.start(next: { values in
            let array = arrays.take(count: values.count) { values[$0] }
            emit(SKValue(object: array, kind: SK_KIND_ARRAY), to: subscriber)
            arrays.giveBack(array)
        }, error: { error in
            subscriber.putError(error)
        }, completed: {
            subscriber.putCompletion()
        })
    }, depth: depth)
}

/// Emits `value` and lets it go before returning (so that the caller sees
/// whether anything else kept it).
@inline(never)
private func emit(_ value: consuming SKValue, to subscriber: Subscriber<SKValue, SKValue>) {
    subscriber.putNext(value)
}

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
