import Synchronization
import _SwiftSignalKitShims

/// Handles events pushed from any thread one at a time, in the order they
/// were admitted, without holding a lock while handling them, as
/// `SignalSerialDrain` does, for the operators that keep a state between
/// values in a fused chain (`scan`, `pairwise`): no allocation, no boxing
/// of the event, no lock, and, on the thread that owns the gate, no atomic
/// read-modify-write.
///
/// Owned (biased): the first thread to push owns the gate, for good, when
/// the process has the heavy fence (`_sks_heavy_fence_available`). Its
/// pushes store `busy` (1 while it handles, 0 after) and load `owner`,
/// plain, kept in order by a compiler barrier; a put of W5s (a pipe into a
/// `scan`) lost two compare-and-swaps, about 15 ns of its 37 on the machine
/// of 2026-11-29. The first push of any other thread ends the ownership
/// (`revoke`, once a gate): under the lock it stores `revokingOwner` in
/// `owner`, runs the heavy fence, loads `busy`, decides who handles next,
/// and only then stores `revokedOwner` (a third thread that saw the
/// revocation begin and entered the shared mode at once would otherwise
/// race the owner it has not yet been decided about). The fence orders the
/// two threads' store then load as a full barrier on each would: either the
/// owner's load sees the revocation (its push backs out, or its leave looks
/// at the lock), or the
/// revoking thread's load sees the owner's `busy` as it is (1: the owner is
/// handling, and becomes the handler in the shared mode's terms, `state` 1,
/// `revokedBusy`; 0: it is not, and will not start). From then on every push
/// takes the shared mode below. A gate that no other thread ever pushes to
/// never pays the fence.
///
/// Shared: an uncontended push costs two compare-and-swaps of `state`. A
/// thread that pushes while another is handling (or the handling thread
/// itself, from inside the handler) queues its event under the lock and
/// returns; the handling thread handles it next, before it leaves. The
/// owner's own pushes from inside its handler queue the same way (`nested`).
/// The handler is passed to every push (the stage's own method, the same for
/// every push of one subscription), so that it is specialized and inlined
/// into the chain; the queue of a contended push is the only allocation.
///
/// The handler returns false to stop (it has delivered a terminal event):
/// the gate then drops every queued event and ignores further pushes.
///
/// Thread-safety: `push` may be called from any thread, concurrently; the
/// handler is never run by two threads at once, and never under the lock.
@usableFromInline
final class _SignalSerialGate<Event>: @unchecked Sendable {
    /// How a thread entered (`enter`): not at all (its event goes to
    /// `pushContended`), as the owner, or in the shared mode.
    @usableFromInline typealias Entry = Int
    @inlinable static var refused: Entry { 0 }
    @inlinable static var shared: Entry { 1 }
    @inlinable static var owned: Entry { 2 }

    /// The shared mode's word. 0: idle; 1: a thread is handling; 2:
    /// handling, with events queued (under `mutex`); 3: closed (in either
    /// mode). While the gate is owned, 0 or 3.
    @usableFromInline let state = Synchronization.Atomic<Int>(0)
    /// The owning thread (`_sks_thread_token()`, a multiple of 8), 0 before
    /// the first push, `revokingOwner` while another thread's first push
    /// takes the ownership away (`revoke`, under `mutex`), then
    /// `revokedOwner`. A thread that finds `revokingOwner` waits for the
    /// lock: the revocation's outcome (who handles) is decided under it.
    @usableFromInline let owner = Synchronization.Atomic<UInt>(0)
    @inlinable static var revokedOwner: UInt { 1 }
    @inlinable static var revokingOwner: UInt { 2 }
    /// 1 while the owner handles as the owner, 2 once it closed the gate
    /// (so that its next push is refused without a look at `state`); stored
    /// by the owner alone.
    @usableFromInline let busy = Synchronization.Atomic<Int>(0)
    @usableFromInline let mutex = _Mutex()
    /// The events pushed while a thread was handling, oldest first (guarded
    /// by `mutex`).
    @exclusivity(unchecked) @usableFromInline var queue: [Event] = []
    /// Set by `revoke` when it found the owner handling (so `state` 1 on its
    /// behalf); cleared by the owner, which then leaves as in the shared
    /// mode (guarded by `mutex`).
    @exclusivity(unchecked) @usableFromInline var revokedBusy = false
    /// Whether the owner queued events from inside its handler (the owner's
    /// alone: written and read by it only).
    @exclusivity(unchecked) @usableFromInline var nested = false

