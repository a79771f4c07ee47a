/// The values of one input of a `zip` that wait for their partners: a ring
/// of slots that keeps its capacity once drained (an input that leads by one
/// value at a time allocates nothing per value, and a value in and out costs
/// a few instructions, with no copy-on-write check). Its owner calls
/// `destroy` once, from its `deinit`.
@usableFromInline
struct _ZipRing<T> {
    @usableFromInline var slots: UnsafeMutablePointer<T>?
    /// A power of two, or 0.
    @usableFromInline var capacity = 0
    @usableFromInline var head = 0
    @usableFromInline var count = 0
    /// Whether the input has completed.
    @usableFromInline var done = false

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool {
        return self.count == 0
    }

    @inlinable
    mutating func push(_ value: T) {
        if self.count == self.capacity {
            self.grow()
        }
        (self.slots.unsafelyUnwrapped + ((self.head + self.count) & (self.capacity - 1))).initialize(to: value)
        self.count += 1
    }

    /// The oldest value. Invariant: called only when not empty.
    @inlinable
    mutating func pop() -> T {
        let value = (self.slots.unsafelyUnwrapped + self.head).move()
        self.head = (self.head + 1) & (self.capacity - 1)
        self.count -= 1
        return value
    }

    /// Doubles the capacity (4 at first), the waiting values moved in order
    /// to the start of the new slots.
    @usableFromInline
    mutating func grow() {
        let capacity = Swift.max(4, self.capacity * 2)
        let slots = UnsafeMutablePointer<T>.allocate(capacity: capacity)
        if let old = self.slots {
            for i in 0 ..< self.count {
                (slots + i).moveInitialize(from: old + ((self.head + i) & (self.capacity - 1)), count: 1)
            }
            old.deallocate()
        }
        self.slots = slots
        self.capacity = capacity
        self.head = 0
    }

    /// Releases the waiting values and the slots.
    @inlinable
    mutating func destroy() {
        while !self.isEmpty {
            _ = self.pop()
        }
        self.slots?.deallocate()
        self.slots = nil
        self.capacity = 0
    }

    /// Whether no more combination can use this input: it has completed
    /// and nothing of it waits.
    @inlinable
    var isExhausted: Bool {
        return self.done && self.isEmpty
    }
}

/// The state of one two-signal `zip` subscription: a queue per input, under
/// one spin lock (`_BiasedSpinLock`: no atomic read-modify-write for the
/// thread that feeds both inputs) that is never held while anything is
/// delivered.
///
/// Thread-safety: every method may be called from any thread.
@usableFromInline
final class _Zip2State<T1, T2>: @unchecked Sendable {
    @usableFromInline let mutex = _BiasedSpinLock()
    @exclusivity(unchecked) @usableFromInline var queue1 = _ZipRing<T1>()
    @exclusivity(unchecked) @usableFromInline var queue2 = _ZipRing<T2>()

    @inlinable
    init() {}

    deinit {
        self.queue1.destroy()
        self.queue2.destroy()
    }

    /// Queues `value`, or pairs it with the oldest waiting value of the
    /// other input and hands the pair to `emit` (`consuming`: the waiting
    /// value moves in, and on to the downstream's call) after the unlock.
    /// Returns whether that was the other input's last value (the caller
    /// completes then, after the pair). The pair is not returned as an
    /// `Optional`: its copies and destroys went through outlined code, a
    /// call into the runtime each for the C API's values. Always inlined:
    /// reached through `_PairInputs`, it was left out of line, and `emit`
    /// became a closure whose context was retained at every put (W5z 184
    /// -> 257 instructions).
    @inlinable @inline(__always)
    func put1(_ value: T1, _ emit: (consuming (T1, T2)) -> Void) -> Bool {
        self.mutex.lock()
        if self.queue2.isEmpty {
            self.queue1.push(value)
            self.mutex.unlock()
            return false
        }
        let other = self.queue2.pop()
        let complete = self.queue2.isExhausted
        self.mutex.unlock()
        emit((value, consume other))
        return complete
    }

    /// As `put1`, for the second input.
    @inlinable @inline(__always)
    func put2(_ value: T2, _ emit: (consuming (T1, T2)) -> Void) -> Bool {
        self.mutex.lock()
        if self.queue1.isEmpty {
            self.queue2.push(value)
            self.mutex.unlock()
            return false
        }
        let other = self.queue1.pop()
        let complete = self.queue1.isExhausted
        self.mutex.unlock()
        emit((consume other, value))
        return complete
    }

