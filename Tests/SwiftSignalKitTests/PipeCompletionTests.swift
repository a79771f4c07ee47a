import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Pipes that end (issue 33): `ValuePipe.putCompletion`, and `SignalPipe`
/// with `putError` / `putCompletion`.
final class PipeCompletionTests: XCTestCase {
    private struct Failure: Error, Equatable {
        let code: Int
    }

    func testCompletionReachesEverySubscriberAndReleasesItsCallbacks() {
        let pipe = ValuePipe<Int>()
        let a = Recorder<Int, NoError>()
        let b = Recorder<Int, NoError>()
        let da = a.start(pipe.signal())
        let db = b.start(pipe.signal() |> map { $0 * 10 })
        pipe.putNext(1)
        pipe.putCompletion()
        pipe.putNext(2)
        pipe.putCompletion()
        XCTAssertEqual(a.events.with { $0 }, ["1", "completed"])
        XCTAssertEqual(b.events.with { $0 }, ["10", "completed"])
        XCTAssertEqual(a.released.count, 1, "the callbacks are released on the completion")
        XCTAssertEqual(b.released.count, 1)
        da.dispose()
        db.dispose()
    }

    func testALaterSubscriberCompletesAtOnce() {
        let pipe = ValuePipe<Int>()
        pipe.putCompletion()
        let late = Recorder<Int, NoError>()
        late.start(pipe.signal()).dispose()
        XCTAssertEqual(late.events.with { $0 }, ["completed"])
        XCTAssertEqual(late.released.count, 1)
    }

    func testALaterSubscriberCompletesAtOnceWhileAnotherThreadStillDelivers() {
        // The completion was put (and its put returned) while another
        // thread is inside a delivery: a subscriber started after it gets its
        // replay and the completion during its start, on its own thread, and
        // its callbacks are released then; it never waited for that delivery
        // (an acceptance tester's finding: the completion came later, on the
        // delivering thread, also to a subscription disposed meanwhile, on the
        // thread that had disposed it). Both kinds of pipe.
        for replay in [false, true] {
            let pipe = SignalPipe<Int, NoError>(replay: replay)
            let held = HeldCall()
            let first = pipe.signal().start(next: { value in
                if value == 1 {
                    held.hold()
                }
            })
            let putter = spawnThread {
                pipe.putNext(1)
            }
            held.waitUntilEntered()
            pipe.putCompletion()
            let late = Recorder<Int, NoError>()
            let disposable = late.start(pipe.signal())
            XCTAssertEqual(late.events.with { $0 }, replay ? ["1", "completed"] : ["completed"], "replay \(replay): during the start")
            XCTAssertEqual(late.released.count, 1, "replay \(replay): released during the start")
            disposable.dispose()
            let later = Recorder<Int, NoError>()
            later.start(pipe.signal()).dispose()
            XCTAssertEqual(late.events.with { $0 }, replay ? ["1", "completed"] : ["completed"], "replay \(replay): nothing more")
            held.release()
            pthread_join(putter, nil)
            XCTAssertEqual(late.events.with { $0 }, replay ? ["1", "completed"] : ["completed"], "replay \(replay): nothing more")
            first.dispose()
        }
    }

    func testAReplayingPipeGivesALaterSubscriberItsValueThenTheEnd() {
        let pipe = SignalPipe<Int, Failure>(replay: true)
        pipe.putNext(1)
        pipe.putNext(2)
        pipe.putError(Failure(code: 7))
        pipe.putNext(3)
        let late = Recorder<Int, Failure>()
        late.start(pipe.signal()).dispose()
        XCTAssertEqual(late.events.with { $0 }, ["2", "error Failure(code: 7)"])
    }

    func testErrorReachesSubscribersAndOnlyTheFirstTerminalEventCounts() {
        let pipe = SignalPipe<Int, Failure>()
        let a = Recorder<Int, Failure>()
        let d = a.start(pipe.signal())
        pipe.putNext(1)
        pipe.putError(Failure(code: 1))
        pipe.putCompletion()
        pipe.putError(Failure(code: 2))
        XCTAssertEqual(a.events.with { $0 }, ["1", "error Failure(code: 1)"])
        let late = Recorder<Int, Failure>()
        late.start(pipe.signal()).dispose()
        XCTAssertEqual(late.events.with { $0 }, ["error Failure(code: 1)"])
        d.dispose()
    }

