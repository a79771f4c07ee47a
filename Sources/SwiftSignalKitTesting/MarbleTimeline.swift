/// The events of a marble diagram, in the diagram's order, with the
/// diagram's subscription point if it has one.
///
/// Times are frames relative to the subscription point (`^`), or to the
/// diagram's first frame when it has none. `subscriptionOffset` keeps where
/// the diagram started: it is the number of frames before `^`, so the diagram
/// `--a-^b|` is the events `a` at -2, `b` at 0 and the completion at 1, with
/// offset 4. A cold diagram (no `^`) has no offset.
///
/// `Marbles.parse` makes one from a diagram and `Marbles.print` gives it back
/// as its canonical diagram. A timeline built by hand need not be one that a
/// diagram could give (its events may be out of order, or follow a terminal
/// event): `print` shows it as it is.
///
/// Thread-safety: an immutable value; as safe to share as its payloads
/// (`Sendable` when they are).
public struct MarbleTimeline<Value, Failure> {
    /// The events, in the order they happen (ties in the diagram's order).
    public let events: [TimelineEvent<Value, Failure>]
    /// The number of frames from the diagram's start to its subscription
    /// point `^`, or nil when it has none (a cold source).
    public let subscriptionOffset: Int?

    /// A timeline of `events`, with a subscription point `subscriptionOffset`
    /// frames after the start of its diagram, if not nil.
    public init(_ events: [TimelineEvent<Value, Failure>], subscriptionOffset: Int? = nil) {
        self.events = events
        self.subscriptionOffset = subscriptionOffset
    }
}

extension MarbleTimeline: Equatable where Value: Equatable, Failure: Equatable {
}

extension MarbleTimeline: Sendable where Value: Sendable, Failure: Sendable {
}

extension MarbleTimeline: CustomStringConvertible {
    /// The events, as `[next(a)@0, completed@1]`, followed by the offset when
    /// there is one (`subscriptionOffset: 2`).
    public var description: String {
        let events = "[" + self.events.map(\.description).joined(separator: ", ") + "]"
        if let offset = self.subscriptionOffset {
            return events + " subscriptionOffset: \(offset)"
        }
        return events
    }
}
