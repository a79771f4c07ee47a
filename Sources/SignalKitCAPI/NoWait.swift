import SignalKitHeader
import SwiftSignalKit

// Puts that never wait for room: the C face of the core's scopes
// (`withoutWaitingForRoom`, Operators/SignalRoom.swift).

@c @implementation
public func sk_nowait_begin() -> Int32 {
    _SignalNoWaitScope.begin()
    return SKOK
}

@c @implementation
public func sk_nowait_end(_ room: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    room?.pointee = nil
    guard _SignalNoWaitScope.isActive else {
        return fail(SK_ERR_UNSUPPORTED, "no sk_nowait_begin() scope is open on this thread")
    }
    let places = _SignalNoWaitScope.end()
    guard let room else {
        return fail(SK_ERR_NULL_ARGUMENT, "room is NULL (the scope was ended)")
    }
    guard let places else {
        return SKOK
    }
    return output(room, Signal<SKValue, SKValue> { subscriber in
        places.start(completed: {
            subscriber.putCompletion()
        })
    })
}
