#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import _SwiftSignalKitShims

/// The most values a new subscriber's catch-up delivers on the subscribing
/// thread (see `_Broadcaster.catchUp`).
@usableFromInline let _broadcasterCatchUpBudget = 1024

/// The engine shared by `Promise`, `ValuePromise` and `ValuePipe`: a bag of
/// subscriptions, an optional cached value replayed to new subscribers and
/// some owner-defined `State`, all under one lock; subscribers are always
/// called outside it.
///
/// Delivery and ordering:
/// - A value is published (the owner updates the cache) and the subscribers are
///   snapshotted in one critical section; the publishing thread then delivers
///   it. Several threads publishing at once deliver concurrently, as any
///   generator emitting from several threads does (see `Subscriber`): their
///   values may reach a subscriber in either order.
/// - The replay never comes after a newer value (the race the original has): a
///   new subscriber is registered in a "replaying" state in the same critical
///   section that reads the cached value. Values published before it have
///   snapshots without it; values published while its replay is being
///   delivered are kept in its backlog, and the subscribing thread delivers
///   them after the replay, before the subscriber goes live. (This is how
///   RxJava's `BehaviorSubject` does it.) At most 1,024 of them, though:
///   threads publishing faster than the subscriber takes them would keep the
///   subscribing thread there for ever, so past that budget a thread of the
///   library's delivers the rest (`catchUp`, `catchUpElsewhere`).
/// - A value published from inside a callback, on the thread that is
///   delivering, waits until that thread's current delivery is over: every
///   subscriber then receives the values in publication order, and nested
///   publications do not grow the stack. Each thread only ever delivers its own
///   publications (and a new subscriber's backlog), never another thread's.
///
/// A subscription is one object (`_BroadcasterEntry`): the bag's element, the
/// subscriber (its callbacks and their state) and the disposable `start`
/// returns. The owners' signals are fused sources (`Signal.init(fused:)`):
/// starting one creates no `Subscriber`.
///
/// `State` must not be an empty type (`Void`): ThreadSanitizer maps an `inout`
/// access to a zero-sized stored property onto the object's header and then
/// reports a false race with ordinary method calls.
///
/// Inlinable so that it is specialized in the caller's module: run
/// unspecialized, every publication looks up the generic metadata of its
/// helpers at run time (about half the cost of a `ValuePipe.putNext`).
///
/// Thread-safety: every method may be called from any thread. The closures
/// given to `publish`, `withState` and `subscribe` run under the lock and must
/// be library code only; anything they replace (the cached value, parts of the
/// state) is released after the lock is dropped, as are removed subscriptions.
/// - Complexity: subscribing and disposing O(1) amortized, whatever the order
///   of the disposals (see `_BroadcasterSubscribers`); a publication O(1)
///   under the lock (the snapshot is the bag's buffer, lent or shared
///   copy-on-write; O(n) while a subscription's replay is in progress) and
///   O(n) to deliver,
///   n counting the subscriptions and at most as many holes.
@usableFromInline
final class _Broadcaster<T, State>: @unchecked Sendable {
    @usableFromInline typealias Entry = _BroadcasterEntry<T, State>

    @usableFromInline
    struct Delivery {
        @usableFromInline let value: T
        /// The subscriptions when the value was published, with holes (nil)
        /// where some were removed (see `_BroadcasterSubscribers`).
        @usableFromInline let targets: [_BroadcasterEntryBase?]

        @inlinable init(value: T, targets: [_BroadcasterEntryBase?]) {
            self.value = value
            self.targets = targets
        }
    }

    /// A thread that is delivering, with the publications it made from inside
    /// its callbacks, delivered once the current delivery is over.
    @usableFromInline
    struct DeliveringThread {
        /// As `currentThread()`.
        @usableFromInline let thread: UInt
        @usableFromInline var pending: [Delivery]
        /// A terminal event published from inside its callbacks: delivered
        /// after `pending`.
        @usableFromInline var terminalPending = false
        /// The registration's number (see `_BroadcasterRetirement`).
        @usableFromInline let ticket: Int

        @inlinable init(thread: UInt, pending: [Delivery], ticket: Int) {
            self.thread = thread
            self.pending = pending
            self.ticket = ticket
        }
    }

