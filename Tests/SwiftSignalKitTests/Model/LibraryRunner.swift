import XCTest
@testable import SwiftSignalKit
import SwiftSignalKitTestSupport

// The other side of the differential test: the same `ModelCase` run through
// the real library (`Signal`, the operators, `ValuePipe`), observed the same
// way as the model observes it.

/// Captured by every closure a case gives the library; once the subscription
/// is disposed and the built signals are gone, nothing may still hold it.
final class ModelToken: @unchecked Sendable {
    var uses = 0

    func use() {
        self.uses &+= 1
    }
}

/// A value of any type from a value that cannot exist: the values of
/// `ignoreValues`, mapped back to `Int`.
func modelAbsurd<A>(_ never: Never) -> A {
}

/// What the library did with one case.
struct LibraryResult {
    var outcome: ModelOutcome
    /// Problems found after the final dispose (subscriptions or callbacks left).
    var leaks: [String]
}

/// Builds the library signals of a case and runs its script.
final class LibraryRunner {
    let pipes: [ValuePipe<Int>] = (0 ..< modelPipeCount).map { ValuePipe<Int>(replay: modelPipeReplays($0)) }
    let subjects: [TestPipe<Int, Int>] = (0 ..< modelSubjectCount).map { _ in TestPipe<Int, Int>() }
    /// The one signal of each `share` / `replay` node of the case being run
    /// (equal nodes are one shared signal); emptied once the case is over.
    private var shared: [ModelSignal: Signal<Int, Int>] = [:]

    /// The current subscriptions of each pipe, then of each subject.
    func subscriptionCounts() -> [Int] {
        let pipeCounts = self.pipes.map { pipe -> Int in
            let broadcaster = pipe.broadcaster
            broadcaster.mutex.lock()
            let count = broadcaster.subscribers.count
            broadcaster.mutex.unlock()
            return count
        }
        return pipeCounts + self.subjects.map { $0.subscriberCount }
    }

    /// Runs the case; nothing of the subscription survives the call except
    /// what the library leaks (reported in `leaks`).
    static func run(_ testCase: ModelCase) -> LibraryResult {
        let runner = LibraryRunner()
        weak var weakToken: ModelToken?
        var outcome = ModelOutcome()
        do {
            let token = ModelToken()
            weakToken = token
            outcome = runner.run(testCase, token)
        }
        var leaks: [String] = []
        let counts = runner.subscriptionCounts()
        if counts.contains(where: { $0 != 0 }) {
            leaks.append("subscriptions left after the final dispose (per pipe/subject): \(counts)")
        }
        if weakToken != nil {
            leaks.append("callbacks or operator closures still alive after the final dispose")
        }
        return LibraryResult(outcome: outcome, leaks: leaks)
    }

    /// The recorder shared by the subscriber's callbacks.
    private final class Recorder {
        var outcome = ModelOutcome()
        var step = -1
        var disposeOnNext = false
        var putOnNext: (() -> Void)?
        var disposable: (any Disposable)?
        let token: ModelToken

        init(token: ModelToken) {
            self.token = token
        }

        func record(_ event: ModelEvent) {
            self.token.use()
            self.outcome.events.append(ModelObservation(step: self.step, event: event))
            if self.disposeOnNext {
                self.disposeOnNext = false
                self.disposable?.dispose()
            }
            if let put = self.putOnNext {
                self.putOnNext = nil
                put()
            }
        }
    }

