import SignalKitHeader
import SwiftSignalKit

/// An `sk_value_promise` handle.
final class SKValuePromise: SKObject {
    let promise: ValuePromise<SKValue>

    init(_ promise: ValuePromise<SKValue>) {
        self.promise = promise
        super.init()
    }
}

private func borrowValuePromise(_ handle: OpaquePointer?, function: StaticString = #function) -> (SKValuePromise?, Int32) {
    return borrowHandle("promise", handle, as: SKValuePromise.self, "a value promise", function: function)
}

@c @implementation
public func sk_value_promise_create(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ initial: UnsafePointer<sk_value>?, _ ignoreRepeated: Bool) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    if let initial {
        let (value, status) = borrowValue("initial", initial)
        guard let value else {
            return status
        }
        out.pointee = SKValuePromise(ValuePromise(value, ignoreRepeated: ignoreRepeated)).retainedHandle(madeBy: #function)
    } else {
        out.pointee = SKValuePromise(ValuePromise(ignoreRepeated: ignoreRepeated)).retainedHandle(madeBy: #function)
    }
    return SKOK
}

@c @implementation
public func sk_value_promise_set(_ promise: OpaquePointer?, _ value: UnsafePointer<sk_value>?) -> Int32 {
    let (handle, status) = borrowValuePromise(promise)
    guard let handle else {
        return status
    }
    let (borrowed, valueStatus) = borrowValue("value", value)
    guard let borrowed else {
        return valueStatus
    }
    handle.promise.set(borrowed)
    return SKOK
}

@c @implementation
public func sk_value_promise_get(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ promise: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (handle, status) = borrowValuePromise(promise)
    guard let handle else {
        return status
    }
    return output(out, handle.promise.get() |> castError(SKValue.self))
}

@c @implementation
public func sk_value_promise_retain(_ promise: OpaquePointer?) -> OpaquePointer? {
    return SKObject.retain(promise, as: SKValuePromise.self, "a value promise")
}

@c @implementation
public func sk_value_promise_release(_ promise: OpaquePointer?) {
    SKObject.release(promise, as: SKValuePromise.self, "a value promise")
}
