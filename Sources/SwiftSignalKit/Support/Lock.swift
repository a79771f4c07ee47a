#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import _SwiftSignalKitShims

/// A mutual-exclusion lock over a `pthread_mutex_t`.
///
/// Thread-safety: every method may be called from any thread. Calling
/// `locked` or `throwingLocked` from inside one of its closures, on the
/// thread that runs it, runs the inner closure at once without locking
/// again, as a recursive lock would (the original deadlocks silently).
public final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let owner = _LockOwner()

    /// Makes an unlocked lock.
    public init() {
        self.mutex = .allocate(capacity: 1)
        self.mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(self.mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(self.mutex)
        self.mutex.deinitialize(count: 1)
        self.mutex.deallocate()
    }

    /// Runs `f` with the lock held.
    public func locked(_ f: () -> ()) {
        let thread = _LockOwner.currentThread()
        if self.owner.isHeld(by: thread) {
            // Called from inside one of this lock's closures: the lock is
            // this thread's already.
            f()
            return
        }
        pthread_mutex_lock(self.mutex)
        self.owner.set(thread)
        defer {
            self.owner.clear()
            pthread_mutex_unlock(self.mutex)
        }
        f()
    }

    /// Runs `f` with the lock held; the lock is released when `f` throws.
    public func throwingLocked(_ f: () throws -> Void) throws {
        let thread = _LockOwner.currentThread()
        if self.owner.isHeld(by: thread) {
            // Called from inside one of this lock's closures: the lock is
            // this thread's already.
            try f()
            return
        }
        pthread_mutex_lock(self.mutex)
        self.owner.set(thread)
        defer {
            self.owner.clear()
            pthread_mutex_unlock(self.mutex)
        }
        try f()
    }
}

/// The library's internal lock: one 32-bit word on the heap (its address
/// never moves), taken and given back by `_sks_mutex_lock` and
/// `_sks_mutex_unlock` (Sources/_SwiftSignalKitShims/mutex.c: a
/// compare-and-swap to take a free lock, an exchange to give it back, a
/// futex wait only when another thread holds it). It costs a third of a
/// `pthread_mutex_t` pair on the paths every value takes (a pipe's put, a
/// `deliverOn` hand-off). Both are calls the optimizer cannot see into, so
/// no retain of a value read under the lock moves below the unlock.
///
/// A place whose producers wait under its lock (the bounded operators'
/// `block`) waits on a condition word of its own with `_sks_cond_wait`
/// and wakes them with `_sks_cond_broadcast` (mutex.c).
///
/// Non-copyable so that a lock is never duplicated by accident. The library
/// never calls user code while one is held.
///
/// Thread-safety: `lock`, `tryLock` and `unlock` may be called from any
/// thread (the thread that locked unlocks); not recursive. Its word holds
/// no thread's id, so a forked child's threads may take it as any other.
@usableFromInline
struct _Mutex: ~Copyable, @unchecked Sendable {
    @usableFromInline let word: UnsafeMutablePointer<UInt32>

    @inlinable init() {
        self.word = .allocate(capacity: 1)
        self.word.initialize(to: 0)
    }

    deinit {
        self.word.deallocate()
    }

    @inlinable func lock() {
        _sks_mutex_lock(self.word)
    }

    /// Takes the lock if it is free; false, without waiting, if not.
    @inlinable func tryLock() -> Bool {
        return _sks_mutex_try_lock(self.word) != 0
    }

    @inlinable func unlock() {
        _sks_mutex_unlock(self.word)
        _explore(.mutexUnlocked)
    }

    @inlinable func withLock<R>(_ body: () throws -> R) rethrows -> R {
        _sks_mutex_lock(self.word)
        defer { _sks_mutex_unlock(self.word) }
        return try body()
    }
}

