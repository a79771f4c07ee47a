/// The latest values of two signals. Typed, so that the two-signal path
/// boxes nothing.
///
/// Each value lives in a slot of its own (two allocations per subscription),
/// with a flag saying whether it holds one yet, rather than in an `Optional`:
/// a put stores its value, moves the replaced one out and copies the other
/// one for the pair, and nothing else. (Held as `Optional`s, the same put copied and
/// destroyed `Optional`s through outlined code, 2 copies and 5 destroys per
/// put: for a value holding a reference, as the C API's, each is a call into
/// the runtime.) The pair is handed to `emit` (`consuming`), which moves it
/// into the downstream's call: borrowed there, it was copied once more
/// (two retains and releases a put for the C API's values).
///
/// Thread-safety: every method may be called from any thread; the lock (a
/// `_BiasedSpinLock`: the state's update is a few instructions, and the
/// thread that feeds both inputs takes it without an atomic
/// read-modify-write) is held only to update the state, never while a
/// value is delivered or released.
@usableFromInline
final class _CombineLatest2State<T1, T2>: @unchecked Sendable {
    @usableFromInline let mutex = _BiasedSpinLock()
    /// `slot1` is initialized while bit 1 of `filled` is set, `slot2`
    /// while bit 2 is (guarded by `mutex`, as the flags).
    @usableFromInline let slot1: UnsafeMutablePointer<T1>
    @usableFromInline let slot2: UnsafeMutablePointer<T2>
    @exclusivity(unchecked) @usableFromInline var filled: UInt8

    @inlinable
    init(value1: T1?, value2: T2?) {
        self.slot1 = UnsafeMutablePointer<T1>.allocate(capacity: 1)
        self.slot2 = UnsafeMutablePointer<T2>.allocate(capacity: 1)
        self.filled = 0
        if let value1 {
            self.slot1.initialize(to: value1)
            self.filled |= 1
        }
        if let value2 {
            self.slot2.initialize(to: value2)
            self.filled |= 2
        }
    }

    deinit {
        if self.filled & 1 != 0 {
            self.slot1.deinitialize(count: 1)
        }
        if self.filled & 2 != 0 {
            self.slot2.deinitialize(count: 1)
        }
        self.slot1.deallocate()
        self.slot2.deallocate()
    }

    /// Stores the first value; then, if the second is known, calls `emit`
    /// with the pair after unlocking. The replaced value is released after
    /// the emission, outside the lock too.
    @inlinable
    @inline(__always)
    func put1(_ value: T1, _ emit: (consuming (T1, T2)) -> Void) {
        self.store(value, into: self.slot1, bit: 1, other: self.slot2, { ($0, $1) }, emit)
    }

    /// Stores the second value; as `put1`.
    @inlinable
    @inline(__always)
    func put2(_ value: T2, _ emit: (consuming (T1, T2)) -> Void) {
        self.store(value, into: self.slot2, bit: 2, other: self.slot1, { ($1, $0) }, emit)
    }

    /// Stores a value of either input when both inputs have one type: `bit`
    /// says which (1: `slot1`, 2: `slot2`); as `put1` and `put2` otherwise.
    /// Both inputs call it through one closure (see
    /// `combineLatestSameType`), with no branch on which input it is.
    @inlinable
    @inline(__always)
    func put(_ value: T1, _ bit: UInt8, _ emit: (consuming (T1, T2)) -> Void) where T2 == T1 {
        let first = bit == 1
        self.store(value, into: first ? self.slot1 : self.slot2, bit: bit, other: first ? self.slot2 : self.slot1, { first ? ($0, $1) : ($1, $0) }, emit)
    }

