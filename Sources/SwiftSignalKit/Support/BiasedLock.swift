#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import _SwiftSignalKitShims

/// How many biases (a pipe's, `_Broadcaster.bias`; a combination's lock,
/// `_BiasedSpinLock`) the process has revoked since the count was last
/// reset: at `_biasRevocationLimit`, nothing new is biased for a second
/// (`_biasPausedAt`, then the count starts again). Each revocation is a
/// heavy fence, 1.5-2.5 microseconds on the machine of 2026-11-30 (more
/// with more threads running): a program whose pipes and combinations
/// change hands all the time would pay it for each of them; at most 256 a
/// second, it pays at most about a millisecond a second.
@usableFromInline let _biasRevocations = Synchronization.Atomic<Int>(0)
@usableFromInline let _biasRevocationLimit = 256
/// When the count reached the limit (CLOCK_MONOTONIC, nanoseconds).
@usableFromInline let _biasPausedAt = Synchronization.Atomic<UInt64>(0)

/// CLOCK_MONOTONIC in nanoseconds.
@usableFromInline
func _biasClock() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}

/// Whether something new may be biased now: the kernel gives the heavy
/// fence, and the revocations are below the limit or a second has passed
/// since they reached it (the count then starts again; racing callers may
/// reset it twice: a rate, not a count that must be exact). The explorer's
/// build biases whatever it can: its soaks run for minutes in one process.
@usableFromInline
func _biasAllowed() -> Bool {
    if _sks_heavy_fence_available() == 0 {
        return false
    }
    #if SIGNALKIT_EXPLORE
    return true
    #else
    if _biasRevocations.load(ordering: .relaxed) < _biasRevocationLimit {
        return true
    }
    if _biasClock() &- _biasPausedAt.load(ordering: .relaxed) < 1_000_000_000 {
        return false
    }
    _biasRevocations.store(0, ordering: .relaxed)
    return true
    #endif
}

/// Counts a revocation (see `_biasRevocations`).
@usableFromInline
func _noteBiasRevoked() {
    if _biasRevocations.wrappingAdd(1, ordering: .relaxed).newValue == _biasRevocationLimit {
        _biasPausedAt.store(_biasClock(), ordering: .relaxed)
    }
}

/// A `_SpinLock` biased to the first thread that takes it, for the state
/// of a combination (`combineLatest`, `zip`) whose inputs are fed by one
/// thread: that thread takes and gives it back with plain stores, no
/// atomic read-modify-write (the spin lock's compare-and-swap was about 4
/// ns of W5's 20 a put on the machine of 2026-11-30).
///
/// The same scheme as a pipe's bias (Subjects/Broadcaster/BroadcasterBias.swift)
/// and a serial gate's owner: the first thread to take the lock (through
/// the spin lock) records itself in `bias`; from then on its `lock` stores
/// its token in `holder`, then (after a compiler barrier) loads `bias`:
/// still its own, it holds the lock without the spin lock; `unlock` stores
/// 0 in `holder`. Any other thread takes the spin lock and, finding the
/// lock biased, revokes the bias for good (`revoke`): it stores `bias` 1,
/// runs the heavy fence (membarrier), and waits until `holder` is 0; the
/// fence makes sure that of the owner's store-then-load and its own, one
/// load sees the other's store: either the owner sees the revocation and
/// takes the spin lock too, or this thread sees it holding and waits for
/// its `unlock`, whose releasing store publishes what it wrote under the
/// lock. `holder` holds the owner's token, not a flag, so that `unlock`
/// knows, on any thread, whether its own hold was the biased one. Where
/// the kernel refuses the fence, or while biases are paused
/// (`_biasAllowed`), the lock is never biased.
///
/// Thread-safety: `lock` and `unlock` may be called from any thread (the
/// thread that locked unlocks); not recursive; never held while user code
/// runs or a value is released (the spin lock's rules).
@usableFromInline
struct _BiasedSpinLock: ~Copyable {
    @usableFromInline let spin = _SpinLock()
    /// 0 before the first lock, the owner's token (`_sks_thread_token`, a
    /// multiple of 8), 1 once revoked or never to be biased. Written under
    /// the spin lock.
    @usableFromInline let bias = Synchronization.Atomic<UInt>(0)
    /// The owner's token while it holds the lock biased, 0 otherwise;
    /// stored by the owner alone.
    @usableFromInline let holder = Synchronization.Atomic<UInt>(0)

    @inlinable init() {}

    @inlinable @inline(__always)
    func lock() {
        let me = UInt(_sks_thread_token())
        if self.bias.load(ordering: .relaxed) == me {
            self.holder.store(me, ordering: .relaxed)
            _sks_light_fence()
            _explore(.callEntered)
            if _fastPath(self.bias.load(ordering: .relaxed) == me) {
                return
            }
            self.holder.store(0, ordering: .releasing)
        }
        self.lockShared(me)
    }

    /// `lock` through the spin lock: the first taker biases the lock to
    /// itself; another thread than the owner revokes the bias.
    @usableFromInline @inline(never)
    func lockShared(_ me: UInt) {
        self.spin.lock()
        let bias = self.bias.load(ordering: .relaxed)
        if bias == 0 {
            self.bias.store(_biasAllowed() ? me : 1, ordering: .relaxed)
        } else if bias > 1 && bias != me {
            self.revoke()
        }
    }

    /// Ends the bias for good (the spin lock held): see the type's comment.
    @usableFromInline @inline(never)
    func revoke() {
        self.bias.store(1, ordering: .relaxed)
        _sks_heavy_fence()
        while self.holder.load(ordering: .acquiring) != 0 {
            sched_yield()
        }
        _noteBiasRevoked()
    }

    @inlinable @inline(__always)
    func unlock() {
        let me = UInt(_sks_thread_token())
        if self.holder.load(ordering: .relaxed) == me {
            // As the spin lock's unlock: every copy made under the lock is
            // retained before the store that lets another thread in.
            #if !SIGNALKIT_PLANT_UNLOCK_BUG
            _sks_handoff()
            #endif
            self.holder.store(0, ordering: .releasing)
            _explore(.spinUnlock)
            return
        }
        self.spin.unlock()
    }
}
