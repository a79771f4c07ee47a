/// What a bounded buffer does with a value that arrives when it is full
/// (`onBackpressureBuffer(capacity:overflow:onDrop:)`,
/// `deliverOn(_:capacity:overflow:onDrop:)`). Named after RxJava's
/// `BackpressureOverflowStrategy` and Akka Streams' `OverflowStrategy`.
///
/// Generic over the signal's error type because two policies end the stream
/// with an error, which they make from a `SignalOverflowError`: with
/// `E == SignalOverflowError` (or `any Error`) use `.error` and `.block`;
/// otherwise say how to turn it into your error, `.fail { MyError.overflow($0) }`.
///
/// Thread-safety: a value type; its closures are called on the producing
/// thread, never under a lock of the library.
public enum SignalOverflow<E> {
    /// The incoming value is dropped (Akka `dropNew`, RxJava
    /// `onBackpressureDrop`).
    case dropNewest
    /// The oldest pending value is dropped to make room (Akka `dropHead`,
    /// RxJava `DROP_OLDEST`).
    case dropOldest
    /// The newest pending value is replaced by the incoming one, so the
    /// consumer always ends with the latest (Akka `dropTail`, RxJava
    /// `DROP_LATEST`; with capacity 1, `onBackpressureLatest`).
    case latest
    /// The stream fails with the error `makeError` makes (Akka `fail`, RxJava
    /// `ERROR`). The values pending are delivered first, then the error; the
    /// value that overflowed, and any the upstream puts before the error
    /// reaches the consumer and disposes it, go to `onDrop`.
    case fail(_ makeError: (SignalOverflowError) -> E)
    /// The producing thread waits for room (Akka `backpressure`). When
    /// waiting could never end, the stream fails instead with the error
    /// `refused` makes, as `fail` does: the producer is the thread
    /// delivering the values (a value put from inside a delivery), or the
    /// queue is host-drained or virtual-time (the thread that drains it may
    /// be the producer), or the producer is running a host-drained or
    /// virtual-time queue's work (`zip`, `mergeMap`, `queue`).
    case block(refused: (SignalOverflowError) -> E)
}

extension SignalOverflow where E == SignalOverflowError {
    /// `.fail` with the `SignalOverflowError` itself as the error.
    public static var error: SignalOverflow<E> { .fail { $0 } }
    /// `.block` failing with the `SignalOverflowError` itself when it
    /// cannot wait.
    public static var block: SignalOverflow<E> { .block(refused: { $0 }) }
}

extension SignalOverflow where E == any Error {
    /// `.fail` with the `SignalOverflowError` itself as the error.
    public static var error: SignalOverflow<E> { .fail { $0 } }
    /// `.block` failing with the `SignalOverflowError` itself when it
    /// cannot wait.
    public static var block: SignalOverflow<E> { .block(refused: { $0 }) }
}

/// Why a bounded buffer ended its stream: it overflowed under the `fail`
/// policy, or the `block` policy could not wait. `description` names the
/// operator and the capacity.
///
/// Thread-safety: an immutable value.
public struct SignalOverflowError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What went wrong. Thread-safety: an immutable value.
    public enum Reason: Equatable, Sendable {
        /// A value arrived with `capacity` values pending (policy `fail`).
        case overflow
        /// The buffer was full and the producer could not wait (policy
        /// `block`): only it could make room (it is the thread that
        /// delivers the values; for `zip`, it feeds another input too or is
        /// still starting them).
        case wouldDeadlock
        /// The buffer was full and the producer could not wait (policy
        /// `block`): the buffer's queue is host-drained or virtual-time,
        /// which only its own drain makes progress on, or the producer is
        /// running such a queue's work (which stops while it waits).
        case cannotWaitForQueue
        /// The buffer was full and the producer could not wait (policy
        /// `block`): the period that would make room never ends (a time
        /// span of 0, below 0 or infinite: `buffer(timeSpan:)`).
        case periodNeverEnds
    }

    /// The operator that failed: in Swift "onBackpressureBuffer",
    /// "deliverOn", "values(capacity:)", "buffer(timeSpan:)", "zip",
    /// "mergeMap" or "SignalPipe" (a bounded pipe); through the C API the
    /// C function's name ("sk_signal_deliver_on_bounded").
    public let operatorName: String
    /// The buffer's capacity.
    public let capacity: Int
    /// Why the stream failed.
    public let reason: Reason

    /// An error of `operatorName`'s buffer of `capacity` values, for
    /// `reason` (the library makes them; tests compare with them).
    public init(operatorName: String, capacity: Int, reason: Reason) {
        self.operatorName = operatorName
        self.capacity = capacity
        self.reason = reason
    }

    /// The error in words: the operator, the capacity and what happened
    /// (the message the C API's error value carries).
    public var description: String {
        switch self.reason {
        case .overflow:
            return "\(self.operatorName): overflow: a value arrived with \(self.capacity) value\(self.capacity == 1 ? "" : "s") pending (capacity \(self.capacity), policy error)"
        case .wouldDeadlock:
            return "\(self.operatorName): cannot block: the buffer is full (capacity \(self.capacity)) and the value was put by a thread that would wait for itself forever (the one that delivers its values, or one that feeds another input of a zip or is still starting them)"
        case .cannotWaitForQueue:
            return "\(self.operatorName): cannot block: the buffer is full (capacity \(self.capacity)) and its queue is host-drained or virtual-time, or the value was put by work of such a queue: only that queue's drain would make room, and the draining thread may be this one; choose another overflow policy for such a queue"
        case .periodNeverEnds:
            return "\(self.operatorName): cannot block: the buffer is full (capacity \(self.capacity)) and its period never ends (a time span of 0, below 0 or infinite), so nothing would make room; give a positive finite period or another overflow policy"
        }
    }
}
