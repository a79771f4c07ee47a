import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_take(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ count: Int) -> Int32 {
    return unaryOperator(out, signal) { signal in
        // size_t above Int.max arrives negative: it means "no limit".
        signal |> take(count < 0 ? Int.max : count)
    }
}

@c @implementation
public func sk_signal_take_until(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_take_until_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        failableOperator { end in
            signal |> take(until: { value in
                let answer = withCallbackRun { run in
                    let answer = value.withC { callback.function(callback.ctx, $0) }
                    if _slowPath(run.failed) {
                        // Failed (sk_callback_fail): neither pass nor complete.
                        failCall(run, end)
                        return Int32(0)
                    }
                    return answer
                }
                let flags = UInt32(bitPattern: answer)
                return SignalTakeAction(passthrough: flags & SK_TAKE_PASS.rawValue != 0, complete: flags & SK_TAKE_COMPLETE.rawValue != 0)
            })
        }
    }
}

@c @implementation
public func sk_signal_last(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        // No value at all becomes a nil value: C has no optional.
        last(signal: signal) |> map { $0 ?? SKValue.nil }
    }
}

// The take family's additions (the core's Signal_Take+Skip.swift and
// Signal_Take+First.swift). A size_t above Int.max arrives negative: for a
// count or an index it means "more than any signal emits".

@c @implementation
public func sk_signal_skip(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ count: Int) -> Int32 {
    return unaryOperator(out, signal) { signal in
        signal |> skip(count < 0 ? Int.max : count)
    }
}

@c @implementation
public func sk_signal_skip_while(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_predicate_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        failableOperator { end in
            signal |> skipWhile { value in
                failablePredicate(callback, value, end, onFailure: true) // still skipping: nothing passes
            }
        }
    }
}

@c @implementation
public func sk_signal_take_while(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_predicate_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?, _ inclusive: Bool) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        failableOperator { end in
            signal |> takeWhile(inclusive: inclusive) { value in
                failablePredicate(callback, value, end, onFailure: true) // passed to an ended subscription: dropped
            }
        }
    }
}

@c @implementation
public func sk_signal_first(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?) -> Int32 {
    return unaryOperator(out, signal) { signal in
        first(signal)
    }
}

@c @implementation
public func sk_signal_first_where(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_predicate_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        failableOperator { end in
            signal |> first(where: { value in
                failablePredicate(callback, value, end, onFailure: false) // not the first: nothing passes
            })
        }
    }
}

@c @implementation
public func sk_signal_element_at(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ index: Int) -> Int32 {
    return unaryOperator(out, signal) { signal in
        // An index past Int.max is never reached: the core's negative index
        // (nothing passes, the completion does) says the same.
        signal |> elementAt(index)
    }
}

@c @implementation
public func sk_signal_default_if_empty(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ value: UnsafePointer<sk_value>?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (fallback, status) = borrowValue("value", value)
    guard let fallback else {
        return status
    }
    return unaryOperator(out, signal) { signal in
        signal |> defaultIfEmpty(fallback)
    }
}

@c @implementation
public func sk_signal_take_until_signal(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ notifier: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (handle, status) = borrowSignal("notifier", notifier)
    guard let handle else {
        return status
    }
    return unaryOperator(out, signal, others: [handle]) { signal in
        signal |> takeUntil(handle.signal)
    }
}

/// Calls a C predicate on `value` as a run of its own: its answer, or, when
/// it failed (sk_callback_fail), `onFailure` after ending the subscription
/// with the error (`end.fail`): the answer that makes the core operator
/// deliver nothing, or deliver to the ended subscription (dropped).
@inline(__always)
func failablePredicate(_ callback: SKFunction<sk_predicate_fn>, _ value: SKValue, _ end: SKFailureEnd, onFailure: Bool) -> Bool {
    return withCallbackRun { run in
        let answer = value.withC { callback.function(callback.ctx, $0) }
        if _slowPath(run.failed) {
            failCall(run, end)
            return onFailure
        }
        return answer
    }
}
