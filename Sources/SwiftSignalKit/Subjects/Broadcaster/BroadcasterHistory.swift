/// The last `capacity` values of a pipe that replays more than one
/// (`SignalPipe(replayCount:)`, `replay(_:)`), oldest first.
///
/// Thread-safety: guarded by the broadcaster's lock.
@usableFromInline
final class _BroadcasterHistory<T> {
    @usableFromInline let capacity: Int
    /// The values, oldest first (at most `capacity`).
    @exclusivity(unchecked) @usableFromInline var values: [T] = []

    /// Reserves room for `capacity` values, up to 64: a count is a limit,
    /// not a reservation (`replay(1 << 32)` must not ask for 2^32 slots up
    /// front); past that the array grows with the values put.
    @inlinable
    init(capacity: Int) {
        self.capacity = capacity
        self.values.reserveCapacity(Swift.min(capacity, 64))
    }

    /// Appends `value`; returns the oldest value when it falls out (to be
    /// released after the lock is dropped).
    @inlinable
    func append(_ value: T) -> T? {
        if self.values.count < self.capacity {
            self.values.append(value)
            return nil
        }
        let dropped = self.values.removeFirst()
        self.values.append(value)
        return dropped
    }
}
