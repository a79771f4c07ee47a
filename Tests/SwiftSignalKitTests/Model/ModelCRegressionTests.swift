import XCTest
@testable import SignalKitModel

/// The regression cases of the old C model tester (Tests/C/test_model.c, its
/// named tests, each here under the same name), and the inputs it kept in
/// Tests/fuzz/regressions/model decoded as its fuzz harness decoded them
/// (`mcase_generate` over the input's bytes), written as `ModelCase`s and run
/// through the Swift model and both runners: the C API's (`CLibraryRunner`)
/// must run each, as the C model did. The C model (Tests/common/
/// model_oracle.h) and those files are gone: fuzz_model runs this model
/// (issue 52). The C model's names: `distinct` is `distinctUntilChanged`,
/// `reduce` `reduceLeft`, `ignore` `ignoreValues`, `combine([...])`
/// `combineLatestArray`, `take_while` `takeWhile(p, false, s)`,
/// `merge_map(0, ...)` `mergeMap(Int.max, ...)`, `meta(mode, ...)` the
/// same `ModelMeta`, the steps `put_on_next` `putOnNextEvent` and so on.
/// Every case the C model had uses an operator and a step the Swift model
/// has. (The fuzz inputs were kept for cases the generator of their day made
/// from them; that generator made the cases below, the bugs' own cases
/// being the named tests.)
final class ModelCRegressionTests: XCTestCase {
    /// `testCase` runs through the C API (no `cAPIGap` in it) and through
    /// the Swift library, and both agree with the model.
    func assertBothRunnersAgree(_ testCase: ModelCase, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(CLibraryRunner.gap(in: testCase.signal), "the C API cannot run \(testCase)", file: file, line: line)
        assertModelAgrees(testCase, file: file, line: line)
    }

    /// For a case that needs one of the two rules the old C model has and
    /// the Swift model lacks (Tests/README.md, "Through the C API"): the
    /// Swift model disagrees with the library, so the runners are held to
    /// each other instead: the same outcome through the Swift library and
    /// through the C API, nothing left by either; and the model must still
    /// disagree (once it has the rule, make the case an ordinary one).
    func assertTheRunnersAgreeWhereTheModelLacksARule(_ testCase: ModelCase, file: StaticString = #filePath, line: UInt = #line) {
        guard let swift = ModelCheck.compare(testCase, through: .swift), let c = ModelCheck.compare(testCase, through: .c) else {
            XCTFail("not a case both runners run: \(testCase)", file: file, line: line)
            return
        }
        XCTAssertEqual(swift.actual, c.actual, "the Swift library and the C API disagree on \(testCase)", file: file, line: line)
        XCTAssertEqual(swift.leaks + c.leaks, [], "\(testCase)", file: file, line: line)
        XCTAssertNotEqual(swift.expected, swift.actual, "the Swift model agrees with the library on \(testCase): it has the rule now, make it an ordinary case", file: file, line: line)
    }

    // MARK: - The C model's tests (Tests/C/test_model.c)

    func testTakeCompletesRightAfterTheNthValue() {
        assertBothRunnersAgree(ModelCase(signal: .take(2, .pipe(0)), script: [.put(0, 1), .put(0, 2), .put(0, 3)]))
    }

    func testTakeStopsASynchronousRestart() {
        assertBothRunnersAgree(ModelCase(signal: .take(3, .restart(.just([1, 2]))), script: []))
        assertBothRunnersAgree(ModelCase(signal: .take(2, .restartIfError(.fail([5], 1))), script: []))
    }

    func testThenRunsTheSecondAfterTheFirst() {
        assertBothRunnersAgree(ModelCase(signal: .then(.take(1, .pipe(0)), .merge([.just([7]), .pipe(0)])), script: [.put(0, 1), .put(0, 2)]))
    }

    func testAnErrorEndsEverything() {
        assertBothRunnersAgree(ModelCase(signal: .combineLatestArray([.pipe(0), .subject(0)]), script: [.put(0, 1), .send(0, 2), .fail(0, 4), .put(0, 3)]))
    }