    @inlinable
    init() {}

    /// Admits the calling thread when no other is handling (the fast path of
    /// a stage that handles its event inline, then calls `leave` with what
    /// this returned); `refused` otherwise (then `pushContended`).
    @inlinable @inline(__always)
    func enter() -> Entry {
        let me = UInt(_sks_thread_token())
        if self.owner.load(ordering: .relaxed) == me {
            if self.busy.load(ordering: .relaxed) != 0 {
                // From inside its own handler, or closed.
                return Self.refused
            }
            self.busy.store(1, ordering: .relaxed)
            _sks_light_fence()
            _explore(.callEntered)
            // The check that counts (the one above may have read a stale
            // owner: then this one sees the revocation).
            if _fastPath(self.owner.load(ordering: .relaxed) == me) {
                return Self.owned
            }
            return self.enterRevoked()
        }
        return self.enterShared(me)
    }

    /// `enter` for a thread that does not own the gate: takes the ownership
    /// when no thread has it (and the heavy fence works), else ends it if
    /// another thread has it, then enters in the shared mode.
    @inlinable @inline(never)
    func enterShared(_ me: UInt) -> Entry {
        let owner = self.owner.load(ordering: .acquiring)
        if owner == 0 && _sks_heavy_fence_available() != 0 {
            if self.owner.compareExchange(expected: 0, desired: me, ordering: .acquiringAndReleasing).exchanged {
                return self.enter()
            }
            return self.enterShared(me)
        }
        if owner != 0 && owner != Self.revokedOwner {
            self.revoke()
        }
        return self.state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged ? Self.shared : Self.refused
    }

    /// Ends the owner's ownership (another thread's first push): see the
    /// type's comment.
    @usableFromInline @inline(never)
    func revoke() {
        self.mutex.lock()
        if self.owner.load(ordering: .relaxed) != Self.revokedOwner {
            self.owner.store(Self.revokingOwner, ordering: .releasing)
            _sks_heavy_fence()
            #if SIGNALKIT_PLANT_GATE_BUG
            // Planted: the owner's handling is not seen (SerialGateTests fail).
            let ownerBusy = false
            #else
            let ownerBusy = self.busy.load(ordering: .acquiring) == 1
            #endif
            if ownerBusy && self.state.load(ordering: .relaxed) != 3 {
                self.state.store(1, ordering: .relaxed)
                self.revokedBusy = true
            }
            self.owner.store(Self.revokedOwner, ordering: .releasing)
        }
        self.mutex.unlock()
    }

    /// The owner found the gate revoked after it marked itself busy: it is
    /// the handler if `revoke` saw it so, else it enters as any thread.
    @usableFromInline @inline(never)
    func enterRevoked() -> Entry {
        self.mutex.lock()
        self.busy.store(0, ordering: .releasing)
        let handler = self.revokedBusy
        self.revokedBusy = false
        self.mutex.unlock()
        if handler {
            return Self.shared
        }
        return self.state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged ? Self.shared : Self.refused
    }

    /// Handles `event` with `handle` now, or, when a thread is handling,
    /// after the events queued before it (on that thread).
    @inlinable
    func push(_ event: Event, _ handle: (Event) -> Bool) {
        let entry = self.enter()
        if entry != Self.refused {
            if handle(event) {
                self.leave(entry, handle)
            } else {
                self.close(entry)
            }
            return
        }
        self.pushContended(event, handle)
    }

    /// The handling thread is done with its event: idle again, or the
    /// queued events next. `entry` is what `enter` returned.
    @inlinable @inline(__always)
    func leave(_ entry: Entry, _ handle: (Event) -> Bool) {
        if entry == Self.owned {
            self.leaveOwned(handle)
            return
        }
        if self.state.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged {
            return
        }
        self.drainQueued(handle)
    }

