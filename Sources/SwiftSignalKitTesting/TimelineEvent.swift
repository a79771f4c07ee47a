import SwiftSignalKit

/// One event of a timeline: a value, an error or the completion, at a time
/// counted in frames.
///
/// A frame is the unit of a marble diagram (one `-`, one value, one group);
/// time 0 is the diagram's first frame, or its subscription point `^` when it
/// has one (events before it then have negative times). Turning frames into
/// the time of a queue is left to whoever plays or records the timeline.
///
/// Thread-safety: an immutable value; as safe to share as its payloads
/// (`Sendable` when they are).
public struct TimelineEvent<Value, Failure> {
    /// What happens at `time`.
    ///
    /// Thread-safety: as `TimelineEvent`.
    public enum Kind {
        /// A value.
        case next(Value)
        /// The error that ends the timeline.
        case error(Failure)
        /// The completion that ends the timeline.
        case completed

        /// Whether this kind ends a timeline (an error or the completion).
        public var isTerminal: Bool {
            switch self {
            case .next:
                return false
            case .error, .completed:
                return true
            }
        }
    }

    /// The frame of the event (negative before a subscription point).
    public let time: Int
    /// The event.
    public let kind: Kind

    /// The event `kind` at frame `time`.
    public init(time: Int, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    /// The value `value` at frame `time`.
    public static func next(_ value: Value, at time: Int) -> TimelineEvent {
        return TimelineEvent(time: time, kind: .next(value))
    }

    /// The error `error` at frame `time`.
    public static func error(_ error: Failure, at time: Int) -> TimelineEvent {
        return TimelineEvent(time: time, kind: .error(error))
    }

    /// The completion at frame `time`.
    public static func completed(at time: Int) -> TimelineEvent {
        return TimelineEvent(time: time, kind: .completed)
    }
}

extension TimelineEvent {
    /// `event` (as `dematerialize` gives it) at frame `time`.
    public init(_ event: SignalEvent<Value, Failure>, at time: Int) {
        switch event {
        case let .Next(value):
            self.init(time: time, kind: .next(value))
        case let .Error(error):
            self.init(time: time, kind: .error(error))
        case .Completion:
            self.init(time: time, kind: .completed)
        }
    }

    /// The event without its time, as `materialize` takes it.
    public var signalEvent: SignalEvent<Value, Failure> {
        switch self.kind {
        case let .next(value):
            return .Next(value)
        case let .error(error):
            return .Error(error)
        case .completed:
            return .Completion
        }
    }
}

extension TimelineEvent.Kind: Equatable where Value: Equatable, Failure: Equatable {
}

extension TimelineEvent.Kind: Sendable where Value: Sendable, Failure: Sendable {
}

extension TimelineEvent: Equatable where Value: Equatable, Failure: Equatable {
}

extension TimelineEvent: Sendable where Value: Sendable, Failure: Sendable {
}

extension TimelineEvent: CustomStringConvertible {
    /// The kind and the time, as `next(a)@3`, `error(e)@5`, `completed@7`.
    public var description: String {
        switch self.kind {
        case let .next(value):
            return "next(\(value))@\(self.time)"
        case let .error(error):
            return "error(\(error))@\(self.time)"
        case .completed:
            return "completed@\(self.time)"
        }
    }
}
