import SwiftSignalKit

/// When one subscription to a test signal started and was disposed, in
/// frames of its scheduler.
///
/// Thread-safety: an immutable value.
public struct SubscriptionLog: Equatable, Sendable, CustomStringConvertible {
    /// The frame of the subscription.
    public let subscribed: Int
    /// The frame of the disposal, or nil while it is still subscribed.
    public let disposed: Int?

    /// A subscription from frame `subscribed` to `disposed` (nil: not yet).
    public init(subscribed: Int, disposed: Int? = nil) {
        self.subscribed = subscribed
        self.disposed = disposed
    }

    /// `^3 !7`, or `^3` while subscribed.
    public var description: String {
        if let disposed = self.disposed {
            return "^\(self.subscribed) !\(disposed)"
        }
        return "^\(self.subscribed)"
    }
}

/// A signal that plays a timeline on a `TestScheduler`'s queue, and logs its
/// subscriptions.
///
/// - Cold (`TestScheduler.cold`): each subscription plays the whole
///   timeline from its own start: an event at frame t comes at the start of
///   the frame t frames after the subscription's (the clock's frame,
///   rounded down). Events play on the grid of frames: a subscription made
///   in the middle of a frame (behind a delay that is not a whole number of
///   frames) gets its frame-t event less than t frames after it.
/// - Hot (`TestScheduler.hot`): the timeline plays once, from the frame the
///   signal was made at (its `^`), whoever listens: an event at frame t
///   comes at the start of that frame plus t, to the subscribers present
///   then. Events
///   before `^` (negative times) happened before anyone could subscribe: no
///   one sees them. A subscription after the terminal event sees nothing.
///
/// Events are delivered on the scheduler's queue, each as a task of its
/// frame: those of one frame in the timeline's order. Disposing a
/// subscription stops its events at once (a cold one's tasks are dropped
/// from the queue) and logs the frame.
///
/// Thread-safety: `signal` may be subscribed and disposed from any thread;
/// `subscriptions` may be read from any thread.
public final class TestSignal<Value, Failure>: @unchecked Sendable {
    /// The timeline it plays.
    public let timeline: MarbleTimeline<Value, Failure>
    /// Whether it is hot (see the type's documentation).
    public let isHot: Bool
    // The scheduler's queue and frame, not the scheduler: pending events
    // hold the subscribers, which hold this signal (see TestScheduler).
    private let clock: FrameClock
    private let log = Atomic<[SubscriptionLog]>(value: [])
    // Hot: the subscribers present, by id, and whether the timeline ended.
    private let hotState = Atomic<(next: Int, subscribers: [Int: Subscriber<Value, Failure>], ended: Bool)>(value: (0, [:], false))

    init(scheduler: TestScheduler, timeline: MarbleTimeline<Value, Failure>, hot: Bool) {
        self.clock = scheduler.clock
        self.timeline = timeline
        self.isHot = hot
        if hot {
            self.scheduleHot()
        }
    }

    /// Every subscription so far, in the order they started.
    public var subscriptions: [SubscriptionLog] {
        return self.log.with { $0 }
    }

    /// The signal: subscribe to it as to any other.
    public var signal: Signal<Value, Failure> {
        return Signal { [self] subscriber in
            let frame = self.clock.now
            var index = 0
            // One critical section: the index is this subscription's entry
            // even when others subscribe at the same time.
            _ = self.log.modify { log in
                index = log.count
                return log + [SubscriptionLog(subscribed: frame)]
            }
            let disposed = Atomic<Bool>(value: false)
            let stop: () -> Void
            if self.isHot {
                stop = self.subscribeHot(subscriber)
            } else {
                // Disposing drops the events still scheduled: they would
                // keep the subscriber until their frames, and count as
                // pending work of the queue.
                let tokens = self.playCold(to: subscriber, unless: disposed)
                stop = { [clock = self.clock] in
                    for token in tokens {
                        clock.cancel(token)
                    }
                }
            }
            // Weakly: a hot signal holds its subscribers, whose disposables
            // would hold it back (a cycle that kept an undisposed recording
            // and all it holds alive for good). Its pending events hold it
            // while they can still come; the log matters only to whoever
            // holds it.
            return ActionDisposable { [weak self] in
                if disposed.swap(true) {
                    return
                }
                stop()
                guard let self else {
                    return
                }
                let frame = self.clock.now
                _ = self.log.modify { log in
                    var log = log
                    if index < log.count {
                        log[index] = SubscriptionLog(subscribed: log[index].subscribed, disposed: frame)
                    }
                    return log
                }
            }
        }
    }

