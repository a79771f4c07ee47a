import Synchronization

/// The guard that `Subscriber` puts around calls into its callbacks (a
/// pipe's `_BroadcasterEntry` counts none: its broadcaster's registrations
/// do that work, see `_BroadcasterRetirement`), on a state word: the low bits count the calls in flight,
/// `terminatedFlag` says no call may start any more, `pendingFlag` says a
/// terminal event waits for the calls in flight, and `releasedFlag` is set
/// by the one thread that then releases the callbacks, once no call is in
/// flight. No lock: a call costs an atomic increment and a decrement (a
/// subscriber's calls on the thread they are biased to, none: they are
/// counted here once a termination revokes the bias, see
/// `Subscriber.withValueCall`). Bits 59
/// and 60 are left for the owner's own flags.
///
/// The terminal event is ordered after every value call (the conventions'
/// "Callbacks" rule in signalkit.h): the thread that terminates registers
/// a call of its own (`beginTermination`); when no other call is in flight
/// it delivers the event at once. Otherwise it leaves the event with the
/// owner and sets `pendingFlag` (`deferTerminal`), and the thread whose call
/// then brings the count to zero wins the delivery in `leave` (the claim
/// clears the flag and registers the delivery as a call), delivers the event
/// and only then lets the callbacks be released. No thread waits: the last
/// one out delivers. A dispose that finds the event still pending drops it
/// (`cancelPending`): nothing starts after a dispose on its thread.
///
/// Thread-safety: every function may be called from any thread, on the same
/// word, concurrently.
@usableFromInline
enum _InFlightCalls {
    @usableFromInline static var terminatedFlag: Int { 1 << 62 }
    @usableFromInline static var releasedFlag: Int { 1 << 61 }
    @usableFromInline static var pendingFlag: Int { 1 << 58 }
    /// Set by a dispose that came after the termination began: a terminal
    /// event not yet pending never becomes so (`deferTerminal`).
    @usableFromInline static var droppedFlag: Int { 1 << 57 }
    @usableFromInline static var countMask: Int { (1 << 57) - 1 }

    /// Registers a call; returns whether it may run (the word was not
    /// terminated). Every `enter` is followed by one `leave`.
    @inlinable @inline(__always)
    static func enter(_ state: borrowing Synchronization.Atomic<Int>) -> Bool {
        let entered = state.wrappingAdd(1, ordering: .acquiring).oldValue & terminatedFlag == 0
        _explore(.callEntered)
        return entered
    }

    /// Ends a call. Returns the word as it was when this thread won a claim
    /// (see `claim`: the delivery of a pending terminal event, or the
    /// release), or nil.
    @inlinable @inline(__always)
    static func leave(_ state: borrowing Synchronization.Atomic<Int>) -> Int? {
        _explore(.callLeaving)
        let current = state.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue
        if current & terminatedFlag == 0 {
            return nil
        }
        return claim(state, observed: current)
    }

    /// Marks the word terminated and registers the terminating call. Returns
    /// the word before, or nil when it was already terminated (another
    /// thread won: nothing to do).
    @inlinable
    static func beginTermination(_ state: borrowing Synchronization.Atomic<Int>) -> Int? {
        var current = state.load(ordering: .relaxed)
        while true {
            if current & terminatedFlag != 0 {
                return nil
            }
            // Sequentially consistent: a subscriber's bias of its calls
            // relies on it (`Subscriber.acquireCallBias`).
            let (exchanged, original) = state.compareExchange(expected: current, desired: (current | terminatedFlag) + 1, ordering: .sequentiallyConsistent)
            if exchanged {
                return current
            }
            current = original
        }
    }

    /// For the terminating thread, whose terminal event must wait for the
    /// calls in flight (the owner has stored it where the winner of the
    /// delivery finds it): sets `pendingFlag`, unless a dispose has come
    /// since the termination began (then returns false: the event is
    /// dropped). The terminating call is still registered either way: end
    /// it with `leave`. (While it is, no one can claim the delivery.)
    @inlinable
    static func deferTerminal(_ state: borrowing Synchronization.Atomic<Int>) -> Bool {
        var current = state.load(ordering: .relaxed)
        while current & droppedFlag == 0 {
            let (exchanged, original) = state.compareExchange(expected: current, desired: current | pendingFlag, ordering: .acquiringAndReleasing)
            if exchanged {
                return true
            }
            current = original
        }
        return false
    }

