import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class PromiseTests: XCTestCase {
    func testInitialValueIsReplayed() {
        let promise = Promise<Int>(5)
        var values: [Int] = []
        let disposable = promise.get().start(next: { values.append($0) })
        XCTAssertEqual(values, [5])
        disposable.dispose()
    }

    func testEmptyPromiseDeliversNothingUntilSet() {
        let promise = Promise<Int>()
        var values: [Int] = []
        var completed = false
        let disposable = promise.get().start(next: { values.append($0) }, completed: { completed = true })
        XCTAssertEqual(values, [])
        promise.set(.single(7))
        XCTAssertEqual(values, [7])
        XCTAssertFalse(completed, "the source's completion must not complete get()")
        disposable.dispose()
    }

    func testGetReplaysLatestThenEveryNewValue() {
        let source = ManualSource<Int, NoError>()
        let promise = Promise<Int>()
        promise.set(source.signal())
        var early: [Int] = []
        let d1 = promise.get().start(next: { early.append($0) })
        source.put(1)
        source.put(2)
        var late: [Int] = []
        let d2 = promise.get().start(next: { late.append($0) })
        XCTAssertEqual(late, [2])
        source.put(3)
        XCTAssertEqual(early, [1, 2, 3])
        XCTAssertEqual(late, [2, 3])
        d1.dispose()
        d2.dispose()
    }

    func testSetResetsCachedValueAndDisposesPreviousSource() {
        let a = ManualSource<Int, NoError>()
        let b = ManualSource<Int, NoError>()
        let promise = Promise<Int>()
        promise.set(a.signal())
        a.put(1)
        var existing: [Int] = []
        let d1 = promise.get().start(next: { existing.append($0) })
        promise.set(b.signal())
        XCTAssertEqual(a.disposals.with { $0 }, 1)
        XCTAssertEqual(b.starts.with { $0 }, 1)
        var fresh: [Int] = []
        let d2 = promise.get().start(next: { fresh.append($0) })
        XCTAssertEqual(fresh, [], "a new subscriber must not see the previous source's value")
        b.put(2)
        XCTAssertEqual(existing, [1, 2])
        XCTAssertEqual(fresh, [2])
        d1.dispose()
        d2.dispose()
    }

    func testValueOfReplacedSourceEmittedDuringSetIsDropped() {
        // The old source emits while the new one is being started, before the
        // old subscription is disposed: the original would cache and deliver it.
        let a = ManualSource<Int, NoError>()
        let promise = Promise<Int>()
        promise.set(a.signal())
        a.put(1)
        var values: [Int] = []
        let d = promise.get().start(next: { values.append($0) })
        promise.set(Signal { subscriber in
            a.put(99)
            subscriber.putNext(2)
            return EmptyDisposable
        })
        XCTAssertEqual(values, [1, 2])
        var replay: [Int] = []
        promise.get().start(next: { replay.append($0) }).dispose()
        XCTAssertEqual(replay, [2])
        d.dispose()
    }

    func testSetWhileTheSourceIsStartingKeepsTheNewerSource() {
        // `set(a)` is still starting `a` when `set(b)` runs (here from inside
        // a's generator; concurrent sets produce the same interleaving): `a`,
        // which finishes starting last, must not replace `b`.
        let promise = Promise<Int>()
        let a = ManualSource<Int, NoError>()
        let b = ManualSource<Int, NoError>()
        promise.set(Signal { subscriber in
            promise.set(b.signal())
            return a.signal().start(next: { subscriber.putNext($0) })
        })
        XCTAssertEqual(a.disposals.with { $0 }, 1, "the older source is disposed")
        XCTAssertEqual(b.disposals.with { $0 }, 0, "the newer source stays")
        var values: [Int] = []
        let d = promise.get().start(next: { values.append($0) })
        a.put(1)
        b.put(2)
        XCTAssertEqual(values, [2])
        d.dispose()
    }

    func testSourceCompletionKeepsTheValue() {
        let promise = Promise<Int>()
        promise.set(.single(3))
        var values: [Int] = []
        var completed = false
        let d = promise.get().start(next: { values.append($0) }, completed: { completed = true })
        XCTAssertEqual(values, [3])
        XCTAssertFalse(completed)
        d.dispose()
    }

    func testInitializeOnFirstAccessStartsLazilyOnce() {
        let source = ManualSource<Int, NoError>()
        let promise = Promise<Int>(initializeOnFirstAccess: source.signal())
        XCTAssertEqual(source.starts.with { $0 }, 0)
        var first: [Int] = []
        let d1 = promise.get().start(next: { first.append($0) })
        XCTAssertEqual(source.starts.with { $0 }, 1)
        source.put(4)
        var second: [Int] = []
        let d2 = promise.get().start(next: { second.append($0) })
        XCTAssertEqual(source.starts.with { $0 }, 1)
        XCTAssertEqual(first, [4])
        XCTAssertEqual(second, [4])
        d1.dispose()
        d2.dispose()
        XCTAssertEqual(source.disposals.with { $0 }, 0, "the source stays while the promise lives")
    }

    func testSetBeforeFirstAccessCancelsTheLazySignal() {
        let lazy = ManualSource<Int, NoError>()
        let promise = Promise<Int>(initializeOnFirstAccess: lazy.signal())
        promise.set(.single(8))
        var values: [Int] = []
        let d = promise.get().start(next: { values.append($0) })
        XCTAssertEqual(lazy.starts.with { $0 }, 0)
        XCTAssertEqual(values, [8])
        d.dispose()
    }

    func testSourceDoesNotKeepPromiseAliveAndIsDisposedOnDeinit() {
        let source = ManualSource<Int, NoError>()
        var deinits = 0
        weak var weakPromise: Promise<Int>?
        do {
            let promise = Promise<Int>()
            promise.onDeinit = { deinits += 1 }
            promise.set(source.signal())
            source.put(1)
            weakPromise = promise
        }
        XCTAssertNil(weakPromise)
        XCTAssertEqual(deinits, 1)
        XCTAssertEqual(source.disposals.with { $0 }, 1)
        source.put(2) // must not crash nor reach anything
    }

    func testSubscriptionKeepsPromiseAliveUntilDisposed() {
        weak var weakPromise: Promise<Int>?
        var disposable: (any Disposable)?
        do {
            let promise = Promise<Int>(1)
            weakPromise = promise
            disposable = promise.get().start()
        }
        XCTAssertNotNil(weakPromise)
        disposable?.dispose()
        XCTAssertNil(weakPromise)
    }

    func testDisposeStopsDeliveryAndReleasesClosures() {
        let source = ManualSource<Int, NoError>()
        let promise = Promise<Int>()
        promise.set(source.signal())
        let recorder = Recorder<Int, NoError>()
        let disposable = recorder.start(promise.get())
        source.put(1)
        XCTAssertEqual(recorder.released.count, 0)
        disposable.dispose()
        XCTAssertEqual(recorder.released.count, 1)
        source.put(2)
        XCTAssertEqual(recorder.recordedValues, [1])
    }

    func testSetFromInsideCallbackKeepsOrderForEverySubscriber() {
        let promise = Promise<Int>()
        var first: [Int] = []
        var second: [Int] = []
        let d1 = promise.get().start(next: { value in
            first.append(value)
            if value == 1 {
                promise.set(.single(2))
            }
        })
        let d2 = promise.get().start(next: { second.append($0) })
        promise.set(.single(1))
        XCTAssertEqual(first, [1, 2])
        XCTAssertEqual(second, [1, 2], "no subscriber may see the older value after the newer one")
        d1.dispose()
        d2.dispose()
    }

    func testDisposeAndSubscribeFromInsideCallback() {
        let promise = Promise<Int>(1)
        var disposable: (any Disposable)?
        var values: [Int] = []
        var nested: [Int] = []
        var nestedDisposable: (any Disposable)?
        disposable = promise.get().start(next: { value in
            values.append(value)
            if value == 2 {
                disposable?.dispose()
                nestedDisposable = promise.get().start(next: { nested.append($0) })
                XCTAssertEqual(nested, [2], "the replay reaches a subscriber made inside a callback at once")
            }
        })
        promise.set(.single(2))
        promise.set(.single(3))
        XCTAssertEqual(values, [1, 2])
        XCTAssertEqual(nested, [2, 3])
        nestedDisposable?.dispose()
    }

    func testConcurrentSetsLeaveExactlyTheLatestSourceSubscribed() {
        let starts = Atomic(value: 0)
        let disposed = Atomic<Set<Int>>(value: [])
        let promise = Promise<Int>()
        let received = Atomic(value: 0)
        let persistent = promise.get().start(next: { _ in received.modify { $0 + 1 } })
        let threads = 8
        let iterations = 300
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in 0 ..< iterations {
                let id = thread * iterations + i
                promise.set(Signal { subscriber in
                    starts.modify { $0 + 1 }
                    subscriber.putNext(id)
                    return ActionDisposable {
                        disposed.modify { $0.union([id]) }
                    }
                })
            }
        }
        XCTAssertEqual(starts.with { $0 }, threads * iterations)
        let remaining = Set(0 ..< threads * iterations).subtracting(disposed.with { $0 })
        XCTAssertEqual(remaining.count, 1, "exactly one source must stay subscribed")
        var replay: [Int] = []
        promise.get().start(next: { replay.append($0) }).dispose()
        XCTAssertEqual(replay, Array(remaining), "the cached value comes from the source that stayed")
        XCTAssertLessThanOrEqual(received.with { $0 }, threads * iterations)
        persistent.dispose()
    }

    func testConcurrentEmitSubscribeDisposeKeepsPerSubscriberOrder() {
        let source = ManualSource<Int, NoError>()
        let promise = Promise<Int>()
        promise.set(source.signal())
        let minimum = 20_000
        let persistentLast = Atomic(value: -1)
        let persistentGaps = Atomic(value: 0)
        let inFlight = Atomic(value: 0)
        let overlaps = Atomic(value: 0)
        let persistent = promise.get().start(next: { value in
            if inFlight.modify({ $0 + 1 }) != 1 {
                overlaps.modify { $0 + 1 }
            }
            if persistentLast.swap(value) != value - 1 {
                persistentGaps.modify { $0 + 1 }
            }
            inFlight.modify { $0 - 1 }
        })
        let violations = Atomic(value: 0)
        // The source keeps emitting (up to a cap) until every transient
        // subscriber is done, so that subscriptions race with values all
        // along. Each worker has its own serial queue, hence its own thread.
        let transientThreads = 4
        let transientsDone = Atomic(value: 0)
        let emitted = Atomic(value: 0)
        let group = DispatchGroup()
        DispatchQueue(label: "PromiseTests.worker").async(group: group) {
            var i = 0
            while i < minimum || (transientsDone.with({ $0 }) < transientThreads && i < 50 * minimum) {
                source.put(i)
                i += 1
            }
            emitted.swap(i)
        }
        for _ in 0 ..< transientThreads {
            DispatchQueue(label: "PromiseTests.worker").async(group: group) {
                defer {
                    transientsDone.modify { $0 + 1 }
                }
                for _ in 0 ..< 500 {
                    let previous = Atomic(value: -1)
                    let d = promise.get().start(next: { value in
                        let before = previous.swap(value)
                        if value <= before {
                            violations.modify { $0 + 1 }
                        }
                    })
                    d.dispose()
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(violations.with { $0 }, 0, "a subscriber saw an older value after a newer one")
        XCTAssertEqual(overlaps.with { $0 }, 0, "callbacks ran concurrently")
        XCTAssertEqual(persistentGaps.with { $0 }, 0, "the persistent subscriber must see 0, 1, 2, ... exactly")
        XCTAssertEqual(persistentLast.with { $0 }, emitted.with { $0 } - 1)
        persistent.dispose()
    }
}
