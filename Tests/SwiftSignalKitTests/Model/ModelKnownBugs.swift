// Library bugs the model-based tester has found that are still open. The
// random run does not count the cases that hit them as failures (it says how
// many there were), so that it can go on finding other bugs meanwhile; each
// has regression tests in ModelRegressionTests.swift, which fail until it is
// fixed. Remove an entry once its bug is fixed.
enum ModelKnownBugs {
    // Bug 1 (restartIfError over castError never disposed) and bug 2
    // (inputs started after the subscription ended during its start,
    // through any operators in between) are fixed.
    //
    // Bug 3 (open; found by the operators of issue 33, present before
    // them): a `then` whose part completes from inside the callback of its
    // downstream's terminal event (a value put into a pipe from the
    // subscriber's completion callback, under `take(until:)` over `merge`,
    // or `takeUntil(signal)`) starts its next part, although the
    // subscription below has ended; the model starts nothing under an ended
    // subscription. The next part is disposed right after the callback
    // returns, and nothing of it is delivered. Regression tests:
    // `ModelRegressionTests.testKnownBug3`.

    /// A case that would hit a known bug, recognized before running it.
    static func match(_ testCase: ModelCase) -> String? {
        return nil
    }

    /// A disagreement that is the symptom of a known bug: bug 3 shows as the
    /// same events and the same live subscriptions, with more subscriptions
    /// made to a subject by the library.
    static func match(_ comparison: ModelComparison) -> String? {
        let expected = comparison.expected
        let actual = comparison.actual
        guard comparison.leaks.isEmpty, expected.events == actual.events, expected.subscriptions == actual.subscriptions,
              expected.subjectStarts.count == actual.subjectStarts.count else {
            return nil
        }
        let moreStarts = zip(expected.subjectStarts, actual.subjectStarts).allSatisfy { model, library in
            zip(model, library).allSatisfy { $0 <= $1 }
        }
        return moreStarts && expected.subjectStarts != actual.subjectStarts ? "bug 3: then starts its next part from inside a downstream's terminal callback" : nil
    }
}