    private func run(_ testCase: ModelCase, _ token: ModelToken) -> ModelOutcome {
        let recorder = Recorder(token: token)
        do {
            let signal = self.build(testCase.signal, token)
            recorder.disposable = signal.start(next: { value in
                recorder.record(.next(value))
            }, error: { error in
                recorder.record(.error(error))
            }, completed: {
                recorder.record(.completed)
            })
        }
        recorder.outcome.subscriptions.append(self.subscriptionCounts())
        recorder.outcome.subjectStarts.append(self.subjects.map { $0.subscribed })
        for (index, step) in testCase.script.enumerated() {
            recorder.step = index
            switch step {
            case let .put(i, value):
                self.pipes[i].putNext(value)
            case let .send(i, value):
                self.subjects[i].putNext(value)
            case let .complete(i):
                self.subjects[i].putCompletion()
            case let .fail(i, error):
                self.subjects[i].putError(error)
            case .dispose:
                recorder.disposable?.dispose()
            case .disposeOnNextEvent:
                recorder.disposeOnNext = true
            case let .putOnNextEvent(i, value):
                let pipe = self.pipes[i]
                recorder.putOnNext = {
                    pipe.putNext(value)
                }
            case let .sendOnNextEvent(i, value):
                let subject = self.subjects[i]
                recorder.putOnNext = {
                    subject.putNext(value)
                }
            }
            recorder.outcome.subscriptions.append(self.subscriptionCounts())
            recorder.outcome.subjectStarts.append(self.subjects.map { $0.subscribed })
        }
        recorder.disposable?.dispose()
        recorder.disposable = nil
        recorder.putOnNext = nil
        self.shared = [:]
        return recorder.outcome
    }

