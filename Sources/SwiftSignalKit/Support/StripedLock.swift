#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Small fixed sets of mutexes shared by objects whose rarely used or brief
/// state does not justify a lock of its own, one set per use (`_StripeFamily`).
///
/// Within a family, a body never takes another stripe of that family, and a
/// body of the `subscription` family may take a `keepAlive` stripe, never the
/// reverse; a `handleRegistry` body takes no other stripe: no cycle of waits is
/// possible.
private let stripeCount = 64

/// The number of stripes in each family: a stripe index is in
/// `0 ..< _stripesPerFamily`.
package let _stripesPerFamily = stripeCount

/// The uses of the striped locks. `package`: the C layer (SignalKitCAPI) uses
/// the same scheme.
@usableFromInline
package enum _StripeFamily: Int, CaseIterable {
    /// `Subscriber.keepAlive`'s objects.
    case keepAlive = 0
    /// The link between a `_SubscriberDisposable` and its subscriber.
    case subscription = 1
    /// The C layer's handle registry (SignalKitCAPI, `HandleRegistry`): its
    /// live objects, one table per stripe.
    case handleRegistry = 2
}

nonisolated(unsafe) private let stripes: UnsafeMutablePointer<pthread_mutex_t> = {
    let count = stripeCount * _StripeFamily.allCases.count
    let stripes = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: count)
    for i in 0 ..< count {
        (stripes + i).initialize(to: pthread_mutex_t())
        pthread_mutex_init(stripes + i, nil)
    }
    return stripes
}()

/// Runs `body` holding the stripe lock of `family` chosen by `object`'s
/// identity. `body` must not call user code, release an object (a deinit
/// could take a stripe) nor take a stripe other than the order above allows.
@usableFromInline
func _stripedLock(for object: AnyObject, _ family: _StripeFamily, _ body: () -> Void) {
    let address = UInt(bitPattern: Int(bitPattern: ObjectIdentifier(object)))
    let stripe = stripes + family.rawValue * stripeCount + stripeIndex(address)
    pthread_mutex_lock(stripe)
    body()
    pthread_mutex_unlock(stripe)
}

/// Runs `body` holding the stripe lock of `family` chosen by `address` (an
/// object's address, used as a number only: the object is not touched), and
/// hands `body` the stripe's index, so that the caller can keep state of its
/// own per stripe, guarded by that stripe. The rules of `_stripedLock(for:)`
/// apply to `body`.
package func _stripedLock<R>(forAddress address: UInt, _ family: _StripeFamily, _ body: (_ stripe: Int) -> R) -> R {
    let index = stripeIndex(address)
    let stripe = stripes + family.rawValue * stripeCount + index
    pthread_mutex_lock(stripe)
    defer { pthread_mutex_unlock(stripe) }
    return body(index)
}

/// The stripe of an object at `address`: objects are 16-byte aligned, so the
/// bits above the alignment choose it.
@inline(__always)
private func stripeIndex(_ address: UInt) -> Int {
    return Int((address >> 4) % UInt(stripeCount))
}