    /// Records that input `index` (0 or 1) completed; true when no
    /// combination can come any more.
    @inlinable
    func complete(_ index: Int) -> Bool {
        self.mutex.lock()
        let exhausted: Bool
        if index == 0 {
            self.queue1.done = true
            exhausted = self.queue1.isEmpty
        } else {
            self.queue2.done = true
            exhausted = self.queue2.isEmpty
        }
        self.mutex.unlock()
        return exhausted
    }
}

/// The state of one `zip` subscription over an array of signals.
///
/// Thread-safety: every method may be called from any thread.
final class _ZipNState<T>: @unchecked Sendable {
    private let mutex = _Mutex()
    private var queues: [_ZipRing<T>]
    private var nonEmpty = 0

    init(count: Int) {
        self.queues = Array(repeating: _ZipRing<T>(), count: count)
    }

    deinit {
        for i in self.queues.indices {
            self.queues[i].destroy()
        }
    }

    /// Queues `value` for input `index`; when every input then has a value,
    /// takes the oldest of each. `complete` when an input used up its last
    /// value.
    func put(_ index: Int, _ value: T) -> (values: [T]?, complete: Bool) {
        self.mutex.lock()
        if self.queues[index].isEmpty {
            self.nonEmpty += 1
        }
        self.queues[index].push(value)
        if self.nonEmpty < self.queues.count {
            self.mutex.unlock()
            return (nil, false)
        }
        var values: [T] = []
        values.reserveCapacity(self.queues.count)
        var complete = false
        for i in self.queues.indices {
            values.append(self.queues[i].pop())
            if self.queues[i].isEmpty {
                self.nonEmpty -= 1
            }
            if self.queues[i].isExhausted {
                complete = true
            }
        }
        self.mutex.unlock()
        return (values, complete)
    }

    /// As `_Zip2State.complete`.
    func complete(_ index: Int) -> Bool {
        self.mutex.lock()
        self.queues[index].done = true
        let exhausted = self.queues[index].isEmpty
        self.mutex.unlock()
        return exhausted
    }
}

/// Pairs the values of `s1` and `s2` in order: the n-th value of each makes
/// the n-th pair. A value waits until its partner comes. Completes as soon
/// as one input has completed and none of its values waits (no pair can
/// come any more), disposing the other. The first error passes through and
/// disposes both.
///
/// Thread-safety: the inputs may emit from any thread; a lock guards only
/// the queues of waiting values, never a delivery. A pair is delivered on
/// the thread of the value that completes it: pairs that two threads
/// complete at once are delivered at once, in either order (each still of
/// the n-th values). Values that wait are held until paired (an input far
/// ahead of the other holds all of its lead).
@inlinable
public func zip<T1, T2, E>(_ s1: Signal<T1, E>, _ s2: Signal<T2, E>) -> Signal<(T1, T2), E> {
    return Signal<(T1, T2), E>(delivering: { subscriber, next in
        let state = _Zip2State<T1, T2>()
        let disposables = DisposableSet()
        disposables.add(s1.start(downstream: subscriber, next: _zipInput1(state, subscriber, next), error: { error in
            subscriber.putError(error)
        }, completed: {
            if state.complete(0) {
                subscriber.putCompletion()
            }
        }))
        if subscriber.isEnded {
            return disposables
        }
        disposables.add(s2.start(downstream: subscriber, next: _zipInput2(state, subscriber, next), error: { error in
            subscriber.putError(error)
        }, completed: {
            if state.complete(1) {
                subscriber.putCompletion()
            }
        }))
        return disposables
    })
}

/// The first input's value callback of `zip(_:_:)`; `_zipInput2` is the
/// second's. The downstream's callback is unwrapped here, once, where each
/// value unwrapped it again: a copy of the `Optional` callback, whose
/// context it retained and released at every pair.
@inlinable
func _zipInput1<T1, T2, E>(_ state: _Zip2State<T1, T2>, _ subscriber: Subscriber<(T1, T2), E>, _ next: _FusedNext<(T1, T2)>?) -> (T1) -> Void {
    guard let next else {
        return { value in
            if state.put1(value, { _ in }) {
                subscriber.putCompletion()
            }
        }
    }
    // One object captured (see `_PairInputs`).
    let input = _PairInputs(state, subscriber, next)
    return { value in
        input.put1(value)
    }
}

/// The second input's value callback of `zip(_:_:)` (see `_zipInput1`).
@inlinable
func _zipInput2<T1, T2, E>(_ state: _Zip2State<T1, T2>, _ subscriber: Subscriber<(T1, T2), E>, _ next: _FusedNext<(T1, T2)>?) -> (T2) -> Void {
    guard let next else {
        return { value in
            if state.put2(value, { _ in }) {
                subscriber.putCompletion()
            }
        }
    }
    let input = _PairInputs(state, subscriber, next)
    return { value in
        input.put2(value)
    }
}