    func testLastOfNothingIsNil() {
        assertBothRunnersAgree(ModelCase(signal: .last(.just([])), script: []))
        assertBothRunnersAgree(ModelCase(signal: .last(.subject(0)), script: [.send(0, 1), .send(0, 2), .complete(0)]))
    }

    func testDistinctComparesWithThePreviousValue() {
        assertBothRunnersAgree(ModelCase(signal: .distinctUntilChanged(.pipe(0)), script: [.put(0, 1), .put(0, 1), .put(0, 2), .put(0, 1)]))
    }

    func testSwitchToLatestOverSignalValues() {
        assertBothRunnersAgree(ModelCase(signal: .meta(.switchToLatest, .pipe(0), .merge([.just([10]), .pipe(1)])), script: [.put(0, 1), .put(1, 5), .put(0, 2), .put(1, 6)]))
        assertBothRunnersAgree(ModelCase(signal: .meta(.queue, .pipe(0), .take(1, .pipe(1))), script: [.put(0, 1), .put(0, 2), .put(1, 5), .put(1, 6)]))
        assertBothRunnersAgree(ModelCase(signal: .meta(.throttled, .pipe(0), .take(1, .pipe(1))), script: [.put(0, 1), .put(0, 2), .put(0, 3), .put(1, 5), .put(1, 6)]))
    }

    func testAPipeDeliversToASnapshotInSubscriptionOrder() {
        assertBothRunnersAgree(ModelCase(signal: .merge([.then(.take(1, .pipe(0)), .pipe(0)), .map(.double, .pipe(0))]), script: [.put(0, 1), .put(0, 2)]))
    }

    func testReplayingPipe() {
        assertBothRunnersAgree(ModelCase(signal: .then(.take(1, .pipe(2)), .take(2, .pipe(2))), script: [.put(2, 1), .put(2, 2)]))
        assertBothRunnersAgree(ModelCase(signal: .then(.ignoreValues(.take(1, .pipe(0))), .merge([.pipe(2), .pipe(2)])), script: [.put(2, 5), .putOnNextEvent(2, 7), .put(0, 1)]))
    }

    func testDisposeAndPutInsideACallback() {
        assertBothRunnersAgree(ModelCase(signal: .merge([.pipe(0), .pipe(0), .pipe(0)]), script: [.disposeOnNextEvent, .put(0, 1), .put(0, 2)]))
        assertBothRunnersAgree(ModelCase(signal: .merge([.pipe(0), .map(.increment, .pipe(0))]), script: [.putOnNextEvent(0, 7), .put(0, 1), .put(0, 2)]))
    }

    func testAnInnerSignalReplacedWhileStartingIsDropped() {
        assertBothRunnersAgree(ModelCase(signal: .meta(.mapToSignal, .subject(1), .just([0, 0])), script: [.sendOnNextEvent(1, 0), .send(1, 0)]))
    }

    func testTakeCompletesOnceEveryAdmittedValueWasDelivered() {
        assertBothRunnersAgree(ModelCase(signal: .take(1, .restart(.take(2, .subject(0)))), script: [.sendOnNextEvent(0, 0), .send(0, 0)]))
    }

    func testScanHoldsAValueSentFromInsideItsDelivery() {
        assertBothRunnersAgree(ModelCase(signal: .meta(.mapToSignal, .scan(0, .subject(0)), .fail([0], 0)), script: [.sendOnNextEvent(0, 0), .send(0, 0)]))
        assertBothRunnersAgree(ModelCase(signal: .scan(0, .subject(0)), script: [.sendOnNextEvent(0, 1), .send(0, 2), .send(0, 3), .complete(0)]))
    }

