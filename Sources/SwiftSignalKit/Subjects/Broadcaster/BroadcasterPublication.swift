/// What a `_Broadcaster.publish` does with the value it is given, as its
/// owner decides under the lock.
@usableFromInline
enum _BroadcasterPublication {
    /// Nothing: the value is neither kept nor delivered.
    case drop
    /// Delivers the value to the current subscribers.
    case deliver
    /// Keeps the value as the one replayed to new subscribers (releasing the
    /// previous one after the lock is dropped), and delivers it.
    case cacheAndDeliver
}
