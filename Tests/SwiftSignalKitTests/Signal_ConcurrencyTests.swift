import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// Waits for `semaphore`; only for dispatch threads, never for a task.
private func waitFor(_ semaphore: DispatchSemaphore) -> DispatchTimeoutResult {
    return semaphore.wait(timeout: .now() + 10)
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