    /// Claims what is due once a terminated word has no call in flight
    /// (last seen as `observed`): the delivery of its pending terminal event
    /// (the claim clears `pendingFlag` and registers the delivery as a call,
    /// which the winner ends with `leave` after delivering), else the release
    /// (`releasedFlag`). Returns the word before the claim when this thread
    /// won it (`pendingFlag` set in it: the delivery), or nil. Out of line:
    /// it runs only on a terminated word, and inlined into every value
    /// call (through `leave`) it grew the callers past the optimizer's
    /// inlining limits (the Swift cost table's rows took 33 instructions
    /// more per value).
    @usableFromInline @inline(never)
    static func claim(_ state: borrowing Synchronization.Atomic<Int>, observed: Int) -> Int? {
        var current = observed
        while current & countMask == 0 && current & terminatedFlag != 0 && current & releasedFlag == 0 {
            let desired = current & pendingFlag != 0 ? (current & ~pendingFlag) + 1 : current | releasedFlag
            let (exchanged, original) = state.compareExchange(expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged {
                return current
            }
            current = original
        }
        return nil
    }

    /// For a dispose of a terminated word: drops its terminal event if it
    /// waits for the calls in flight, and makes one not yet pending never
    /// become so (`droppedFlag`). Returns the word after, when this thread
    /// took a pending event away (the owner then releases what held it,
    /// through `claim` once idle), or nil (none pending: already delivered
    /// or being delivered, or not yet deferred).
    @inlinable
    static func cancelPending(_ state: borrowing Synchronization.Atomic<Int>) -> Int? {
        var current = state.load(ordering: .acquiring)
        while current & droppedFlag == 0 || current & pendingFlag != 0 {
            let desired = (current | droppedFlag) & ~pendingFlag
            let (exchanged, original) = state.compareExchange(expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged {
                return current & pendingFlag != 0 ? desired : nil
            }
            current = original
        }
        return nil
    }
}

/// A value callback guarded by `_InFlightCalls` (a `Subscriber`'s) or by a
/// broadcaster's registrations (a `_BroadcasterEntry`'s, see
/// `_BroadcasterRetirement`: the same argument below, with "a delivery
/// registered" for "between `enter` and `leave`"), held so that a call
/// borrows it in place instead of retaining its context.
///
/// Reading a closure out of a class's `var` and calling it makes the compiler
/// retain the closure's context for the call and release it afterwards (the
/// call could, as far as it knows, overwrite the property and free the
/// context): two atomic reference-count operations per value. This struct is
/// noncopyable, so a call through a stored one (`subscriber.next.call(v)`)
/// reads it in place, borrowed, with neither.
///
/// Why the context stays alive for the call without that retain: the owner
/// calls `call` only between `_InFlightCalls.enter` (which returned true) and
/// `leave`, and writes the stored callback only before the owner is
/// published (init, `startFusing`, `_Broadcaster.subscribe`) and in its
/// release (`take`), which runs once, on the thread that claimed it with
/// `_InFlightCalls.claim` (or won it in `leave`): that claim succeeds
/// only when the count of calls in flight is zero, so never while a call is
/// running, on any thread, including a callback that disposes its own
/// subscription (the count includes that call, so the release waits for its
/// `leave`). The owner object itself is kept alive by the caller of its
/// method. A termination on another thread therefore cannot free the
/// context under a running call. Shown by `SubscriberTests` (a dispose on
/// another thread during a call; puts racing a dispose) and `ValuePipeTests`
/// (`testDisposeDuringADeliveryReleasesTheCallbackOnlyAfterItReturns`); the
/// C suite's `threads::dispose_racing_put_next` runs the race under TSan.
/// (The sanitizer targets build unoptimized, where the compiler still copies
/// the callback for the call: the borrowed call itself is what an optimized
/// build runs, `swift build -c release --sanitize=thread`.)
///
/// `package`: the C layer's run of stages (SignalKitCAPI's `SKStagesRun`)
/// holds its downstream callback so, written once before its subscription
/// can deliver and never taken.
@usableFromInline
package struct _BorrowedCallback<T>: ~Copyable {
    @usableFromInline var function: ((T) -> Void)?

    @inlinable
    package init(_ function: ((T) -> Void)?) {
        self.function = function
    }

    /// Calls the callback, if any, borrowed. Only inside the owner's
    /// `_InFlightCalls` window (see the type's comment).
    @inlinable @inline(__always)
    package borrowing func call(_ value: T) {
        self.function?(value)
    }

    /// Moves the callback out, leaving none: the release. Always inlined:
    /// the releases also run unspecialized (`_BroadcasterEntry.end`, called
    /// through `Disposable`), where a call of this generic method looked up
    /// the struct's metadata (about 350 instructions per C W2 cycle).
    @inlinable @inline(__always)
    mutating func take() -> ((T) -> Void)? {
        let function = self.function
        self.function = nil
        return function
    }
}