    // Every stored property is guarded by `mutex`, except where noted; the
    // lock orders the accesses, so the runtime's dynamic exclusivity checks
    // (a call per access) are switched off. A spin lock (a compare-and-swap
    // to take it, a plain store to give it back, `sched_yield` while
    // another thread holds it): nothing waits under it and it is held for
    // a few dozen instructions (a subscription's change O(n) only while a
    // delivery reads the bag), and a futex mutex's release is a second
    // atomic read-modify-write a put (an exchange, to see sleepers), ~9 ns
    // of W5s's 47 on the machine of 2026-11-29 (INTERNALS.md, "Locks").
    @usableFromInline let mutex = _SpinLock()
    @exclusivity(unchecked) @usableFromInline var value: T?
    @exclusivity(unchecked) @usableFromInline var state: State
    /// Held as the non-generic base class, so that the removal (which runs
    /// unspecialized when called through `Disposable`) needs no generic
    /// metadata lookup.
    @exclusivity(unchecked) @usableFromInline var subscribers = _BroadcasterSubscribers()
    @exclusivity(unchecked) @usableFromInline var replayingCount = 0
    @exclusivity(unchecked) @usableFromInline var closed = false
    /// The thread that delivers without contention (0 when none): set under
    /// the lock when a thread starts delivering and no other thread is, cleared
    /// by that thread alone (a thread in `deliveringThreads` never takes it,
    /// so that its nested publications keep waiting). Its nested publications go to `ownerPending`,
    /// which only that thread touches while it owns the slot (appended under
    /// the lock, drained without it). Other threads delivering at the same
    /// time use `deliveringThreads`.
    /// Its low bit (`retireBit`) is set by a retirement that waits for it.
    @usableFromInline let owner = Synchronization.Atomic<UInt>(0)
    /// The thread the broadcaster is biased to (`_sks_thread_token()`, see
    /// BroadcasterBias.swift), whose uncontended publications take no
    /// lock: 0 before the first publication, 1 once revoked (or when it
    /// cannot be biased). Written under the lock.
    @usableFromInline let bias = Synchronization.Atomic<UInt>(0)
    /// Set once a subscription with a value callback by address
    /// (`_RawValueCallback`) is added, never cleared: a delivery runs the
    /// loop that can call one (`run(_:over:raw:)`) only then, and the
    /// closures' loop stays as it was. Stored under the lock before the
    /// entry is in the bag; a delivery reads it after taking its snapshot
    /// (under the lock, or in a biased publication, which a subscription
    /// from another thread revokes first).
    @usableFromInline let hasRawEntries = Synchronization.Atomic<Bool>(false)
    /// 1 while the biased thread runs a publication's bookkeeping without
    /// the lock, 0 otherwise; stored by that thread alone.
    @usableFromInline let biasBusy = Synchronization.Atomic<Int>(0)
    /// The number of the last registration of a delivering thread, and the
    /// owner slot's (see `_BroadcasterRetirement`).
    @exclusivity(unchecked) @usableFromInline var tickets = 0
    @exclusivity(unchecked) @usableFromInline var ownerTicket = 0
    /// Subscriptions ended while threads were delivering, in the order they
    /// ended (see `_BroadcasterRetirement`).
    @exclusivity(unchecked) @usableFromInline var retirements: [_BroadcasterRetirement] = []
    @exclusivity(unchecked) @usableFromInline var ownerPending: [Delivery] = []
    @exclusivity(unchecked) @usableFromInline var deliveringThreads: [DeliveringThread] = []
    /// `deliveringThreads.count`, for the code that runs unspecialized (a
    /// dispose, see `retire(_:removing:)`).
    @exclusivity(unchecked) @usableFromInline var deliveringCount = 0
    /// The terminal event of a pipe, once `terminate` has been called
    /// (guarded by `mutex`): later subscribers receive it at once.
    @exclusivity(unchecked) @usableFromInline var terminal: _BroadcasterTerminal?
    /// `terminal != nil`, as a flag that a subscription tests without
    /// copying the event (guarded by `mutex`).
    @exclusivity(unchecked) @usableFromInline var ended = false
    /// Set by the owning thread when it terminated the broadcaster from
    /// inside one of its callbacks: `leaveOwner` delivers the terminal event
    /// after the values queued before it. Only the owning thread touches it.
    @exclusivity(unchecked) @usableFromInline var ownerTerminalPending = false
    /// Set by the owning thread when it queued a value in `ownerPending` or
    /// set `ownerTerminalPending`: what `leaveOwner` tests, one load where
    /// the two were three. Only the owning thread touches it.
    @exclusivity(unchecked) @usableFromInline var ownerQueued = false
    /// The last values kept for replay by a pipe that replays more than
    /// one (`SignalPipe(replayCount:)`, `replay(_:)`), in place of `value`;
    /// nil otherwise. Guarded by `mutex`; set before the broadcaster is
    /// shared.
    @exclusivity(unchecked) @usableFromInline var history: _BroadcasterHistory<T>?
    /// The bound of the queues of values put from inside a delivery, on the
    /// delivering thread (`ownerPending`, `DeliveringThread.pending`), or
    /// nil for none (see `_BroadcasterPendingBound`). Set before the
    /// broadcaster is shared.
    @exclusivity(unchecked) @usableFromInline var pendingBound: _BroadcasterPendingBound<T>?

