import SignalKitHeader
import SwiftSignalKit

/// An `sk_promise` handle.
final class SKPromise: SKObject {
    let promise = Promise<SKValue>()
}

private func borrowPromise(_ handle: OpaquePointer?, function: StaticString = #function) -> (SKPromise?, Int32) {
    return borrowHandle("promise", handle, as: SKPromise.self, "a promise", function: function)
}

@c @implementation
public func sk_promise_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = SKPromise().retainedHandle(madeBy: #function)
    return SKOK
}

@c @implementation
public func sk_promise_set(_ promise: OpaquePointer?, _ signal: OpaquePointer?) -> Int32 {
    let (handle, status) = borrowPromise(promise)
    guard let handle else {
        return status
    }
    let (source, signalStatus) = borrowSignal("signal", signal)
    guard let source else {
        return signalStatus
    }
    // A promise's source cannot fail: an error ends the source like a completion.
    let upstream = source.signal
    handle.promise.set(Signal<SKValue, NoError> { subscriber in
        return upstream.start(next: { value in
            subscriber.putNext(value)
        }, error: { _ in
            subscriber.putCompletion()
        }, completed: {
            subscriber.putCompletion()
        })
    })
    return SKOK
}

@c @implementation
public func sk_promise_get(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ promise: OpaquePointer?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (handle, status) = borrowPromise(promise)
    guard let handle else {
        return status
    }
    return output(out, handle.promise.get() |> castError(SKValue.self))
}

@c @implementation
public func sk_promise_retain(_ promise: OpaquePointer?) -> OpaquePointer? {
    return SKObject.retain(promise, as: SKPromise.self, "a promise")
}

@c @implementation
public func sk_promise_release(_ promise: OpaquePointer?) {
    SKObject.release(promise, as: SKPromise.self, "a promise")
}
