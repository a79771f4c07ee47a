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
/// reverse: no cycle of waits is possible.
private let stripeCount = 64

/// The uses of the striped locks.
@usableFromInline
enum _StripeFamily: Int {
    /// `Subscriber.keepAlive`'s objects.
    case keepAlive = 0
    /// The link between a `_SubscriberDisposable` and its subscriber.
    case subscription = 1
}

nonisolated(unsafe) private let stripes: UnsafeMutablePointer<pthread_mutex_t> = {
    let count = stripeCount * 2
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
    let stripe = stripes + family.rawValue * stripeCount + Int((address >> 4) % UInt(stripeCount))
    pthread_mutex_lock(stripe)
    body()
    pthread_mutex_unlock(stripe)
}