    /// `put1`, `put2` and `put`: stores `value` in `slot` (bit `bit` of
    /// `filled`) under the lock; when the other input has a value, reads it
    /// (from `other`) before the unlock and emits the pair that `pair` makes
    /// of the two after it. The pair is built from `value`, never from the
    /// slot just written: read back, its two stores stalled the processor
    /// (one wider load after them).
    @inlinable
    @inline(__always)
    func store<V, Other>(_ value: V, into slot: UnsafeMutablePointer<V>, bit: UInt8, other: UnsafeMutablePointer<Other>, _ pair: (V, consuming Other) -> (T1, T2), _ emit: (consuming (T1, T2)) -> Void) {
        self.mutex.lock()
        if _slowPath(self.filled & bit == 0) {
            self.filled |= bit
            slot.initialize(to: value)
            guard self.filled == 3 else {
                self.mutex.unlock()
                return
            }
            let otherValue = other.pointee
            self.mutex.unlock()
            emit(pair(value, consume otherValue))
            return
        }
        var replaced = value
        swap(&replaced, &slot.pointee)
        guard self.filled == 3 else {
            self.mutex.unlock()
            withExtendedLifetime(replaced) {}
            return
        }
        #if SIGNALKIT_PLANT_LIFETIME_BUG
        // The schedule explorer's planted bug (make explore-measure, never a
        // build of the library): the other value read after the unlock,
        // when another thread may replace and release it (issue 50's crash,
        // written in the source).
        self.mutex.unlock()
        let otherValue = other.pointee
        #else
        let otherValue = other.pointee
        self.mutex.unlock()
        #endif
        emit(pair(value, consume otherValue))
        withExtendedLifetime(replaced) {}
    }
}

/// The latest values of N signals of one type, for the array form and, over
/// `Any`, for the arities 3 to 26.
///
/// Once every input has a value, the array a combination emits is `latest`
/// itself, shared copy-on-write: when the emission that held it has let it go
/// (the usual case: a subscriber that reads the values and keeps none), the
/// next value is stored in place and the emission allocates nothing; while it
/// is still held (kept by a subscriber, or in flight on another thread), the
/// store copies it first, so an emitted array never changes.
///
/// Thread-safety: as `_CombineLatest2State`.
@usableFromInline
final class _CombineLatestArrayState<T>: @unchecked Sendable {
    @usableFromInline let mutex = _Mutex()
    /// The values so far, until every input has one (then emptied).
    @exclusivity(unchecked) @usableFromInline var values: [T?]
    @exclusivity(unchecked) @usableFromInline var missing: Int
    /// The latest values once every input has one.
    @exclusivity(unchecked) @usableFromInline var latest: [T] = []

    @inlinable
    init(count: Int) {
        self.values = [T?](repeating: nil, count: count)
        self.missing = count
    }

    /// Stores the value at `index`; returns all latest values, if all are
    /// known, and the replaced value, for the caller to release after emitting.
    @inlinable
    func put(_ index: Int, _ value: T) -> (values: [T]?, replaced: T?) {
        self.mutex.lock()
        if self.missing == 0 {
            let previous = self.latest[index]
            self.latest[index] = value
            let result = self.latest
            self.mutex.unlock()
            return (result, previous)
        }
        let previous = self.values[index]
        if previous == nil {
            self.missing -= 1
        }
        self.values[index] = value
        var result: [T]?
        if self.missing == 0 {
            self.latest = self.values.map { $0! }
            self.values = []
            result = self.latest
        }
        self.mutex.unlock()
        return (result, previous)
    }
}

/// Starts one input of a combination with the given callbacks, for the
/// combination's subscription (`Signal.start(downstream:)`).
@usableFromInline
typealias CombineLatestStarter<T, E> = (_SubscriberDisposable?, @escaping (T) -> Void, @escaping (E) -> Void, @escaping () -> Void) -> any Disposable

/// Wraps a signal of any value type as a starter delivering `Any`.
func combineLatestStarter<T, E>(_ signal: Signal<T, E>) -> CombineLatestStarter<Any, E> {
    return { downstream, next, error, completed in
        return signal.start(downstream: downstream, next: { value in
            next(value)
        }, error: error, completed: completed)
    }
}

/// The shared implementation of the array form and of the arities 3 to 26.
@inlinable
func combineLatestCore<T, E, R>(queue: Queue?, _ starters: [CombineLatestStarter<T, E>], combine: @escaping ([T]) -> R) -> Signal<R, E> {
    let count = starters.count
    if count == 0 {
        return Signal<R, E> { subscriber in
            subscriber.putNext(combine([]))
            subscriber.putCompletion()
            return EmptyDisposable
        }
    }
    return Signal<R, E> { subscriber in
        let state = _CombineLatestArrayState<T>(count: count)
        let group = _SignalInputGroup(count: count, subscriber: subscriber, queue: queue)
        let next: (Int, T) -> Void = { index, value in
            let (values, replaced) = state.put(index, value)
            if let values {
                subscriber.putNext(combine(values))
            }
            withExtendedLifetime(replaced) {}
        }
        return group.start { index in
            guard let queue else {
                return starters[index](subscriber.handle, { value in
                    next(index, value)
                }, group.error, group.completed)
            }
            return starters[index](subscriber.handle, { value in
                queue.async {
                    next(index, value)
                }
            }, group.error, group.completed)
        }
    }
}

