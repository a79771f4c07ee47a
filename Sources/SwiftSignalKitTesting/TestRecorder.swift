import SwiftSignalKit

/// What a signal delivered, with the virtual time of each event: made by
/// `TestScheduler.record`.
///
/// `timeline` gives the events in frames (the frame each one fell in,
/// counted from the clock's 0), `events` with exact nanoseconds. `mismatch`
/// compares the recording with an expected diagram and, when they differ,
/// gives both diagrams one above the other, for a test's failure message:
///
///     XCTAssertNil(recorder.mismatch("------b-----(c|)"))
///
/// An expected diagram counts from the clock's frame 0 and has no
/// subscription point `^`: `mismatch` says so for one that has.
///
/// Thread-safety: the recording may be read from any thread while events
/// arrive on any thread; `dispose` may be called from any thread.
public final class TestRecorder<Value, Failure>: @unchecked Sendable {
    // The scheduler's queue and frame, not the scheduler: pending work
    // holds the recorder's subscriber (see TestScheduler).
    private let clock: FrameClock
    /// The events, appended in place under the atomic's lock (an append
    /// that copied the array would make a recording quadratic).
    private final class Log {
        var events: [(nanoseconds: Int64, event: SignalEvent<Value, Failure>)] = []
    }

    private let recorded = Atomic<Log>(value: Log())
    private let subscription = MetaDisposable()

    init(scheduler: TestScheduler) {
        self.clock = scheduler.clock
    }

    /// The events so far, each with the clock's time in nanoseconds.
    public var events: [(nanoseconds: Int64, event: SignalEvent<Value, Failure>)] {
        return self.recorded.with { $0.events }
    }

    /// The events so far as a timeline in frames (no subscription offset).
    public var timeline: MarbleTimeline<Value, Failure> {
        return MarbleTimeline(self.events.map { TimelineEvent($0.event, at: self.clock.frame(ofNanoseconds: $0.nanoseconds)) })
    }

    /// Disposes the recorded subscription (at once; see also the `disposeAt`
    /// of `TestScheduler.record`).
    public func dispose() {
        self.subscription.dispose()
    }

    func append(_ event: SignalEvent<Value, Failure>) {
        let now = self.clock.queue.virtualNowNanoseconds ?? 0
        self.recorded.with { $0.events.append((now, event)) }
    }

    func start(_ signal: Signal<Value, Failure>) {
        self.subscription.set(signal.start(next: { [self] value in
            self.append(.Next(value))
        }, error: { [self] error in
            self.append(.Error(error))
        }, completed: { [self] in
            self.append(.Completion)
        }))
    }
}

extension TestRecorder where Value: Equatable, Failure: Equatable {
    /// Nil when the recording is `expected`'s timeline (parsed with `values`
    /// and `error`); otherwise the two diagrams one above the other (see
    /// `Marbles.difference`), or the syntax error of `expected`.
    public func mismatch(_ expected: String, values: [Character: Value], error: Failure) -> String? {
        let timeline: MarbleTimeline<Value, Failure>
        do {
            timeline = try Marbles.parse(expected, values: values, error: error)
        } catch {
            return "the expected diagram does not parse: \(error)"
        }
        if let message = subscriptionPointMessage(expected, timeline) {
            return message
        }
        let characters = values.keys.sorted()
        return Marbles.difference(expected: timeline, actual: self.timeline, values: { value in
            characters.first { values[$0] == value }
        })
    }
}

extension TestRecorder where Value == Character, Failure: Equatable {
    /// Nil when the recording is `expected`'s timeline, whose letters and
    /// digits are their own values and whose `#` is `error`; otherwise the
    /// two diagrams one above the other.
    public func mismatch(_ expected: String, error: Failure) -> String? {
        let timeline: MarbleTimeline<Character, Failure>
        do {
            timeline = try Marbles.parse(expected, error: error)
        } catch {
            return "the expected diagram does not parse: \(error)"
        }
        if let message = subscriptionPointMessage(expected, timeline) {
            return message
        }
        return Marbles.difference(expected: timeline, actual: self.timeline)
    }
}