    /// The library's signal for a pipeline. Every closure captures `token`.
    func build(_ signal: ModelSignal, _ token: ModelToken) -> Signal<Int, Int> {
        switch signal {
        case let .just(values):
            switch values.count {
            case 0:
                return Signal<Int, Int>.complete()
            case 1:
                return Signal<Int, Int>.single(values[0])
            default:
                return Signal<Int, Int> { subscriber in
                    token.use()
                    for value in values {
                        subscriber.putNext(value)
                    }
                    subscriber.putCompletion()
                    return EmptyDisposable
                }
            }

        case let .fail(values, error):
            if values.isEmpty {
                return Signal<Int, Int>.fail(error)
            }
            return Signal<Int, Int> { subscriber in
                token.use()
                for value in values {
                    subscriber.putNext(value)
                }
                subscriber.putError(error)
                return EmptyDisposable
            }

        case .never:
            return Signal<Int, Int>.never()

        case let .pipe(i):
            return self.pipes[i].signal() |> castError(Int.self)

        case let .subject(i):
            return self.subjects[i].signal()

        case let .map(f, source):
            return self.build(source, token) |> map { value in
                token.use()
                return f.apply(value)
            }

        case let .filter(p, source):
            return self.build(source, token) |> filter { value in
                token.use()
                return p.test(value)
            }

        case let .take(count, source):
            return self.build(source, token) |> take(count)

        case let .takeUntil(until, source):
            return self.build(source, token) |> take(until: { value in
                token.use()
                let decision = until.decide(value)
                return SignalTakeAction(passthrough: decision.passthrough, complete: decision.complete)
            })

        case let .distinctUntilChanged(source):
            return self.build(source, token) |> distinctUntilChanged

        case let .reduceLeft(initial, source):
            return self.build(source, token) |> reduceLeft(value: initial, f: { sum, value in
                token.use()
                return sum &+ value
            })

        case let .reduceLeftEmitting(initial, source):
            return self.build(source, token) |> reduceLeft(value: initial, f: { sum, value, emit in
                token.use()
                let updated = sum &+ value
                if value % 2 == 0 {
                    emit(updated)
                }
                return updated
            })

        case let .last(source):
            return self.build(source, token) |> last |> map { value in
                token.use()
                return value ?? modelNilMarker
            }

        case let .ignoreValues(source):
            return self.build(source, token) |> ignoreValues |> map(modelAbsurd)

        case let .then(first, second):
            return self.build(first, token) |> then(self.build(second, token))

        case let .restart(source):
            return restart(self.build(source, token))

        case let .restartIfError(source):
            return restartIfError(self.build(source, token)) |> castError(Int.self)

        case let .catch(source, alternative):
            let alternativeSignal = self.build(alternative, token)
            return self.build(source, token) |> `catch` { (_: Int) -> Signal<Int, Int> in
                token.use()
                return alternativeSignal
            }

        case let .mapError(source):
            return self.build(source, token) |> mapError { error in
                token.use()
                return error &+ 100
            }

        case let .meta(kind, outer, inner):
            let outerSignal = self.build(outer, token)
            let f: (Int) -> Signal<Int, Int> = { offset in
                token.use()
                return self.build(inner, token) |> map { value in
                    token.use()
                    return value &+ offset
                }
            }
            switch kind {
            case .mapToSignal:
                return outerSignal |> mapToSignal(f)
            case .mapToQueue:
                return outerSignal |> mapToQueue(f)
            case .mapToThrottled:
                return outerSignal |> mapToThrottled(f)
            case .switchToLatest:
                return outerSignal |> map(f) |> switchToLatest
            case .queue:
                return outerSignal |> map(f) |> queue
            case .throttled:
                return outerSignal |> map(f) |> throttled
            }

        case let .combineLatest(a, b):
            return combineLatest(self.build(a, token), self.build(b, token)) |> map { pair in
                token.use()
                return modelCombine([pair.0, pair.1])
            }

        case let .combineLatestWithInitial(a, v1, b, v2):
            return combineLatest(self.build(a, token), v1, self.build(b, token), v2) |> map { pair in
                token.use()
                return modelCombine([pair.0, pair.1])
            }

        case let .combineLatest3(a, b, c):
            return combineLatest(self.build(a, token), self.build(b, token), self.build(c, token)) |> map { triple in
                token.use()
                return modelCombine([triple.0, triple.1, triple.2])
            }

        case let .combineLatestArray(list):
            return combineLatest(list.map { self.build($0, token) }) |> map { values in
                token.use()
                return modelCombine(values)
            }

        case let .merge(list):
            return merge(list.map { self.build($0, token) })

        case let .deferred(source):
            return deferred {
                token.use()
                return self.build(source, token)
            }

        case let .dematerialize(source):
            return dematerialize(signal: self.build(source, token)) |> map { event -> Int in
                token.use()
                switch event {
                case let .Next(value):
                    return value
                case let .Error(error):
                    return modelErrorMarker &+ error
                case .Completion:
                    return modelCompletionMarker
                }
            } |> castError(Int.self)

        case let .roundTrip(source):
            return materialize(signal: dematerialize(signal: self.build(source, token)))

        case let .scan(initial, source):
            return self.build(source, token) |> scan(initial) { sum, value in
                token.use()
                return sum &+ value
            }

        case let .skip(count, source):
            return self.build(source, token) |> skip(count)

        case let .skipWhile(p, source):
            return self.build(source, token) |> skipWhile { value in
                token.use()
                return p.test(value)
            }

        case let .takeWhile(p, inclusive, source):
            return self.build(source, token) |> takeWhile(inclusive: inclusive) { value in
                token.use()
                return p.test(value)
            }

        case let .startWith(value, source):
            return self.build(source, token) |> startWith(value)

        case let .pairwise(source):
            return self.build(source, token) |> pairwise |> map { pair in
                token.use()
                return modelCombine([pair.0, pair.1])
            }

        case let .first(source):
            return first(self.build(source, token))

        case let .elementAt(index, source):
            return self.build(source, token) |> elementAt(index)

        case let .defaultIfEmpty(value, source):
            return self.build(source, token) |> defaultIfEmpty(value)

        case let .zip(a, b):
            return zip(self.build(a, token), self.build(b, token)) |> map { pair in
                token.use()
                return modelCombine([pair.0, pair.1])
            }

        case let .withLatestFrom(source, other):
            return self.build(source, token) |> withLatestFrom(self.build(other, token)) |> map { pair in
                token.use()
                return modelCombine([pair.0, pair.1])
            }

        case let .concat(list):
            return concat(list.map { self.build($0, token) })

        case let .takeUntilSignal(source, notifier):
            return self.build(source, token) |> takeUntil(self.build(notifier, token))

        case let .mergeMap(maxConcurrent, outer, inner):
            return self.build(outer, token) |> mergeMap(maxConcurrent: maxConcurrent) { offset in
                token.use()
                return self.build(inner, token) |> map { value in
                    token.use()
                    return value &+ offset
                }
            }

        case let .share(source):
            if let existing = self.shared[signal] {
                return existing
            }
            let made = share(self.build(source, token))
            self.shared[signal] = made
            return made

        case let .replay(count, source):
            if let existing = self.shared[signal] {
                return existing
            }
            let made = self.build(source, token) |> replay(count)
            self.shared[signal] = made
            return made

        case let .retry(count, source):
            return self.build(source, token) |> retry(count: count)
        }
    }
}