    @inlinable
    init(value: T?, state: State) {
        self.value = value
        self.state = state
    }

    /// Ends every subscription without an event, and makes later ones end
    /// at once: what a `ValuePipe` does when it goes (its subscriptions can
    /// never be delivered to again). Ending them releases their callbacks
    /// (which may hold the subscriptions' own disposables: a cycle that the
    /// bag would otherwise keep alive). The cached value is dropped too:
    /// signals that outlive the owner still hold the broadcaster.
    @inlinable
    func close() {
        self.lock()
        self.closed = true
        self.detachLentSlots()
        let entries = self.subscribers.takeAll()
        let value = self.value
        self.value = nil
        let history = self.history
        self.history = nil
        self.mutex.unlock()
        withExtendedLifetime((value, history)) {}
        for case let entry? in entries {
            _ = unsafeDowncast(entry, to: Entry.self).end(removing: false)
        }
    }

    /// Runs `body` under the lock with the cached value and the state.
    @inlinable
    func withState<R>(_ body: (inout T?, inout State) -> R) -> R {
        self.lock()
        let previous = (self.value, self.state)
        let result = body(&self.value, &self.state)
        self.mutex.unlock()
        withExtendedLifetime(previous) {}
        return result
    }

    /// Runs `decide` under the lock with the state; then, as it says,
    /// delivers `next` to every current subscriber, and keeps it as the
    /// cached value first if asked to (the value it replaces is released
    /// after the lock is dropped, as is a copy of the state taken before
    /// `decide` ran). Returns after the delivery, unless called from inside a
    /// callback of this broadcaster (then the value is delivered after the
    /// current delivery).
    ///
    /// `next` is delivered borrowed, as the caller passed it: it is copied
    /// only to be cached, or when its delivery has to wait (a publication
    /// from inside a callback, or while another thread delivers). Neither is
    /// the cache copied to be released later unless it is replaced (the
    /// state is: it may hold references).
    @inlinable
    func publish(_ next: T, _ decide: (inout State) -> _BroadcasterPublication) {
        let me = Self.currentThread()
        if self.bias.load(ordering: .relaxed) == me && self.publishBiased(next, decide, me) {
            return
        }
        self.lock()
        let previousState = self.state
        let publication = decide(&self.state)
        if publication == .drop {
            self.mutex.unlock()
            withExtendedLifetime(previousState) {}
            return
        }
        var replaced: T?
        if publication == .cacheAndDeliver {
            replaced = self.cache(next)
        }
        defer {
            withExtendedLifetime((replaced, previousState)) {}
        }
        if self.owner.load(ordering: .acquiring) == 0 && self.deliveringCount == 0 {
            self.takeOwnerSlot(me)
            if _fastPath(self.replayingCount == 0) {
                if _slowPath(self.bias.load(ordering: .relaxed) == 0) {
                    self.takeBias(me)
                }
                // The bag's buffer, read without holding it (see
                // `_BroadcasterSubscribers.lend`).
                let targets = self.subscribers.lend()
                self.mutex.unlock()
                Self.run(next, over: targets, raw: self.hasRawEntries.load(ordering: .relaxed))
            } else {
                let targets = self.targetsWhileReplaying(for: next)
                self.mutex.unlock()
                Self.run(next, to: targets, raw: self.hasRawEntries.load(ordering: .relaxed))
            }
            self.leaveOwner()
            return
        }
        self.publishContended(next, self.targets(for: next), me)
    }

