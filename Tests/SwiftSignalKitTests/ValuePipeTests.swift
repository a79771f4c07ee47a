import XCTest
import Dispatch
@testable import SwiftSignalKit
import SwiftSignalKitTestSupport
#if canImport(Glibc)
import Glibc
#endif

final class ValuePipeTests: XCTestCase {
    func testNoMemoryAndFanOutInOrder() {
        let pipe = ValuePipe<Int>()
        pipe.putNext(0)
        var a: [Int] = []
        var b: [Int] = []
        var completed = false
        let da = pipe.signal().start(next: { a.append($0) }, completed: { completed = true })
        XCTAssertEqual(a, [], "a pipe without replay has no memory")
        pipe.putNext(1)
        let db = pipe.signal().start(next: { b.append($0) })
        pipe.putNext(2)
        pipe.putNext(3)
        XCTAssertEqual(a, [1, 2, 3])
        XCTAssertEqual(b, [2, 3])
        XCTAssertFalse(completed)
        da.dispose()
        db.dispose()
    }

    func testReplayGivesTheMostRecentValueOnly() {
        let pipe = ValuePipe<Int>(replay: true)
        var empty: [Int] = []
        pipe.signal().start(next: { empty.append($0) }).dispose()
        XCTAssertEqual(empty, [], "nothing to replay before the first value")
        pipe.putNext(1)
        pipe.putNext(2)
        var values: [Int] = []
        let d = pipe.signal().start(next: { values.append($0) })
        pipe.putNext(3)
        XCTAssertEqual(values, [2, 3])
        d.dispose()
        var late: [Int] = []
        pipe.signal().start(next: { late.append($0) }).dispose()
        XCTAssertEqual(late, [3])
    }

    func testValuePutDuringTheReplayIsDeliveredAfterIt() {
        let pipe = ValuePipe<Int>(replay: true)
        pipe.putNext(1)
        let inReplay = DispatchSemaphore(value: 0)
        let putDone = DispatchSemaphore(value: 0)
        DispatchQueue(label: "ValuePipeTests.producer").async {
            XCTAssertEqual(inReplay.wait(timeout: .now() + waitDeadline), .success)
            pipe.putNext(2)
            putDone.signal()
        }
        var values: [Int] = []
        var first = true
        let d = pipe.signal().start(next: { value in
            if first {
                first = false
                inReplay.signal()
                XCTAssertEqual(putDone.wait(timeout: .now() + waitDeadline), .success)
            }
            values.append(value)
        })
        XCTAssertEqual(values, [1, 2])
        d.dispose()
    }

    func testValuesAreDeliveredOnThePuttingThread() {
        let pipe = ValuePipe<Int>()
        let queue = Queue(name: "ValuePipeTests.putter")
        let onQueue = Atomic<[Bool]>(value: [])
        let d = pipe.signal().start(next: { _ in
            onQueue.modify { $0 + [queue.isCurrent()] }
        })
        queue.sync {
            pipe.putNext(1)
        }
        pipe.putNext(2)
        XCTAssertEqual(onQueue.with { $0 }, [true, false])
        d.dispose()
    }

    func testReplayFalseMatchesDefault() {
        let pipe = ValuePipe<Int>(replay: false)
        pipe.putNext(1)
        var values: [Int] = []
        let d = pipe.signal().start(next: { values.append($0) })
        pipe.putNext(2)
        XCTAssertEqual(values, [2])
        d.dispose()
    }

    func testDisposeRemovesSubscriberAndReleasesClosures() {
        let pipe = ValuePipe<Int>()
        let recorder = Recorder<Int, NoError>()
        let disposable = recorder.start(pipe.signal())
        pipe.putNext(1)
        XCTAssertEqual(recorder.released.count, 0)
        disposable.dispose()
        XCTAssertEqual(recorder.released.count, 1)
        pipe.putNext(2)
        XCTAssertEqual(recorder.recordedValues, [1])
    }

