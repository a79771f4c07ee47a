import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// Waits for `semaphore`; only for dispatch threads, never for a task.
private func waitFor(_ semaphore: DispatchSemaphore) -> DispatchTimeoutResult {
    return semaphore.wait(timeout: .now() + waitDeadline)
}

/// A task executor that runs its jobs one at a time on a serial dispatch
/// queue and counts those not yet run, so that a test can wait, without
/// sleeping, until every task on it is suspended or finished (`settle`):
/// how a test tells that a task stays suspended.
///
/// Thread-safety: `enqueue` and `settle` may be called from any thread
/// (`settle` not from a job of its own).
private final class SettlingTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "Signal_ConcurrencyTests.executor")
    private let pending = Atomic(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        self.pending.modify { $0 + 1 }
        self.queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
            self.pending.modify { $0 - 1 }
        }
    }

    /// Returns once no job is queued or running. A job is enqueued by a
    /// task's creation, by a resumption (from a job, or from a thread that
    /// resumes or cancels it, before that call returns): once the queue is
    /// drained and the count is 0, nothing is left to run until something
    /// outside resumes a task.
    func settle() {
        repeat {
            self.queue.sync {}
        } while self.pending.with { $0 } > 0
    }
}

final class Signal_ConcurrencyTests: XCTestCase {
    private struct TestError: Error, Equatable {
        let code: Int
    }

    func testGetReturnsTheFirstValueAndReleasesTheSubscription() async {
        let disposals = Atomic(value: 0)
        let released = Atomic(value: 0)
        let signal = Signal<Int, NoError> { subscriber in
            let tracker = DeinitTracker(released)
            subscriber.putNext(1)
            subscriber.putNext(2)
            subscriber.putCompletion()
            return ActionDisposable {
                _ = tracker
                disposals.modify { $0 + 1 }
            }
        }
        let value = await signal.get()
        XCTAssertEqual(value, 1)
        XCTAssertEqual(disposals.with { $0 }, 1)
        XCTAssertEqual(released.with { $0 }, 1)
    }

    /// A source that keeps emitting synchronously (`restart` over a signal
    /// that completes at once): the first value ends the call. Before, the
    /// subscription was disposed only once its start returned, which it
    /// never did: the call never returned (found by a new-user program).
    func testGetAndFirstValueReturnOverASynchronousLoop() async {
        let signal = Signal<Int, NoError>.single(1) |> restart
        let returned = expectation(description: "get() and firstValue() returned")
        let values = Atomic<[Int?]>(value: [])
        Task {
            let first = await signal.get()
            let second = await signal.firstValue()
            values.modify { $0 + [first, second] }
            returned.fulfill()
        }
        await fulfillment(of: [returned], timeout: 10)
        XCTAssertEqual(values.with { $0 }, [1, 1])
    }

    func testGetWaitsForAValueFromAnotherThread() async {
        let source = ManualSource<Int, NoError>()
        let queue = DispatchQueue(label: "Signal_ConcurrencyTests.producer")
        queue.async {
            XCTAssertEqual(waitFor(source.started), .success)
            source.put(42)
            source.put(43)
        }
        let value = await source.signal().get()
        XCTAssertEqual(value, 42)
        XCTAssertEqual(source.disposals.with { $0 }, 1, "the subscription is disposed after the first value")
    }

    func testGetOfOptionalValues() async {
        let value: Int?? = await Signal<Int?, NoError>.single(nil).get()
        XCTAssertEqual(value, .some(nil))
    }

    func testFirstValue() async {
        let value = await Signal<Int, TestError>.single(3).firstValue()
        XCTAssertEqual(value, 3)
        let empty = await Signal<Int, NoError>.complete().firstValue()
        XCTAssertNil(empty, "completion without a value gives nil instead of hanging")
        let failed = await Signal<Int, TestError>.fail(TestError(code: 1)).firstValue()
        XCTAssertNil(failed)
    }

    func testFirstValueAfterLaterCompletionOnAnotherThread() async {
        let source = ManualSource<Int, TestError>()
        let queue = DispatchQueue(label: "Signal_ConcurrencyTests.producer")
        queue.async {
            XCTAssertEqual(waitFor(source.started), .success)
            source.complete()
        }
        let value = await source.signal().firstValue()
        XCTAssertNil(value)
        XCTAssertEqual(source.starts.with { $0 }, 1)
    }