    /// Keeps `next` for replay (a `.cacheAndDeliver` publication, under the
    /// lock or in a biased publication's bookkeeping): in the history, or
    /// as the cached value. Returns what it replaced, for the caller to
    /// release after the lock.
    @inlinable @inline(__always)
    func cache(_ next: T) -> T? {
        if let history = self.history {
            return history.append(next)
        }
        var replaced: T? = next
        swap(&replaced, &self.value)
        return replaced
    }

    /// The rest of `publish`, under the lock, when a thread is delivering
    /// already: this one (a value published from inside a callback waits
    /// for the current delivery, `queueNested`) or another (this thread
    /// delivers beside it, registered in `deliveringThreads`). Specialized
    /// in the caller but never inlined, so that `publish` stays small enough
    /// to be inlined into its callers (with this path inlined, it was not:
    /// about 47 instructions more per value in the Swift cost rows).
    @inlinable @inline(never)
    func publishContended(_ next: T, _ targets: [_BroadcasterEntryBase?], _ me: UInt) {
        if self.ownerThread == me {
            self.queueNested(-1, Delivery(value: next, targets: targets))
            return
        }
        if let index = self.deliveringThreads.firstIndex(where: { $0.thread == me }) {
            self.queueNested(index, Delivery(value: next, targets: targets))
            return
        }
        self.tickets &+= 1
        self.deliveringThreads.append(DeliveringThread(thread: me, pending: [], ticket: self.tickets))
        self.deliveringCount += 1
        self.mutex.unlock()
        Self.run(next, to: targets, raw: self.hasRawEntries.load(ordering: .relaxed))
        self.leaveDelivering()
    }

    /// Registers a subscription (what a fused start of the owner's signal
    /// does: see `Signal.init(fused:)`), after running `body` under the same
    /// lock, and delivers the cached value to it, if there is one, followed by
    /// the values published meanwhile, before returning. Returns the
    /// subscription (its disposable) and the result of `body`.
    ///
    /// The value callback is the one `makeNext` builds; `error` and
    /// `completed` are never called (a broadcaster never terminates its
    /// subscriptions with an event), only held until the subscription ends.
    /// The subscription holds the broadcaster, and `keepAlive` (the owner of
    /// a promise, whose subscribers keep it alive) until it is disposed. After
    /// `close`, nothing is registered (the callbacks are released at once).
    @inlinable
    func subscribe<E, R>(_ makeNext: (_SubscriberLiveness) -> ((T) -> Void)?, error: ((E) -> Void)?, completed: (() -> Void)?, keepAlive: AnyObject?, _ body: (inout T?, inout State) -> R) -> (any Disposable, R) {
        var held: AnyObject?
        if error != nil || completed != nil {
            held = _BroadcasterHeldCallbacks(keepAlive: keepAlive, error: error, completed: completed)
        } else if keepAlive != nil {
            held = _BroadcasterHeld(keepAlive: keepAlive)
        }
        return self.subscribe(makeNext, held: held, body)
    }

    /// `subscribe(_:error:completed:keepAlive:_:)` with what the subscription
    /// holds until it ends given whole: `held`, a `_BroadcasterHeld` or a
    /// `_BroadcasterTerminalReceiver` (a caller's own object that takes the
    /// callbacks' place, so that none is made for them), receives the
    /// terminal event.
    @inlinable
    func subscribe<R>(_ makeNext: (_SubscriberLiveness) -> ((T) -> Void)?, held: AnyObject?, _ body: (inout T?, inout State) -> R) -> (any Disposable, R) {
        let entry = Entry(owner: self, held: held)
        entry.next = _BorrowedCallback(makeNext(_SubscriberLiveness(entry)))
        return self.subscribe(entry, body)
    }

    /// `subscribe(_:held:_:)` with a value callback by address (see
    /// `_RawValueCallback`): no stages, no closure. `held` is also kept
    /// until the last call has returned (`_BroadcasterRawEntry`).
    @inlinable
    func subscribe<R>(raw callback: _RawValueCallback, held: AnyObject, _ body: (inout T?, inout State) -> R) -> (any Disposable, R) {
        return self.subscribe(_BroadcasterRawEntry(owner: self, held: held, raw: callback), body)
    }