extension TestRecorder where Failure == NoError {
    /// The recording with `String` as its failure type, for comparing with
    /// a diagram parsed with one. `NoError` has no values: the recording has
    /// no error to convert.
    fileprivate var infallibleTimeline: MarbleTimeline<Value, String> {
        return MarbleTimeline(self.timeline.events.map { event in
            switch event.kind {
            case let .next(value):
                return .next(value, at: event.time)
            case .completed:
                return .completed(at: event.time)
            case let .error(error):
                switch error {
                }
            }
        })
    }
}

extension TestRecorder where Value: Equatable, Failure == NoError {
    /// Nil when the recording is `expected`'s timeline (parsed with `values`;
    /// a signal that cannot fail matches no `#`); otherwise the two diagrams
    /// one above the other.
    public func mismatch(_ expected: String, values: [Character: Value]) -> String? {
        let timeline: MarbleTimeline<Value, String>
        do {
            timeline = try Marbles.parse(expected, values: values, error: "#")
        } catch {
            return "the expected diagram does not parse: \(error)"
        }
        if let message = subscriptionPointMessage(expected, timeline) {
            return message
        }
        let characters = values.keys.sorted()
        return Marbles.difference(expected: timeline, actual: self.infallibleTimeline, values: { value in
            characters.first { values[$0] == value }
        })
    }
}

extension TestRecorder where Value == Character, Failure == NoError {
    /// Nil when the recording is `expected`'s timeline, whose letters and
    /// digits are their own values (a signal that cannot fail matches no
    /// `#`); otherwise the two diagrams one above the other.
    public func mismatch(_ expected: String) -> String? {
        let timeline: MarbleTimeline<Character, String>
        do {
            timeline = try Marbles.parse(expected, error: "#")
        } catch {
            return "the expected diagram does not parse: \(error)"
        }
        if let message = subscriptionPointMessage(expected, timeline) {
            return message
        }
        return Marbles.difference(expected: timeline, actual: self.infallibleTimeline)
    }
}

extension TestScheduler {
    /// Subscribes to `signal` at frame `subscribeAt` (now when nil or past)
    /// and records what it delivers; disposes the subscription at frame
    /// `disposeAt` when given. A subscription due now starts at once, on the
    /// calling thread; a later one starts on the queue, as a task of its
    /// frame. Tasks of one frame run in the order they were scheduled, and a
    /// hot signal scheduled its events when it was made, before this: a
    /// later subscription misses the event of its own frame (`hot("^-a-b|")`
    /// recorded from frame 1 gets `---b|`, without `a`).
    public func record<Value, Failure>(_ signal: Signal<Value, Failure>, subscribeAt: Int? = nil, disposeAt: Int? = nil) -> TestRecorder<Value, Failure> {
        let recorder = TestRecorder<Value, Failure>(scheduler: self)
        if let subscribeAt, subscribeAt > self.now {
            self.schedule(at: subscribeAt) {
                recorder.start(signal)
            }
        } else {
            recorder.start(signal)
        }
        if let disposeAt {
            self.schedule(at: disposeAt) {
                recorder.dispose()
            }
        }
        return recorder
    }
}

/// Why an expected diagram with a subscription point `^` cannot match: a
/// recording's times count from the clock's frame 0 and it has no `^` (the
/// timelines would differ in their offsets alone, a mismatch whose two
/// diagrams do not say why). Nil without one.
private func subscriptionPointMessage<Value, Failure>(_ expected: String, _ timeline: MarbleTimeline<Value, Failure>) -> String? {
    guard timeline.subscriptionOffset != nil, let caret = expected.firstIndex(of: "^") else {
        return nil
    }
    let position = expected.distance(from: expected.startIndex, to: caret)
    return "the expected diagram has a subscription point `^` at \(position), which a recording never has: write it from the clock's frame 0, without `^`"
}