/// `combineLatest2` without a queue when both inputs have one type: both
/// inputs deliver through one closure function (`_combineLatestInput`),
/// which finds its input's slot by the bit in its context. A pipe calls
/// each subscriber through one indirect call; with a closure function of
/// its own for each input, two pipes put to in turn made that call's target
/// change at every put, which the processor's branch predictor mispredicts:
/// W5 (two pipes, puts alternating) cost twice what the same puts cost in
/// runs of 64 to one pipe (two pipes with plain summing sinks: 27-30 ns a
/// put alternating, 14-22 in runs; 12-22 alternating with one closure
/// function for both).
@inlinable
func combineLatestSameType<T, E>(_ s1: Signal<T, E>, _ s2: Signal<T, E>, _ v1: T?, _ v2: T?) -> Signal<(T, T), E> {
    return Signal<(T, T), E>(delivering: { subscriber, next in
        let state = _CombineLatest2State<T, T>(value1: v1, value2: v2)
        let group = _SignalInputGroup(count: 2, subscriber: subscriber)
        let next1 = _combineLatestInput(state, 1, subscriber, next)
        let next2 = _combineLatestInput(state, 2, subscriber, next)
        return _startPair(group, subscriber, next, (s1, v1, next1), (s2, v2, next2))
    })
}

/// The start of both forms of the pair without a queue: with initial
/// values, their pair first, before any input starts (as in the original;
/// a downstream that ends on it, `take(1)`, leaves the inputs unstarted:
/// `group.start` reads `isEnded`); then the inputs, with their callbacks.
@inlinable
func _startPair<T1, T2, E>(_ group: _SignalInputGroup<(T1, T2), E>, _ subscriber: Subscriber<(T1, T2), E>, _ next: _FusedNext<(T1, T2)>?, _ first: (Signal<T1, E>, T1?, (T1) -> Void), _ second: (Signal<T2, E>, T2?, (T2) -> Void)) -> any Disposable {
    if let v1 = first.1, let v2 = second.1, let next {
        next((v1, v2))
    }
    return group.start { index in
        if index == 0 {
            return first.0.start(downstream: subscriber, next: first.2, error: group.error, completed: group.completed)
        }
        return second.0.start(downstream: subscriber, next: second.2, error: group.error, completed: group.completed)
    }
}

/// One input's value callback of `combineLatestSameType`: `bit` is 1 for
/// the first input, 2 for the second. Never inlined: its one closure is
/// then one function (each inlined copy made a closure function of its
/// own, see `combineLatestSameType`).
@inlinable
@inline(never)
func _combineLatestInput<T, E>(_ state: _CombineLatest2State<T, T>, _ bit: UInt8, _ subscriber: Subscriber<(T, T), E>, _ next: _FusedNext<(T, T)>?) -> (T) -> Void {
    guard let next else {
        return { value in
            state.put(value, bit) { _ in }
        }
    }
    // One object captured: the closure's context, with no box of captures
    // unpacked at each value (see `_FusedStage`).
    let input = _CombineLatestInput(state, bit, subscriber, next)
    return { value in
        input.put(value)
    }
}

/// What one input's value callback of `combineLatestSameType` reads, in
/// one object, the closure's context (see `_FusedStage`): W5 199 -> 192.7
/// instructions a put in Swift; in C the forwarder's 7 fewer go to reading
/// the object's fields (a three-word `SKValue` passed on).
///
/// Thread-safety: immutable; the state is locked.
@usableFromInline
final class _CombineLatestInput<T, E> {
    @usableFromInline let state: _CombineLatest2State<T, T>
    /// 1 for the first input, 2 for the second.
    @usableFromInline let bit: UInt8
    @usableFromInline let subscriber: Subscriber<(T, T), E>
    @usableFromInline let next: _FusedNext<(T, T)>

    @inlinable
    init(_ state: _CombineLatest2State<T, T>, _ bit: UInt8, _ subscriber: Subscriber<(T, T), E>, _ next: _FusedNext<(T, T)>) {
        self.state = state
        self.bit = bit
        self.subscriber = subscriber
        self.next = next
    }

