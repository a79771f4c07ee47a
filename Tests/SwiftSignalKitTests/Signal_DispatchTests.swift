import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class Signal_DispatchTests: XCTestCase {
    // MARK: deliverOn(Queue)

    func testDeliverOnQueueDeliversEveryEventOnQueueInOrder() {
        let queue = Queue(name: "deliverOn.order")
        let pipe = TestPipe<Int, NoError>()
        let log = UnsyncedLog<Int>()
        let offQueue = Counter()
        let completed = DispatchSemaphore(value: 0)
        let completedOnQueue = Atomic<Bool>(value: false)
        let total = 10_000
        let disposable = (pipe.signal() |> deliverOn(queue)).start(next: { value in
            if !queue.isCurrent() {
                offQueue.increment()
            }
            log.values.append(value)
        }, completed: {
            _ = completedOnQueue.swap(queue.isCurrent())
            completed.signal()
        })
        pipe.putFromAnotherThread(0 ..< total)
        XCTAssertEqual(completed.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(offQueue.count, 0)
        XCTAssertTrue(completedOnQueue.with { $0 })
        queue.sync {
            assertSameSequence(log.values, Array(0 ..< total))
        }
        disposable.dispose()
    }

    func testDeliverOnQueueErrorIsDeliveredOnQueueAfterValues() {
        let queue = Queue(name: "deliverOn.error")
        let pipe = TestPipe<Int, Int>()
        let log = UnsyncedLog<String>()
        let done = DispatchSemaphore(value: 0)
        let disposable = (pipe.signal() |> deliverOn(queue)).start(next: { value in
            log.values.append("next \(value) \(queue.isCurrent())")
        }, error: { error in
            log.values.append("error \(error) \(queue.isCurrent())")
            done.signal()
        }, completed: {
            log.values.append("completed")
        })
        DispatchQueue.global().async {
            pipe.putNext(1)
            pipe.putError(7)
            pipe.putNext(2)
            pipe.putCompletion()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        queue.sync {
        }
        queue.sync {
            XCTAssertEqual(log.values, ["next 1 true", "error 7 true"])
        }
        disposable.dispose()
    }

    func testDeliverOnQueueIsInlineOnQueueAndEnqueuedElsewhere() {
        let queue = Queue(name: "deliverOn.inline")
        let pipe = TestPipe<Int, NoError>()
        let log = UnsyncedLog<Int>()
        let disposable = (pipe.signal() |> deliverOn(queue)).start(next: { value in
            log.values.append(value)
        })
        queue.sync {
            pipe.putNext(1)
            // Delivered synchronously, before putNext returned.
            XCTAssertEqual(log.values, [1])
        }
        let gate = block(queue)
        pipe.putNext(2)
        // The queue is blocked: the value was enqueued, not delivered on this thread.
        XCTAssertEqual(log.values, [1])
        gate.signal()
        queue.sync {
            XCTAssertEqual(log.values, [1, 2])
        }
        disposable.dispose()
    }

    func testDeliverOnQueueDropsEnqueuedEventsAfterDisposeAndDisposesUpstream() {
        let queue = Queue(name: "deliverOn.dispose")
        let pipe = TestPipe<Int, NoError>()
        let delivered = Counter()
        let released = Counter()
        let disposable: any Disposable
        do {
            let tracker = DeinitTracker { released.increment() }
            disposable = (pipe.signal() |> deliverOn(queue)).start(next: { _ in
                _ = tracker
                delivered.increment()
            }, completed: {
                delivered.increment()
            })
        }
        let gate = block(queue)
        for i in 0 ..< 100 {
            pipe.putNext(i)
        }
        pipe.putCompletion()
        let pipe2 = TestPipe<Int, NoError>()
        let disposable2 = (pipe2.signal() |> deliverOn(queue)).start()
        XCTAssertEqual(pipe2.subscriberCount, 1)
        disposable2.dispose()
        XCTAssertEqual(pipe2.subscriberCount, 0)
        disposable.dispose()
        XCTAssertEqual(released.count, 1)
        gate.signal()
        queue.sync {
        }
        XCTAssertEqual(delivered.count, 0)
    }

    func testDeliverOnQueueCallbackMayDisposeItsSubscriptionAndEmit() {
        let queue = Queue(name: "deliverOn.reentrant")
        let pipe = TestPipe<Int, NoError>()
        let log = UnsyncedLog<Int>()
        let box = DisposableBox()
        box.disposable.set((pipe.signal() |> deliverOn(queue)).start(next: { value in
            log.values.append(value)
            if value == 0 {
                // Emitting from inside the callback, on the queue: delivered inline.
                pipe.putNext(100)
            }
            if value == 3 {
                box.disposable.dispose()
            }
        }))
        let emitted = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for i in 0 ..< 10 {
                pipe.putNext(i)
            }
            emitted.signal()
        }
        XCTAssertEqual(emitted.wait(timeout: .now() + waitDeadline), .success)
        queue.sync {
            XCTAssertEqual(log.values, [0, 100, 1, 2, 3])
        }
        XCTAssertEqual(pipe.subscriberCount, 0)
    }

    func testDeliverOnQueueConcurrentEmittersExactCount() {
        let queue = Queue(name: "deliverOn.stress")
        let pipe = TestPipe<Int, NoError>()
        let log = UnsyncedLog<Int>()
        let completed = DispatchSemaphore(value: 0)
        let emitters = 8
        let perEmitter = 1_000
        let disposable = (pipe.signal() |> deliverOn(queue)).start(next: { value in
            log.values.append(value)
        }, completed: {
            completed.signal()
        })
        DispatchQueue.concurrentPerform(iterations: emitters) { emitter in
            for i in 0 ..< perEmitter {
                pipe.putNext(emitter * perEmitter + i)
            }
        }
        pipe.putCompletion()
        XCTAssertEqual(completed.wait(timeout: .now() + waitDeadline), .success)
        queue.sync {
            XCTAssertEqual(log.values.count, emitters * perEmitter)
            XCTAssertEqual(Set(log.values).count, emitters * perEmitter)
            for emitter in 0 ..< emitters {
                let own = log.values.filter { $0 / perEmitter == emitter }
                assertSameSequence(own, Array(emitter * perEmitter ..< (emitter + 1) * perEmitter))
            }
        }
        disposable.dispose()
    }

    func testDeliverOnQueueNeverDeliversAnEventAfterWorkEnqueuedLater() {
        // Value 2 is emitted while value 1 is being delivered, then work W is
        // enqueued: a dispatch per event (the original) delivers 2 before W,
        // and batching must not deliver it later.
        let queue = Queue(name: "deliverOn.fifo")
        let pipe = ValuePipe<Int>()
        let log = Atomic<[String]>(value: [])
        let inside = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let disposable = (pipe.signal() |> deliverOn(queue)).start(next: { value in
            log.modify { $0 + ["v\(value)"] }
            if value == 1 {
                inside.signal()
                _ = proceed.wait(timeout: .now() + waitDeadline)
            }
        })
        pipe.putNext(1)
        XCTAssertEqual(inside.wait(timeout: .now() + waitDeadline), .success)
        pipe.putNext(2)
        queue.justDispatch {
            log.modify { $0 + ["W"] }
            done.signal()
        }
        proceed.signal()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(log.with { $0 }, ["v1", "v2", "W"])
        disposable.dispose()
    }

    func testDeliverOnQueueBurstWaitingBehindOtherWorkArrivesWholeAndInOrder() {
        let queue = Queue(name: "deliverOn.burst")
        let pipe = ValuePipe<Int>()
        let log = UnsyncedLog<Int>()
        let blocked = DispatchSemaphore(value: 0)
        let unblock = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let disposable = (pipe.signal() |> deliverOn(queue)).start(next: { value in
            log.values.append(value)
        })
        queue.justDispatch {
            blocked.signal()
            _ = unblock.wait(timeout: .now() + waitDeadline)
        }
        XCTAssertEqual(blocked.wait(timeout: .now() + waitDeadline), .success)
        for i in 0 ..< 5_000 {
            pipe.putNext(i)
        }
        var countAtMarker = -1
        queue.justDispatch {
            countAtMarker = log.values.count
            done.signal()
        }
        unblock.signal()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        queue.sync {
            XCTAssertEqual(countAtMarker, 5_000)
            assertSameSequence(log.values, Array(0 ..< 5_000))
        }
        disposable.dispose()
    }

    /// Runs `body` while `queue` is busy, then lets the queue go and waits
    /// until the work `body` gave it has run: a dispatch queue is held by a
    /// task that waits; a host-drained one is drained and a virtual-time
    /// one run after `body`.
    private func whileBusy(_ queue: Queue, _ body: () -> Void) throws {
        if queue.hostFileDescriptor != nil {
            body()
            try queue.drain()
            return
        }
        if queue.isVirtualTime {
            body()
            try queue.run()
            return
        }
        let blocked = DispatchSemaphore(value: 0)
        let unblock = DispatchSemaphore(value: 0)
        queue.justDispatch {
            blocked.signal()
            _ = unblock.wait(timeout: .now() + waitDeadline)
        }
        XCTAssertEqual(blocked.wait(timeout: .now() + waitDeadline), .success)
        body()
        unblock.signal()
        queue.sync {
        }
    }

    /// An event put after other work was given to the queue runs after that
    /// work, as a dispatch per event (the original's) runs it: put 1,
    /// `queue.async(W)`, put 2 run 1, W, 2. Before, 2 joined the drain that
    /// was to deliver 1 and ran ahead of W (found with a Telegram-style
    /// state object: a `queue.async` update overtaken by a later event).
    func testDeliverOnKeepsTheOrderOfWorkGivenToTheQueueBetweenEvents() throws {
        for queue in [Queue(name: "deliverOn.order"), Queue.hostDrained(), Queue.virtualTime()] {
            let pipe = ValuePipe<Int>()
            let log = Atomic<[String]>(value: [])
            let disposable = (pipe.signal() |> deliverOn(queue)).start(next: { value in
                log.modify { $0 + ["v\(value)"] }
            })
            try self.whileBusy(queue) {
                pipe.putNext(1)
                queue.async {
                    log.modify { $0 + ["W"] }
                }
                pipe.putNext(2)
                pipe.putNext(3)
            }
            XCTAssertEqual(log.with { $0 }, ["v1", "W", "v2", "v3"])
            disposable.dispose()
            queue.closeHostDrained()
        }
    }

    /// Two subscriptions delivering on one queue: their events run in the
    /// order they were put, as with a dispatch per event (before, the second
    /// value of the first ran ahead of the second subscription's first).
    func testDeliverOnOfTwoSubscriptionsOnOneQueueKeepsTheOrderOfTheirPuts() throws {
        for queue in [Queue(name: "deliverOn.two"), Queue.hostDrained(), Queue.virtualTime()] {
            let first = ValuePipe<Int>()
            let second = ValuePipe<Int>()
            let log = Atomic<[String]>(value: [])
            let disposables = DisposableSet()
            disposables.add((first.signal() |> deliverOn(queue)).start(next: { value in
                log.modify { $0 + ["a\(value)"] }
            }))
            disposables.add((second.signal() |> deliverOn(queue)).start(next: { value in
                log.modify { $0 + ["b\(value)"] }
            }))
            try self.whileBusy(queue) {
                first.putNext(1)
                second.putNext(1)
                first.putNext(2)
                first.putNext(3)
                second.putNext(2)
            }
            XCTAssertEqual(log.with { $0 }, ["a1", "b1", "a2", "a3", "b2"])
            disposables.dispose()
            queue.closeHostDrained()
        }
    }

    // MARK: deliverOnMainQueue

    /// A host-drained or virtual-time queue that closes drops the values a
    /// `deliverOn` had buffered for it, and every value emitted later is
    /// released as it arrives (before: they piled up in the buffer, unreleased,
    /// until the subscription was disposed).
    func testDeliverOnClosedQueueReleasesBufferedAndLaterValues() {
        for queue in [Queue.hostDrained(), Queue.virtualTime()] {
            let pipe = TestPipe<DeinitTracker, NoError>()
            let released = Counter()
            let delivered = Counter()
            let disposable = (pipe.signal() |> deliverOn(queue)).start(next: { _ in
                delivered.increment()
            })
            // Buffered while the queue is open (nobody drains it).
            for _ in 0 ..< 10 {
                pipe.putNext(DeinitTracker(released))
            }
            XCTAssertEqual(released.count, 0)
            queue.closeHostDrained()
            XCTAssertEqual(released.count, 10, "the buffered values are released by the close")
            for i in 0 ..< 1000 {
                pipe.putNext(DeinitTracker(released))
                XCTAssertEqual(released.count, 11 + i, "a value put after the close is released at once")
            }
            XCTAssertEqual(delivered.count, 0)
            disposable.dispose()
        }
    }

    /// On a host-drained queue a `deliverOn` drain delivers one batch: the
    /// values another thread puts while it delivers wait for the host's next
    /// drain, as `drain(maxTasks:)` promises for work added during a drain.
    /// Before, the same drain delivered them too, and a producer faster than
    /// the callbacks kept one drain of the host's running for ever (an
    /// asyncio loop stopped in its reader, found from Python).
    func testDeliverOnHostDrainedQueueLeavesValuesPutDuringADrainToTheNextDrain() throws {
        let queue = Queue.hostDrained()
        let pipe = ValuePipe<Int>()
        let delivered = Atomic<[Int]>(value: [])
        let disposable = (pipe.signal() |> deliverOn(queue)).start(next: { value in
            _ = delivered.modify { $0 + [value] }
            if value < 5 {
                // Another thread puts the next value while this delivery
                // runs (waited for: it is in the buffer before the callback
                // returns).
                let put = DispatchSemaphore(value: 0)
                Thread {
                    pipe.putNext(value + 1)
                    put.signal()
                }.start()
                XCTAssertEqual(put.wait(timeout: .now() + waitDeadline), .success)
            }
        })
        pipe.putNext(0)
        for expected in 0 ... 5 {
            XCTAssertEqual(try queue.drain(), 1, "one drain, one batch")
            XCTAssertEqual(delivered.with { $0 }, Array(0 ... expected))
        }
        XCTAssertEqual(try queue.drain(), 0)
        disposable.dispose()
        queue.closeHostDrained()
    }

    func testDeliverOnMainQueueDeliversOnMainQueue() {
        let pipe = TestPipe<Int, NoError>()
        let log = Atomic<[String]>(value: [])
        let expectation = self.expectation(description: "completed on the main queue")
        let disposable = (pipe.signal() |> deliverOnMainQueue).start(next: { value in
            _ = log.modify { $0 + ["\(value) \(Queue.mainQueue().isCurrent())"] }
        }, completed: {
            _ = log.modify { $0 + ["completed \(Queue.mainQueue().isCurrent())"] }
            expectation.fulfill()
        })
        if Queue.mainQueue().isCurrent() {
            // On the main thread, delivery is inline.
            pipe.putNext(0)
            XCTAssertEqual(log.with { $0 }, ["0 true"])
        } else {
            pipe.putNext(0)
        }
        DispatchQueue.global().async {
            pipe.putNext(1)
            pipe.putCompletion()
        }
        // Waiting on an expectation runs the main run loop, which drains the main queue.
        self.wait(for: [expectation], timeout: 10)
        XCTAssertEqual(log.with { $0 }, ["0 true", "1 true", "completed true"])
        disposable.dispose()
    }

    // MARK: deliverOn(ThreadPool)

    func testDeliverOnThreadPoolKeepsOrderPerSubscription() {
        let pool = ThreadPool(threadCount: 4, threadPriority: 0.5)
        let pipe = TestPipe<Int, NoError>()
        let subscriptions = 3
        let total = 5_000
        let logs = (0 ..< subscriptions).map { _ in UnsyncedLog<Int>() }
        let offPool = Counter()
        let completed = DispatchGroup()
        var disposables: [any Disposable] = []
        for log in logs {
            completed.enter()
            disposables.append((pipe.signal() |> deliverOn(pool)).start(next: { value in
                if !pool.isCurrentThreadInPool() {
                    offPool.increment()
                }
                log.values.append(value)
            }, completed: {
                if !pool.isCurrentThreadInPool() {
                    offPool.increment()
                }
                log.values.append(-1)
                completed.leave()
            }))
        }
        pipe.putFromAnotherThread(0 ..< total)
        XCTAssertEqual(completed.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(offPool.count, 0)
        for log in logs {
            assertSameSequence(log.values, Array(0 ..< total) + [-1])
        }
        for disposable in disposables {
            disposable.dispose()
        }
    }

    func testDeliverOnThreadPoolDisposeCancelsPendingEvents() {
        var pool: ThreadPool? = ThreadPool(threadCount: 1, threadPriority: 0.5)
        weak let weakPool = pool
        let pipe = TestPipe<Int, NoError>()
        let gate = DispatchSemaphore(value: 0)
        let delivered = Counter()
        do {
            pool!.addTask(blockingTask(until: gate))
            let disposable = (pipe.signal() |> deliverOn(pool!)).start(next: { _ in
                delivered.increment()
            }, completed: {
                delivered.increment()
            })
            for i in 0 ..< 100 {
                pipe.putNext(i)
            }
            pipe.putCompletion()
            disposable.dispose()
        }
        XCTAssertEqual(pipe.subscriberCount, 0)
        gate.signal()
        // Releasing the pool waits for its queued work: the cancelled deliveries
        // have all been skipped by then.
        pool = nil
        XCTAssertNil(weakPool)
        XCTAssertEqual(delivered.count, 0)
    }

    // MARK: runOn(Queue)

    func testRunOnQueueStartsUpstreamOnQueue() {
        let queue = Queue(name: "runOn.start")
        let startedOnQueue = Atomic<Bool?>(value: nil)
        let done = DispatchSemaphore(value: 0)
        let values = Atomic<[Int]>(value: [])
        let upstream = Signal<Int, NoError> { subscriber in
            _ = startedOnQueue.swap(queue.isCurrent())
            subscriber.putNext(1)
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let disposable = (upstream |> runOn(queue)).start(next: { value in
            _ = values.modify { $0 + [value] }
        }, completed: {
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(startedOnQueue.with { $0 }, true)
        XCTAssertEqual(values.with { $0 }, [1])
        disposable.dispose()
    }

    func testRunOnQueueStartsInlineWhenAlreadyOnQueue() {
        let queue = Queue(name: "runOn.inline")
        let starts = Counter()
        let upstream = Signal<Int, NoError> { subscriber in
            starts.increment()
            subscriber.putNext(5)
            return EmptyDisposable
        }
        queue.sync {
            let values = UnsyncedLog<Int>()
            let disposable = (upstream |> runOn(queue)).start(next: { value in
                values.values.append(value)
            })
            XCTAssertEqual(starts.count, 1)
            XCTAssertEqual(values.values, [5])
            disposable.dispose()
        }
    }

    func testRunOnQueueNeverStartsWhenDisposedBeforeItRuns() {
        let queue = Queue(name: "runOn.dispose")
        let starts = Counter()
        let released = Counter()
        let gate = block(queue)
        do {
            let tracker = DeinitTracker { released.increment() }
            let upstream = Signal<Int, NoError> { _ in
                _ = tracker
                starts.increment()
                return EmptyDisposable
            }
            let disposable = (upstream |> runOn(queue)).start()
            disposable.dispose()
        }
        gate.signal()
        queue.sync {
        }
        XCTAssertEqual(starts.count, 0)
        // The enqueued start has run (and given up): nothing holds the upstream.
        XCTAssertEqual(released.count, 1)
    }

    func testRunOnQueueConcurrentSubscribeAndDisposeBalances() {
        let queue = Queue(name: "runOn.stress")
        let starts = Counter()
        let disposals = Counter()
        let upstream = Signal<Int, NoError> { _ in
            starts.increment()
            return ActionDisposable {
                disposals.increment()
            }
        }
        let signal = upstream |> runOn(queue)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0 ..< 250 {
                signal.start().dispose()
            }
        }
        queue.sync {
        }
        // Every upstream that started was disposed, exactly once.
        XCTAssertEqual(starts.count, disposals.count)
        XCTAssertLessThanOrEqual(starts.count, 2_000)
    }

    // MARK: runOn(ThreadPool)

    func testRunOnThreadPoolStartsUpstreamOnPoolThread() {
        let pool = ThreadPool(threadCount: 2, threadPriority: 0.5)
        let startedInPool = Atomic<Bool?>(value: nil)
        let done = DispatchSemaphore(value: 0)
        let upstream = Signal<Int, NoError> { subscriber in
            _ = startedInPool.swap(pool.isCurrentThreadInPool())
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let disposable = (upstream |> runOn(pool)).start(completed: {
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(startedInPool.with { $0 }, true)
        disposable.dispose()
    }

    func testRunOnThreadPoolNeverStartsWhenDisposedBeforeItRuns() {
        var pool: ThreadPool? = ThreadPool(threadCount: 1, threadPriority: 0.5)
        weak let weakPool = pool
        let starts = Counter()
        let released = Counter()
        let gate = DispatchSemaphore(value: 0)
        do {
            pool!.addTask(blockingTask(until: gate))
            let tracker = DeinitTracker { released.increment() }
            let upstream = Signal<Int, NoError> { _ in
                _ = tracker
                starts.increment()
                return EmptyDisposable
            }
            let disposable = (upstream |> runOn(pool!)).start()
            disposable.dispose()
        }
        // Cancelling the task released its action, and with it the upstream.
        XCTAssertEqual(released.count, 1)
        gate.signal()
        pool = nil
        XCTAssertNil(weakPool)
        XCTAssertEqual(starts.count, 0)
    }
}
