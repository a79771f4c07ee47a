import _SwiftSignalKitShims

/// The subscriptions of a `_Broadcaster`, in the order they were made. Each
/// knows its own slot (`_BroadcasterEntryBase.slot`), so removing one finds it
/// at once: subscribing, delivering to and disposing N subscriptions cost the
/// same per subscription at any N, whatever order they are disposed in.
///
/// A removed subscription leaves a hole (nil) in its slot. Holes at the end go
/// at once (so the last slot, if any, holds a subscription); holes at the
/// start are counted (`head`) and dropped once they are half the array,
/// without touching the subscriptions (their `slot` counts from `base`); the
/// others are squeezed out (the survivors moved down, in order, their `slot`
/// updated) once the holes outnumber the subscriptions. So the array is
/// never more than twice as long as the subscriptions in it. Storage beyond
/// 4,096 slots is given back when the bag shrinks to a quarter of it.
///
/// `slots` is also the delivery snapshot, which a delivery reads and whose
/// holes it skips. The owner slot's delivery (`_Broadcaster.publish`, the
/// thread that delivers without contention) reads the buffer without
/// holding it (`lend`, `lent`): a change made while it may still read it
/// moves the bag to a copy first (O(n)) and keeps the buffer until that
/// delivery is over (`_Broadcaster.detachLentSlots`). Every other delivery
/// holds the array as it was (a copy-on-write copy, no allocation), and a
/// change made while one holds it copies it first (O(n)). A change made in
/// place after the last delivery let go of the buffer is ordered after that
/// delivery's reads by the owner slot's release (the change loads the slot,
/// acquiring, in `_Broadcaster.detachLentSlotsNow`) or, for a held copy, by
/// the runtime's reference count, which ThreadSanitizer cannot see: every
/// change announces itself with `_TSan.acquire` and every delivery of a
/// held copy ends with `_TSan.release` (Support/TSan.swift).
///
/// Thread-safety: guarded by the broadcaster's lock, as is the `slot` of its
/// subscriptions.
/// - Complexity: `add` O(1) amortized; `remove` O(1) amortized, in any order
///   (a squeeze or a drop of the leading holes, O(n), follows at least n/2
///   removals); a snapshot O(1).
@usableFromInline
struct _BroadcasterSubscribers {
    @usableFromInline var slots: [_BroadcasterEntryBase?] = []
    /// The number of subscriptions (slots that are not holes).
    @usableFromInline var count = 0
    /// The leading holes: `slots[..<head]` are nil (0 when the bag is empty).
    @usableFromInline var head = 0
    /// The `slot` of whatever is in `slots[0]`: a subscription is at
    /// `slots[slot - base]`.
    @usableFromInline var base = 0
    /// Whether the buffer of `slots` was lent (`lend`) since the last
    /// change: the owner slot's delivery may read it without holding it
    /// for as long as that slot is taken.
    @usableFromInline var lent = false

    @inlinable
    init() {
    }

    /// Before a change: orders it after the reads of every delivery that
    /// held this buffer (a no-op but under ThreadSanitizer). The buffer is
    /// made unique first (copied if a delivery still holds it, the copy the
    /// change would make anyway), so every delivery that held it has
    /// announced the end of its reads before this acquires them.
    @inlinable
    @inline(__always)
    mutating func willChange() {
        if _sks_tsan_active != 0 {
            self.slots.withUnsafeMutableBufferPointer { slots in
                _TSan.acquire(UnsafeRawPointer(slots.baseAddress))
            }
        }
    }

    /// The buffer of `slots`, read by a delivery without holding it (one
    /// retain and release fewer per publication: two atomic operations);
    /// valid until the next change (see `lent`).
    @inlinable @inline(__always)
    mutating func lend() -> UnsafeBufferPointer<_BroadcasterEntryBase?> {
        self.lent = true
        return self.slots.withUnsafeBufferPointer { $0 }
    }

    @inlinable
    mutating func add(_ entry: _BroadcasterEntryBase) {
        self.willChange()
        entry.slot = self.base + self.slots.count
        self.slots.append(entry)
        self.count += 1
    }

    /// Removes `entry`; false if it was not there (already removed, or the
    /// bag was emptied by `takeAll`). The entry is released here: the caller
    /// holds it.
    @inlinable
    mutating func remove(_ entry: _BroadcasterEntryBase) -> Bool {
        // `slot` is exact while the entry is in a bag, -1 otherwise (and a
        // subscription only ever leaves its own broadcaster's bag).
        if entry.slot < 0 {
            return false
        }
        self.willChange()
        let position = entry.slot - self.base
        assert(position >= 0 && position < self.slots.count && self.slots[position] === entry,
               "a subscription's slot lost track of it")
        entry.slot = -1
        self.count -= 1
        if position == self.slots.count - 1 {
            // The holes before it go too (each hole goes once).
            repeat {
                self.slots.removeLast()
            } while !self.slots.isEmpty && self.slots[self.slots.count - 1] == nil
            if self.slots.isEmpty {
                self.head = 0
            }
        } else {
            self.slots[position] = nil
            if position == self.head {
                // A subscription is left after it, so this stops there.
                repeat {
                    self.head += 1
                } while self.slots[self.head] == nil
            }
        }
        if self.head > 0 && 2 * self.head >= self.slots.count {
            // No more subscriptions are left than holes go: O(1) amortized.
            self.slots.removeFirst(self.head)
            self.base += self.head
            self.head = 0
        }
        if self.slots.count - self.count > self.count {
            self.squeeze()
        } else if self.slots.capacity > _bagKeptCapacity && self.slots.capacity > 4 * self.slots.count {
            self.shrink()
        }
        return true
    }

    /// Empties the bag and returns what it held (holes included).
    @inlinable
    mutating func takeAll() -> [_BroadcasterEntryBase?] {
        self.willChange()
        let slots = self.slots
        self = _BroadcasterSubscribers()
        for case let entry? in slots {
            entry.slot = -1
        }
        return slots
    }

    /// Moves the subscriptions down over the holes, in order.
    @inlinable
    mutating func squeeze() {
        let base = self.base
        let count = self.slots.withUnsafeMutableBufferPointer { slots -> Int in
            var write = 0
            for read in slots.indices {
                guard let entry = slots[read] else {
                    continue
                }
                if write != read {
                    entry.slot = base + write
                    slots.swapAt(write, read)
                }
                write += 1
            }
            return write
        }
        self.slots.removeSubrange(count...)
        self.head = 0
        if self.slots.capacity > _bagKeptCapacity && self.slots.capacity > 4 * self.slots.count {
            self.shrink()
        }
    }

    /// Gives back most of the storage once the bag has shrunk to a quarter
    /// of it (all of it when the bag is empty).
    @inlinable
    mutating func shrink() {
        if self.slots.isEmpty {
            self.slots = []
            return
        }
        var slots: [_BroadcasterEntryBase?] = []
        slots.reserveCapacity(2 * self.slots.count)
        slots.append(contentsOf: self.slots)
        self.slots = slots
    }
}
