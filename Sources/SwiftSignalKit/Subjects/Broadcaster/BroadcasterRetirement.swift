import Synchronization

/// How a subscription that a broadcaster retires ends, besides the release
/// of its value callback: its terminal event given to what it held
/// (`terminal` and `held`), or `deliver` in its place (a failing fused
/// stage's), or neither (a dispose, or a subscription that held nothing).
/// `held` is released with it.
///
/// Thread-safety: a value, moved between threads under the broadcaster's
/// lock.
@usableFromInline
struct _BroadcasterEnding {
    @usableFromInline var terminal: _BroadcasterTerminal?
    @usableFromInline var held: AnyObject?
    @usableFromInline var deliver: (() -> Void)?

    @inlinable
    init(terminal: _BroadcasterTerminal?, held: AnyObject?, deliver: (() -> Void)?) {
        self.terminal = terminal
        self.held = held
        self.deliver = deliver
    }

    /// Runs the terminal event, if any (no lock is held). `deliver` runs as
    /// a subscriber's terminal callback does (`_TerminalDelivery`), so that
    /// an operator upstream that code it runs puts into (a meta operator
    /// behind a `share`) sees the subscription ended (`Subscriber.isEnded`)
    /// and starts nothing for it.
    @inlinable
    func run() {
        if let deliver = self.deliver {
            _TerminalDelivery.begin()
            deliver()
            _TerminalDelivery.end()
        } else if let terminal = self.terminal, let held = self.held {
            _BroadcasterHeld.deliver(terminal, to: held)
        }
    }
}

/// A subscription that has ended while threads were delivering (values of
/// its broadcaster, any of which may be calling it): its terminal event
/// and the release of its value callback wait until they have all returned.
///
/// The scheme. A value call into a subscription (`_BroadcasterEntry.deliver`)
/// writes nothing shared: it loads the state word's `terminatedFlag` and
/// calls. What keeps the callback alive for the call, and orders a terminal
/// event after it, is the delivering thread's registration with the
/// broadcaster: every thread that delivers does so between a registration
/// made under the broadcaster's lock (the owner slot, `owner` and
/// `ownerTicket`, or an element of `deliveringThreads`), each numbered by
/// `tickets`, and its end. A thread that ends a subscription sets its flag
/// first, then, under the lock, takes it out of the bag (so no later
/// snapshot holds it) and looks at the registrations: none, and it finishes
/// the subscription at once (terminal event, then the release), on its own
/// thread; otherwise it leaves a retirement numbered with the last ticket
/// given, and the thread whose leaving makes every registration up to that
/// number gone finishes it. A registration made later cannot call the
/// subscription: its snapshot was taken after the removal (and one taken
/// before, queued for a thread still delivering, is delivered within that
/// thread's registration). A registration made earlier either loaded the
/// flag before it was set, and is waited for, or sees it.
///
/// So a value call costs no atomic write per subscription (a fan-out to
/// 1,000 subscribers made 2,000 atomic read-modify-writes per value before,
/// `_InFlightCalls` per entry); the owner slot's release became one
/// exchange per value (it was a store) so that a retirement can mark it
/// (`_Broadcaster.retireBit`) and its thread finishes what it leaves ready.
/// Newer registrations never hold back an older retirement: a stream of
/// deliveries that overlap cannot starve it. A callback that disposes its
/// own subscription is inside its thread's registration: the release waits
/// for it to return.
///
/// A retirement may also keep a buffer of the bag that the owner slot's
/// delivery reads without holding it, when the bag changed during that
/// delivery (`_Broadcaster.detachLentSlots`): released when it is finished.
///
/// Thread-safety: guarded by the broadcaster's lock.
@usableFromInline
struct _BroadcasterRetirement {
    /// The last ticket given when the subscription ended: every
    /// registration numbered up to it must have ended first.
    @usableFromInline let ticket: Int
    /// The subscription (nil for a kept buffer).
    @usableFromInline let entry: _BroadcasterEntryBase?
    @usableFromInline var ending: _BroadcasterEnding?
    /// The buffer kept (nil for a subscription).
    @usableFromInline let slots: [_BroadcasterEntryBase?]?