    @inlinable @inline(__always)
    func put(_ value: T) {
        // A local function, always inlined: a closure literal with the
        // delivery's call window in it was called as a function of its own
        // (16 instructions of frame an emission).
        @inline(__always)
        func deliver(_ pair: consuming (T, T)) {
            self.subscriber.putNext(pair, through: self.next)
        }
        self.state.put(value, self.bit, deliver)
    }
}

/// The state of a two-input combination whose inputs' value callbacks
/// share one `_PairInputs` (`combineLatest2` of two types, `zip(_:_:)`):
/// a value of either input, and the pair it makes handed to `emit` after
/// the state's lock is let go.
@usableFromInline
protocol _PairState<First, Second>: AnyObject {
    associatedtype First
    associatedtype Second
    /// A value of the first input; true when the combination is complete
    /// (the caller completes after the pair).
    func putFirst(_ value: First, _ emit: (consuming (First, Second)) -> Void) -> Bool
    /// A value of the second input; as `putFirst`.
    func putSecond(_ value: Second, _ emit: (consuming (First, Second)) -> Void) -> Bool
}

extension _CombineLatest2State: _PairState {
    @inlinable @inline(__always)
    func putFirst(_ value: T1, _ emit: (consuming (T1, T2)) -> Void) -> Bool {
        self.put1(value, emit)
        return false
    }

    @inlinable @inline(__always)
    func putSecond(_ value: T2, _ emit: (consuming (T1, T2)) -> Void) -> Bool {
        self.put2(value, emit)
        return false
    }
}

/// What the inputs' value callbacks of a `_PairState` combination read, in
/// one object, the closures' context (see `_CombineLatestInput`): the
/// state, the subscriber and the downstream's composed callback.
///
/// Thread-safety: immutable; the state is locked.
@usableFromInline
final class _PairInputs<State: _PairState, E> {
    @usableFromInline let state: State
    @usableFromInline let subscriber: Subscriber<(State.First, State.Second), E>
    @usableFromInline let next: _FusedNext<(State.First, State.Second)>

    @inlinable
    init(_ state: State, _ subscriber: Subscriber<(State.First, State.Second), E>, _ next: _FusedNext<(State.First, State.Second)>) {
        self.state = state
        self.subscriber = subscriber
        self.next = next
    }

    /// The first input's value.
    @inlinable @inline(__always)
    func put1(_ value: State.First) {
        // Always inlined (see `_CombineLatestInput.put`; a method passed
        // as the function, a partial application, cost zip 150
        // instructions a put).
        @inline(__always)
        func deliver(_ pair: consuming (State.First, State.Second)) {
            self.subscriber.putNext(pair, through: self.next)
        }
        if self.state.putFirst(value, deliver) {
            self.subscriber.putCompletion()
        }
    }

    /// The second input's value.
    @inlinable @inline(__always)
    func put2(_ value: State.Second) {
        @inline(__always)
        func deliver(_ pair: consuming (State.First, State.Second)) {
            self.subscriber.putNext(pair, through: self.next)
        }
        if self.state.putSecond(value, deliver) {
            self.subscriber.putCompletion()
        }
    }
}

