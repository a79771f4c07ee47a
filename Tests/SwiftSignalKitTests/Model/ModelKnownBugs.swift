// Library bugs the model-based tester has found that are still open. The
// random run does not count the cases that hit them as failures (it says how
// many there were), so that it can go on finding other bugs meanwhile; each
// has regression tests in ModelRegressionTests.swift, which fail until it is
// fixed. Remove an entry once its bug is fixed.
enum ModelKnownBugs {
    /// A case that would hit a known bug, recognized before running it.
    static func match(_ testCase: ModelCase) -> String? {
        func contains(_ signal: ModelSignal, _ predicate: (ModelSignal) -> Bool) -> Bool {
            return predicate(signal) || signal.children.contains { contains($0, predicate) }
        }
        // Bug 1 (testRestartIfErrorOverACastSignalIsDisposed): a
        // restartIfError whose signal is a fused chain (map, filter) ending in
        // castError (a pipe, dematerialize, restartIfError, as LibraryRunner
        // builds them).
        func endsInCastError(_ signal: ModelSignal) -> Bool {
            switch signal {
            case .pipe, .dematerialize, .restartIfError:
                return true
            case let .map(_, source), let .filter(_, source):
                return endsInCastError(source)
            default:
                return false
            }
        }
        if contains(testCase.signal, { signal in
            if case let .restartIfError(source) = signal {
                return endsInCastError(source)
            }
            return false
        }) {
            return "1: restartIfError over a signal whose error callback is dropped (castError) is never disposed"
        }
        return nil
    }

    /// A disagreement that is the symptom of a known bug.
    static func match(_ comparison: ModelComparison) -> String? {
        // Bug 2 (testNothingStartsAfterTheSubscriptionEndedDuringItsStart):
        // the same events and the same live subscriptions, but the library
        // has subscribed to subjects more often than the model.
        let expected = comparison.expected
        let actual = comparison.actual
        if comparison.leaks.isEmpty && expected.events == actual.events && expected.subscriptions == actual.subscriptions
            && expected.subjectStarts.count == actual.subjectStarts.count
            && zip(expected.subjectStarts, actual.subjectStarts).allSatisfy({ zip($0, $1).allSatisfy { $0 <= $1 } }) {
            return "2: inputs are started after the subscription ended during its synchronous start"
        }
        return nil
    }
}
