import Synchronization

/// Handles events pushed from any thread one at a time, in the order they
/// were admitted, without holding a lock while handling them, as
/// `SignalSerialDrain` does, for the operators that keep a state between
/// values in a fused chain (`scan`, `pairwise`): an uncontended push costs
/// two atomic compare-and-swaps of one state word, and no allocation, no
/// boxing of the event, no lock.
///
/// A thread that pushes while another is handling (or the handling thread
/// itself, from inside the handler) queues its event under the lock and
/// returns; the handling thread handles it next, before it leaves. The
/// handler is passed to every push (the stage's own method, the same for
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
    /// 0: idle; 1: a thread is handling; 2: handling, with events queued
    /// (under `mutex`); 3: closed.
    @usableFromInline let state = Synchronization.Atomic<Int>(0)
    @usableFromInline let mutex = _Mutex()
    /// The events pushed while a thread was handling, oldest first (guarded
    /// by `mutex`).
    @exclusivity(unchecked) @usableFromInline var queue: [Event] = []

    @inlinable
    init() {}

    /// Admits the calling thread when no other is handling (the fast path of
    /// a stage that handles its event inline, then calls `leave`); false
    /// otherwise (then `pushContended`).
    @inlinable
    func enter() -> Bool {
        return self.state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
    }

    /// Handles `event` with `handle` now, or, when a thread is handling,
    /// after the events queued before it (on that thread).
    @inlinable
    func push(_ event: Event, _ handle: (Event) -> Bool) {
        if self.state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
            if handle(event) {
                self.leave(handle)
            } else {
                self.close()
            }
            return
        }
        self.pushContended(event, handle)
    }

    /// The handling thread is done with its event: idle again, or the
    /// queued events next.
    @inlinable
    func leave(_ handle: (Event) -> Bool) {
        if self.state.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged {
            return
        }
        self.drainQueued(handle)
    }

    /// A push that found the gate busy (another thread handling, or this
    /// one, reentrantly) or closed.
    @usableFromInline
    func pushContended(_ event: Event, _ handle: (Event) -> Bool) {
        self.mutex.lock()
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
                        self.leave(handle)
                    } else {
                        self.close()
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
                    self.close()
                    return
                }
            }
            if self.state.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged {
                return
            }
        }
    }

    /// Closes the gate: further pushes are ignored, queued events dropped
    /// (released outside the lock). Called by the handling thread.
    @usableFromInline
    func close() {
        self.mutex.lock()
        self.state.store(3, ordering: .releasing)
        var dropped: [Event] = []
        swap(&dropped, &self.queue)
        self.mutex.unlock()
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
@usableFromInline
protocol _SignalDownstreamLiveness {
    var isTerminated: Bool { get }
}

extension _SubscriberLiveness: _SignalDownstreamLiveness {}
extension Subscriber: _SignalDownstreamLiveness {}

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
    @usableFromInline let downstream: ((Step.Result) -> Void)?
    @usableFromInline let liveness: Liveness
    @usableFromInline let error: ((E) -> Void)?
    @usableFromInline let completed: (() -> Void)?

    @inlinable
    init(_ initial: Step.State, _ stepper: Step, next: ((Step.Result) -> Void)?, liveness: Liveness, error: ((E) -> Void)?, completed: (() -> Void)?) {
        self.state = initial
        self.stepper = stepper
        self.downstream = next
        self.liveness = liveness
        self.error = error
        self.completed = completed
    }

    /// Steps `value` and delivers what it emits, now or, when another thread
    /// is stepping, on that thread after it.
    @inlinable
    func next(_ value: Step.Value) {
        if self.gate.enter() {
            self.stepper.step(&self.state, value) { result in
                self.deliver(result)
            }
            self.gate.leave { event in
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
            self.downstream?(result)
        }
    }

    /// Delivers the terminal event after the values admitted before it.
    @inlinable
    func terminate(_ event: SignalEvent<Step.Value, E>) {
        self.gate.push(event) { event in
            return self.handle(event)
        }
    }

    @inlinable
    func handle(_ event: SignalEvent<Step.Value, E>) -> Bool {
        switch event {
        case let .Next(value):
            self.stepper.step(&self.state, value) { result in
                self.deliver(result)
            }
            return true
        case let .Error(failure):
            self.error?(failure)
            return false
        case .Completion:
            self.stepper.finish(&self.state) { result in
                self.deliver(result)
            }
            self.completed?()
            return false
        }
    }
}