    func testTheCompletionCallbackIsHeldUntilDispose() {
        // A pipe never calls it, but it lives as long as the subscription (as
        // with any subscriber): what it captures is released on dispose.
        let pipe = ValuePipe<Int>()
        let released = Counter()
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(released)
            disposable = pipe.signal().start(completed: { tracker.touch() })
        }
        pipe.putNext(1)
        XCTAssertEqual(released.count, 0)
        disposable?.dispose()
        XCTAssertEqual(released.count, 1)
        disposable?.dispose()
        XCTAssertEqual(released.count, 1)
    }

    func testDisposeDuringADeliveryReleasesTheCallbackOnlyAfterItReturns() {
        // The callback is running on another thread when the subscription is
        // disposed: it is released when that call returns, not before, and
        // nothing after the dispose reaches it.
        let pipe = ValuePipe<Int>()
        let released = Counter()
        let held = HeldCall()
        let values = Atomic<[Int]>(value: [])
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(released)
            disposable = pipe.signal().start(next: { value in
                tracker.touch()
                _ = values.modify { $0 + [value] }
                if value == 1 {
                    held.hold()
                }
            })
        }
        let putter = spawnThread {
            pipe.putNext(1)
        }
        held.waitUntilEntered()
        disposable?.dispose()
        XCTAssertEqual(released.count, 0, "the call in flight still holds the callback")
        pipe.putNext(2)
        held.release()
        pthread_join(putter, nil)
        XCTAssertEqual(released.count, 1, "released when the call in flight returned")
        XCTAssertEqual(values.with { $0 }, [1])
    }

    func testDisposingASubscriptionADeliveryHasStillToReachWaitsForThatDelivery() {
        // A value call writes nothing per subscription (the broadcaster counts
        // the delivering threads, see _BroadcasterRetirement): so a dispose
        // cannot know that the delivery blocked in the first subscriber will
        // not call the second. Its callback is released once that delivery
        // is over, and the value never reaches it.
        let pipe = ValuePipe<Int>()
        let released = Counter()
        let held = HeldCall()
        let first = pipe.signal().start(next: { _ in
            held.hold()
        })
        let values = Atomic<[Int]>(value: [])
        var second: (any Disposable)?
        do {
            let tracker = DeinitTracker(released)
            second = pipe.signal().start(next: { value in
                tracker.touch()
                _ = values.modify { $0 + [value] }
            })
        }
        let putter = spawnThread {
            pipe.putNext(1)
        }
        held.waitUntilEntered()
        second?.dispose()
        XCTAssertEqual(released.count, 0, "the delivery in flight may still reach the callback")
        held.release()
        pthread_join(putter, nil)
        XCTAssertEqual(released.count, 1, "released when the delivery was over")
        XCTAssertEqual(values.with { $0 }, [])
        first.dispose()
    }

    func testANewerDeliveryDoesNotHoldBackTheReleaseOfAnOlderDispose() {
        // Threads that deliver one after another, overlapping, never starve a
        // release: it waits only for the deliveries that were in flight when
        // the subscription was disposed.
        let pipe = ValuePipe<Int>()
        let released = Counter()
        let held = [HeldCall(), HeldCall()]
        let first = pipe.signal().start(next: { value in
            held[value].hold()
        })
        var second: (any Disposable)?
        do {
            let tracker = DeinitTracker(released)
            second = pipe.signal().start(next: { _ in tracker.touch() })
        }
        let older = spawnThread {
            pipe.putNext(0)
        }
        held[0].waitUntilEntered()
        second?.dispose()
        let newer = spawnThread {
            pipe.putNext(1)
        }
        held[1].waitUntilEntered()
        XCTAssertEqual(released.count, 0)
        held[0].release()
        pthread_join(older, nil)
        XCTAssertEqual(released.count, 1, "released when the older delivery was over, the newer one still in flight")
        held[1].release()
        pthread_join(newer, nil)
        first.dispose()
    }

    func testAPipeSignalStartedThroughItsGeneratorBehavesAsAStartedOne() {
        // What a caller that hands the signal a subscriber of its own gets.
        let pipe = ValuePipe<Int>()
        let recorder = Recorder<Int, NoError>()
        let subscriber = recorder.makeSubscriber()
        let disposable = pipe.signal().generator(subscriber)
        pipe.putNext(1)
        pipe.putNext(2)
        disposable.dispose()
        pipe.putNext(3)
        XCTAssertEqual(recorder.recordedValues, [1, 2])
        XCTAssertEqual(recorder.released.count, 0, "the subscriber itself was not terminated")
    }

    func testAPipesDeinitEndsItsSubscriptionsAndReleasesTheirCallbacks() {
        var pipe: ValuePipe<Int>? = ValuePipe<Int>()
        let released = Counter()
        var disposables: [any Disposable] = []
        do {
            let tracker = DeinitTracker(released)
            disposables.append(pipe!.signal().start(next: { _ in tracker.touch() }))
            disposables.append((pipe!.signal() |> map { $0 + 1 }).start(next: { _ in tracker.touch() }, completed: { tracker.touch() }))
        }
        pipe!.putNext(1)
        XCTAssertEqual(released.count, 0)
        pipe = nil
        XCTAssertEqual(released.count, 1, "both subscriptions ended, the tracker they shared is gone")
        disposables.forEach { $0.dispose() }
    }

    func testSignalHoldsThePipeWeakly() {
        var pipe: ValuePipe<Int>? = ValuePipe<Int>()
        weak let weakPipe = pipe
        let signal = pipe!.signal()
        var values: [Int] = []
        let d = signal.start(next: { values.append($0) })
        pipe!.putNext(1)
        pipe = nil
        XCTAssertNil(weakPipe, "neither the signal nor a subscription keeps the pipe alive")
        var completed = false
        let late = signal.start(next: { values.append($0) }, completed: { completed = true })
        XCTAssertFalse(completed, "a signal of a released pipe never emits")
        XCTAssertEqual(values, [1])
        late.dispose()
        d.dispose()
    }

    func testPutFromInsideCallbackIsDeliveredAfterItInOrder() {
        let pipe = ValuePipe<Int>()
        var first: [Int] = []
        var second: [Int] = []
        let d1 = pipe.signal().start(next: { value in
            first.append(value)
            if value == 1 {
                pipe.putNext(2)
                XCTAssertEqual(first, [1], "the nested value waits for the current delivery")
            }
        })
        let d2 = pipe.signal().start(next: { second.append($0) })
        pipe.putNext(1)
        XCTAssertEqual(first, [1, 2])
        XCTAssertEqual(second, [1, 2])
        d1.dispose()
        d2.dispose()
    }

    func testDisposeFromInsideCallback() {
        let pipe = ValuePipe<Int>()
        var disposable: (any Disposable)?
        var values: [Int] = []
        disposable = pipe.signal().start(next: { value in
            values.append(value)
            disposable?.dispose()
        })
        pipe.putNext(1)
        pipe.putNext(2)
        XCTAssertEqual(values, [1])
    }

    func testManySynchronousNestedPutsDoNotGrowTheStack() throws {
        onSmallStack {
            let steps = loadCount(100_000)
            let pipe = ValuePipe<Int>()
            var count = 0
            let d = pipe.signal().start(next: { value in
                count += 1
                if value < steps {
                    pipe.putNext(value + 1)
                }
            })
            pipe.putNext(1)
            XCTAssertEqual(count, steps)
            d.dispose()
        }
    }

    private func stress(replay: Bool) {
        let pipe = ValuePipe<Int>(replay: replay)
        let producers = 8
        let persistentCount = 4
        let delivered = Atomic(value: 0)
        let order = PerProducerOrder(producers: producers)

        // Values are producer * stride + index. Negative values are probes,
        // not checked.
        let stride = 1 << 32
        @Sendable func checker() -> @Sendable (Int) -> Void {
            let check = order.makeCheck()
            return { value in
                if value >= 0 {
                    check(value / stride, value % stride)
                }
            }
        }

        var persistent: [any Disposable] = []
        for _ in 0 ..< persistentCount {
            let check = checker()
            persistent.append(pipe.signal().start(next: { value in
                delivered.modify { $0 + 1 }
                check(value)
            }))
        }

        let produced = raceProducers(producers, perProducer: 2_000, label: "ValuePipeTests.worker", put: { producer, index in
            pipe.putNext(producer * stride + index)
        }, againstSubscribers: {
            let check = checker()
            let d = pipe.signal().start(next: { value in
                check(value)
            })
            d.dispose()
        })
        XCTAssertEqual(delivered.with { $0 }, persistentCount * produced)
        XCTAssertEqual(order.violations.count, 0)

        // Only the persistent subscribers are left.
        let before = delivered.with { $0 }
        pipe.putNext(-1)
        XCTAssertEqual(delivered.with { $0 } - before, persistentCount)
        persistent.forEach { $0.dispose() }
        pipe.putNext(-1)
        XCTAssertEqual(delivered.with { $0 } - before, persistentCount)
    }

    func testConcurrentPutSubscribeDispose() {
        self.stress(replay: false)
    }

    func testConcurrentPutSubscribeDisposeWithReplay() {
        self.stress(replay: true)
    }

    func testDisposingInAnyOrderLeavesExactlyTheRestReceivingInOrder() {
        // More subscriptions than the storage a pipe keeps (4,096 slots), so
        // that its holes are dropped, squeezed out and its storage shrunk on
        // the way; a put every 250 disposals must reach exactly the
        // subscriptions left, in the order they were made.
        let count = 5_000
        var random = SplitMix64(state: 17)
        let orders = [("first-made first", Array(0 ..< count)),
                      ("last-made first", Array((0 ..< count).reversed())),
                      ("random (seed 17)", Array(0 ..< count).shuffled(using: &random))]
        for (name, order) in orders {
            let pipe = ValuePipe<Int>()
            var received: [Int] = []
            var disposables: [(any Disposable)?] = []
            for id in 0 ..< count {
                disposables.append(pipe.signal().start(next: { _ in received.append(id) }))
            }
            var present = Array(repeating: true, count: count)
            for (step, index) in order.enumerated() {
                disposables[index]?.dispose()
                disposables[index] = nil
                present[index] = false
                if step % 250 == 249 || step == count - 1 {
                    received = []
                    pipe.putNext(step)
                    XCTAssertEqual(received, (0 ..< count).filter { present[$0] }, "\(name), after \(step + 1) disposals")
                }
            }
            XCTAssertEqual(received, [], name)
        }
    }
}
