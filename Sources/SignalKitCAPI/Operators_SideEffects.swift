import SignalKitHeader
import SwiftSignalKit

@c @implementation
public func sk_signal_before_next(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_value_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> beforeNext { value in
            value.withC { callback.function(callback.ctx, $0) }
        }
    }
}

@c @implementation
public func sk_signal_after_next(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_value_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> afterNext { value in
            value.withC { callback.function(callback.ctx, $0) }
        }
    }
}

@c @implementation
public func sk_signal_before_started(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> beforeStarted {
            callback.function(callback.ctx)
        }
    }
}

@c @implementation
public func sk_signal_before_completed(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> beforeCompleted {
            callback.function(callback.ctx)
        }
    }
}

@c @implementation
public func sk_signal_after_completed(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> afterCompleted {
            callback.function(callback.ctx)
        }
    }
}

@c @implementation
public func sk_signal_after_disposed(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return callbackOperator(out, signal, fn, ctx, release) { signal, callback in
        signal |> afterDisposed {
            callback.function(callback.ctx)
        }
    }
}
