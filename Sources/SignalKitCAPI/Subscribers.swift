import SignalKitHeader
import SwiftSignalKit

/// An `sk_subscriber` handle.
final class SKSubscriber: SKObject {
    let subscriber: Subscriber<SKValue, SKValue>

    init(_ subscriber: Subscriber<SKValue, SKValue>) {
        self.subscriber = subscriber
        super.init(fastKind: .subscriber)
    }
}

private func borrowSubscriber(_ handle: OpaquePointer?, function: StaticString = #function) -> (SKSubscriber?, Int32) {
    return borrowHandle("subscriber", handle, as: SKSubscriber.self, "a subscriber", function: function)
}

@c @implementation
public func sk_subscriber_put_next(_ subscriber: OpaquePointer?, _ value: UnsafePointer<sk_value>?) -> Int32 {
    if withPrimitiveFastPath(subscriber, value, as: SKSubscriber.self, .subscriber, { handle, value in
        handle.subscriber.putNextInlined(value)
    }) {
        return SKOK
    }
    return putNextChecked(subscriber, value)
}

/// sk_subscriber_put_next's checked path, out of line so that the fast path
/// saves no registers for it.
@inline(never)
private func putNextChecked(_ subscriber: OpaquePointer?, _ value: UnsafePointer<sk_value>?, function: StaticString = #function) -> Int32 {
    let (handle, status) = borrowSubscriber(subscriber, function: function)
    guard let handle else {
        return status
    }
    let (borrowed, valueStatus) = borrowValue("value", value, function: function)
    guard let borrowed else {
        return valueStatus
    }
    handle.subscriber.putNext(borrowed)
    return SKOK
}

@c @implementation
public func sk_subscriber_put_error(_ subscriber: OpaquePointer?, _ error: UnsafePointer<sk_value>?) -> Int32 {
    let (handle, status) = borrowSubscriber(subscriber)
    guard let handle else {
        return status
    }
    let (borrowed, valueStatus) = borrowValue("error", error)
    guard let borrowed else {
        return valueStatus
    }
    handle.subscriber.putError(borrowed)
    return SKOK
}

@c @implementation
public func sk_subscriber_put_completion(_ subscriber: OpaquePointer?) -> Int32 {
    let (handle, status) = borrowSubscriber(subscriber)
    guard let handle else {
        return status
    }
    handle.subscriber.putCompletion()
    return SKOK
}

@c @implementation
public func sk_subscriber_retain(_ subscriber: OpaquePointer?) -> OpaquePointer? {
    return SKObject.retain(subscriber, as: SKSubscriber.self, "a subscriber")
}

@c @implementation
public func sk_subscriber_release(_ subscriber: OpaquePointer?) {
    SKObject.release(subscriber, as: SKSubscriber.self, "a subscriber")
}