    func testFirstValueCancellationReturnsNilAndDisposes() async {
        let source = ManualSource<Int, NoError>()
        let task = Task {
            return await source.signal().firstValue()
        }
        await source.startedEvent.wait()
        task.cancel()
        let value = await task.value
        XCTAssertNil(value)
        XCTAssertEqual(source.disposals.with { $0 }, 1)
        source.put(1) // too late: must not reach anything
    }

    func testFirstValueInAlreadyCancelledTaskDoesNotSubscribe() async {
        let source = ManualSource<Int, NoError>()
        let task = Task { () -> Int? in
            withUnsafeCurrentTask { $0?.cancel() }
            return await source.signal().firstValue()
        }
        let value = await task.value
        XCTAssertNil(value)
        XCTAssertEqual(source.starts.with { $0 }, 0)
    }

    /// `get()` in a task cancelled before it subscribes: as documented, it
    /// never returns (the task stays suspended) and subscribes to nothing.
    /// It trapped: the cancellation handler had ended the call before the
    /// continuation was installed, and the installation resumed it with nil,
    /// which `get()` unwrapped (found by a new-user program).
    func testGetInACancelledTaskStaysSuspendedWithoutSubscribing() {
        let executor = SettlingTaskExecutor()
        let source = ManualSource<Int, NoError>()
        let returned = Counter()
        let task = Task.detached(executorPreference: executor) {
            withUnsafeCurrentTask { $0?.cancel() }
            _ = await source.signal().get()
            returned.increment()
        }
        executor.settle()
        XCTAssertEqual(returned.count, 0, "still suspended")
        XCTAssertEqual(source.starts.with { $0 }, 0)
        withExtendedLifetime(task) {}
    }

    /// Cancelled while subscribed: the subscription is disposed, the task
    /// stays suspended, and a value coming later resumes nothing.
    func testGetCancelledWhileSubscribedDisposesAndStaysSuspended() {
        let executor = SettlingTaskExecutor()
        let source = ManualSource<Int, NoError>()
        let returned = Counter()
        let task = Task.detached(executorPreference: executor) {
            _ = await source.signal().get()
            returned.increment()
        }
        XCTAssertEqual(waitFor(source.started), .success)
        task.cancel()
        // Disposed by the cancellation, or, when the start has not returned
        // yet, as soon as it does, on the task's thread.
        executor.settle()
        XCTAssertEqual(source.disposals.with { $0 }, 1)
        source.put(1)
        executor.settle()
        XCTAssertEqual(returned.count, 0, "still suspended")
        XCTAssertEqual(source.disposals.with { $0 }, 1)
        withExtendedLifetime(task) {}
    }

    /// The cancellation races the task's start, on another thread, for
    /// every interleaving the scheduler gives (before the subscription,
    /// during its start, after): `get()` never returns and every
    /// subscription started is disposed once; `firstValue()` always returns
    /// nil, its subscriptions disposed too. Either call trapped or hung
    /// before in some interleaving (`get()` in the earliest one).
    func testCancellationRacingTheStartOfGetAndFirstValue() {
        let executor = SettlingTaskExecutor()
        let source = ManualSource<Int, NoError>()
        let returned = Counter()
        let nils = Counter()
        let count = 300
        var tasks: [Task<Void, Never>] = []
        for i in 0 ..< count {
            let task = Task.detached(executorPreference: executor) {
                if i % 2 == 0 {
                    _ = await source.signal().get()
                    returned.increment()
                } else if await source.signal().firstValue() == nil {
                    nils.increment()
                }
            }
            task.cancel()
            tasks.append(task)
        }
        executor.settle()
        XCTAssertEqual(returned.count, 0, "get() never returns once cancelled")
        XCTAssertEqual(nils.count, count / 2, "firstValue() returns nil")
        XCTAssertEqual(source.disposals.with { $0 }, source.starts.with { $0 }, "every subscription is disposed")
        withExtendedLifetime(tasks) {}
    }

