import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

private struct Stamp: Equatable {
    let thread: Int
    let index: Int
}

final class ValuePromiseTests: XCTestCase {
    func testInitialValueReplayedThenEverySet() {
        let promise = ValuePromise<Int>(1)
        XCTAssertFalse(promise.ignoreRepeated)
        var values: [Int] = []
        var completed = false
        let d = promise.get().start(next: { values.append($0) }, completed: { completed = true })
        promise.set(2)
        promise.set(2)
        promise.set(3)
        XCTAssertEqual(values, [1, 2, 2, 3])
        XCTAssertFalse(completed)
        var late: [Int] = []
        promise.get().start(next: { late.append($0) }).dispose()
        XCTAssertEqual(late, [3])
        d.dispose()
    }

    func testWithoutInitialValueNothingIsReplayed() {
        let promise = ValuePromise<Int>(ignoreRepeated: true)
        XCTAssertTrue(promise.ignoreRepeated)
        var values: [Int] = []
        let d = promise.get().start(next: { values.append($0) })
        XCTAssertEqual(values, [])
        promise.set(5)
        XCTAssertEqual(values, [5])
        d.dispose()
    }

    func testIgnoreRepeatedDropsEqualValues() {
        let promise = ValuePromise<Int>(1, ignoreRepeated: true)
        var values: [Int] = []
        let d = promise.get().start(next: { values.append($0) })
        promise.set(1)
        promise.set(2)
        promise.set(2)
        promise.set(1)
        promise.set(1)
        XCTAssertEqual(values, [1, 2, 1])
        d.dispose()
    }

    func testDisposeStopsDeliveryReleasesClosuresAndThePromise() {
        let recorder = Recorder<Int, NoError>()
        var promise: ValuePromise<Int>? = ValuePromise<Int>(0)
        weak let weakPromise = promise
        let disposable = recorder.start(promise!.get())
        promise!.set(1)
        disposable.dispose()
        XCTAssertEqual(recorder.released.count, 1)
        promise!.set(2)
        XCTAssertEqual(recorder.recordedValues, [0, 1])
        promise = nil
        XCTAssertNil(weakPromise)
    }

    func testSetFromInsideCallbackKeepsOrderForEverySubscriber() {
        let promise = ValuePromise<Int>(ignoreRepeated: true)
        var first: [Int] = []
        var second: [Int] = []
        let d1 = promise.get().start(next: { value in
            first.append(value)
            if value == 1 {
                promise.set(2)
            }
        })
        let d2 = promise.get().start(next: { second.append($0) })
        promise.set(1)
        XCTAssertEqual(first, [1, 2])
        XCTAssertEqual(second, [1, 2], "the original would deliver [2, 1] here")
        d1.dispose()
        d2.dispose()
    }

    func testDisposeAndSubscribeFromInsideCallback() {
        let promise = ValuePromise<Int>(0)
        var disposable: (any Disposable)?
        var values: [Int] = []
        var nested: [Int] = []
        var nestedDisposable: (any Disposable)?
        disposable = promise.get().start(next: { value in
            values.append(value)
            if value == 1 {
                disposable?.dispose()
                nestedDisposable = promise.get().start(next: { nested.append($0) })
                promise.set(2)
            }
        })
        promise.set(1)
        XCTAssertEqual(values, [0, 1])
        XCTAssertEqual(nested, [1, 2])
        nestedDisposable?.dispose()
    }