    /// `leave` for the owner, as the owner.
    @inlinable @inline(__always)
    func leaveOwned(_ handle: (Event) -> Bool) {
        if _slowPath(self.nested) && !self.drainNested(handle) {
            return
        }
        self.busy.store(0, ordering: .releasing)
        _sks_light_fence()
        _explore(.callLeaving)
        if _slowPath(self.owner.load(ordering: .relaxed) <= Self.revokingOwner) {
            self.leaveRevoked(handle)
        }
    }

    /// The owner handles what it queued from inside its handler (and what
    /// other threads queued once `revoke` made it the handler), still busy.
    /// Returns false when a handled event closed the gate.
    @usableFromInline
    func drainNested(_ handle: (Event) -> Bool) -> Bool {
        while self.nested {
            self.mutex.lock()
            var items: [Event] = []
            swap(&items, &self.queue)
            self.nested = false
            self.mutex.unlock()
            for item in items {
                if !handle(item) {
                    self.close(Self.owned)
                    return false
                }
            }
        }
        return true
    }

    /// The owner left after the gate was revoked: if `revoke` saw it
    /// handling, it leaves as the shared mode's handler.
    @usableFromInline @inline(never)
    func leaveRevoked(_ handle: (Event) -> Bool) {
        self.mutex.lock()
        let handler = self.revokedBusy
        self.revokedBusy = false
        self.mutex.unlock()
        if handler {
            self.leave(Self.shared, handle)
        }
    }

    /// A push that found the gate busy (another thread handling, or this
    /// one, reentrantly) or closed.
    @usableFromInline
    func pushContended(_ event: Event, _ handle: (Event) -> Bool) {
        self.mutex.lock()
        if self.owner.load(ordering: .relaxed) == UInt(_sks_thread_token()) && self.busy.load(ordering: .relaxed) != 0 {
            // The owner, from inside its own handler: handled before it
            // leaves (`drainNested`), unless the gate closed.
            if self.state.load(ordering: .relaxed) != 3 {
                self.queue.append(event)
                self.nested = true
            }
            self.mutex.unlock()
            return
        }
        while true {
            switch self.state.load(ordering: .acquiring) {
            case 3:
                self.mutex.unlock()
                return
            case 2:
                self.queue.append(event)
                self.mutex.unlock()
                return
            case 1:
                if self.state.compareExchange(expected: 1, desired: 2, ordering: .relaxed).exchanged {
                    self.queue.append(event)
                    self.mutex.unlock()
                    return
                }
            default:
                // The handling thread left meanwhile: this one handles.
                if self.state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
                    self.mutex.unlock()
                    if handle(event) {
                        self.leave(Self.shared, handle)
                    } else {
                        self.close(Self.shared)
                    }
                    return
                }
            }
        }
    }

    /// Handles the queued events, batch by batch, until none is left.
    @usableFromInline
    func drainQueued(_ handle: (Event) -> Bool) {
        while true {
            self.mutex.lock()
            var items: [Event] = []
            swap(&items, &self.queue)
            self.state.store(1, ordering: .relaxed)
            self.mutex.unlock()
            for item in items {
                if !handle(item) {
                    self.close(Self.shared)
                    return
                }
            }
            if self.state.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged {
                return
            }
        }
    }

    /// Closes the gate: further pushes are ignored, queued events dropped
    /// (released outside the lock). Called by the handling thread, with
    /// what `enter` returned to it.
    @usableFromInline
    func close(_ entry: Entry) {
        self.mutex.lock()
        self.state.store(3, ordering: .releasing)
        var dropped: [Event] = []
        swap(&dropped, &self.queue)
        self.nested = false
        self.revokedBusy = false
        self.mutex.unlock()
        if entry == Self.owned {
            self.busy.store(2, ordering: .releasing)
        }
        withExtendedLifetime(dropped) {}
    }
}