    /// Publishes `entry` (made, not yet published) and replays to it.
    @inlinable
    func subscribe<R>(_ entry: Entry, _ body: (inout T?, inout State) -> R) -> (any Disposable, R) {
        self.lock()
        if entry.state.load(ordering: .relaxed) & _BroadcasterEntryBase.rawCallbackFlag != 0 {
            self.hasRawEntries.store(true, ordering: .relaxed)
        }
        let previous = (self.value, self.state)
        let result = body(&self.value, &self.state)
        if self.closed {
            self.mutex.unlock()
            withExtendedLifetime(previous) {}
            _ = entry.end(removing: false)
            return (EmptyDisposable, result)
        }
        if self.ended {
            self.mutex.unlock()
            withExtendedLifetime(previous) {}
            self.subscribeAfterEnd(entry)
            return (EmptyDisposable, result)
        }
        self.detachLentSlots()
        self.subscribers.add(entry)
        // Nothing to replay (the common case): one test of each.
        guard self.value != nil || self.history != nil else {
            self.mutex.unlock()
            withExtendedLifetime(previous) {}
            return (entry, result)
        }
        let current = self.value
        let history = self.history?.values
        guard current != nil || !(history?.isEmpty ?? true) else {
            self.mutex.unlock()
            withExtendedLifetime(previous) {}
            return (entry, result)
        }
        entry.backlog = _BroadcasterBacklog()
        self.replayingCount += 1
        let role = self.registerDelivery(Self.currentThread())
        self.mutex.unlock()
        withExtendedLifetime(previous) {}

        if let current {
            entry.deliver(current)
        }
        if let history {
            for value in history {
                entry.deliver(value)
            }
        }
        var caughtUp = self.catchUp(entry, budget: _broadcasterCatchUpBudget)
        if case .handedOff = caughtUp, !Self.libraryThreadsCanRun() {
            // The rest cannot go to a thread of the library's: the subscribing
            // thread delivers it, for as long as it takes (as before the
            // budget).
            caughtUp = self.catchUp(entry, budget: Int.max)
        }
        if case .handedOff = caughtUp {
            // Before the slot is freed: see `publishBiased`.
            self.dropBias()
        }
        self.unregisterDelivery(role)
        switch caughtUp {
        case .live(let terminal?):
            entry.terminate(terminal)
        case .live(nil):
            break
        case .handedOff:
            self.catchUpElsewhere(entry)
        }
        return (entry, result)
    }

    /// What `catchUp` did: the subscription went live (with the terminal
    /// event that came meanwhile, to deliver now), or values are still
    /// waiting after the budget.
    @usableFromInline
    enum CatchUp {
        case live(_BroadcasterTerminal?)
        case handedOff
    }

    /// Delivers the values published while `entry`'s replay was delivered
    /// (its backlog), batch by batch, in order, until none is left, then
    /// makes it live. With threads publishing faster than it delivers, that
    /// never happens: so it delivers at most `budget` values, and returns
    /// `.handedOff` with the rest still in the backlog (the subscription
    /// still replaying, values published meanwhile joining the backlog), for
    /// `catchUpElsewhere`. The calling thread is registered as delivering.
    @inlinable
    func catchUp(_ entry: Entry, budget: Int) -> CatchUp {
        #if SIGNALKIT_PLANT_WAIT_FOREVER
        // A planted bug (make explore-watchdog-check): the catch-up waits
        // for the putters to leave the backlog empty, which they never do
        // while they put: the progress watchdog must fail it.
        while true {
            self.lock()
            let waiting = !(entry.backlog?.values.isEmpty ?? true)
            self.mutex.unlock()
            if !waiting {
                break
            }
            sched_yield()
        }
        #endif
        var left = budget
        while true {
            self.lock()
            let box = entry.backlog
            let backlog = box?.values ?? []
            if backlog.isEmpty {
                let terminal = box?.terminal
                entry.backlog = nil
                self.replayingCount -= 1
                self.mutex.unlock()
                withExtendedLifetime(box) {}
                return .live(terminal)
            }
            if left == 0 {
                self.mutex.unlock()
                return .handedOff
            }
            var batch = backlog
            if backlog.count > left {
                batch = Array(backlog[..<left])
                box?.values = Array(backlog[left...])
            } else {
                box?.values = []
            }
            left -= batch.count
            self.mutex.unlock()
            for value in batch {
                entry.deliver(value)
            }
        }
    }

