#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
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

    /// The one signal of the `share` / `replay` node `key` in the case being
    /// run: made by `make` at its first place, the same at the others.
    func sharedSignal(_ key: ModelSignal, _ make: () -> Signal<Int, Int>) -> Signal<Int, Int> {
        if let existing = self.shared[key] {
            return existing
        }
        let made = make()
        self.shared[key] = made
        return made
    }

    /// The library's signal for a pipeline: a source's here, an operator's
    /// in its file of Operators/. Every closure captures `token`.
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

        case let .operation(operation):
            return operation.base.build(self, token)
        }
    }
}
#endif