    @inlinable
    init(ticket: Int, entry: _BroadcasterEntryBase, ending: _BroadcasterEnding?) {
        self.ticket = ticket
        self.entry = entry
        self.ending = ending
        self.slots = nil
    }

    @inlinable
    init(ticket: Int, keeping slots: [_BroadcasterEntryBase?]) {
        self.ticket = ticket
        self.entry = nil
        self.ending = nil
        self.slots = slots
    }

    /// The terminal event, then the release (no lock is held); a kept
    /// buffer goes with the retirement. The subscription's fused stages
    /// let no value through once the event is delivered (`valuesEndedFlag`,
    /// unless a stateful stage holds it: `markValuesEndedUnlessHeld`): the
    /// values the threads delivering had taken in went through before.
    @inlinable
    func finish() {
        self.ending?.run()
        self.entry?.markValuesEndedUnlessHeld()
        self.entry?.releaseCallback()
    }
}

extension _Broadcaster {
    /// The bit of `owner` that a retirement sets while the owning thread
    /// delivers: the thread finishes what is ready when it leaves. (A
    /// thread's word is an aligned address: its low bit is free.)
    @inlinable
    static var retireBit: UInt { 1 }

    /// The owning thread, without the retirement bit.
    @inlinable
    var ownerThread: UInt {
        return self.owner.load(ordering: .acquiring) & ~Self.retireBit
    }

    /// Takes the owner slot for this thread (`me`), with a new ticket.
    /// Called under the lock, when the slot is free.
    @inlinable @inline(__always)
    func takeOwnerSlot(_ me: UInt) {
        self.tickets &+= 1
        self.ownerTicket = self.tickets
        self.owner.store(me, ordering: .relaxed)
    }

    /// Marks the owner slot held by `owner` (its word as loaded, unmarked)
    /// for a retirement that waits for it (called under the lock): false
    /// when it was freed meanwhile. Marked from inside the owning thread's
    /// own callbacks, that thread's leave also finds `ownerQueued` set: a
    /// biased publication frees the slot with a store that does not look
    /// at the mark (`leaveOwnerBiased`).
    @inlinable
    func markOwnerSlot(_ owner: UInt) -> Bool {
        if !self.owner.compareExchange(expected: owner, desired: owner | Self.retireBit, ordering: .acquiringAndReleasing).exchanged {
            return false
        }
        if owner == Self.currentThread() {
            self.ownerQueued = true
        }
        return true
    }

    /// Frees the owner slot (the owning thread only), and finishes the
    /// retirements it held back, if a retirement marked it.
    @inlinable @inline(__always)
    func releaseOwnerSlot() {
        if _slowPath(self.owner.exchange(0, ordering: .acquiringAndReleasing) & Self.retireBit != 0) {
            self.finishRetirements()
        }
    }

    /// Registers the current thread (`me`) as delivering, for a replay:
    /// returns 0 when it already is (a subscription made from inside a
    /// callback), 1 when it took the owner slot, 2 when it joined
    /// `deliveringThreads`. End it with `unregisterDelivery`. Called under
    /// the lock.
    @inlinable
    func registerDelivery(_ me: UInt) -> Int {
        let owner = self.ownerThread
        if owner == 0 && self.deliveringThreads.isEmpty {
            self.takeOwnerSlot(me)
            return 1
        }
        if owner == me {
            return 0
        }
        return self.enterDelivering() ? 0 : 2
    }

    /// Ends a registration that `registerDelivery` returned (the lock is
    /// not held).
    @inlinable
    func unregisterDelivery(_ role: Int) {
        if role == 1 {
            self.leaveOwner()
        } else if role == 2 {
            self.leaveDelivering()
        }
    }

