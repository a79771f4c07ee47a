#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SignalKitHeader
import Synchronization

// sk_live_objects_wait: a wait for the count of live objects (SKObject.swift)
// to come down, woken by the releases themselves, so that a leak check or a
// test's end need not poll.
//
// No lost wake-up: a waiter adds itself to `liveObjectWaiters`, then reads
// the count under the room's lock before each sleep; a release subtracts
// from the count, then reads `liveObjectWaiters`, and broadcasts under the
// same lock when it is not 0. Both pairs are sequentially consistent, so a
// release that reads no waiter made its subtraction before the waiter's
// addition, which the waiter's read of the count then sees. A release
// without a waiter pays one load.

/// The threads in sk_live_objects_wait.
let liveObjectWaiters = Synchronization.Atomic<Int>(0)

/// Uncounts a live object (what every counted object's end calls) and
/// wakes the waiters of sk_live_objects_wait, if any.
@inline(__always)
func liveObjectGone() {
    liveObjectCount.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    if _slowPath(liveObjectWaiters.load(ordering: .sequentiallyConsistent) != 0) {
        LiveObjectsWaitRoom.shared.wake()
    }
}

/// The lock and the condition (on the monotonic clock) that
/// sk_live_objects_wait sleeps on.
///
/// Thread-safety: a pthread mutex and condition, made once, never freed.
final class LiveObjectsWaitRoom: @unchecked Sendable {
    static let shared = LiveObjectsWaitRoom()

    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    let condition: UnsafeMutablePointer<pthread_cond_t>

    private init() {
        self.mutex = .allocate(capacity: 1)
        self.condition = .allocate(capacity: 1)
        pthread_mutex_init(self.mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(self.condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    func wake() {
        pthread_mutex_lock(self.mutex)
        pthread_cond_broadcast(self.condition)
        pthread_mutex_unlock(self.mutex)
    }
}

@c @implementation
public func sk_live_objects_wait(_ atMost: Int, _ timeout: Double) -> Int32 {
    guard timeout >= 0 else {
        return fail(SK_ERR_INVALID_ARGUMENT, "timeout \(timeout) is not a number of seconds >= 0")
    }
    if liveObjectCount.load(ordering: .sequentiallyConsistent) <= atMost {
        return SK_OK.rawValue
    }
    var deadline = timespec()
    clock_gettime(CLOCK_MONOTONIC, &deadline)
    let forever = timeout > 1e9  // about 31 years: no deadline
    if !forever {
        let whole = timeout.rounded(.down)
        var seconds = deadline.tv_sec + Int(whole)
        var nanoseconds = deadline.tv_nsec + Int((timeout - whole) * 1e9)
        if nanoseconds >= 1_000_000_000 {
            seconds += 1
            nanoseconds -= 1_000_000_000
        }
        deadline.tv_sec = seconds
        deadline.tv_nsec = nanoseconds
    }
    let room = LiveObjectsWaitRoom.shared
    liveObjectWaiters.wrappingAdd(1, ordering: .sequentiallyConsistent)
    pthread_mutex_lock(room.mutex)
    while liveObjectCount.load(ordering: .sequentiallyConsistent) > atMost {
        if forever {
            pthread_cond_wait(room.condition, room.mutex)
        } else if pthread_cond_timedwait(room.condition, room.mutex, &deadline) == ETIMEDOUT {
            break
        }
    }
    pthread_mutex_unlock(room.mutex)
    liveObjectWaiters.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    let alive = liveObjectCount.load(ordering: .sequentiallyConsistent)
    if alive <= atMost {
        return SK_OK.rawValue
    }
    return fail(SK_ERR_BUSY, "\(alive) library objects are still alive after \(timeout) s (waited for at most \(atMost))")
}
