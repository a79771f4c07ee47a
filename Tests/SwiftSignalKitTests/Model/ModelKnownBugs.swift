// Library bugs the model-based tester has found that are still open. The
// random run does not count the cases that hit them as failures (it says how
// many there were), so that it can go on finding other bugs meanwhile; each
// has regression tests in ModelRegressionTests.swift, which fail until it is
// fixed. Remove an entry once its bug is fixed.
enum ModelKnownBugs {
    // Bug 1 (restartIfError over castError never disposed), bug 2 (inputs
    // started after the subscription ended during its start, through any
    // operators in between) and bug 3 (something started while the
    // terminal event of a subscription below is being delivered; its last
    // case, a `then` whose part completed inside that callback, is
    // `ModelRegressionTests.testThenStartsNothingWhenItsPartCompletesInsideATerminalCallback`)
    // are fixed.
    //
    // Open, found when the model learned `share` and `replay` (regression
    // tests: `ModelRegressionTests.testKnownBug4`, `testKnownBug5`); the
    // model recognizes the situation (`ReferenceModel.knownBugs`):
    //
    // Bug 4: a subscriber of a shared signal whose subscription ended by a
    // terminal event below it (a `take`, `takeUntil`, a `then` part over it)
    // still counts as joined while that terminal event is delivered: a
    // subscriber that comes meanwhile (the next part of a `then`, the next
    // inner signal of `mapToQueue` / `mergeMap`) joins the old connection
    // (and gets its replay) instead of connecting anew, although the last
    // subscriber has left. The same class as bug 3.
    //
    // Bug 5: a shared signal whose last subscriber left during its
    // upstream's start (an inner signal of `mapToSignal` replaced by a value
    // it emitted) and that is subscribed again meanwhile connects anew, but
    // the new connection's events do not reach its subscriber (with
    // `share(Signal.single(0))`: one value where a fresh `share` gives two).
    //
    // Bug 6 (fixed): a crash (SIGSEGV in `_SubscriberDisposable.downstreamTerminatedPinned`,
    // from `Subscriber.isEnded` in `_SignalQueueState.innerCompleted`), case
    // seed 1026539: the shared connection's upstream stayed linked to the
    // subscriber that connected it after that subscriber had gone. The link
    // now holds only while the start runs
    // (`Signal_ShareTests.testTheUpstreamDoesNotReachTheSubscriberThatConnectedItAfterItLeft`).

    /// A case that would hit a known bug, recognized before running it.
    static func match(_ testCase: ModelCase) -> String? {
        guard testCase.signal.hasSharedNode else {
            return nil
        }
        let bugs = ReferenceModel.knownBugs(testCase)
        if bugs.contains(4) {
            return "bug 4: a shared signal's subscriber that left by a terminal event still counts while it is delivered"
        }
        if bugs.contains(5) {
            return "bug 5: a shared signal reconnected during its previous upstream's start delivers nothing"
        }
        return nil
    }

    /// A disagreement that is the symptom of a known bug.
    static func match(_ comparison: ModelComparison) -> String? {
        return nil
    }
}