    /// Ends `entry` (its flag already set by the caller, which also took
    /// what it held into `ending`): takes it out of the bag when
    /// `removing`, then finishes it (its terminal event, then the release
    /// of its value callback) at once when no thread is delivering, else
    /// leaves it for the last of those that are (see
    /// `_BroadcasterRetirement`). A dispose that came since drops the
    /// terminal event (`_InFlightCalls.droppedFlag`).
    @inlinable
    func retire(_ entry: Entry, removing: Bool, ending: _BroadcasterEnding) {
        var ending = ending
        self.lock()
        if removing {
            self.detachLentSlots()
            // The caller holds the entry: the bag's release of it frees nothing.
            _ = self.subscribers.remove(entry)
        }
        if entry.state.load(ordering: .relaxed) & _InFlightCalls.droppedFlag != 0 {
            ending.terminal = nil
            ending.deliver = nil
        }
        if self.owner.load(ordering: .acquiring) != 0 || self.deliveringCount != 0 {
            self.deferRetirement(_BroadcasterRetirement(ticket: self.tickets, entry: entry, ending: ending))
            return
        }
        self.mutex.unlock()
        ending.run()
        entry.markValuesEndedUnlessHeld()
        entry.releaseCallback()
    }

    /// `retire` without a terminal event (a dispose): kept apart, and free
    /// of the generic array of delivering threads (`deliveringCount` says
    /// whether there are any), because a dispose through `Disposable` runs
    /// unspecialized, where each generic type it touched cost a metadata
    /// lookup (about 900 instructions per C W2 cycle).
    @inlinable
    func retire(_ entry: _BroadcasterEntryBase, removing: Bool) {
        self.lock()
        if removing {
            self.detachLentSlots()
            // The caller holds the entry: the bag's release of it frees nothing.
            _ = self.subscribers.remove(entry)
        }
        if _slowPath(self.owner.load(ordering: .acquiring) != 0 || self.deliveringCount != 0) {
            self.deferRetirement(_BroadcasterRetirement(ticket: self.tickets, entry: entry, ending: nil))
            return
        }
        self.mutex.unlock()
        entry.releaseCallback()
    }

    /// Before a change to the bag (under the lock): if its buffer was lent
    /// to the owner slot's delivery (`_BroadcasterSubscribers.lend`) and
    /// the slot is still taken, that delivery may be reading it: the bag
    /// moves to a copy, and the buffer is kept by a retirement until the
    /// registrations made up to now have ended. Once the slot has been
    /// freed, the delivery's reads are over (they came before the slot's
    /// exchange): the change is made in place.
    @inlinable @inline(__always)
    func detachLentSlots() {
        if _slowPath(self.subscribers.lent) {
            self.detachLentSlotsNow()
        }
    }

    /// `detachLentSlots` when the buffer was lent. Out of line: a change
    /// during the owner slot's delivery is off the path of values.
    @usableFromInline @inline(never)
    func detachLentSlotsNow() {
        self.subscribers.lent = false
        let owner = self.owner.load(ordering: .acquiring)
        if owner == 0 {
            return
        }
        let kept = self.subscribers.slots
        var copy: [_BroadcasterEntryBase?] = []
        copy.reserveCapacity(kept.capacity)
        copy.append(contentsOf: kept)
        self.subscribers.slots = copy
        // (A build with SIGNALKIT_PLANT_RECLAIM_BUG, planted to measure the
        // schedule explorer, `make explore-measure`, keeps nothing: the lent
        // buffer is freed here while the owner slot's delivery may still
        // read it.)
        #if !SIGNALKIT_PLANT_RECLAIM_BUG
        // The slot marked, so that its thread looks at the retirements when
        // it leaves. Freed meanwhile (unmarked), the delivery is over:
        // `kept` goes here, with nothing of its own (the copy holds every
        // subscription it holds).
        if owner & Self.retireBit == 0 && !self.markOwnerSlot(owner) {
            return
        }
        self.retirements.append(_BroadcasterRetirement(ticket: self.tickets, keeping: kept))
        #endif
    }

