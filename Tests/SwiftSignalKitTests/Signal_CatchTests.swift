import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class Signal_CatchTests: XCTestCase {
    // MARK: catch

    func testCatchContinuesWithAlternative() {
        let main = TestPipe<Int, Int>()
        let alternative = TestPipe<Int, String>()
        var caught: [Int] = []
        var values: [Int] = []
        var errors: [String] = []
        var completed = 0
        _ = (main.signal() |> `catch` { (error: Int) -> Signal<Int, String> in
            caught.append(error)
            return alternative.signal()
        }).start(next: { values.append($0) }, error: { errors.append($0) }, completed: { completed += 1 })
        main.putNext(1)
        main.putNext(2)
        XCTAssertEqual(alternative.subscribed, 0)
        main.putError(7)
        XCTAssertEqual(caught, [7])
        XCTAssertEqual(alternative.subscribed, 1)
        main.putNext(3)
        alternative.putNext(10)
        alternative.putNext(11)
        XCTAssertEqual(values, [1, 2, 10, 11])
        alternative.putError("boom")
        XCTAssertEqual(errors, ["boom"])
        alternative.putNext(12)
        alternative.putCompletion()
        XCTAssertEqual(values, [1, 2, 10, 11])
        XCTAssertEqual(completed, 0)
        XCTAssertEqual(main.subscriberCount, 0)
        XCTAssertEqual(alternative.subscriberCount, 0)
    }

    func testCatchPassesCompletionWithoutCallingF() {
        var called = 0
        var values: [Int] = []
        var completed = 0
        _ = (syncSignal([1, 2]) |> `catch` { (_: Int) -> Signal<Int, NoError> in
            called += 1
            return .complete()
        }).start(next: { values.append($0) }, completed: { completed += 1 })
        XCTAssertEqual(values, [1, 2])
        XCTAssertEqual(completed, 1)
        XCTAssertEqual(called, 0)
    }

    func testCatchWithSynchronousAlternativeCompletes() {
        var values: [Int] = []
        var completed = 0
        _ = (Signal<Int, Int>.fail(3) |> `catch` { error in
            return Signal<Int, NoError>.single(error * 10)
        }).start(next: { values.append($0) }, completed: { completed += 1 })
        XCTAssertEqual(values, [30])
        XCTAssertEqual(completed, 1)
    }

    func testCatchDisposeDisposesBothSubscriptions() {
        let main = TestPipe<Int, Int>()
        let alternative = TestPipe<Int, Int>()
        let disposable = (main.signal() |> `catch` { _ in alternative.signal() }).start()
        main.putError(1)
        XCTAssertEqual(alternative.subscriberCount, 1)
        disposable.dispose()
        XCTAssertEqual(main.disposed, 1)
        XCTAssertEqual(alternative.disposed, 1)
        XCTAssertEqual(alternative.subscriberCount, 0)

        // Disposed before the error: f is never called.
        var called = 0
        let disposable2 = (main.signal() |> `catch` { (_: Int) -> Signal<Int, Int> in
            called += 1
            return alternative.signal()
        }).start()
        disposable2.dispose()
        main.putError(2)
        XCTAssertEqual(called, 0)
        XCTAssertEqual(main.subscriberCount, 0)
    }

    func testCatchReleasesClosureAfterDispose() {
        let deallocated = Counter()
        let main = TestPipe<Int, Int>()
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated)
            disposable = (main.signal() |> `catch` { (_: Int) -> Signal<Int, Int> in
                tracker.touch()
                return .never()
            }).start()
        }
        XCTAssertEqual(deallocated.count, 0)
        disposable?.dispose()
        XCTAssertEqual(deallocated.count, 1)
        withExtendedLifetime(disposable) {
        }
    }

    // MARK: restart / recurse

    func testRestartResubscribesOnCompletionAndPassesError() {
        let source = TestPipe<Int, Int>()
        var values: [Int] = []
        var errors: [Int] = []
        var completed = 0
        let disposable = restart(source.signal()).start(next: { values.append($0) }, error: { errors.append($0) }, completed: { completed += 1 })
        XCTAssertEqual(source.subscribed, 1)
        source.putNext(1)
        source.putCompletion()
        XCTAssertEqual(source.subscribed, 2)
        source.putNext(2)
        source.putCompletion()
        XCTAssertEqual(source.subscribed, 3)
        source.putError(5)
        XCTAssertEqual(values, [1, 2])
        XCTAssertEqual(errors, [5])
        XCTAssertEqual(completed, 0)
        XCTAssertEqual(source.subscribed, 3)
        XCTAssertEqual(source.subscriberCount, 0)
        disposable.dispose()
    }

    func testRestartDisposeStopsLoop() {
        let source = TestPipe<Int, Int>()
        var values: [Int] = []
        let disposable = restart(source.signal()).start(next: { values.append($0) })
        source.putNext(1)
        disposable.dispose()
        XCTAssertEqual(source.subscriberCount, 0)
        source.putNext(2)
        source.putCompletion()
        XCTAssertEqual(values, [1])
        XCTAssertEqual(source.subscribed, 1)
    }

    func testRestartDisposeFromInsideCallback() {
        let source = TestPipe<Int, Int>()
        let box = DisposableBox()
        var values: [Int] = []
        box.disposable.set(restart(source.signal()).start(next: { value in
            values.append(value)
            box.disposable.dispose()
        }))
        source.putNext(1)
        source.putCompletion()
        source.putNext(2)
        XCTAssertEqual(values, [1])
        XCTAssertEqual(source.subscribed, 1)
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testRestartManySynchronousIterationsDoNotGrowTheStack() throws {
        onSmallStack {
            let iterations = loadCount(100_000)
            let subscriptions = Counter()
            let lastDisposed = Counter()
            let open = Atomic<Subscriber<Int, NoError>?>(value: nil)
            // Completes synchronously for the first `iterations` subscriptions, then stays open,
            // keeping its subscriber as an open source does. The downstream `take` stops the loop
            // right after the last value it wants: the open subscription is never made.
            let source = Signal<Int, NoError> { subscriber in
                let index = subscriptions.increment()
                if index <= iterations {
                    subscriber.putNext(index)
                    subscriber.putCompletion()
                    return EmptyDisposable
                }
                open.swap(subscriber)
                return ActionDisposable {
                    lastDisposed.increment()
                }
            }
            var count = 0
            var ordered = true
            var completed = 0
            _ = (restart(source) |> take(iterations)).start(next: { value in
                count += 1
                if value != count {
                    ordered = false
                }
            }, completed: {
                completed += 1
            })
            XCTAssertEqual(count, iterations)
            XCTAssertTrue(ordered)
            XCTAssertEqual(completed, 1)
            XCTAssertEqual(subscriptions.count, iterations)
            XCTAssertEqual(lastDisposed.count, 0)
            XCTAssertNil(open.with { $0 })
        }
    }

    func testSynchronousLoopsStopWhenADownstreamTakeCompletes() throws {
        onSmallStack {
            // Sources that end synchronously on every start: the loops never leave
            // their start, so only the downstream's completion can stop them.
            let starts = Counter()
            let steps = loadCount(100_000)
            let completing = Signal<Int, Int> { subscriber in
                subscriber.putNext(starts.increment())
                subscriber.putCompletion()
                return EmptyDisposable
            }
            let failing = Signal<Int, Int> { subscriber in
                subscriber.putNext(starts.increment())
                subscriber.putError(-1)
                return EmptyDisposable
            }
            let cases: [(String, Int, Signal<Int, Int>)] = [
                ("restart |> take", steps, restart(completing) |> take(steps)),
                ("restart |> map |> filter |> take", 5, restart(completing) |> map { $0 } |> filter { _ in true } |> take(5)),
                ("restart |> take(until:)", 5, restart(completing) |> take(until: { SignalTakeAction(passthrough: true, complete: $0 >= 5) })),
                ("restartIfError |> take", 5, restartIfError(failing) |> castError(Int.self) |> take(5)),
                ("single |> restart |> take", 3, restart(.single(1)) |> map { _ in starts.increment() } |> take(3)),
            ]
            for (name, count, signal) in cases {
                _ = starts.value.swap(0)
                var values: [Int] = []
                var completed = 0
                let disposable = signal.start(next: { values.append($0) }, completed: { completed += 1 })
                XCTAssertEqual(values, Array(1 ... count), name)
                XCTAssertEqual(completed, 1, name)
                XCTAssertEqual(starts.count, count, name)
                disposable.dispose()
            }
        }
    }

    func testRestartIfErrorOverASignalThatCannotFailIsDisposed() {
        // The fused `castError` used to drop the error callback, the only
        // holder of the resubscribing loop: the loop was freed at once and
        // disposing the subscription disposed nothing (the source kept the
        // inner subscription for good). Found by the model-based tester.
        let source = TestPipe<Int, NoError>()
        var values: [Int] = []
        let disposable = restartIfError(source.signal() |> castError(Int.self)).start(next: { values.append($0) })
        source.putNext(1)
        XCTAssertEqual(source.subscriberCount, 1)
        disposable.dispose()
        XCTAssertEqual(source.subscriberCount, 0)
        XCTAssertEqual(source.disposed, 1)
        source.putNext(2)
        XCTAssertEqual(values, [1])
    }

    func testOperatorsStartNothingOnceTheSubscriptionEndedDuringItsStart() {
        // A downstream `take` that completes during the start: `merge`,
        // `combineLatest` and `then` start none of their remaining inputs.
        // Found by the model-based tester.
        let starts = Counter()
        let counted = Signal<Int, NoError> { _ in
            starts.increment()
            return EmptyDisposable
        }
        let cases: [(String, Signal<Int, NoError>)] = [
            ("merge", merge([.single(1), counted]) |> take(1)),
            ("combineLatest", combineLatest(Signal<Int, NoError>.single(1), 0, counted, 0) |> map { $0.0 + $0.1 } |> filter { $0 != 0 } |> take(1)),
            ("then", Signal<Int, NoError>.single(1) |> then(counted) |> take(1)),
        ]
        for (name, signal) in cases {
            _ = starts.value.swap(0)
            var values: [Int] = []
            _ = signal.start(next: { values.append($0) })
            XCTAssertEqual(values, [1], name)
            XCTAssertEqual(starts.count, 0, name)
        }
    }

    func testRecurseBehavesLikeRestartAndIgnoresLatestValue() throws {
        let source = TestPipe<Int, Int>()
        var values: [Int] = []
        var errors: [Int] = []
        let disposable = (source.signal() |> recurse(99)).start(next: { values.append($0) }, error: { errors.append($0) })
        source.putNext(1)
        source.putCompletion()
        source.putNext(2)
        source.putCompletion()
        XCTAssertEqual(values, [1, 2])
        XCTAssertEqual(source.subscribed, 3)
        source.putError(4)
        XCTAssertEqual(errors, [4])
        XCTAssertEqual(source.subscriberCount, 0)
        disposable.dispose()

        let subscriptions = Counter()
        let synchronous = Signal<Int, NoError> { subscriber in
            if subscriptions.increment() <= 100_000 {
                subscriber.putCompletion()
            }
            return EmptyDisposable
        }
        let disposable2 = (synchronous |> recurse(nil)).start()
        XCTAssertEqual(subscriptions.count, 100_001)
        disposable2.dispose()
    }

    func testRestartConcurrentAsynchronousCompletionsAndDisposal() {
        let group = DispatchGroup()
        let subscribed = Counter()
        let disposed = Counter()
        // Emits its index and completes on another thread.
        let source = Signal<Int, NoError> { subscriber in
            let index = subscribed.increment()
            group.enter()
            DispatchQueue.global().async {
                subscriber.putNext(index)
                subscriber.putCompletion()
                group.leave()
            }
            return ActionDisposable {
                disposed.increment()
            }
        }
        let done = DispatchSemaphore(value: 0)
        let values = Counter()
        let completed = Counter()
        let disposables = Atomic<[any Disposable]>(value: [])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let disposable = (restart(source) |> take(200)).start(next: { _ in
                values.increment()
            }, completed: {
                completed.increment()
                done.signal()
            })
            let _ = disposables.modify { $0 + [disposable] }
        }
        for _ in 0 ..< 4 {
            XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        }
        XCTAssertEqual(values.count, 800)
        XCTAssertEqual(completed.count, 4)
        // Each chain stops at its 200th value: at most one extra subscription per chain
        // (started by the 200th inner's completion racing the take's disposal).
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertGreaterThanOrEqual(subscribed.count, 800)
        XCTAssertLessThanOrEqual(subscribed.count, 804)
        XCTAssertEqual(disposed.count, subscribed.count)
        for disposable in disposables.with({ $0 }) {
            disposable.dispose()
        }
    }

    func testRestartReleasesCapturedObjects() {
        let deallocated = Counter()
        let source = TestPipe<Int, Int>()
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated)
            disposable = restart(source.signal() |> map { value -> Int in
                tracker.touch()
                return value
            }).start()
        }
        source.putNext(1)
        source.putCompletion()
        XCTAssertEqual(deallocated.count, 0)
        disposable?.dispose()
        XCTAssertEqual(deallocated.count, 1)
        withExtendedLifetime(disposable) {
        }
    }

    // MARK: restartIfError

    func testRestartIfErrorResubscribesOnErrorAndPassesCompletion() {
        let source = TestPipe<Int, Int>()
        var values: [Int] = []
        var completed = 0
        _ = restartIfError(source.signal()).start(next: { values.append($0) }, completed: { completed += 1 })
        source.putNext(1)
        source.putError(1)
        XCTAssertEqual(source.subscribed, 2)
        source.putNext(2)
        source.putError(2)
        source.putNext(3)
        source.putCompletion()
        XCTAssertEqual(values, [1, 2, 3])
        XCTAssertEqual(completed, 1)
        XCTAssertEqual(source.subscribed, 3)
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testRestartIfErrorManySynchronousErrors() throws {
        onSmallStack {
            let iterations = loadCount(100_000)
            let subscriptions = Counter()
            let source = Signal<Int, Int> { subscriber in
                let index = subscriptions.increment()
                if index <= iterations {
                    subscriber.putError(index)
                } else {
                    subscriber.putNext(index)
                    subscriber.putCompletion()
                }
                return EmptyDisposable
            }
            var values: [Int] = []
            var completed = 0
            _ = restartIfError(source).start(next: { values.append($0) }, completed: { completed += 1 })
            XCTAssertEqual(values, [iterations + 1])
            XCTAssertEqual(completed, 1)
            XCTAssertEqual(subscriptions.count, iterations + 1)
        }
    }

    func testRestartIfErrorDisposeStopsLoop() {
        let source = TestPipe<Int, Int>()
        let disposable = restartIfError(source.signal()).start()
        disposable.dispose()
        source.putError(1)
        XCTAssertEqual(source.subscribed, 1)
        XCTAssertEqual(source.subscriberCount, 0)
    }

    // MARK: retry

    // The retries wait on a virtual-time queue: the tests assert when each
    // re-subscription happens (virtual milliseconds), without a real timer.

    func testRetryResubscribesOnQueueAfterErrors() throws {
        let queue = Queue.virtualTime()
        let subscriptions = Counter()
        let onQueue = Atomic<[Bool]>(value: [])
        let times = Atomic<[Int64]>(value: [])
        let source = Signal<Int, Int> { subscriber in
            let index = subscriptions.increment()
            let _ = onQueue.modify { $0 + [queue.isCurrent()] }
            let _ = times.modify { $0 + [queue.virtualNowNanoseconds! / 1_000_000] }
            if index <= 4 {
                subscriber.putError(index)
            } else {
                subscriber.putNext(42)
                subscriber.putCompletion()
            }
            return EmptyDisposable
        }
        let values = Atomic<[Int]>(value: [])
        let completions = Counter()
        let disposable = (source |> retry(0.001, maxDelay: 0.003, onQueue: queue)).start(next: { value in
            let _ = values.modify { $0 + [value] }
        }, completed: {
            completions.increment()
        })
        // The retry is never synchronous.
        XCTAssertEqual(subscriptions.count, 1)
        try queue.run()
        XCTAssertEqual(values.with { $0 }, [42])
        XCTAssertEqual(completions.count, 1)
        XCTAssertEqual(onQueue.with { $0 }, [false, true, true, true, true])
        // Waits of 1, 2, 3 ms, then 3 (the maximum).
        XCTAssertEqual(times.with { $0 }, [0, 1, 3, 6, 9])
        disposable.dispose()
    }

    func testRetryManyRetries() throws {
        let queue = Queue.virtualTime()
        let subscriptions = Counter()
        let source = Signal<Int, Int> { subscriber in
            let index = subscriptions.increment()
            if index <= 1000 {
                subscriber.putError(index)
            } else {
                subscriber.putCompletion()
            }
            return EmptyDisposable
        }
        let completions = Counter()
        let disposable = (source |> retry(0.0, maxDelay: 0.0, onQueue: queue)).start(completed: {
            completions.increment()
        })
        XCTAssertEqual(try queue.run(), 1000)
        XCTAssertEqual(completions.count, 1)
        XCTAssertEqual(subscriptions.count, 1001)
        XCTAssertEqual(queue.virtualNow, 0)
        disposable.dispose()
    }

    func testRetryDisposeCancelsPendingRetryAndReleasesClosures() throws {
        let queue = Queue.virtualTime()
        let subscriptions = Counter()
        let deallocated = Counter()
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(deallocated)
            let source = Signal<Int, Int> { subscriber in
                tracker.touch()
                subscriptions.increment()
                subscriber.putError(1)
                return EmptyDisposable
            }
            disposable = (source |> retry(retryOnError: { _ in
                tracker.touch()
                return true
            }, delayIncrement: 0.02, maxDelay: 0.02, maxRetries: 10, onQueue: queue)).start()
        }
        XCTAssertEqual(subscriptions.count, 1)
        XCTAssertEqual(queue.pendingVirtualWork, 1)
        disposable?.dispose()
        XCTAssertEqual(deallocated.count, 1)
        // The cancelled retry's work left the queue: nothing runs, and the
        // clock stays (it moved to the dead retry's deadline).
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        XCTAssertEqual(try queue.run(), 0)
        XCTAssertEqual(queue.virtualNow, 0)
        XCTAssertEqual(subscriptions.count, 1)
        withExtendedLifetime(disposable) {
        }
    }

    func testRetryDisposeDropsThePendingRetryFromTheQueue() throws {
        let queue = Queue.virtualTime()
        let subscriptions = Counter()
        let source = Signal<Int, Int> { subscriber in
            subscriptions.increment()
            subscriber.putError(1)
            return EmptyDisposable
        }
        let disposable = (source |> retry(5.0, maxDelay: 5.0, onQueue: queue)).start()
        XCTAssertEqual(queue.pendingVirtualWork, 1)
        disposable.dispose()
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        XCTAssertEqual(try queue.run(), 0)
        XCTAssertEqual(queue.virtualNow, 0)
        XCTAssertEqual(subscriptions.count, 1)
    }

    func testRetryWithMaxRetriesPassesLastError() throws {
        let queue = Queue.virtualTime()
        let subscriptions = Counter()
        let source = Signal<Int, Int> { subscriber in
            let index = subscriptions.increment()
            subscriber.putNext(index * 10)
            subscriber.putError(index)
            return EmptyDisposable
        }
        let errors = Atomic<[String]>(value: [])
        let values = Atomic<[Int]>(value: [])
        let asked = Counter()
        let disposable = (source |> retry(retryOnError: { _ in
            asked.increment()
            return true
        }, delayIncrement: 0.001, maxDelay: 0.01, maxRetries: 3, onQueue: queue)).start(next: { value in
            let _ = values.modify { $0 + [value] }
        }, error: { error in
            let _ = errors.modify { $0 + ["\(error)@\(queue.virtualNowNanoseconds! / 1_000_000)"] }
        })
        try queue.run()
        // As in the original, `maxRetries` counts the errors retried on,
        // the first subscription's included: three subscriptions in all.
        XCTAssertEqual(subscriptions.count, 3)
        XCTAssertEqual(values.with { $0 }, [10, 20, 30])
        // Retries after 1 and 2 ms: the third error, at 3 ms, passes.
        XCTAssertEqual(errors.with { $0 }, ["3@3"])
        XCTAssertEqual(asked.count, 3)
        disposable.dispose()
    }

    /// The original passes the n-th retryable error once n >= maxRetries:
    /// `maxRetries` is the number of subscriptions in all (at least one), not
    /// of re-subscriptions after the first.
    func testRetryMaxRetriesIsTheNumberOfSubscriptionsAsInTheOriginal() throws {
        for (maxRetries, expected) in [(-1, 1), (0, 1), (1, 1), (2, 2), (5, 5)] {
            let queue = Queue.virtualTime()
            let subscriptions = Counter()
            let source = Signal<Int, Int> { subscriber in
                subscriber.putError(subscriptions.increment())
                return EmptyDisposable
            }
            var errors: [Int] = []
            let disposable = (source |> retry(retryOnError: { _ in true }, delayIncrement: 1.0, maxDelay: 1.0, maxRetries: maxRetries, onQueue: queue)).start(error: { errors.append($0) })
            try queue.run()
            XCTAssertEqual(subscriptions.count, expected, "maxRetries \(maxRetries)")
            XCTAssertEqual(errors, [expected], "maxRetries \(maxRetries)")
            disposable.dispose()
        }
    }

    func testRetryWithoutRetriesOrWhenRefused() {
        let queue = Queue()
        let subscriptions = Counter()
        let source = Signal<Int, Int> { subscriber in
            let index = subscriptions.increment()
            subscriber.putError(index)
            return EmptyDisposable
        }
        var errors: [Int] = []
        // maxRetries 0: the first error passes through at once.
        _ = (source |> retry(retryOnError: { _ in true }, delayIncrement: 0.001, maxDelay: 0.01, maxRetries: 0, onQueue: queue)).start(error: { errors.append($0) })
        XCTAssertEqual(errors, [1])
        XCTAssertEqual(subscriptions.count, 1)

        // retryOnError refuses: the error passes through at once.
        var asked: [Int] = []
        _ = (source |> retry(retryOnError: { error in
            asked.append(error)
            return false
        }, delayIncrement: 0.001, maxDelay: 0.01, maxRetries: 5, onQueue: queue)).start(error: { errors.append($0) })
        XCTAssertEqual(errors, [1, 2])
        XCTAssertEqual(asked, [2])
        XCTAssertEqual(subscriptions.count, 2)
    }

    func testRetryOnErrorSelectsWhichErrorsRetry() throws {
        let queue = Queue.virtualTime()
        let subscriptions = Counter()
        // Errors 1 and 2 are retryable, 3 is not.
        let source = Signal<Int, Int> { subscriber in
            subscriber.putError(subscriptions.increment())
            return EmptyDisposable
        }
        let errors = Atomic<[String]>(value: [])
        let disposable = (source |> retry(retryOnError: { $0 < 3 }, delayIncrement: 0.001, maxDelay: 0.01, maxRetries: 10, onQueue: queue)).start(error: { error in
            let _ = errors.modify { $0 + ["\(error)@\(queue.virtualNowNanoseconds! / 1_000_000)"] }
        })
        try queue.run()
        XCTAssertEqual(errors.with { $0 }, ["3@3"])
        XCTAssertEqual(subscriptions.count, 3)
        disposable.dispose()
    }
}
