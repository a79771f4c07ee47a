import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// Every count, limit and capacity of the Swift API at 1, 2, 3, 2^32 and
/// `Int.max` (issue 40): a count is a limit, not a reservation. A huge one
/// means "no limit" (or, for a bounded concurrent queue's workers, is
/// refused), and never memory or threads asked for up front:
/// `buffer(count: 1 << 32)` and `replay(1 << 32)` asked the runtime for
/// 2^32 slots and stopped the process.
final class CountLimitTests: XCTestCase {
    private static let counts = [1, 2, 3, 1 << 32, Int.max]

    private func values<T>(_ signal: Signal<T, Int>) -> (values: [T], completed: Bool, error: Int?) {
        var values: [T] = []
        var completed = false
        var failure: Int?
        signal.start(next: { values.append($0) }, error: { failure = $0 }, completed: { completed = true }).dispose()
        return (values, completed, failure)
    }

    func testTakeSkipAndElementAtAtEveryCount() {
        for count in Self.counts {
            let kept = min(count, 3)
            let taken = values(syncSignal([1, 2, 3]) |> take(count))
            XCTAssertEqual(taken.values, Array([1, 2, 3].prefix(kept)), "take(\(count))")
            XCTAssertTrue(taken.completed, "take(\(count))")
            let skipped = values(syncSignal([1, 2, 3]) |> skip(count))
            XCTAssertEqual(skipped.values, Array([1, 2, 3].dropFirst(kept)), "skip(\(count))")
            XCTAssertTrue(skipped.completed, "skip(\(count))")
            let at = values(syncSignal([1, 2, 3]) |> elementAt(count))
            XCTAssertEqual(at.values, count < 3 ? [[1, 2, 3][count]] : [], "elementAt(\(count))")
            XCTAssertTrue(at.completed, "elementAt(\(count))")
        }
    }

    func testBufferCountAtEveryCount() {
        let expected: [Int: [[Int]]] = [1: [[1], [2], [3]], 2: [[1, 2], [3]]]
        for count in Self.counts {
            let buffered = values(syncSignal([1, 2, 3]) |> buffer(count: count))
            XCTAssertEqual(buffered.values, expected[count] ?? [[1, 2, 3]], "buffer(count: \(count))")
            XCTAssertTrue(buffered.completed, "buffer(count: \(count))")
        }
    }

    /// The case: 2^32 over three values, then the completion, is
    /// one array of the three (the process stopped: "failed to allocate
    /// 103079215136 bytes").
    func testBufferCountOfTwoToThe32IsOneFinalArray() {
        let buffered = values(syncSignal([1, 2, 3]) |> buffer(count: 1 << 32))
        XCTAssertEqual(buffered.values, [[1, 2, 3]])
        XCTAssertTrue(buffered.completed)
    }

    /// A subscriber that joins gets the last min(count, 3) values, from
    /// `replay(_:)` and from `SignalPipe(replayCount:)`.
    func testReplayAndReplayingPipesAtEveryCount() {
        for count in Self.counts {
            let expected = Array([1, 2, 3].suffix(min(count, 3)))
            let source = SignalPipe<Int, Int>()
            let shared = source.signal() |> replay(count)
            let connection = shared.start()
            let pipe = SignalPipe<Int, Int>(replayCount: count)
            for value in [1, 2, 3] {
                source.putNext(value)
                pipe.putNext(value)
            }
            var joined: [Int] = []
            shared.start(next: { joined.append($0) }).dispose()
            XCTAssertEqual(joined, expected, "replay(\(count))")
            var late: [Int] = []
            pipe.signal().start(next: { late.append($0) }).dispose()
            XCTAssertEqual(late, expected, "SignalPipe(replayCount: \(count))")
            connection.dispose()
        }
    }