/// What a `_statefulStage` does with each value: updates its state and
/// emits what it derives (a struct, so that the stage is specialized for
/// it and the step inlined).
@usableFromInline
protocol _SignalStep {
    associatedtype Value
    associatedtype State
    associatedtype Result
    func step(_ state: inout State, _ value: Value, _ emit: (Result) -> Void)
    /// Called once when the upstream completes, before the completion is
    /// delivered (`buffer(count:)` emits what it collected); nothing by
    /// default.
    func finish(_ state: inout State, _ emit: (Result) -> Void)
}

extension _SignalStep {
    @inlinable
    func finish(_ state: inout State, _ emit: (Result) -> Void) {}
}

/// What a stateful stage asks before it delivers: whether its downstream
/// has terminated. A fused stage asks its subscription's liveness; a stage
/// that carries its own terminal events (`buffer(count:)`, which emits on
/// completion) asks its subscriber.
///
/// A fused stage also holds the subscription's terminal event while it is
/// in the gate (`holdTerminal`, `releaseTerminal`): the values queued
/// before it go downstream first, and the fused stages after it must not
/// take the subscription for ended before the event has passed (see
/// `_SubscriptionFlags.markValuesEndedUnlessHeld`). A stage with a
/// subscriber of its own has nothing to hold: its subscriber's terminal
/// event is its own.
@usableFromInline
protocol _SignalDownstreamLiveness {
    var isTerminated: Bool { get }
    func holdTerminal()
    func releaseTerminal()
}

extension _SubscriberLiveness: _SignalDownstreamLiveness {}
extension Subscriber: _SignalDownstreamLiveness {
    @inlinable
    func holdTerminal() {}

    @inlinable
    func releaseTerminal() {}
}

/// An operator over one signal that keeps a state, made `initial` at each
/// subscription: `step` updates the state with each value and emits what it
/// derives from it (`scan`, `pairwise`). Fused (see `_SubscriberLiveness`):
/// no subscriber of its own; the values go through a `_SignalSerialGate`, so
/// that `step` runs one value at a time, in the order they are admitted, and
/// the terminal event follows the values admitted before it, whatever the
/// threads that emit them.
@inlinable
func _statefulStage<Step: _SignalStep, E>(_ initial: Step.State, _ step: Step) -> (Signal<Step.Value, E>) -> Signal<Step.Result, E> {
    return { signal in
        return Signal<Step.Result, E>(fused: { makeNext, error, completed in
            // The stage is made with the downstream's value callback, which
            // the source asks for before it can deliver any value.
            let holder = _SignalStageHolder<_SignalStatefulStage<Step, E, _SubscriberLiveness>>()
            return signal.startFusing({ liveness in
                let stage = _SignalStatefulStage<Step, E, _SubscriberLiveness>(initial, step, next: makeNext(liveness), liveness: liveness, error: error, completed: completed)
                holder.stage = stage
                return { value in
                    stage.next(value)
                }
            }, error: { failure in
                // A source with no value to deliver (`fail`) may end without
                // asking for the value callback: then there is no stage.
                if let stage = holder.stage {
                    stage.terminate(.Error(failure))
                } else {
                    error?(failure)
                }
            }, completed: {
                if let stage = holder.stage {
                    stage.terminate(.Completion)
                } else {
                    completed?()
                }
            })
        })
    }
}

/// A `_statefulStage` that carries its own terminal events (a subscriber of
/// its own, with the downstream's value callback fused), for a step that
/// emits on completion (`finish`): in a fused chain the subscription has
/// terminated by the time the upstream's completion arrives, and a value
/// delivered then would be dropped.
@inlinable
func _statefulStageFinishing<Step: _SignalStep, E>(_ initial: Step.State, _ step: Step) -> (Signal<Step.Value, E>) -> Signal<Step.Result, E> {
    return { signal in
        return Signal<Step.Result, E>(delivering: { subscriber, next in
            let stage = _SignalStatefulStage<Step, E, Subscriber<Step.Result, E>>(initial, step, next: next?.call, liveness: subscriber, error: { error in
                subscriber.putError(error)
            }, completed: {
                subscriber.putCompletion()
            })
            return signal.start(downstream: subscriber, next: { value in
                stage.next(value)
            }, error: { error in
                stage.terminate(.Error(error))
            }, completed: {
                stage.terminate(.Completion)
            })
        })
    }
}

