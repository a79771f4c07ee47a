import SignalKitHeader
import SwiftSignalKit

/// An `sk_pipe` handle.
final class SKPipe: SKObject {
    let pipe: SignalPipe<SKValue, SKValue>

    init(replay: Bool) {
        self.pipe = SignalPipe<SKValue, SKValue>(replay: replay)
        super.init(fastKind: .pipe)
    }

    /// sk_pipe_create_bounded's pipe: the core's bounded pipe, its errors
    /// naming the C function.
    init(replay: Bool, capacity: Int, overflow: SignalOverflow<SKValue>, onDrop: @escaping (SKValue, Int) -> Void) {
        self.pipe = SignalPipe<SKValue, SKValue>(replay: replay, capacity: capacity, overflow: overflow, onDrop: onDrop, operatorName: "sk_pipe_create_bounded")
        super.init(fastKind: .pipe)
    }
}

private func borrowPipe(_ handle: OpaquePointer?, function: StaticString = #function) -> (SKPipe?, Int32) {
    return borrowHandle("pipe", handle, as: SKPipe.self, "a pipe", function: function)
}

@c @implementation
public func sk_pipe_create(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ replay: Bool) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = SKPipe(replay: replay).retainedHandle(madeBy: #function)
    return SKOK
}

@c @implementation
public func sk_pipe_create_bounded(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ replay: Bool, _ capacity: Int, _ overflow: sk_overflow, _ on_drop: sk_drop_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return boundedArguments(out, capacity, overflow, on_drop, ctx, release, function: #function) { bound, policy, report in
        out?.pointee = SKPipe(replay: replay, capacity: bound, overflow: policy, onDrop: report).retainedHandle(madeBy: #function)
        return SKOK
    }
}

@c @implementation
public func sk_pipe_put(_ pipe: OpaquePointer?, _ value: UnsafePointer<sk_value>?) -> Int32 {
    if withPrimitiveFastPath(pipe, value, as: SKPipe.self, .pipe, { handle, value in
        handle.pipe.putNext(value)
    }) {
        return SKOK
    }
    return putChecked(pipe, value)
}

/// sk_pipe_put's checked path, out of line so that the fast path saves no
/// registers for it.
@inline(never)
private func putChecked(_ pipe: OpaquePointer?, _ value: UnsafePointer<sk_value>?, function: StaticString = #function) -> Int32 {
    let (handle, status) = borrowPipe(pipe, function: function)
    guard let handle else {
        return status
    }
    let (borrowed, valueStatus) = borrowValue("value", value, function: function)
    guard let borrowed else {
        return valueStatus
    }
    handle.pipe.putNext(borrowed)
    return SKOK
}

@c @implementation
public func sk_pipe_signal(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ pipe: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    // Its source, not a signal: see `SKSignal`.
    if let made = withBorrowedHandle(pipe, as: SKPipe.self, .pipe, { SKSignal(pipe: $0.pipe.source) }) {
        out.pointee = made.retainedHandle(madeBy: #function)
        return SKOK
    }
    out.pointee = nil
    let (handle, status) = borrowPipe(pipe)
    guard let handle else {
        return status
    }
    out.pointee = SKSignal(pipe: handle.pipe.source).retainedHandle(madeBy: #function)
    return SKOK
}

@c @implementation
public func sk_pipe_put_error(_ pipe: OpaquePointer?, _ error: UnsafePointer<sk_value>?) -> Int32 {
    let (handle, status) = borrowPipe(pipe)
    guard let handle else {
        return status
    }
    let (borrowed, valueStatus) = borrowValue("error", error)
    guard let borrowed else {
        return valueStatus
    }
    handle.pipe.putError(borrowed)
    return SKOK
}

@c @implementation
public func sk_pipe_put_completion(_ pipe: OpaquePointer?) -> Int32 {
    let (handle, status) = borrowPipe(pipe)
    guard let handle else {
        return status
    }
    handle.pipe.putCompletion()
    return SKOK
}

@c @implementation
public func sk_pipe_retain(_ pipe: OpaquePointer?) -> OpaquePointer? {
    return SKObject.retain(pipe, as: SKPipe.self, "a pipe")
}

@c @implementation
public func sk_pipe_release(_ pipe: OpaquePointer?) {
    SKObject.release(pipe, as: SKPipe.self, "a pipe")
}