    func testValuesStreamDeliversEverythingThenFinishes() async {
        let signal = Signal<Int, NoError> { subscriber in
            for i in 1 ... 5 {
                subscriber.putNext(i)
            }
            subscriber.putCompletion()
            return EmptyDisposable
        }
        var values: [Int] = []
        for await value in signal.values {
            values.append(value)
        }
        XCTAssertEqual(values, [1, 2, 3, 4, 5])
    }

    func testValuesStreamFromAnotherThreadKeepsEveryValueInOrder() async {
        let source = ManualSource<Int, NoError>()
        let count = 10_000
        let stream = source.signal().values
        DispatchQueue(label: "Signal_ConcurrencyTests.producer").async {
            for i in 0 ..< count {
                source.put(i)
            }
            source.complete()
        }
        var values: [Int] = []
        for await value in stream {
            values.append(value)
        }
        XCTAssertEqual(values, Array(0 ..< count), "the buffer is unbounded: nothing is dropped")
    }

    func testThrowingValuesStreamThrowsTheError() async {
        let source = ManualSource<Int, TestError>()
        let stream = source.signal().values
        source.put(1)
        source.put(2)
        source.fail(TestError(code: 7))
        source.put(3)
        var values: [Int] = []
        do {
            for try await value in stream {
                values.append(value)
            }
            XCTFail("the stream must throw")
        } catch {
            XCTAssertEqual(error as? TestError, TestError(code: 7))
        }
        XCTAssertEqual(values, [1, 2])
    }

    func testThrowingValuesStreamFinishesOnCompletion() async throws {
        let stream = Signal<Int, TestError>.single(9).values
        var values: [Int] = []
        for try await value in stream {
            values.append(value)
        }
        XCTAssertEqual(values, [9])
    }

    func testBreakingOutOfTheIterationDisposesTheSubscription() async {
        let source = ManualSource<Int, NoError>()
        do {
            let stream = source.signal().values
            source.put(1)
            source.put(2)
            for await value in stream {
                XCTAssertEqual(value, 1)
                break
            }
        }
        XCTAssertEqual(source.disposals.with { $0 }, 1)
    }

    /// `values` subscribes on the reading thread, as `start` does, so a source
    /// that emits without end during its start never lets the read return
    /// (documented on `values`); moved to a queue with `runOn`, the loop gets
    /// its values, and breaking out of it disposes the subscription, which
    /// stops the source.
    func testBreakingOutOfAnEndlessSynchronousSourceOnAQueueStopsIt() async {
        let produced = Atomic<Int>(value: 0)
        let endless = Signal<Int, NoError> { subscriber in
            subscriber.putNext(produced.modify { $0 + 1 })
            subscriber.putCompletion()
            return EmptyDisposable
        } |> restart
        let producer = Queue(name: "Signal_ConcurrencyTests.endless")
        var values: [Int] = []
        for await value in (endless |> runOn(producer)).values {
            values.append(value)
            if values.count == 3 {
                break
            }
        }
        XCTAssertEqual(values, [1, 2, 3])
        // The restart loop runs inside the producer queue's work: a marker
        // behind it runs only once the loop has stopped.
        let stopped = DispatchSemaphore(value: 0)
        producer.justDispatch {
            stopped.signal()
        }
        XCTAssertEqual(stopped.wait(timeout: .now() + waitDeadline), .success, "the source still runs after the loop broke")
        let count = produced.with { $0 }
        producer.sync {}
        XCTAssertEqual(produced.with { $0 }, count)
    }

    func testCancellingTheIteratingTaskDisposesTheSubscription() async {
        let source = ManualSource<Int, TestError>()
        let task = Task { () -> [Int] in
            var values: [Int] = []
            do {
                for try await value in source.signal().values {
                    values.append(value)
                }
            } catch {
                XCTFail("unexpected error \(error)")
            }
            return values
        }
        await source.startedEvent.wait()
        source.put(1)
        task.cancel()
        let values = await task.value
        XCTAssertLessThanOrEqual(values.count, 1)
        XCTAssertEqual(source.disposals.with { $0 }, 1)
    }
}
