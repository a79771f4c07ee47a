#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import _SwiftSignalKitShims

/// A broadcaster biased to one thread (a single producer's put takes no
/// lock; issue 79).
///
/// The lock (`mutex`, a spin lock) costs a publication a compare-and-swap,
/// and freeing the owner slot an exchange: the two atomic read-modify-writes
/// of a put, about half of its time on the machine of 2026-11-30 (W5s, a
/// pipe into a `scan`, 14.3 ns a put with them, 7.3 without). So the first
/// thread that publishes with nothing else delivering (`takeBias`, under
/// the lock) owns the broadcaster, as a serial gate's first thread owns it
/// (SignalSerialGate.swift, the same heavy fence): its publications
/// (`publishBiased`) store `biasBusy` 1, load `bias` (kept in that order by
/// a compiler barrier: `_sks_light_fence`), and, still the owner, do under
/// no lock what `publish` does under it (the state's decision, the cached
/// value, the owner slot, the bag's buffer lent), then store `biasBusy` 0
/// (a release: the bookkeeping is published) and deliver as the owner
/// slot's thread. Freeing the slot (`leaveOwnerBiased`) is a load and a
/// store.
///
/// Every other use of the broadcaster takes the lock (`lock`), and any
/// thread but the owner that takes it while the broadcaster is biased ends
/// the bias first, for good (`revokeBias`): it stores `bias` 1, runs the
/// heavy fence (membarrier: every thread of the process passes a full
/// barrier), and waits until `biasBusy` is 0. The fence orders the two
/// threads' store then load as a full barrier on each would: either the
/// owner's load sees the revocation (its publication backs out before it
/// touched anything and takes the lock, which the revoking thread holds),
/// or the revoking thread's load sees the owner's `biasBusy` 1 and waits for
/// the bookkeeping (library code only, a few dozen instructions: a wait as
/// for a spin lock's holder), whose writes its acquiring load of 0 then
/// sees. A delivery the owner had begun goes on as the owner slot's, which
/// the lock's users already respect (the bag copied before a change, its
/// buffer and the subscriptions ended meanwhile retired until the slot is
/// freed: `_BroadcasterRetirement`). The owner's own lock holds exclude
/// every other thread as they are (no other thread gets past `lock` without
/// revoking), and are never inside its lock-free bookkeeping.
///
/// Freeing the slot with a store, not an exchange: a retirement marks the
/// slot (`retireBit`) only under the lock, so either on the owner's own
/// thread (from inside its callbacks: the load before the store sees the
/// mark) or on another thread after it revoked the bias, whose fence came
/// before the mark and so before the owner's store and its load of `bias`
/// after it: the owner then sees the revocation, and finishes what is
/// ready under the lock (`finishRetirements`), the mark it may have
/// overwritten included. A broadcaster that no other thread ever locks
/// after its first publication never pays the fence. Where the kernel
/// refuses the fence, or while biases are paused (`_biasAllowed`, in
/// Support/BiasedLock.swift), nothing new is biased.
///
/// Thread-safety: `bias` and `biasBusy` are atomics; what the biased
/// publication touches is otherwise guarded by the lock, as described.
extension _Broadcaster {
    /// Takes the lock, ending the bias first when the broadcaster is biased
    /// to another thread (see above). Every use of the broadcaster's
    /// guarded state but the biased publication goes through it.
    @inlinable @inline(__always)
    func lock() {
        self.mutex.lock()
        let bias = self.bias.load(ordering: .relaxed)
        if _slowPath(bias > 1) && bias != Self.currentThread() {
            self.revokeBias()
        }
    }

    /// Ends the bias for good (the lock held: see above). Out of line: once
    /// a broadcaster at most.
    @usableFromInline @inline(never)
    func revokeBias() {
        #if !SIGNALKIT_PLANT_BIAS_BUG
        // (Planted, make explore-measure: the revocation not stored, so the
        // owner goes on publishing without the lock beside the threads that
        // hold it.)
        self.bias.store(1, ordering: .relaxed)
        #endif
        _sks_heavy_fence()
        while self.biasBusy.load(ordering: .acquiring) != 0 {
            sched_yield()
        }
        _noteBiasRevoked()
    }

    /// At the first publication with nothing else delivering (the lock
    /// held, the owner slot just taken by `me`): biases the broadcaster to
    /// this thread, or marks it never to be biased.
    @usableFromInline @inline(never)
    func takeBias(_ me: UInt) {
        self.bias.store(_biasAllowed() ? me : 1, ordering: .relaxed)
    }