    func testShareAndReplayAreOneConnectionPerCase() {
        assertBothRunnersAgree(ModelCase(signal: .merge([.share(.pipe(0)), .map(.double, .share(.pipe(0)))]), script: [.put(0, 1), .put(0, 2)]))
        assertBothRunnersAgree(ModelCase(signal: .then(.share(.just([1, 2])), .share(.just([1, 2]))), script: []))
        assertBothRunnersAgree(ModelCase(signal: .meta(.mapToSignal, .pipe(1), .replay(2, .pipe(0))), script: [.put(1, 0), .put(0, 1), .put(0, 2), .put(1, 10), .put(0, 3)]))
        assertBothRunnersAgree(ModelCase(signal: .merge([.replay(2, .subject(0)), .meta(.mapToSignal, .replay(2, .subject(0)), .replay(2, .subject(0)))]), script: [.send(0, 1), .send(0, 2), .send(0, 3), .complete(0), .send(0, 4)]))
        assertBothRunnersAgree(ModelCase(signal: .merge([.share(.never), .share(.never)]), script: []))
        assertBothRunnersAgree(ModelCase(signal: .combineLatestArray([.share(.subject(0)), .map(.negate, .share(.subject(0)))]), script: [.send(0, 1), .dispose, .send(0, 2)]))
    }

    func testASharedSignalsEndedSubscriberNoLongerCounts() {
        assertBothRunnersAgree(ModelCase(signal: .mergeMap(1, .just([0, 0]), .take(1, .share(.subject(1)))), script: [.send(1, 0)]))
        assertBothRunnersAgree(ModelCase(signal: .meta(.queue, .just([0, 0]), .take(1, .share(.subject(1)))), script: [.send(1, 0)]))
        assertBothRunnersAgree(ModelCase(signal: .meta(.mapToSignal, .subject(1), .share(.just([0]))), script: [.sendOnNextEvent(1, 0), .send(1, 0)]))
        assertBothRunnersAgree(ModelCase(signal: .share(.last(.takeUntil(.untilAtLeast3, .pipe(2)))), script: [.sendOnNextEvent(0, 0), .put(2, 3)]))
    }

    /// Two of these need a rule the Swift model lacks (see
    /// `assertTheRunnersAgreeWhereTheModelLacksARule`): `then` and the meta
    /// operators follow a part or inner signal that completed before its
    /// start returned only once that start has returned.
    func testAPartCompletedWhileStartingIsFollowedOnceItsStartReturned() {
        assertTheRunnersAgreeWhereTheModelLacksARule(ModelCase(signal: .meta(.mapToSignal, .then(.share(.just([1])), .just([100])), .then(.share(.just([1])), .just([7]))), script: []))
        assertTheRunnersAgreeWhereTheModelLacksARule(ModelCase(signal: .meta(.mapToSignal, .then(.replay(3, .just([0, 0, 0])), .just([0])), .meta(.queue, .replay(3, .just([0, 0, 0])), .replay(3, .just([0, 0, 0])))), script: []))
        assertBothRunnersAgree(ModelCase(signal: .merge([.take(2, .restart(.share(.just([1, 2])))), .share(.just([1, 2]))]), script: []))
        assertBothRunnersAgree(ModelCase(signal: .mergeMap(1, .then(.replay(1, .just([1, 2])), .just([100])), .then(.replay(1, .just([1, 2])), .replay(1, .just([1, 2])))), script: []))
    }

    /// A rule the Swift model lacks (see
    /// `assertTheRunnersAgreeWhereTheModelLacksARule`): a shared
    /// connection's terminal event put while its pipe delivers waits until
    /// that delivery is over, even for a subscriber getting its replay.
    func testASharedTerminalEventPutWhileDeliveringWaitsForTheDelivery() {
        assertTheRunnersAgreeWhereTheModelLacksARule(ModelCase(signal: .meta(.mapToSignal, .replay(1, .meta(.mapToSignal, .subject(0), .fail([3], 0))), .replay(1, .meta(.mapToSignal, .subject(0), .fail([3], 0)))), script: [.sendOnNextEvent(0, 0), .send(0, 0)]))
    }

    func testASharedUpstreamStartsNothingOnceItsLastSubscriberEnded() {
        assertBothRunnersAgree(ModelCase(signal: .takeWhile(.positive, false, .share(.mergeMap(Int.max, .pipe(0), .subject(1)))), script: [.putOnNextEvent(0, 0), .put(0, 0), .send(1, 0)]))
        assertBothRunnersAgree(ModelCase(signal: .takeWhile(.positive, false, .replay(1, .mergeMap(Int.max, .pipe(0), .subject(1)))), script: [.putOnNextEvent(0, 0), .put(0, 0), .send(1, 0)]))
        assertBothRunnersAgree(ModelCase(signal: .last(.take(1, .share(.meta(.mapToSignal, .pipe(1), .subject(0))))), script: [.put(1, 0), .putOnNextEvent(1, 0), .send(0, 0)]))
    }

