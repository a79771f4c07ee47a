import Synchronization

/// The state word of a subscription, as a non-generic object, so that the
/// composed stages of a fused chain (see `_SubscriberLiveness`) can read
/// whether it has terminated without knowing its type.
///
/// `terminatedFlag` is set once the subscription has begun to end (its
/// terminal event was put, or it was disposed): no value call begins after
/// it. `valuesEndedFlag` is set once the values it had taken in are done
/// with: at a dispose or a failing stage's end at once, and for a terminal
/// event put by its source only when that event is delivered, after the
/// value calls that were in flight (the values they had taken in, queued
/// behind one of them in a stateful stage's gate included, go on to the
/// downstream first, as an unfused chain delivers them). The subclasses use
/// the other bits as they need (`_SubscriberDisposable` a disposed flag,
/// `_BroadcasterEntry` the dropped flag of a dispose).
///
/// Thread-safety: the word is atomic; it may be read from any thread.
@usableFromInline
class _SubscriptionFlags: @unchecked Sendable {
    @usableFromInline static var terminatedFlag: Int { _InFlightCalls.terminatedFlag }
    /// Free in every subclass's word (see `_InFlightCalls`,
    /// `_SubscriberDisposable`, `_BroadcasterEntryBase`).
    @usableFromInline static var valuesEndedFlag: Int { 1 << 56 }
    /// The stateful stages (`_SignalStatefulStage`) holding the terminal
    /// event behind the values queued in their gates (bits 32-55): while
    /// any does, the terminal event's delivery does not set
    /// `valuesEndedFlag`; the last stage to pass the event on does.
    @usableFromInline static var terminalHeldUnit: Int { 1 << 32 }
    @usableFromInline static var terminalHeldMask: Int { ((1 << 24) - 1) << 32 }

    @usableFromInline let state = Synchronization.Atomic<Int>(0)

    @inlinable
    init() {
    }

    @inlinable
    final var isTerminated: Bool {
        return self.state.load(ordering: .acquiring) & _SubscriptionFlags.terminatedFlag != 0
    }

    /// Whether the values the subscription had taken in are done with
    /// (`valuesEndedFlag`): what the fused stages read between stages and
    /// before each value queued in a gate (`_SubscriberLiveness`).
    @inlinable
    final var valuesHaveEnded: Bool {
        return self.state.load(ordering: .acquiring) & _SubscriptionFlags.valuesEndedFlag != 0
    }

    /// Sets `valuesEndedFlag` (see the type's comment). Off the path of
    /// values.
    @inlinable
    final func markValuesEnded() {
        // Invariant (the library's own): the flags every constant signal's
        // subscription shares are never written (checked in debug builds).
        assert(self !== _neverTerminated, "the shared flags of constant signals written")
        self.state.bitwiseOr(_SubscriptionFlags.valuesEndedFlag, ordering: .releasing)
    }

    /// Sets `valuesEndedFlag` once a terminal event has been delivered,
    /// unless a stateful stage holds it behind values queued in its gate
    /// (`holdTerminal`): then that stage sets it when it passes the event
    /// on (`releaseTerminal`). The holds are taken and given back on the
    /// thread that delivers the terminal event, or later on the thread that
    /// handles the gate: the flag is set once the last is given back,
    /// whichever comes last.
    @inlinable
    final func markValuesEndedUnlessHeld() {
        if self.state.load(ordering: .acquiring) & _SubscriptionFlags.terminalHeldMask == 0 {
            self.markValuesEnded()
        }
    }

    /// A stateful stage takes the terminal event into its gate (see
    /// `markValuesEndedUnlessHeld`).
    @inlinable
    final func holdTerminal() {
        assert(self !== _neverTerminated, "the shared flags of constant signals written")
        self.state.wrappingAdd(_SubscriptionFlags.terminalHeldUnit, ordering: .acquiringAndReleasing)
    }

    /// The stage has passed the terminal event on: the last to do so sets
    /// `valuesEndedFlag`.
    @inlinable
    final func releaseTerminal() {
        let current = self.state.wrappingSubtract(_SubscriptionFlags.terminalHeldUnit, ordering: .acquiringAndReleasing).newValue
        if current & _SubscriptionFlags.terminalHeldMask == 0 {
            self.markValuesEnded()
        }
    }

    /// Records that this subscription is the upstream of `downstream`, an
    /// operator's subscription that is starting it (see
    /// `_SubscriberDisposable.linkDownstream`). Only a generator's
    /// subscription keeps the link: a broadcaster's or a constant signal's
    /// starts nothing, so it has nothing to stop.
    @usableFromInline
    func linkDownstream(_ downstream: _SubscriberDisposable?) {
    }
}

/// The flags of a subscription that nothing can end while its callbacks run
/// (see the constant signals in `Signal.swift`): never terminated, never
/// written.
@usableFromInline
let _neverTerminated = _SubscriptionFlags()
