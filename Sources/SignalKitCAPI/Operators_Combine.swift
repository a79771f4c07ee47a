import SignalKitHeader
import SwiftSignalKit

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
        if let refused = prepareDispatch(handle.queue, timers: false) {
            return refused
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
    // A fused stage over the core's combination (`Signal.init(fused:)`, as
    // the core's `map`): no subscriber of the C layer's own between the
    // combination and the downstream; the combination's subscriber is the
    // one the downstream's fused stages check (its liveness is passed on).
    // Each subscription emits its arrays through an `SKArrayReuse` of its
    // own: the array is lent to the downstream for the call, and one that
    // nothing kept once the call returned is refilled for a later
    // emission. Two signals (the common case) are combined by the core's
    // typed pair, which keeps no array of its own.
    if inputs.count == 2 {
        let combined = combineLatest(queue: deliveryQueue, inputs[0].signal, inputs[1].signal)
        return output(out, fusedCombination(combined), depth: depth)
    }
    let combined = combineLatest(queue: deliveryQueue, inputs.map { $0.signal })
    return output(out, fusedCombination(combined), depth: depth)
}

// The fused stages over the core's combinations: they lend each array to
// the downstream (`lend`), so they emit `SKValue` itself rather than a
// generic value type cast from it (as `arrayValues` does): the cast's copy
// cost a retain and a release of the array an emission (two atomic
// operations), the conversion thunk that calling the downstream's callback
// from concrete code takes costs 14 to 20 instructions.

/// The stage over the core's pair (two signals).
@inline(__always)
private func fusedCombination(_ combined: Signal<(SKValue, SKValue), SKValue>) -> Signal<SKValue, SKValue> {
    return Signal<SKValue, SKValue>(fused: { makeNext, error, completed in
        let arrays = SKArrayReuse()
        return combined.startFusing({ liveness in
            guard let next = makeNext(liveness) else {
                return nil
            }
            return { pair in
                guard let array = arrays.take(pair.0, pair.1) else {
                    endOutOfMemory(liveness, count: 2, source: Subscriber<(SKValue, SKValue), SKValue>.self)
                    return
                }
                arrays.giveBack(lend(consume array, to: next))
            }
        }, error: error, completed: completed)
    })
}

/// The stage over the core's array of values (any other number of signals).
@inline(__always)
private func fusedCombination(_ combined: Signal<[SKValue], SKValue>) -> Signal<SKValue, SKValue> {
    return Signal<SKValue, SKValue>(fused: { makeNext, error, completed in
        let arrays = SKArrayReuse()
        return combined.startFusing({ liveness in
            guard let next = makeNext(liveness) else {
                return nil
            }
            return { values in
                guard let array = arrays.take(count: values.count, { values[$0].raw }) else {
                    endOutOfMemory(liveness, count: values.count, source: Subscriber<[SKValue], SKValue>.self)
                    return
                }
                arrays.giveBack(lend(consume array, to: next))
            }
        }, error: error, completed: completed)
    })
}

/// Ends a combination's subscription (`liveness`, whose subscriber, of
/// type `source`, is the core combination's) with the error value
/// "sk_signal_combine_latest: out of memory for an array of `count` values",
/// when the memory for a new array was refused during a delivery, where no
/// status can be returned: the error callback, then the upstream disposed,
/// as for any error (an allocation failure is never a trap). The message's
/// bytes fall back to a constant when they cannot be allocated either (see
/// `SKString.made`). Off the path of values (never inlined).
@inline(never)
private func endOutOfMemory<Source>(_ liveness: _SubscriberLiveness, count: Int, source: Subscriber<Source, SKValue>.Type) {
    let message = SKValue(string: "sk_signal_combine_latest: out of memory for an array of \(count) values")
    // The combination's subscription is always its subscriber's (the core's
    // combination runs a generator of its own): nothing else to end.
    _ = liveness.putError(message, source: source)
}

/// Calls `next` with `array` as a value, borrowed for the call, and returns
/// the array. The value takes over the caller's reference to the array and
/// gives it back (no retain and release for the lending), so that the caller
/// sees afterwards whether anything kept the array (a copy retains it).
@inline(__always)
func lend(_ array: consuming SKArray, to next: (SKValue) -> Void) -> SKArray {
    let value = SKValue(lending: array, kind: SK_KIND_ARRAY)
    next(value)
    // Invariant: the value was made of an SKArray just above.
    return unsafeDowncast(value.returningObject().unsafelyUnwrapped, to: SKArray.self)
}

@c @implementation
public func sk_signal_zip(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signals: UnsafePointer<OpaquePointer?>?, _ count: Int) -> Int32 {
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
    if inputs.count == 2 {
        // The core's typed pair: no Swift array per pair (`pairValues`).
        return output(out, pairValues(zip(inputs[0].signal, inputs[1].signal)), depth: depth)
    }
    return output(out, arrayValues(zip(inputs.map { $0.signal })), depth: depth)
}

@c @implementation
public func sk_signal_with_latest_from(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ other: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (handle, status) = borrowSignal("other", other)
    guard let handle else {
        return status
    }
    return unaryOperator(out, signal, others: [handle]) { signal in
        pairValues(signal |> withLatestFrom(handle.signal))
    }
}
