#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import _SwiftSignalKitShims

/// The capacity, overflow policy and drop report of one subscription of an
/// operator that holds values while they wait for something other than a
/// delivery (`zip`'s inputs waiting for their partners, `mergeMap`'s values
/// waiting for a free slot, `buffer(timeSpan:)`'s values waiting for the
/// period's end), with the count of drops and, for `block`, the condition
/// producers wait on. The owner's rings are `_SignalRing`s of `capacity`,
/// filled with `_SignalRing.offer`.
///
/// Thread-safety: `dropped`, `waiters` and the waiting are guarded by the
/// owner's mutex (passed to `waitForRoom`); `report` and `error` are called
/// outside it.
@usableFromInline
final class _SignalPendingLimit<T, E>: @unchecked Sendable {
    @usableFromInline let capacity: Int
    @usableFromInline let overflow: SignalOverflow<E>
    @usableFromInline let onDrop: ((T, Int) -> Void)?
    @usableFromInline let operatorName: String
    @exclusivity(unchecked) @usableFromInline var dropped = 0
    @exclusivity(unchecked) @usableFromInline var waiters = 0
    @usableFromInline let room: UnsafeMutablePointer<UInt32>?
    /// The room signals' waits (`block` only; counted in `waiters`).
    @exclusivity(unchecked) @usableFromInline var roomWaits = _SignalRoomWaits()

    @usableFromInline
    init(capacity: Int, overflow: SignalOverflow<E>, onDrop: ((T, Int) -> Void)?, operatorName: String) {
        self.capacity = Swift.max(1, capacity)
        self.overflow = overflow
        self.onDrop = onDrop
        self.operatorName = operatorName
        if case .block = overflow {
            let room = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
            room.initialize(to: 0)
            self.room = room
        } else {
            self.room = nil
        }
    }

    deinit {
        if let room = self.room {
            room.deallocate()
        }
        // Gone with its owner: nothing left to wait for.
        _ = self.roomWaits.wakeAll()
    }

    /// Counts a drop (under the owner's lock); the count to report.
    @inlinable
    func countDrop() -> Int {
        self.dropped += 1
        return self.dropped
    }

    /// Passes dropped values to `onDrop` with their running counts (outside
    /// the lock): `first` is the count of the first of them.
    @usableFromInline
    func report(_ values: [T], first: Int) {
        guard let onDrop = self.onDrop else {
            return
        }
        for (offset, value) in values.enumerated() {
            onDrop(value, first + offset)
        }
    }

    /// The stream's error for `reason` (user code: call it outside the lock).
    /// Only for `fail` and `block`.
    @usableFromInline
    func error(_ reason: SignalOverflowError.Reason) -> E {
        let error = SignalOverflowError(operatorName: self.operatorName, capacity: self.capacity, reason: reason)
        switch self.overflow {
        case let .fail(makeError):
            return makeError(error)
        case let .block(refused):
            return refused(error)
        default:
            // Invariant (the library's own): the ring asks for an error only under those two policies.
            preconditionFailure("only fail and block end a stream")
        }
    }

    /// Waits on the owner's locked `mutex` until `wake` is called
    /// (`block`).
    @usableFromInline
    func waitForRoom(_ mutex: borrowing _Mutex) {
        self.waiters += 1
        _sks_cond_wait(self.room.unsafelyUnwrapped, mutex.word)
        self.waiters -= 1
    }

    /// Wakes the producers waiting for room (under the owner's lock).
    @inlinable
    func wake() {
        if self.waiters > 0 {
            self.wakeEveryWaiter()
        }
    }

    /// The waiting producers' condition, and the room signals' waits.
    @usableFromInline
    func wakeEveryWaiter() {
        self.roomWaits.wakeEvery(room: self.room, waiters: &self.waiters)
    }

    /// The owner's `_SignalRoomPlace.hasRoom`, called under the owner's
    /// lock with `full`, what a waiting producer would see (the ring full
    /// and the place not ended): `wait` is registered, woken with the
    /// waiting producers, when there is no room.
    @usableFromInline
    func hasRoom(unless full: Bool, orRegisters wait: _SignalRoomWait) -> Bool {
        return self.roomWaits.hasRoom(unless: full, registering: wait, waiters: &self.waiters)
    }
}