    /// Schedules the timeline's events for one subscription; returns the
    /// tokens of their tasks, for the disposal to drop them.
    private func playCold(to subscriber: Subscriber<Value, Failure>, unless disposed: Atomic<Bool>) -> [UInt64] {
        let start = self.clock.now
        var tokens: [UInt64] = []
        for event in self.timeline.events {
            // A frame past Int.max is past the clock's end: never played.
            let (frame, overflow) = start.addingReportingOverflow(max(0, event.time))
            if overflow {
                continue
            }
            let token = self.clock.scheduleCancellable(at: frame) {
                if disposed.with({ $0 }) {
                    return
                }
                TestSignal.deliver(event.kind, to: subscriber)
            }
            if let token {
                tokens.append(token)
            }
        }
        return tokens
    }

    private func subscribeHot(_ subscriber: Subscriber<Value, Failure>) -> () -> Void {
        var id: Int?
        _ = self.hotState.modify { state in
            var state = state
            if !state.ended {
                id = state.next
                state.subscribers[state.next] = subscriber
                state.next += 1
            }
            return state
        }
        guard let id else {
            return {}
        }
        return { [weak self] in
            guard let self else {
                return
            }
            var removed: Subscriber<Value, Failure>?
            _ = self.hotState.modify { state in
                var state = state
                removed = state.subscribers.removeValue(forKey: id)
                return state
            }
            // Released here, outside the lock.
            _ = removed
        }
    }

    private func scheduleHot() {
        let start = self.clock.now
        for event in self.timeline.events where event.time >= 0 {
            // A frame past Int.max is past the clock's end: never played.
            let (frame, overflow) = start.addingReportingOverflow(event.time)
            if overflow {
                continue
            }
            // Strongly: the subscribers' disposables hold the signal weakly,
            // so its events keep it (and its subscribers) until they have
            // played, or the queue closes.
            self.clock.scheduleCancellable(at: frame) { [self] in
                var subscribers: [Subscriber<Value, Failure>] = []
                _ = self.hotState.modify { state in
                    var state = state
                    subscribers = state.subscribers.sorted { $0.key < $1.key }.map(\.value)
                    if event.kind.isTerminal {
                        state.ended = true
                        state.subscribers = [:]
                    }
                    return state
                }
                for subscriber in subscribers {
                    TestSignal.deliver(event.kind, to: subscriber)
                }
            }
        }
    }

    private static func deliver(_ kind: TimelineEvent<Value, Failure>.Kind, to subscriber: Subscriber<Value, Failure>) {
        switch kind {
        case let .next(value):
            subscriber.putNext(value)
        case let .error(error):
            subscriber.putError(error)
        case .completed:
            subscriber.putCompletion()
        }
    }
}

extension TestScheduler {
    /// A cold test signal playing `timeline` (its times relative to each
    /// subscription; negative times count as 0).
    public func cold<Value, Failure>(_ timeline: MarbleTimeline<Value, Failure>) -> TestSignal<Value, Failure> {
        return TestSignal(scheduler: self, timeline: timeline, hot: false)
    }

    /// A cold test signal playing `diagram` (see `Marbles.parse`).
    ///
    /// - Throws: `MarbleSyntaxError` for a diagram that does not parse, or
    ///   that has a subscription point `^` (it is for hot signals).
    public func cold<Value, Failure>(_ diagram: String, values: [Character: Value], error: Failure) throws(MarbleSyntaxError) -> TestSignal<Value, Failure> {
        return self.cold(try coldTimeline(diagram, try Marbles.parse(diagram, values: values, error: error)))
    }

    /// A cold test signal playing `diagram`, whose letters and digits are
    /// their own values.
    ///
    /// - Throws: `MarbleSyntaxError` for a diagram that does not parse, or
    ///   that has a subscription point `^`.
    public func cold<Failure>(_ diagram: String, error: Failure) throws(MarbleSyntaxError) -> TestSignal<Character, Failure> {
        return self.cold(try coldTimeline(diagram, try Marbles.parse(diagram, error: error)))
    }

    /// A hot test signal playing `timeline` from the current frame, its time
    /// 0 (the diagram's `^`).
    public func hot<Value, Failure>(_ timeline: MarbleTimeline<Value, Failure>) -> TestSignal<Value, Failure> {
        return TestSignal(scheduler: self, timeline: timeline, hot: true)
    }

    /// A hot test signal playing `diagram` from the current frame, which is
    /// its `^` (or its first frame when it has none).
    ///
    /// - Throws: `MarbleSyntaxError` for a diagram that does not parse.
    public func hot<Value, Failure>(_ diagram: String, values: [Character: Value], error: Failure) throws(MarbleSyntaxError) -> TestSignal<Value, Failure> {
        return self.hot(try Marbles.parse(diagram, values: values, error: error))
    }