    /// Whether a thread of the default concurrent queue can run: its first
    /// worker needs libdispatch's event loop, whose descriptors libdispatch
    /// makes then and, refused them (RLIMIT_NOFILE), stops the process with
    /// an illegal instruction (an acceptance program's catch-up handed off
    /// with the descriptors exhausted). `Queue.prepareTimers` makes the loop
    /// ready once, or says it cannot; off the path of values (a hand-off
    /// only).
    @usableFromInline @inline(never)
    static func libraryThreadsCanRun() -> Bool {
        do {
            try Queue.prepareTimers()
            return true
        } catch {
            return false
        }
    }

    /// The rest of a catch-up that outran its budget, on a thread of the
    /// library's (the default concurrent queue), so that `subscribe` returns
    /// after a bounded amount of work whatever the other threads do: there
    /// the backlog is delivered until none is left, in order, each value
    /// once, then the subscription goes live (docs/concepts.md, "Where a
    /// call can wait"). The job holds the broadcaster and the entry.
    /// `justDispatch`, not `async`: a subscribing thread that is itself a
    /// worker of that queue would otherwise run the job inline.
    @inlinable @inline(never)
    func catchUpElsewhere(_ entry: Entry) {
        Queue.concurrentDefaultQueue().justDispatch {
            self.lock()
            let role = self.registerDelivery(Self.currentThread())
            self.mutex.unlock()
            let caughtUp = self.catchUp(entry, budget: Int.max)
            self.unregisterDelivery(role)
            if case .live(let terminal?) = caughtUp {
                entry.terminate(terminal)
            }
        }
    }

    /// The current thread as a word: never 0, a multiple of 8 (the owner
    /// slot's `retireBit` is its low bit), without a call
    /// (`_sks_thread_token`).
    @inlinable
    static func currentThread() -> UInt {
        return UInt(_sks_thread_token())
    }

    /// The subscribers to deliver `value` to (the bag's array as it is: a
    /// copy-on-write copy, holes included); a subscriber whose replay is
    /// being delivered gets it in its backlog instead. Called under the lock.
    ///
    /// Always inlined, as `run`: the C layer's `sk_pipe_put` called both out
    /// of line (the optimizer's choice across the module boundary), about 60
    /// instructions more per put than the Swift API's inlined path. The
    /// replaying case stays out of line (`targetsWhileReplaying`).
    @inlinable @inline(__always)
    func targets(for value: T) -> [_BroadcasterEntryBase?] {
        if self.replayingCount == 0 {
            return self.subscribers.slots
        }
        return self.targetsWhileReplaying(for: value)
    }

    /// `targets(for:)` while a subscriber's replay is being delivered.
    /// Called under the lock.
    @inlinable @inline(never)
    func targetsWhileReplaying(for value: T) -> [_BroadcasterEntryBase?] {
        let all = self.subscribers.slots
        var targets: [_BroadcasterEntryBase?] = []
        targets.reserveCapacity(self.subscribers.count)
        for case let entry? in all {
            if let backlog = unsafeDowncast(entry, to: Entry.self).backlog {
                backlog.values.append(value)
            } else {
                targets.append(entry)
            }
        }
        return targets
    }

    /// Delivers what the owning thread queued from inside its callbacks, until
    /// nothing is left, then frees the slot. Called by the owning thread only.
    /// Nothing queued (the common case) is two loads and the store, inlined;
    /// the rest is `leaveOwnerQueued`.
    @inlinable @inline(__always)
    func leaveOwner() {
        if _fastPath(!self.ownerQueued) {
            self.releaseOwnerSlot()
            return
        }
        self.leaveOwnerQueued()
    }

    /// `leaveOwner` when the owning thread queued values or the terminal
    /// event from inside its callbacks.
    @inlinable @inline(never)
    func leaveOwnerQueued() {
        // What the callbacks of the deliveries below queue is found by the
        // loop itself (the flag is only `leaveOwner`'s way in here).
        self.ownerQueued = false
        while !self.ownerPending.isEmpty {
            self.lock()
            let pending = self.ownerPending
            self.ownerPending = []
            self.mutex.unlock()
            for delivery in pending {
                Self.run(delivery.value, to: delivery.targets, raw: self.hasRawEntries.load(ordering: .relaxed))
            }
        }
        if self.ownerTerminalPending {
            self.ownerTerminalPending = false
            self.releaseOwnerSlot()
            self.deliverTerminal()
            return
        }
        self.releaseOwnerSlot()
    }