    func testMergeMapRunsAtMostMaxConcurrent() {
        assertBothRunnersAgree(ModelCase(signal: .mergeMap(1, .pipe(0), .take(1, .pipe(1))), script: [.put(0, 1), .put(0, 2), .put(1, 5), .put(1, 6)]))
        assertBothRunnersAgree(ModelCase(signal: .mergeMap(Int.max, .just([1, 2]), .just([10])), script: []))
        assertBothRunnersAgree(ModelCase(signal: .mergeMap(2, .subject(0), .take(1, .pipe(1))), script: [.send(0, 1), .send(0, 2), .send(0, 3), .complete(0), .put(1, 5), .put(1, 6), .put(1, 7)]))
    }

    func testRestartIfErrorOverAPipeIsDisposed() {
        assertBothRunnersAgree(ModelCase(signal: .restartIfError(.map(.increment, .pipe(0))), script: [.put(0, 1)]))
        assertBothRunnersAgree(ModelCase(signal: .restartIfError(.restartIfError(.subject(0))), script: []))
    }

    func testNothingStartsInAnInnerSignalReplacedWhileStarting() {
        assertBothRunnersAgree(ModelCase(signal: .meta(.mapToSignal, .subject(0), .catch(.fail([-2], 0), .subject(0))), script: [.sendOnNextEvent(0, 0), .send(0, 0)]))
        assertBothRunnersAgree(ModelCase(signal: .meta(.mapToSignal, .subject(0), .merge([.just([1]), .subject(1)])), script: [.sendOnNextEvent(0, 0), .send(0, 0)]))
    }

    func testNothingStartsWhileTheTerminalEventIsDelivered() {
        assertBothRunnersAgree(ModelCase(signal: .last(.takeUntil(.first, .meta(.mapToSignal, .pipe(1), .subject(0)))), script: [.put(1, 0), .putOnNextEvent(1, 0), .send(0, 0)]))
        assertBothRunnersAgree(ModelCase(signal: .last(.take(1, .meta(.mapToSignal, .pipe(1), .subject(0)))), script: [.put(1, 0), .putOnNextEvent(1, 0), .send(0, 0)]))
        assertBothRunnersAgree(ModelCase(signal: .last(.take(1, .distinctUntilChanged(.meta(.mapToSignal, .pipe(1), .subject(0))))), script: [.put(1, 0), .putOnNextEvent(1, 0), .send(0, 0)]))
        assertBothRunnersAgree(ModelCase(signal: .last(.take(1, .distinctUntilChanged(.distinctUntilChanged(.meta(.mapToSignal, .pipe(1), .subject(0)))))), script: [.put(1, 0), .putOnNextEvent(1, 0), .send(0, 0)]))
        assertBothRunnersAgree(ModelCase(signal: .then(.ignoreValues(.take(1, .meta(.mapToSignal, .pipe(1), .subject(0)))), .just([7])), script: [.put(1, 0), .putOnNextEvent(1, 0), .send(0, 0)]))
        assertBothRunnersAgree(ModelCase(signal: .catch(.combineLatestArray([.meta(.mapToSignal, .pipe(1), .subject(0)), .subject(1)]), .just([1])), script: [.put(1, 0), .putOnNextEvent(1, 0), .fail(1, 5)]))
        assertBothRunnersAgree(ModelCase(signal: .last(.takeUntil(.first, .merge([.meta(.mapToSignal, .pipe(1), .subject(0)), .subject(1)]))), script: [.put(1, 0), .putOnNextEvent(1, 0), .send(1, 0)]))
    }

