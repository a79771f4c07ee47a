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

/// The release functions of the caller's that run (begun, not returned), on
/// every thread. Each object is uncounted as its release begins (whoever the
/// release wakes sees it gone), so sk_live_objects() may read 0 while the
/// last one still runs: sk_live_objects_wait waits for these too, so that
/// a program may free what they use, or end, once it returns. (Before, it returned while a release ran on a queue's thread,
/// which a program that then ended never saw run.)
let releasesRunning = Synchronization.Atomic<Int>(0)

/// Uncounts the object whose release function `release` runs, and runs it,
/// counted in `releasesRunning` until it returns; then wakes the waiters of
/// sk_live_objects_wait, if any. The same argument as `liveObjectGone`'s:
/// no lost wake-up (the count of releases goes up before the object's goes
/// down, so a waiter that sees the object gone sees its release running).
/// Two atomic additions a release more than before; no thread-local (one
/// per release, to let a release function's own wait pass over it, cost a
/// subscription with a release 49 instructions in Rust's W2).
@inline(__always)
func runUserRelease(_ release: () -> Void) {
    releasesRunning.wrappingAdd(1, ordering: .sequentiallyConsistent)
    liveObjectGone()
    release()
    releasesRunning.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    if _slowPath(liveObjectWaiters.load(ordering: .sequentiallyConsistent) != 0) {
        LiveObjectsWaitRoom.shared.wake()
    }
}

/// Whether sk_live_objects_wait(`atMost`) may return: at most `atMost`
/// objects counted, and no release function running.
@inline(__always)
private func liveObjectsSettled(_ atMost: Int) -> Bool {
    return liveObjectCount.load(ordering: .sequentiallyConsistent) <= atMost
        && releasesRunning.load(ordering: .sequentiallyConsistent) == 0
}

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
    if liveObjectsSettled(atMost) {
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
    while !liveObjectsSettled(atMost) {
        if forever {
            pthread_cond_wait(room.condition, room.mutex)
        } else if pthread_cond_timedwait(room.condition, room.mutex, &deadline) == ETIMEDOUT {
            break
        }
    }
    pthread_mutex_unlock(room.mutex)
    liveObjectWaiters.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    if liveObjectsSettled(atMost) {
        return SK_OK.rawValue
    }
    let alive = liveObjectCount.load(ordering: .sequentiallyConsistent)
    if alive <= atMost {
        let running = releasesRunning.load(ordering: .sequentiallyConsistent)
        return fail(SK_ERR_BUSY, "\(running) release function\(running == 1 ? " is" : "s are") still running after \(timeout) s (\(alive) library objects alive, waited for at most \(atMost))")
    }
    return fail(SK_ERR_BUSY, "\(alive) library objects are still alive after \(timeout) s (waited for at most \(atMost))")
}