    /// A signal failing on its first five starts (each after one value):
    /// 1 to 3 retries end with the error after count + 1 starts; a huge
    /// count retries until the sixth start completes.
    func testRetryCountAtEveryCount() {
        for count in Self.counts {
            var starts = 0
            let flaky = Signal<Int, Int> { subscriber in
                starts += 1
                subscriber.putNext(starts)
                if starts <= 5 {
                    subscriber.putError(starts)
                } else {
                    subscriber.putCompletion()
                }
                return EmptyDisposable
            }
            let retried = values(flaky |> retry(count: count))
            let attempts = count < 5 ? count + 1 : 6
            XCTAssertEqual(retried.values, Array(1 ... attempts), "retry(count: \(count))")
            XCTAssertEqual(retried.error, count < 5 ? attempts : nil, "retry(count: \(count))")
            XCTAssertEqual(retried.completed, count >= 5, "retry(count: \(count))")
        }
    }

    /// Three values, each mapped to a subscription to a pipe that never
    /// ends: min(maxConcurrent, 3) of them run.
    func testMergeMapAtEveryMaxConcurrent() {
        for count in Self.counts {
            let inner = SignalPipe<Int, Int>()
            var received: [Int] = []
            let d = (syncSignal([1, 2, 3]) |> mergeMap(maxConcurrent: count) { _ in inner.signal() })
                .start(next: { received.append($0) })
            inner.putNext(7)
            XCTAssertEqual(received, Array(repeating: 7, count: min(count, 3)), "mergeMap(maxConcurrent: \(count))")
            d.dispose()
        }
    }

    /// 1 to 3 workers make a bounded concurrent queue whose work runs; a
    /// huge count is refused with the range.
    func testBoundedConcurrentQueueAtEveryWorkerCount() {
        for count in Self.counts {
            do {
                let queue = try Queue.makeBoundedConcurrent(maxWorkers: count, name: "counts")
                XCTAssertLessThanOrEqual(count, 3, "maxWorkers \(count) was accepted")
                XCTAssertEqual(queue.maxWorkers, count)
                let ran = DispatchSemaphore(value: 0)
                queue.async { ran.signal() }
                XCTAssertEqual(ran.wait(timeout: .now() + waitDeadline), .success, "maxWorkers \(count): the work never ran")
            } catch {
                XCTAssertEqual(error, .invalidWorkerCount(count))
                XCTAssertEqual("\(error)", "max_workers is \(count): a bounded concurrent queue has 1 to 1024 workers")
                XCTAssertGreaterThan(count, 3)
            }
        }
    }

    /// A pool starts min(threadCount, ThreadPool.maxThreads) threads: a
    /// huge count starts 1,024, not every thread the process may have.
    func testThreadPoolAtEveryThreadCount() {
        for count in Self.counts {
            let attempts = Atomic<Int>(value: 0)
            let pool = ThreadPool(threadCount: count, threadPriority: 0.5, startThread: { context in
                _ = attempts.modify { $0 + 1 }
                return ThreadPool.startThread(context)
            })
            XCTAssertEqual(attempts.with { $0 }, min(count, ThreadPool.maxThreads), "threadCount \(count)")
            let ran = DispatchSemaphore(value: 0)
            pool.addTask(ThreadPoolTask { _ in ran.signal() })
            XCTAssertEqual(ran.wait(timeout: .now() + waitDeadline), .success, "threadCount \(count): the task never ran")
        }
    }

    /// A host queue's drain and a virtual queue's run, five tasks pending:
    /// min(limit, 5) run; a huge limit runs all five.
    func testDrainsAtEveryLimit() throws {
        for count in Self.counts {
            let host = try Queue.makeHostDrained(name: "counts")
            let virtual = Queue.virtualTime(name: "counts")
            var hostRan = 0, virtualRan = 0
            for k in 0 ..< 5 {
                host.async { hostRan += 1 }
                virtual.after(Double(k)) { virtualRan += 1 }
            }
            XCTAssertEqual(try host.drain(maxTasks: count), min(count, 5), "drain(maxTasks: \(count))")
            XCTAssertEqual(hostRan, min(count, 5))
            do {
                let ran = try virtual.run(limit: count)
                XCTAssertGreaterThanOrEqual(count, 5, "run(limit: \(count)) ran \(ran)")
                XCTAssertEqual(ran, 5)
            } catch {
                XCTAssertLessThan(count, 5, "run(limit: \(count)): \(error)")
            }
            XCTAssertEqual(virtualRan, min(count, 5), "run(limit: \(count))")
            host.closeHostDrained()
            virtual.closeHostDrained()
        }
    }
}