    /// `publish` on the thread the broadcaster is biased to (`me`), without
    /// the lock (see above); false, having done nothing, when it must take
    /// the lock after all: the bias was revoked, or this thread is
    /// delivering already (a publication from inside a callback), or
    /// another registration or a replay is under way.
    @inlinable @inline(__always)
    func publishBiased(_ next: T, _ decide: (inout State) -> _BroadcasterPublication, _ me: UInt) -> Bool {
        self.biasBusy.store(1, ordering: .relaxed)
        _sks_light_fence()
        _explore(.callEntered)
        if _slowPath(self.bias.load(ordering: .relaxed) != me) {
            self.biasBusy.store(0, ordering: .releasing)
            return false
        }
        if _slowPath(self.owner.load(ordering: .relaxed) != 0) {
            self.biasBusy.store(0, ordering: .releasing)
            return false
        }
        // Invariant: while the broadcaster is biased, no other thread
        // registers (it revokes the bias first), this thread registers in
        // the owner slot (`registerDelivery`), and a replay's catch-up
        // handed to another thread ends the bias first (`dropBias`): with
        // the slot free, nothing delivers and nothing replays.
        assert(self.deliveringCount == 0 && self.replayingCount == 0, "a biased broadcaster with a registration outside the owner slot")
        let previousState = self.state
        let publication = decide(&self.state)
        if publication == .drop {
            Self.handOffState()
            self.biasBusy.store(0, ordering: .releasing)
            withExtendedLifetime(previousState) {}
            return true
        }
        // A cached value replaced is released after the delivery; the
        // common case, nothing cached, has no optional to destroy (for a
        // value with references, an outlined destroy a put).
        if _slowPath(publication == .cacheAndDeliver) {
            let replaced = self.cache(next)
            self.deliverBiased(next, me)
            withExtendedLifetime((replaced, previousState)) {}
            return true
        }
        self.deliverBiased(next, me)
        withExtendedLifetime(previousState) {}
        return true
    }

    /// The rest of `publishBiased` once the state has decided to deliver:
    /// the owner slot taken, the bookkeeping ended, the delivery.
    @inlinable @inline(__always)
    func deliverBiased(_ next: T, _ me: UInt) {
        self.takeOwnerSlot(me)
        let targets = self.subscribers.lend()
        Self.handOffState()
        self.biasBusy.store(0, ordering: .releasing)
        _explore(.mutexUnlocked)
        Self.run(next, over: targets, raw: self.hasRawEntries.load(ordering: .relaxed))
        self.leaveOwnerBiased(me)
    }

    /// Before the store of `biasBusy` 0 that lets a revoking thread in: the
    /// copy of the state taken in the bookkeeping is retained first, as
    /// before the spin lock's unlock (`_sks_handoff`, issue 50: a retain
    /// the optimizer placed after the store, once the other thread could
    /// have replaced and released what it copies). Only a state with
    /// references copies any (a promise's); a pipe's is plain, and pays
    /// nothing. The cached value moves out of its slot (no copy).
    @inlinable @inline(__always)
    static func handOffState() {
        if !_isPOD(State.self) {
            _sks_handoff()
        }
    }

    /// `leaveOwner` after a biased publication: the slot freed with a
    /// store, then the retirements finished if the bias was revoked
    /// meanwhile (see above). A mark made on this thread, from inside its
    /// callbacks, set `ownerQueued` too (`markOwnerSlot`): that leave is
    /// `leaveOwnerQueued`'s, which looks at the mark.
    @inlinable @inline(__always)
    func leaveOwnerBiased(_ me: UInt) {
        if _slowPath(self.ownerQueued) {
            self.leaveOwnerQueued()
            return
        }
        self.owner.store(0, ordering: .releasing)
        _sks_light_fence()
        _explore(.callLeaving)
        if _slowPath(self.bias.load(ordering: .relaxed) != me) {
            self.finishRetirements()
        }
    }

    /// Ends this thread's bias, if the broadcaster is biased to it (a
    /// replay's catch-up handed to a thread of the library: the thread that
    /// delivers the rest registers outside the owner slot). The calling
    /// thread is not inside a biased publication's bookkeeping: no fence.
    @usableFromInline @inline(never)
    func dropBias() {
        self.lock()
        if self.bias.load(ordering: .relaxed) > 1 {
            self.bias.store(1, ordering: .relaxed)
        }
        self.mutex.unlock()
    }
}