    /// `retire` while threads are delivering: keeps the retirement (and
    /// finishes what is ready, should the owner slot have been freed since
    /// it was looked at); then unlocks. Out of line: off the path of values
    /// and of subscriptions.
    @inlinable @inline(never)
    func deferRetirement(_ retirement: _BroadcasterRetirement) {
        self.retirements.append(retirement)
        let ready = self.takeReadyRetirements()
        self.mutex.unlock()
        for retirement in ready {
            retirement.finish()
        }
    }

    /// Takes the retirements that no registration holds back any more
    /// (each waits for the registrations numbered up to its ticket), and
    /// marks the owner slot (`retireBit`) when some remain while a thread
    /// holds it, so that its thread looks again when it leaves. Called
    /// under the lock: the slot cannot be taken meanwhile, only freed (its
    /// thread exchanges it without the lock), which the marking sees: the
    /// readiness is then worked out again without it.
    @inlinable
    func takeReadyRetirements() -> [_BroadcasterRetirement] {
        if self.retirements.isEmpty {
            return []
        }
        while true {
            let owner = self.owner.load(ordering: .acquiring)
            var oldest = owner != 0 ? self.ownerTicket : Int.max
            for thread in self.deliveringThreads where thread.ticket < oldest {
                oldest = thread.ticket
            }
            var ready = 0
            while ready < self.retirements.count && self.retirements[ready].ticket < oldest {
                ready += 1
            }
            if ready < self.retirements.count && owner != 0 && owner & Self.retireBit == 0 {
                if !self.markOwnerSlot(owner) {
                    // Freed meanwhile, unmarked: its thread will not look.
                    continue
                }
            }
            if ready == 0 {
                return []
            }
            let taken = Array(self.retirements[..<ready])
            self.retirements.removeFirst(ready)
            return taken
        }
    }

    /// Finishes the retirements that are ready (the owner slot's thread,
    /// after freeing it).
    @usableFromInline @inline(never)
    func finishRetirements() {
        self.lock()
        let ready = self.takeReadyRetirements()
        self.mutex.unlock()
        for retirement in ready {
            retirement.finish()
        }
    }

    /// After a call into `entry` that found it ended when it returned: its
    /// retirement, if it waits only for the calling thread's registration,
    /// is finished now, on this thread, rather than when the registration
    /// ends (after the rest of the delivery). This thread will not call the
    /// entry again (it saw the flag), and is inside no other call into it:
    /// a thread delivers a broadcaster's values one at a time (a value
    /// published from a callback waits, see `queueNested`), and the only
    /// call it makes from inside one is a new subscription's replay. So a
    /// callback that ends its own subscription (a failing fused stage)
    /// has its terminal event delivered before the value goes on to the
    /// next subscriber, as when each subscription counted its own calls.
    @usableFromInline @inline(never)
    func endedDuringCall(_ entry: Entry) {
        let me = Self.currentThread()
        self.lock()
        guard let index = self.retirements.firstIndex(where: { $0.entry === entry }) else {
            self.mutex.unlock()
            return
        }
        let ticket = self.retirements[index].ticket
        let owner = self.ownerThread
        if owner != 0 && owner != me && self.ownerTicket <= ticket {
            self.mutex.unlock()
            return
        }
        for thread in self.deliveringThreads where thread.thread != me && thread.ticket <= ticket {
            self.mutex.unlock()
            return
        }
        let retirement = self.retirements.remove(at: index)
        self.mutex.unlock()
        retirement.finish()
    }

    /// For a dispose of a subscription already ended with a terminal event:
    /// drops the event if it still waits for the threads delivering
    /// (nothing starts after a dispose on its thread). What it held is
    /// released here, outside the lock.
    @usableFromInline @inline(never)
    func dropEnding(of entry: Entry) {
        var dropped: _BroadcasterEnding?
        self.lock()
        for index in self.retirements.indices where self.retirements[index].entry === entry {
            dropped = self.retirements[index].ending
            self.retirements[index].ending = nil
        }
        self.mutex.unlock()
        withExtendedLifetime(dropped) {}
    }
}