    /// A hot test signal playing `diagram`, whose letters and digits are
    /// their own values.
    ///
    /// - Throws: `MarbleSyntaxError` for a diagram that does not parse.
    public func hot<Failure>(_ diagram: String, error: Failure) throws(MarbleSyntaxError) -> TestSignal<Character, Failure> {
        return self.hot(try Marbles.parse(diagram, error: error))
    }
}

extension TestScheduler {
    /// A cold test signal that cannot fail, playing `diagram` (no `#`),
    /// whose letters and digits are their own values.
    ///
    /// - Throws: `MarbleSyntaxError` for a diagram that does not parse or
    ///   has a `#` or a `^`.
    public func cold(_ diagram: String) throws(MarbleSyntaxError) -> TestSignal<Character, NoError> {
        return self.cold(try coldTimeline(diagram, try infallibleTimeline(diagram)))
    }

    /// A hot test signal that cannot fail, playing `diagram` (no `#`) from
    /// the current frame, which is its `^`.
    ///
    /// - Throws: `MarbleSyntaxError` for a diagram that does not parse or
    ///   has a `#`.
    public func hot(_ diagram: String) throws(MarbleSyntaxError) -> TestSignal<Character, NoError> {
        return self.hot(try infallibleTimeline(diagram))
    }

    /// A cold test signal that cannot fail, playing `diagram` (no `#`),
    /// whose letters and digits are looked up in `values`.
    ///
    /// - Throws: `MarbleSyntaxError` for a diagram that does not parse or
    ///   has a `#` or a `^`.
    public func cold<Value>(_ diagram: String, values: [Character: Value]) throws(MarbleSyntaxError) -> TestSignal<Value, NoError> {
        return self.cold(try coldTimeline(diagram, try infallibleTimeline(diagram, values: values)))
    }

    /// A hot test signal that cannot fail, playing `diagram` (no `#`) from
    /// the current frame, which is its `^`; its letters and digits are
    /// looked up in `values`.
    ///
    /// - Throws: `MarbleSyntaxError` for a diagram that does not parse or
    ///   has a `#`.
    public func hot<Value>(_ diagram: String, values: [Character: Value]) throws(MarbleSyntaxError) -> TestSignal<Value, NoError> {
        return self.hot(try infallibleTimeline(diagram, values: values))
    }
}

/// `timeline`, parsed from `diagram`, for a cold signal: a subscription point
/// `^` is a syntax error. The parser takes it as a hot source's, which would
/// make the events before it negative times, played at each subscription's
/// start: not what the diagram shows. (The C and Python test signals refuse
/// it with the same message.)
private func coldTimeline<Value, Failure>(_ diagram: String, _ timeline: MarbleTimeline<Value, Failure>) throws(MarbleSyntaxError) -> MarbleTimeline<Value, Failure> {
    guard timeline.subscriptionOffset != nil, let caret = diagram.firstIndex(of: "^") else {
        return timeline
    }
    let position = diagram.distance(from: diagram.startIndex, to: caret)
    throw MarbleSyntaxError(diagram: diagram, position: position, message: "the subscription point `^` in a cold diagram (it is for hot signals)")
}

/// The timeline of `diagram` for a signal that cannot fail: a `#` is a
/// syntax error.
private func infallibleTimeline(_ diagram: String) throws(MarbleSyntaxError) -> MarbleTimeline<Character, NoError> {
    return try infallibleTimeline(diagram, values: [:])
}

/// `diagram` parsed with `values` (empty: each character its own value) for
/// a signal that cannot fail: a `#` is a syntax error.
private func infallibleTimeline<Value>(_ diagram: String, values: [Character: Value]) throws(MarbleSyntaxError) -> MarbleTimeline<Value, NoError> {
    let parsed = try Marbles.parse(diagram, values: values, error: "#")
    var events: [TimelineEvent<Value, NoError>] = []
    for event in parsed.events {
        switch event.kind {
        case let .next(value):
            events.append(.next(value, at: event.time))
        case .completed:
            events.append(.completed(at: event.time))
        case .error:
            let position = diagram.distance(from: diagram.startIndex, to: diagram.firstIndex(of: "#") ?? diagram.startIndex)
            throw MarbleSyntaxError(diagram: diagram, position: position, message: "`#` in the diagram of a signal that cannot fail (NoError)")
        }
    }
    return MarbleTimeline(events, subscriptionOffset: parsed.subscriptionOffset)
}
