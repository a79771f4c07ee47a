/// Folds the values with `f`, starting from `initial`, and emits every
/// intermediate result: for values `a, b`, emits `f(initial, a)`, then
/// `f(f(initial, a), b)`. `initial` itself is not emitted (put `startWith`
/// after it for that). Errors and the completion pass through.
///
/// Values are folded one at a time, in the order they arrive, even when the
/// upstream emits from several threads at once (a value that arrives while
/// another is being folded waits, and the thread already folding folds it
/// and delivers its result); `f` is never called under a lock. With a serial
/// upstream nothing is allocated per value.
///
/// Thread-safety: the upstream may emit from any thread; results are
/// delivered on the thread that folds them.
@inlinable
public func scan<T, E, A>(_ initial: A, _ f: @escaping (A, T) -> A) -> (Signal<T, E>) -> Signal<A, E> {
    return _statefulStage(initial, _SignalScanStep<T, A>(f: f))
}

/// `scan`'s step: the accumulator folded with each value, and emitted.
@usableFromInline
struct _SignalScanStep<T, A>: _SignalStep {
    @usableFromInline let f: (A, T) -> A

    @inlinable
    init(f: @escaping (A, T) -> A) {
        self.f = f
    }

    @inlinable
    func step(_ accumulated: inout A, _ value: T, _ emit: (A) -> Void) {
        accumulated = self.f(accumulated, value)
        emit(accumulated)
    }
}

/// Emits each value paired with the one before it: for `a, b, c`, emits
/// `(a, b)`, then `(b, c)`. The first value emits nothing. Errors and the
/// completion pass through.
///
/// Thread-safety: the upstream may emit from any thread; values are paired
/// one at a time, in the order they arrive (a value that arrives while
/// another is being paired waits, and the thread already pairing pairs it
/// and delivers its pair), never under a lock. With a serial upstream
/// nothing is allocated per value.
@inlinable
public func pairwise<T, E>(_ signal: Signal<T, E>) -> Signal<(T, T), E> {
    return signal |> _statefulStage(nil, _SignalPairwiseStep<T>())
}

/// `pairwise`'s step: the previous value kept, each pair emitted.
@usableFromInline
struct _SignalPairwiseStep<T>: _SignalStep {
    @inlinable
    init() {}

    /// The previous value is moved out of the state into the pair (taken,
    /// not copied and then released as it is replaced).
    @inlinable
    func step(_ previous: inout T?, _ value: T, _ emit: ((T, T)) -> Void) {
        let before = previous.take()
        previous = value
        if let before {
            emit((before, value))
        }
    }
}