    func testConcurrentSetSubscribeDisposeExactCountsAndOrder() {
        let promise = ValuePromise<Stamp>(Stamp(thread: -1, index: 0))
        let producers = 8
        let persistentCount = 4
        let delivered = Atomic(value: 0)
        let order = PerProducerOrder(producers: producers)
        @Sendable func checker() -> @Sendable (Stamp) -> Void {
            let check = order.makeCheck()
            return { stamp in
                if stamp.thread >= 0 {
                    check(stamp.thread, stamp.index)
                }
            }
        }

        var persistent: [any Disposable] = []
        for _ in 0 ..< persistentCount {
            let check = checker()
            persistent.append(promise.get().start(next: { stamp in
                delivered.modify { $0 + 1 }
                check(stamp)
            }))
        }
        XCTAssertEqual(delivered.with { $0 }, persistentCount, "each persistent subscriber gets the replay")

        let produced = raceProducers(producers, perProducer: 1_000, label: "ValuePromiseTests.worker", put: { producer, index in
            promise.set(Stamp(thread: producer, index: index))
        }, againstSubscribers: {
            let check = checker()
            let d = promise.get().start(next: { stamp in
                check(stamp)
            })
            d.dispose()
        })
        XCTAssertEqual(delivered.with { $0 }, persistentCount * (1 + produced))
        XCTAssertEqual(order.violations.count, 0)

        // The transient subscribers are all gone: one more value reaches exactly
        // the persistent ones.
        let before = delivered.with { $0 }
        let total = Atomic(value: 0)
        let probe = promise.get().start(next: { _ in total.modify { $0 + 1 } })
        promise.set(Stamp(thread: -1, index: 1))
        XCTAssertEqual(delivered.with { $0 } - before, persistentCount)
        XCTAssertEqual(total.with { $0 }, 2)
        probe.dispose()
        persistent.forEach { $0.dispose() }
    }

    func testValueSetDuringTheReplayIsDeliveredAfterIt() {
        let promise = ValuePromise<Int>(1)
        let inReplay = DispatchSemaphore(value: 0)
        let setDone = DispatchSemaphore(value: 0)
        let setter = DispatchQueue(label: "ValuePromiseTests.setter")
        setter.async {
            XCTAssertEqual(inReplay.wait(timeout: .now() + waitDeadline), .success)
            promise.set(2)
            setDone.signal()
        }
        var values: [Int] = []
        var first = true
        let d = promise.get().start(next: { value in
            if first {
                first = false
                inReplay.signal()
                // The concurrent set must not wait for this callback, and must
                // not reach this subscriber before its replay is over.
                XCTAssertEqual(setDone.wait(timeout: .now() + waitDeadline), .success)
            }
            values.append(value)
        })
        XCTAssertEqual(values, [1, 2], "the original would deliver 2 during the replay of 1")
        promise.set(3)
        XCTAssertEqual(values, [1, 2, 3])
        d.dispose()
    }

    func testReplacedValueIsReleasedOutsideTheLock() {
        // The replaced value's deinit subscribes to the promise: releasing it
        // under the promise's lock would deadlock.
        let promise = ValuePromise<Reentrant>(Reentrant(0))
        let reentered = Atomic(value: 0)
        promise.get().start(next: { value in
            value.onDeinit = { [weak promise] in
                promise?.get().start().dispose()
                reentered.modify { $0 + 1 }
            }
        }).dispose()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue(label: "ValuePromiseTests.worker").async {
            promise.set(Reentrant(1))
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(reentered.with { $0 }, 1)
    }

    func testConcurrentEqualSetsAreDeliveredExactlyOnce() {
        // In each round, several threads set the same new value at once: with
        // ignoreRepeated exactly one of them may store and deliver it (a
        // compare-then-store without a recheck would let several through).
        let promise = ValuePromise<Int>(0, ignoreRepeated: true)
        let values = Atomic<[Int]>(value: [])
        let d = promise.get().start(next: { value in
            values.modify { $0 + [value] }
        })
        let rounds = 500
        for round in 1 ... rounds {
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                promise.set(round)
            }
        }
        XCTAssertEqual(values.with { $0 }, Array(0 ... rounds))
        var replay: [Int] = []
        promise.get().start(next: { replay.append($0) }).dispose()
        XCTAssertEqual(replay, [rounds])
        d.dispose()
    }
}