    /// Marks the current thread as delivering (in the list of the threads
    /// other than the owner) and returns false; returns true if it already
    /// is (a subscription made from inside a callback: its replay waits
    /// like a nested publication, which `publishContended` queues through
    /// `queueNested`). Called under the lock.
    ///
    /// Inlinable (specialized in the caller) as the rest of the delivery
    /// path. Run unspecialized (generic code over the array of generic
    /// `DeliveringThread`s), it and `leaveDelivering` cost about one heap
    /// allocation per contended publication (Benchmarks' W9 from two
    /// threads: 0.06-0.09 allocations per delivery, Swift and C API);
    /// specialized, none.
    @inlinable
    func enterDelivering() -> Bool {
        let me = Self.currentThread()
        if self.deliveringThreads.contains(where: { $0.thread == me }) {
            return true
        }
        self.tickets &+= 1
        self.deliveringThreads.append(DeliveringThread(thread: me, pending: [], ticket: self.tickets))
        self.deliveringCount += 1
        return false
    }

    /// Delivers what the current thread queued from inside its callbacks,
    /// until nothing is left, then marks it as no longer delivering.
    /// Inlinable for the reason `enterDelivering` is.
    @inlinable
    func leaveDelivering() {
        let me = Self.currentThread()
        while true {
            self.lock()
            guard let i = self.deliveringThreads.firstIndex(where: { $0.thread == me }) else {
                self.mutex.unlock()
                return
            }
            let pending = self.deliveringThreads[i].pending
            if pending.isEmpty {
                let terminal = self.deliveringThreads[i].terminalPending
                self.deliveringThreads.remove(at: i)
                self.deliveringCount -= 1
                let ready = self.takeReadyRetirements()
                self.mutex.unlock()
                for retirement in ready {
                    retirement.finish()
                }
                if terminal {
                    self.deliverTerminal()
                }
                return
            }
            self.deliveringThreads[i].pending = []
            self.mutex.unlock()
            for delivery in pending {
                Self.run(delivery.value, to: delivery.targets, raw: self.hasRawEntries.load(ordering: .relaxed))
            }
        }
    }

    /// Delivers `value` to `targets` (a snapshot of the subscriptions).
    /// Always inlined (see `targets(for:)`).
    @inlinable @inline(__always)
    static func run(_ value: T, to targets: [_BroadcasterEntryBase?], raw: Bool) {
        targets.withUnsafeBufferPointer { targets in
            Self.run(value, over: targets, raw: raw)
            // The reads of the snapshot end here (see _BroadcasterSubscribers).
            _TSan.release(UnsafeRawPointer(targets.baseAddress))
        }
    }

    /// Delivers `value` to the subscriptions in `targets`, a buffer of the
    /// bag's that nothing changes or frees during the delivery (a snapshot
    /// held, or the bag's buffer lent to the owner slot's delivery: no
    /// annotation for ThreadSanitizer, which sees the owner slot's release
    /// and the acquiring load of the change that follows).
    /// With `raw` (the broadcaster `hasRawEntries`), the loop that can call
    /// a callback by address, given the value's address taken once; else
    /// the closures' loop alone.
    @inlinable @inline(__always)
    static func run(_ value: T, over targets: UnsafeBufferPointer<_BroadcasterEntryBase?>, raw: Bool) {
        // The buffer holds every target for the whole delivery: each is
        // used at +0, without a retain and release per subscription. Holes
        // (nil) are subscriptions removed before the value was published.
        if _fastPath(!raw) {
            for index in targets.indices where targets[index] != nil {
                Unmanaged.passUnretained(targets[index].unsafelyUnwrapped)._withUnsafeGuaranteedRef { entry in
                    unsafeDowncast(entry, to: Entry.self).deliverToClosure(value)
                }
            }
            return
        }
        // The value's address, taken without the stack check a plain
        // `withUnsafePointer` brings (a guard word stored and compared in
        // every publication the loop is inlined into), borrowed: no copy.
        _withUnprotectedUnsafePointer(to: value) { address in
            for index in targets.indices where targets[index] != nil {
                Unmanaged.passUnretained(targets[index].unsafelyUnwrapped)._withUnsafeGuaranteedRef { entry in
                    unsafeDowncast(entry, to: Entry.self).deliver(value, at: address)
                }
            }
        }
    }
}