/// A lock for the few instructions of copying a value in or out of an
/// operator's state (`_SignalLatestValue`, `zip`'s queues), where
/// a `pthread_mutex_t`'s lock and unlock cost more than the rest of the
/// operator: one atomic compare-and-swap to take it, one store to give it
/// back, and `sched_yield` while another thread holds it. Never held while
/// user code runs or a value is released.
///
/// Thread-safety: `lock` and `unlock` may be called from any thread (the
/// thread that locked unlocks); not recursive.
@usableFromInline
struct _SpinLock: ~Copyable {
    @usableFromInline let state = Synchronization.Atomic<Bool>(false)
    #if SIGNALKIT_EXPLORE
    /// The explorer's generator for this lock (see `exploreAfterUnlock`).
    @usableFromInline let explore = Synchronization.Atomic<UInt64>(_sks_explore_seed())
    /// The generator's draw for the current holder, made in `lock`.
    @usableFromInline let draw = Synchronization.Atomic<UInt64>(0)
    /// Threads waiting in `lock`.
    @usableFromInline let waiting = Synchronization.Atomic<Int>(0)
    /// Times the lock was taken.
    @usableFromInline let taken = Synchronization.Atomic<UInt64>(0)
    #endif

    @inlinable init() {}

    @inlinable func lock() {
        #if SIGNALKIT_EXPLORE
        // Waiters are counted, and the holder draws its perturbation here:
        // `exploreAfterUnlock` only loads (see there).
        if !self.state.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            self.waiting.wrappingAdd(1, ordering: .relaxed)
            while !self.state.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
                sched_yield()
            }
            self.waiting.wrappingSubtract(1, ordering: .relaxed)
        }
        self.taken.wrappingAdd(1, ordering: .relaxed)
        self.draw.store(self.explore.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue, ordering: .relaxed)
        #else
        while !self.state.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            sched_yield()
        }
        #endif
    }

    /// Always inlined: in the explorer's build, whose perturbation makes
    /// this body larger, a call here would itself keep every retain before
    /// it, and the build would no longer have the release build's code
    /// motion around the lock (what it is there to explore).
    @inlinable @inline(__always) func unlock() {
        // Every copy made under the lock is retained before this call (see
        // `_sks_handoff`): without it, the optimizer retained a value read
        // out of a slot after the store below, once another thread could
        // have replaced and released it. (An explorer build with
        // SIGNALKIT_PLANT_UNLOCK_BUG leaves the call out: issue 50's crash,
        // planted again to measure the explorer, `make explore-measure`.)
        #if !SIGNALKIT_PLANT_UNLOCK_BUG
        _sks_handoff()
        #endif
        #if SIGNALKIT_EXPLORE
        let draw = self.draw.load(ordering: .relaxed)
        let mine = self.taken.load(ordering: .relaxed)
        #endif
        self.state.store(false, ordering: .releasing)
        #if SIGNALKIT_EXPLORE
        self.exploreAfterUnlock(draw, mine)
        #endif
    }

    #if SIGNALKIT_EXPLORE
    /// The explorer's perturbation after the unlocking store (see
    /// ScheduleExplorer.swift), aimed at collisions: when another thread
    /// was waiting for the lock, one time in two this thread stays here
    /// until another has taken the lock (up to some hundred microseconds),
    /// then a further 0 to 65,535 loads, time for that thread to replace a
    /// value, deliver and release what it replaced; when none waited, one
    /// time in 64 only the further spin.
    /// Inline, without a call and with loads only (the draw is made in
    /// `lock`), so that the optimizer moves code around the lock as in the
    /// release build: a copy whose retain it sinks below the store (the
    /// bug `_sks_handoff` prevents) is retained after this spin, while
    /// another thread may replace and release the value. A call, or an
    /// atomic read-modify-write, here stops that motion, and the build
    /// would not have the bug it is meant to find.
    @inlinable @inline(__always)
    func exploreAfterUnlock(_ x: UInt64, _ mine: UInt64) {
        var mixed = (x ^ (x >> 31)) &* 0xBF58_476D_1CE4_E5B9
        mixed ^= mixed >> 27
        if self.waiting.load(ordering: .relaxed) > 0 {
            guard mixed & 7 == 0 else {
                return
            }
            var budget = 1 << 14
            while budget > 0 && self.taken.load(ordering: .relaxed) == mine {
                budget -= 1
            }
        } else {
            guard mixed & 63 == 0 else {
                return
            }
        }
        var spins = Int((mixed >> 40) & 0xFFF)
        while spins > 0 {
            _ = self.state.load(ordering: .relaxed)
            spins -= 1
        }
    }
    #endif
}