/// The two-signal combination over typed state.
///
/// Without a queue it is a fused signal (`Signal.init(delivering:)`): the
/// inputs' value callbacks hold the downstream's composed callback and call
/// it with the pair, checking first that the combination's subscriber has
/// not terminated, with no `Subscriber.putNext` between the pair state and
/// the downstream's stages. Everything else (errors, completion, disposal,
/// the liveness the downstream's stages read and the link through which a
/// downstream `take` stops the inputs' start) is the subscriber's, as in the
/// queue form. With a queue, the hop's blocks would hold the downstream's
/// callbacks until they ran (past the subscription's end): that form keeps
/// its subscriber.
@inlinable
func combineLatest2<T1, T2, E>(queue: Queue?, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>, _ v1: T1?, _ v2: T2?) -> Signal<(T1, T2), E> {
    guard let queue else {
        if T1.self == T2.self {
            // One type (the C library's pairs, most Swift ones): the same
            // signal built over `T1` alone; the casts change no value.
            let same = combineLatestSameType(s1, unsafeDowncast(s2, to: Signal<T1, E>.self), v1, unsafeBitCast(v2, to: T1?.self))
            return unsafeDowncast(same, to: Signal<(T1, T2), E>.self)
        }
        return Signal<(T1, T2), E>(delivering: { subscriber, next in
            let state = _CombineLatest2State<T1, T2>(value1: v1, value2: v2)
            let group = _SignalInputGroup(count: 2, subscriber: subscriber)
            let next1: (T1) -> Void
            let next2: (T2) -> Void
            if let next {
                // One object captured (see `_CombineLatestInput`).
                let inputs = _PairInputs(state, subscriber, next)
                next1 = { value in
                    inputs.put1(value)
                }
                next2 = { value in
                    inputs.put2(value)
                }
            } else {
                next1 = { value in
                    state.put1(value) { _ in }
                }
                next2 = { value in
                    state.put2(value) { _ in }
                }
            }
            return _startPair(group, subscriber, next, (s1, v1, next1), (s2, v2, next2))
        })
    }
    return Signal<(T1, T2), E> { subscriber in
        let state = _CombineLatest2State<T1, T2>(value1: v1, value2: v2)
        let group = _SignalInputGroup(count: 2, subscriber: subscriber, queue: queue)
        let next1: (T1) -> Void = { value in
            state.put1(value) { (pair: consuming (T1, T2)) in
                subscriber.putNext(pair)
            }
        }
        let next2: (T2) -> Void = { value in
            state.put2(value) { (pair: consuming (T1, T2)) in
                subscriber.putNext(pair)
            }
        }
        // As without a queue: the pair of initial values first, on the
        // subscribing thread (the original does not send it through `queue`).
        if let v1, let v2 {
            subscriber.putNext((v1, v2))
        }
        return group.start { index in
            if index == 0 {
                return s1.start(downstream: subscriber, next: { value in
                    queue.async {
                        next1(value)
                    }
                }, error: group.error, completed: group.completed)
            }
            return s2.start(downstream: subscriber, next: { value in
                queue.async {
                    next2(value)
                }
            }, error: group.error, completed: group.completed)
        }
    }
}

/// Emits the pair of the latest values of `s1` and `s2` each time either
/// emits, once both have emitted at least once.
///
/// The first error passes through and disposes the other input. Completes when
/// both inputs have completed (an input that completes without a value means
/// nothing is ever emitted, but completion still waits for the other one).
///
/// With `queue`, every event of each input is first delivered on `queue`
/// (inline when already on it, as `deliverOn` does), which also serializes the
/// combination. Without it, events are handled on the thread the input emits
/// on; inputs emitting concurrently from different threads may then see their
/// combinations delivered in an order other than the one in which the state
/// was updated.
///
/// Thread-safety: the inputs may emit from any thread; a lock guards only the
/// update of the latest values, never the delivery.
@inlinable
public func combineLatest<T1, T2, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ s2: Signal<T2, E>) -> Signal<(T1, T2), E> {
    return combineLatest2(queue: queue, s1, s2, nil, nil)
}

/// `combineLatest(queue:_:_:)` with initial values: `v1` and `v2` count as
/// already emitted. As in the original, the pair `(v1, v2)` is emitted at
/// subscription, on the subscribing thread (not through `queue`), before
/// either input starts; then the first value of either input emits a pair.
@inlinable
public func combineLatest<T1, T2, E>(queue: Queue? = nil, _ s1: Signal<T1, E>, _ v1: T1, _ s2: Signal<T2, E>, _ v2: T2) -> Signal<(T1, T2), E> {
    return combineLatest2(queue: queue, s1, s2, v1, v2)
}

/// Emits the array of the latest values of `signals` (in the order of
/// `signals`) each time any of them emits, once every one has emitted at least
/// once. An empty array emits `[]`, then completes, at once on the
/// subscribing thread, without `queue` (as in the original, where it is
/// `single([])`).
///
/// Errors, completion, `queue` and threading: as `combineLatest(queue:_:_:)`.
@inlinable
public func combineLatest<T, E>(queue: Queue? = nil, _ signals: [Signal<T, E>]) -> Signal<[T], E> {
    let starters: [CombineLatestStarter<T, E>] = signals.map { signal in
        return { downstream, next, error, completed in
            return signal.start(downstream: downstream, next: next, error: error, completed: completed)
        }
    }
    return combineLatestCore(queue: queue, starters, combine: { $0 })
}