    func testThenStartsNothingWhenItsPartCompletesInsideATerminalCallback() {
        assertBothRunnersAgree(ModelCase(signal: .takeUntil(.stopBeforeNegative, .merge([.pipe(2), .then(.take(1, .pipe(0)), .subject(0))])), script: [.putOnNextEvent(0, 0), .put(2, -1)]))
    }

    func testNothingStartsAfterTheSubscriptionEndedDuringItsStart() {
        assertBothRunnersAgree(ModelCase(signal: .meta(.mapToSignal, .merge([.just([0]), .subject(0)]), .fail([], 0)), script: []))
        assertBothRunnersAgree(ModelCase(signal: .takeUntil(.untilAtLeast3, .then(.just([3]), .subject(0))), script: []))
        assertBothRunnersAgree(ModelCase(signal: .take(1, .merge([.just([1]), .subject(0)])), script: []))
        assertBothRunnersAgree(ModelCase(signal: .take(1, .distinctUntilChanged(.merge([.just([1]), .subject(0)]))), script: []))
        assertBothRunnersAgree(ModelCase(signal: .take(1, .take(5, .merge([.just([1]), .subject(0)]))), script: []))
        assertBothRunnersAgree(ModelCase(signal: .take(1, .restart(.then(.just([0]), .subject(0)))), script: []))
        assertBothRunnersAgree(ModelCase(signal: .takeUntil(.untilAtLeast3, .distinctUntilChanged(.catch(.fail([3], 0), .subject(0)))), script: []))
        assertBothRunnersAgree(ModelCase(signal: .take(1, .distinctUntilChanged(.meta(.mapToSignal, .just([0]), .merge([.just([1]), .subject(0)])))), script: []))
    }

    // MARK: - The C model's fuzz inputs (Tests/fuzz/regressions/model)

    /// open-bug-restart-if-error-cast
    func testFuzzInputOpenBugRestartIfErrorCast() {
        assertBothRunnersAgree(ModelCase(signal: .mergeMap(Int.max, .merge([.catch(.subject(1), .meta(.mapToSignal, .pipe(1), .subject(1))), .skipWhile(.even, .subject(1))]), .map(.increment, .just([]))), script: [.send(0, -2), .send(0, -2)]))
    }

    /// open-bug-starts-after-end
    func testFuzzInputOpenBugStartsAfterEnd() {
        assertBothRunnersAgree(ModelCase(signal: .catch(.share(.combineLatestArray([.last(.meta(.queue, .pipe(2), .subject(1))), .then(.replay(2, .pipe(1)), .map(.increment, .replay(2, .pipe(1))))])), .map(.double, .share(.combineLatestArray([.last(.meta(.queue, .pipe(2), .subject(1))), .then(.replay(2, .pipe(1)), .map(.increment, .replay(2, .pipe(1))))])))), script: [.put(2, 6), .send(1, 6), .send(1, 6), .send(0, 0), .send(0, -2), .send(0, -2), .send(0, -2), .send(0, -2), .send(0, -2), .send(0, -2), .send(0, -2), .send(0, -2), .send(0, -2), .send(0, -2), .send(0, -2), .send(0, -2)]))
    }

    /// scan-reentrant-value-waits
    func testFuzzInputScanReentrantValueWaits() {
        assertBothRunnersAgree(ModelCase(signal: .combineLatestArray([.meta(.queue, .deferred(.takeUntil(.untilAtLeast3, .pipe(0))), .just([0, 4]))]), script: [.send(1, 1), .put(0, 1), .send(1, 1), .put(0, 5), .put(0, 2)]))
    }

    /// terminal-event-delivered-meta-starts
    func testFuzzInputTerminalEventDeliveredMetaStarts() {
        assertBothRunnersAgree(ModelCase(signal: .meta(.switchToLatest, .then(.takeUntil(.first, .meta(.switchToLatest, .then(.fail([-2], 3), .subject(1)), .mergeMap(Int.max, .just([6, -2]), .just([4, 0])))), .combineLatestArray([.never, .subject(0)])), .take(0, .take(3, .filter(.nonZero, .restart(.scan(6, .subject(1))))))), script: [.send(0, -2), .send(0, -2)]))
    }
}