    /// A completion put from inside a callback comes after the values put
    /// from inside callbacks before it, for every subscriber (the values of
    /// a nested put are delivered after the current delivery).
    func testACompletionFromInsideACallbackComesAfterTheValuesPutBeforeIt() {
        let pipe = ValuePipe<Int>()
        let a = Recorder<Int, NoError>()
        let b = Recorder<Int, NoError>()
        let da = pipe.signal().start(next: { value in
            a.next(value)
            if value == 1 {
                pipe.putNext(2)
                pipe.putCompletion()
                pipe.putNext(3)
            }
        }, completed: {
            a.completed()
        })
        let db = b.start(pipe.signal())
        pipe.putNext(1)
        XCTAssertEqual(a.events.with { $0 }, ["1", "2", "completed"])
        XCTAssertEqual(b.events.with { $0 }, ["1", "2", "completed"])
        da.dispose()
        db.dispose()
    }

    /// The same from a thread that is not the pipe's first deliverer: a
    /// second thread delivers while the first is still inside a callback.
    func testACompletionFromInsideACallbackOnASecondDeliveringThread() {
        let pipe = ValuePipe<Int>()
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let events = Atomic<[String]>(value: [])
        let d = pipe.signal().start(next: { value in
            events.modify { $0 + ["\(value)"] }
            if value == 1 {
                inside.signal()
                XCTAssertEqual(release.wait(timeout: .now() + waitDeadline), .success)
            } else if value == 2 {
                pipe.putNext(4)
                pipe.putCompletion()
            }
        }, completed: {
            events.modify { $0 + ["completed"] }
        })
        let first = DispatchSemaphore(value: 0)
        DispatchQueue(label: "PipeCompletionTests.first").async {
            pipe.putNext(1)
            first.signal()
        }
        XCTAssertEqual(inside.wait(timeout: .now() + waitDeadline), .success)
        pipe.putNext(2)
        release.signal()
        XCTAssertEqual(first.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(events.with { $0 }, ["1", "2", "4", "completed"])
        d.dispose()
    }

    /// A terminal event put from another thread while a subscriber's replay
    /// is being delivered reaches it after the replay, on the subscribing
    /// thread (not during the replay's callback, from the other thread).
    func testATerminalEventDuringAReplayComesAfterIt() {
        let pipe = SignalPipe<Int, Failure>(replay: true)
        pipe.putNext(1)
        let inReplay = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue(label: "PipeCompletionTests.producer").async {
            XCTAssertEqual(inReplay.wait(timeout: .now() + waitDeadline), .success)
            pipe.putCompletion()
            done.signal()
        }
        let events = Atomic<[String]>(value: [])
        let replaying = Atomic(value: false)
        let d = pipe.signal().start(next: { value in
            replaying.swap(true)
            events.modify { $0 + ["\(value)"] }
            inReplay.signal()
            // The completion waits for the replay: wait until the producer
            // has put it.
            XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
            replaying.swap(false)
        }, completed: {
            events.modify { $0 + [replaying.with { $0 } ? "completed during the replay" : "completed"] }
        })
        XCTAssertEqual(events.with { $0 }, ["1", "completed"])
        d.dispose()
    }

    func testDownstreamOperatorsSeeTheCompletion() {
        let pipe = ValuePipe<Int>()
        let recorder = Recorder<Int, NoError>()
        let d = recorder.start(pipe.signal() |> scan(0, +) |> skip(1))
        pipe.putNext(1)
        pipe.putNext(2)
        pipe.putCompletion()
        XCTAssertEqual(recorder.events.with { $0 }, ["3", "completed"])
        d.dispose()
    }

    func testDisposingFromTheCompletionCallbackIsHarmless() {
        let pipe = ValuePipe<Int>()
        let box = DisposableBox()
        let completions = Counter()
        box.disposable.set(pipe.signal().start(completed: {
            completions.increment()
            box.disposable.dispose()
        }))
        pipe.putCompletion()
        XCTAssertEqual(completions.count, 1)
    }

    /// Every subscription that was attached before `putCompletion` returned
    /// receives exactly one completion, while other threads subscribe,
    /// dispose and put values (run under TSan by `make test-swift-tsan`).
    func testConcurrentSubscribersEachCompleteOnce() {
        for _ in 0 ..< 20 {
            let pipe = ValuePipe<Int>()
            let completions = Counter()
            let subscribed = Counter()
            let disposables = Atomic<[Disposable]>(value: [])
            runThreads(4) { index in
                for i in 0 ..< 50 {
                    if index == 3 && i == 25 {
                        pipe.putCompletion()
                    } else if index == 2 {
                        pipe.putNext(i)
                    } else {
                        subscribed.increment()
                        let d = pipe.signal().start(completed: {
                            completions.increment()
                        })
                        disposables.modify { $0 + [d] }
                    }
                }
            }
            XCTAssertEqual(completions.count, subscribed.count, "each subscription completes exactly once, before or at its start")
            for d in disposables.with({ $0 }) {
                d.dispose()
            }
        }
    }

    // MARK: - A bounded pipe (issue 50, item 7)

    /// The values a callback puts into its own pipe wait there at most
    /// `capacity` at a time; each policy keeps and drops what it says, and
    /// the drops are counted.
    func testABoundedPipeKeepsAtMostItsCapacityOfValuesPutFromItsCallback() {
        let runs: [(SignalOverflow<SignalOverflowError>, [Int], [Int])] = [
            (.dropNewest, [0, 1, 2], [3, 4, 5, 6, 7, 8]),
            (.dropOldest, [0, 7, 8], [1, 2, 3, 4, 5, 6]),
            (.latest, [0, 1, 8], [2, 3, 4, 5, 6, 7]),
        ]
        for (overflow, delivered, dropped) in runs {
            let drops = Atomic<[Int]>(value: [])
            let counts = Atomic<[Int]>(value: [])
            let pipe = SignalPipe<Int, SignalOverflowError>(capacity: 2, overflow: overflow, onDrop: { value, count in
                _ = drops.modify { $0 + [value] }
                _ = counts.modify { $0 + [count] }
            })
            let got = Atomic<[Int]>(value: [])
            let disposable = pipe.signal().start(next: { value in
                _ = got.modify { $0 + [value] }
                if value == 0 {
                    for n in 1...8 {
                        pipe.putNext(n)
                    }
                }
            })
            pipe.putNext(0)
            XCTAssertEqual(got.with { $0 }, delivered, "\(overflow)")
            XCTAssertEqual(drops.with { $0 }, dropped, "\(overflow)")
            XCTAssertEqual(counts.with { $0 }, Array(1...dropped.count), "\(overflow)")
            disposable.dispose()
        }
    }

    /// `.fail` and `.block` (which cannot wait: the producer delivers) fail
    /// the pipe after the values waiting; later subscribers get the error.
    func testABoundedPipeFailsAfterTheValuesWaiting() {
        for overflow: SignalOverflow<SignalOverflowError> in [.error, .block] {
            let pipe = SignalPipe<Int, SignalOverflowError>(capacity: 2, overflow: overflow)
            let got = Atomic<[Int]>(value: [])
            let errors = Atomic<[SignalOverflowError]>(value: [])
            let disposable = pipe.signal().start(next: { value in
                _ = got.modify { $0 + [value] }
                if value == 0 {
                    for n in 1...8 {
                        pipe.putNext(n)
                    }
                }
            }, error: { error in
                _ = errors.modify { $0 + [error] }
            })
            pipe.putNext(0)
            XCTAssertEqual(got.with { $0 }, [0, 1, 2])
            let reason: SignalOverflowError.Reason
            if case .block = overflow {
                reason = .wouldDeadlock
            } else {
                reason = .overflow
            }
            XCTAssertEqual(errors.with { $0 }, [SignalOverflowError(operatorName: "SignalPipe", capacity: 2, reason: reason)])
            disposable.dispose()
        }
    }
}
