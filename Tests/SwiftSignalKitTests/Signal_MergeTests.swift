import Dispatch
import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class Signal_MergeTests: XCTestCase {
    func testForwardsAllValuesAndCompletesWhenAllComplete() {
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        var values: [Int] = []
        var completions = 0
        let disposable = merge([a.signal(), Signal<Int, NoError>.single(0), b.signal()]).start(next: { values.append($0) }, completed: { completions += 1 })
        a.putNext(1)
        b.putNext(2)
        a.putNext(3)
        a.putCompletion()
        XCTAssertEqual(completions, 0)
        b.putNext(4)
        b.putCompletion()
        XCTAssertEqual(values, [0, 1, 2, 3, 4])
        XCTAssertEqual(completions, 1)
        b.putNext(5)
        XCTAssertEqual(values, [0, 1, 2, 3, 4])
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)
        disposable.dispose()
    }

    func testEmptyArrayCompletesAtOnce() {
        var completions = 0
        var nexts = 0
        _ = merge([Signal<Int, NoError>]()).start(next: { _ in nexts += 1 }, completed: { completions += 1 })
        XCTAssertEqual(nexts, 0)
        XCTAssertEqual(completions, 1)
    }

    func testSynchronousSignalsInOrder() {
        var values: [Int] = []
        var completions = 0
        _ = merge([Signal<Int, NoError>.single(1), .complete(), .single(2)]).start(next: { values.append($0) }, completed: { completions += 1 })
        XCTAssertEqual(values, [1, 2])
        XCTAssertEqual(completions, 1)
    }

    func testFirstErrorPassesAndDisposesTheRest() {
        let a = TestPipe<Int, TestError>()
        let b = TestPipe<Int, TestError>()
        var values: [Int] = []
        var errors: [TestError] = []
        var completions = 0
        _ = merge([a.signal(), b.signal()]).start(next: { values.append($0) }, error: { errors.append($0) }, completed: { completions += 1 })
        a.putNext(1)
        b.putError(.second)
        XCTAssertEqual(errors, [.second])
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)
        a.putNext(2)
        a.putError(.first)
        XCTAssertEqual(values, [1])
        XCTAssertEqual(errors, [.second])
        XCTAssertEqual(completions, 0)

        // A synchronous error: the inputs after it are never started, the ones
        // before it are disposed.
        let c = TestPipe<Int, TestError>()
        var laterStarted = 0
        let later = Signal<Int, TestError> { _ in
            laterStarted += 1
            return EmptyDisposable
        }
        _ = merge([c.signal(), Signal<Int, TestError>.fail(.first), later]).start(error: { errors.append($0) })
        XCTAssertEqual(errors, [.second, .first])
        XCTAssertEqual(laterStarted, 0)
        XCTAssertEqual(c.subscriberCount, 0)
    }

    func testDisposeStopsEverythingAndReleasesCallbacks() {
        let counter = Atomic<Int>(value: 0)
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        var values: [Int] = []
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(counter)
            disposable = merge([a.signal(), b.signal()]).start(next: { value in
                _ = tracker
                values.append(value)
            })
        }
        a.putNext(1)
        XCTAssertEqual(counter.with { $0 }, 0)
        disposable?.dispose()
        XCTAssertEqual(counter.with { $0 }, 1)
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)
        b.putNext(2)
        XCTAssertEqual(values, [1])

        // Released on completion too.
        var kept: (any Disposable)?
        do {
            let tracker = DeinitTracker(counter)
            kept = merge([Signal<Int, NoError>.single(1), .single(2)]).start(next: { _ in _ = tracker })
        }
        XCTAssertEqual(counter.with { $0 }, 2)
        XCTAssertNotNil(kept)
    }

    func testReentrantEmitAndDispose() {
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        var values: [Int] = []
        var disposable: (any Disposable)?
        disposable = merge([a.signal(), b.signal()]).start(next: { value in
            values.append(value)
            if value == 1 {
                b.putNext(2)
            } else if value == 2 {
                disposable?.dispose()
                a.putNext(3)
            }
        })
        a.putNext(1)
        XCTAssertEqual(values, [1, 2])
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)
    }

    func testConcurrentInputsExactCounts() {
        let threads = 4
        let perThread = 2_000
        let pipes = (0 ..< threads).map { _ in TestPipe<Int, NoError>() }
        let count = Atomic<Int>(value: 0)
        let sum = Atomic<Int>(value: 0)
        let completions = Atomic<Int>(value: 0)
        let disposable = merge(pipes.map { $0.signal() }).start(next: { value in
            count.modify { $0 + 1 }
            sum.modify { $0 + value }
        }, completed: {
            completions.modify { $0 + 1 }
        })
        let group = DispatchGroup()
        for thread in 0 ..< threads {
            DispatchQueue.global().async(group: group) {
                for i in 0 ..< perThread {
                    pipes[thread].putNext(thread * perThread + i)
                }
                pipes[thread].putCompletion()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        let total = threads * perThread
        XCTAssertEqual(count.with { $0 }, total)
        XCTAssertEqual(sum.with { $0 }, total * (total - 1) / 2)
        XCTAssertEqual(completions.with { $0 }, 1)
        disposable.dispose()
    }

    func testConcurrentSubscribeAndDispose() {
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        let released = Atomic<Int>(value: 0)
        let synchronous = Atomic<Int>(value: 0)
        let iterations = 500
        whileEmitting(into: [a, b], workers: 3, iterations: iterations) {
            let tracker = DeinitTracker(released)
            let disposable = merge([a.signal(), b.signal(), Signal<Int, NoError>.single(1)]).start(next: { _ in
                _ = tracker
            })
            _ = merge([Signal<Int, NoError>.single(1), .single(2)]).start(next: { value in
                synchronous.modify { $0 + value }
            })
            disposable.dispose()
        }
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)
        XCTAssertEqual(released.with { $0 }, 3 * iterations)
        XCTAssertEqual(synchronous.with { $0 }, 3 * iterations * 3)
    }
}
