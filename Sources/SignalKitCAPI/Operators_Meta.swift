import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_map_to_signal(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_signal_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> mapToSignal { value in
            adoptSignal { value.withC { callback.function(callback.ctx, $0) } }
        }
    }
}

@c @implementation
public func sk_signal_switch_to_latest(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        signal |> mapToSignal { innerSignal($0) }
    }
}

@c @implementation
public func sk_signal_queue(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        signal |> mapToQueue { innerSignal($0) }
    }
}

@c @implementation
public func sk_signal_throttled(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        signal |> mapToThrottled { innerSignal($0) }
    }
}

@c @implementation
public func sk_signal_then(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ next: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (handle, status) = borrowSignal("next", next)
    guard let handle else {
        return status
    }
    return unaryOperator(out, signal, others: [handle], isThen: true) { signal in
        signal |> then(handle.signal)
    }
}

@c @implementation
public func sk_signal_deferred(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ fn: sk_deferred_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    guard let fn else {
        out?.pointee = nil
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "fn is NULL"))
    }
    guard let out else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "out is NULL"))
    }
    let callback = SKFunction(fn, ctx: ctx, release: release)
    callback.noteMaker(#function)
    return output(out, deferred {
        adoptSignal { callback.function(callback.ctx) }
    })
}

@c @implementation
public func sk_signal_ignore_values(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        // The values are `Never`: the map is only there for the type.
        ignoreValues(signal) |> map { (_: Never) -> SKValue in }
    }
}

@c @implementation
public func sk_signal_start_with(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ value: UnsafePointer<sk_value>?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (first, status) = borrowValue("value", value)
    guard let first else {
        return status
    }
    return unaryOperator(out, signal) { signal in
        signal |> startWith(first)
    }
}

@c @implementation
public func sk_signal_concat(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signals: UnsafePointer<OpaquePointer?>?, _ count: Int) -> Int32 {
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
    return output(out, concat(inputs.map { $0.signal }), depth: depth)
}

@c @implementation
public func sk_signal_merge_map(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ maxConcurrent: Int, _ fn: sk_signal_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    let (limit, status) = positiveCount("max_concurrent", maxConcurrent)
    guard let limit else {
        out?.pointee = nil
        return releasingOnFailure(ctx: ctx, release: release, status)
    }
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> mergeMap(maxConcurrent: limit) { value in
            adoptSignal { value.withC { callback.function(callback.ctx, $0) } }
        }
    }
}

/// A value as a dictionary key for `groupBy`: equal as sk_value_equal()
/// says (`SKValue.==`), with a hash that equal values share (the kind and
/// the primitive, the bytes of a string or bytes, the count of an array,
/// the identity of any other object).
private struct SKGroupKey: Hashable {
    let value: SKValue

    static func == (lhs: SKGroupKey, rhs: SKGroupKey) -> Bool {
        return lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) {
        let value = self.value
        hasher.combine(value.kind.rawValue)
        switch value.kind {
        case SK_KIND_BOOL:
            hasher.combine(value.raw.u.boolean)
        case SK_KIND_INT64:
            hasher.combine(value.raw.u.int64)
        case SK_KIND_DOUBLE:
            hasher.combine(value.raw.u.real)
        case SK_KIND_STRING:
            if let string = value.object as? SKString {
                hasher.combine(bytes: string.bytes)
            }
        case SK_KIND_BYTES:
            if let bytes = value.object as? SKBytes {
                hasher.combine(bytes: bytes.bytes)
            }
        case SK_KIND_ARRAY:
            hasher.combine((value.object as? SKArray)?.count ?? 0)
        case SK_KIND_POINTER:
            hasher.combine((value.object as? SKPointer)?.pointer)
        case SK_KIND_NIL:
            break
        default:
            if let object = value.object {
                hasher.combine(ObjectIdentifier(object))
            }
        }
    }
}

@c @implementation
public func sk_signal_group_by(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_map_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release, levels: SKDepth.groupBy) { signal, callback in
        // The key is computed by a stage of its own before the grouping, an
        // operator callback that can fail (sk_callback_fail): its failure is
        // then an error of the grouping's source, which ends every group
        // opened so far and the result with it, as any error of the source.
        let keyed: Signal<(SKValue, SKGroupKey), SKValue> = failableOperator { end in
            signal |> map { (value: SKValue) -> (SKValue, SKGroupKey) in
                withCallbackRun { run in
                    var key = sk_value()
                    value.withC { callback.function(callback.ctx, $0, &key) }
                    if _slowPath(run.failed) {
                        // The subscription has ended with the error (its
                        // upstream disposed): this pair reaches no one.
                        failCall(run, end, dropping: key)
                        return (value, SKGroupKey(value: .nil))
                    }
                    return (value, SKGroupKey(value: SKValue(taking: key)))
                }
            }
        }
        let groups = keyed |> groupBy { $0.1 }
        // Each group as the array [key, signal]: the group's signal is a
        // pipe's with the keys taken off, 2 deep.
        return arrayValues(groups |> map { group in
            [group.0.value, SKValue(object: SKSignal(group.1 |> map { $0.0 }, depth: 2), kind: SK_KIND_SIGNAL)]
        })
    }
}