extension _Zip2State: _PairState {
    @inlinable @inline(__always)
    func putFirst(_ value: T1, _ emit: (consuming (T1, T2)) -> Void) -> Bool {
        return self.put1(value, emit)
    }

    @inlinable @inline(__always)
    func putSecond(_ value: T2, _ emit: (consuming (T1, T2)) -> Void) -> Bool {
        return self.put2(value, emit)
    }
}

/// `zip` over any number of signals of one type: the n-th value of every
/// input makes the n-th array (in the order of `signals`). An empty array
/// completes at once without a value.
///
/// Completion, errors and threading: as `zip(_:_:)`.
public func zip<T, E>(_ signals: [Signal<T, E>]) -> Signal<[T], E> {
    if signals.isEmpty {
        return Signal<[T], E>.complete()
    }
    return Signal<[T], E> { subscriber in
        let state = _ZipNState<T>(count: signals.count)
        let disposables = DisposableSet()
        for (index, signal) in signals.enumerated() {
            if subscriber.isEnded {
                break
            }
            disposables.add(signal.start(downstream: subscriber, next: { value in
                let (values, complete) = state.put(index, value)
                if let values {
                    subscriber.putNext(values)
                }
                if complete {
                    subscriber.putCompletion()
                }
            }, error: { error in
                subscriber.putError(error)
            }, completed: {
                if state.complete(index) {
                    subscriber.putCompletion()
                }
            }))
        }
        return disposables
    }
}

/// Pairs each value of the upstream with the latest value of `other`: values
/// that come before `other` has emitted are dropped. `other` is started
/// first (so a value it has at once is there for the upstream's first).
/// The upstream's completion completes and disposes `other`; `other`
/// completing changes nothing (its last value stays in use). An error of
/// either passes through and disposes both.
///
/// Fused (see `_SubscriberLiveness`): a pair reaches the downstream with no
/// subscriber of this operator's between.
///
/// Thread-safety: either signal may emit from any thread; the latest value is
/// read and replaced under a spin lock (`_SignalLatestValue`) never held
/// while anything is delivered or released. Pairs are delivered on the
/// upstream's thread.
@inlinable
public func withLatestFrom<T, U, E>(_ other: Signal<U, E>) -> (Signal<T, E>) -> Signal<(T, U), E> {
    return { signal in
        return Signal<(T, U), E>(delivering: { subscriber, next in
            let latest = _SignalLatestValue<U>()
            let disposables = DisposableSet()
            disposables.add(other.start(downstream: subscriber, next: { value in
                // The replaced value is released here, after the unlock.
                _ = latest.exchange(value)
            }, error: { error in
                subscriber.putError(error)
            }))
            if subscriber.isEnded {
                return disposables
            }
            let upstreamNext: (T) -> Void
            if let next {
                // One object captured (see `_CombineLatestInput`).
                let input = _WithLatestFromInput(latest, subscriber, next)
                upstreamNext = { value in
                    input.put(value)
                }
            } else {
                upstreamNext = { _ in }
            }
            disposables.add(signal.start(downstream: subscriber, next: upstreamNext, error: { error in
                subscriber.putError(error)
            }, completed: {
                subscriber.putCompletion()
            }))
            return disposables
        })
    }
}

/// What `withLatestFrom`'s value callback of its source reads, in one
/// object, the closure's context (see `_CombineLatestInput`).
///
/// Thread-safety: immutable; the latest value's slot is locked.
@usableFromInline
final class _WithLatestFromInput<T, U, E> {
    @usableFromInline let latest: _SignalLatestValue<U>
    @usableFromInline let subscriber: Subscriber<(T, U), E>
    @usableFromInline let next: _FusedNext<(T, U)>

    @inlinable
    init(_ latest: _SignalLatestValue<U>, _ subscriber: Subscriber<(T, U), E>, _ next: _FusedNext<(T, U)>) {
        self.latest = latest
        self.subscriber = subscriber
        self.next = next
    }

    /// A value of the source: passed on with the other's latest, if any.
    @inlinable @inline(__always)
    func put(_ value: T) {
        // Always inlined (see `_CombineLatestInput.put`).
        @inline(__always)
        func deliver(_ current: consuming U) {
            self.subscriber.putNext((value, current), through: self.next)
        }
        self.latest.load(deliver)
    }
}
