#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small fixed set of mutexes shared by objects whose rarely used state does
/// not justify a lock of its own (for example `Subscriber.keepAlive`).
private let stripeCount = 64
nonisolated(unsafe) private let stripes: UnsafeMutablePointer<pthread_mutex_t> = {
    let stripes = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: stripeCount)
    for i in 0 ..< stripeCount {
        (stripes + i).initialize(to: pthread_mutex_t())
        pthread_mutex_init(stripes + i, nil)
    }
    return stripes
}()

/// Runs `body` holding the stripe lock chosen by `object`'s identity. `body`
/// must not call user code nor take another stripe.
@usableFromInline
func _stripedLock(for object: AnyObject, _ body: () -> Void) {
    let address = UInt(bitPattern: Int(bitPattern: ObjectIdentifier(object)))
    let stripe = stripes + Int((address >> 4) % UInt(stripeCount))
    pthread_mutex_lock(stripe)
    body()
    pthread_mutex_unlock(stripe)
}