/// Where the terminal callbacks of a `_statefulStage` find the stage, made
/// when the source asks for the value callback.
///
/// Thread-safety: set once, before the source can deliver a value (a
/// source that ends without one may not ask for the value callback).
@usableFromInline
final class _SignalStageHolder<Stage>: @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline var stage: Stage?

    @inlinable
    init() {}
}

/// One subscription of a `_statefulStage`: the state behind a serial gate.
/// An uncontended value is stepped and its results delivered with no event
/// made and no lock taken.
///
/// Thread-safety: `next` and `terminate` may be called from any thread;
/// `state` is touched only by the thread the gate admits.
@usableFromInline
final class _SignalStatefulStage<Step: _SignalStep, E, Liveness: _SignalDownstreamLiveness>: @unchecked Sendable {
    @usableFromInline let gate = _SignalSerialGate<SignalEvent<Step.Value, E>>()
    @exclusivity(unchecked) @usableFromInline var state: Step.State
    @usableFromInline let stepper: Step
    /// What the stage delivers to (one that does nothing when there is
    /// no downstream callback: a value tests nothing).
    @usableFromInline let downstream: (Step.Result) -> Void
    @usableFromInline let liveness: Liveness
    @usableFromInline let error: ((E) -> Void)?
    @usableFromInline let completed: (() -> Void)?

    @inlinable
    init(_ initial: Step.State, _ stepper: Step, next: ((Step.Result) -> Void)?, liveness: Liveness, error: ((E) -> Void)?, completed: (() -> Void)?) {
        self.state = initial
        self.stepper = stepper
        if let next {
            self.downstream = next
        } else {
            self.downstream = { _ in }
        }
        self.liveness = liveness
        self.error = error
        self.completed = completed
    }

    /// Steps `value` and delivers what it emits, now or, when another thread
    /// is stepping, on that thread after it.
    @inlinable
    func next(_ value: Step.Value) {
        let entry = self.gate.enter()
        if _fastPath(entry == _SignalSerialGate<SignalEvent<Step.Value, E>>.owned) {
            // The owner's path apart, so that its leave is known at once.
            self.stepper.step(&self.state, value) { result in
                self.deliver(result)
            }
            self.gate.leaveOwned { event in
                return self.handle(event)
            }
            return
        }
        if entry != _SignalSerialGate<SignalEvent<Step.Value, E>>.refused {
            self.stepper.step(&self.state, value) { result in
                self.deliver(result)
            }
            self.gate.leave(entry) { event in
                return self.handle(event)
            }
        } else {
            self.gate.pushContended(.Next(value)) { event in
                return self.handle(event)
            }
        }
    }

    @inlinable
    func deliver(_ result: Step.Result) {
        if !self.liveness.isTerminated {
            self.downstream(result)
        }
    }

    /// Delivers the terminal event after the values admitted before it,
    /// holding it (`holdTerminal`) until it has passed on.
    @inlinable
    func terminate(_ event: SignalEvent<Step.Value, E>) {
        self.liveness.holdTerminal()
        self.gate.push(event) { event in
            return self.handle(event)
        }
    }

    @inlinable
    func handle(_ event: SignalEvent<Step.Value, E>) -> Bool {
        switch event {
        case let .Next(value):
            // A value queued behind another thread's: once the subscription
            // has ended (a dispose, a failing step's own end, a terminal
            // event delivered) it is dropped unstepped, as its results would
            // be (`deliver`): no callback begins after the end. A terminal
            // event put upstream meanwhile waits for this call, and so for
            // the values queued in it (`_SubscriptionFlags.valuesEndedFlag`).
            if self.liveness.isTerminated {
                return true
            }
            self.stepper.step(&self.state, value) { result in
                self.deliver(result)
            }
            return true
        case let .Error(failure):
            self.error?(failure)
            self.liveness.releaseTerminal()
            return false
        case .Completion:
            self.stepper.finish(&self.state) { result in
                self.deliver(result)
            }
            self.completed?()
            self.liveness.releaseTerminal()
            return false
        }
    }
}
