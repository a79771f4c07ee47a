import XCTest
import Dispatch
import SwiftSignalKit

private final class Tracker {
    let onDeinit: () -> Void
    init(_ onDeinit: @escaping () -> Void) {
        self.onDeinit = onDeinit
    }
    deinit {
        self.onDeinit()
    }
}

/// A value whose deinit runs a closure.
private final class Reentrant: Equatable {
    let id: Int
    var onDeinit: (() -> Void)?

    init(_ id: Int) {
        self.id = id
    }

    deinit {
        self.onDeinit?()
    }

    static func == (lhs: Reentrant, rhs: Reentrant) -> Bool {
        return lhs.id == rhs.id
    }
}

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
        var released = 0
        var values: [Int] = []
        weak var weakPromise: ValuePromise<Int>?
        var disposable: (any Disposable)?
        var promise: ValuePromise<Int>? = ValuePromise<Int>(0)
        weakPromise = promise
        do {
            let tracker = Tracker { released += 1 }
            disposable = promise!.get().start(next: { value in
                _ = tracker
                values.append(value)
            })
        }
        promise!.set(1)
        disposable?.dispose()
        XCTAssertEqual(released, 1)
        promise!.set(2)
        XCTAssertEqual(values, [0, 1])
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
        let perProducer = 1_000
        let persistentCount = 4
        let delivered = Atomic(value: 0)
        let orderViolations = Atomic(value: 0)

        // Checks that, per producer, indices strictly increase: a stale value
        // (for example an old replay after a newer value) breaks it. Values of
        // different producers may arrive concurrently: each slot is only
        // written for its own producer.
        @Sendable func checker() -> (Stamp) -> Void {
            let last = Atomic<[Int]>(value: Array(repeating: -1, count: producers))
            return { stamp in
                guard stamp.thread >= 0 else {
                    return
                }
                let ok = last.with { $0[stamp.thread] < stamp.index }
                last.modify { array in
                    var array = array
                    array[stamp.thread] = stamp.index
                    return array
                }
                if !ok {
                    orderViolations.modify { $0 + 1 }
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

        // Producers keep going (up to a cap) until every transient subscriber
        // is done, so that subscriptions race with sets all along. Each worker
        // has its own serial queue, hence its own thread.
        let transientThreads = 4
        let transientsDone = Atomic(value: 0)
        let produced = Atomic(value: 0)
        let group = DispatchGroup()
        for thread in 0 ..< producers {
            DispatchQueue(label: "ValuePromiseTests.worker").async(group: group) {
                var index = 0
                while index < perProducer || (transientsDone.with({ $0 }) < transientThreads && index < 50 * perProducer) {
                    promise.set(Stamp(thread: thread, index: index))
                    index += 1
                }
                produced.modify { $0 + index }
            }
        }
        for _ in 0 ..< transientThreads {
            DispatchQueue(label: "ValuePromiseTests.worker").async(group: group) {
                for _ in 0 ..< 500 {
                    let check = checker()
                    let d = promise.get().start(next: { stamp in
                        check(stamp)
                    })
                    d.dispose()
                }
                transientsDone.modify { $0 + 1 }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(delivered.with { $0 }, persistentCount * (1 + produced.with { $0 }))
        XCTAssertEqual(orderViolations.with { $0 }, 0)

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
            XCTAssertEqual(inReplay.wait(timeout: .now() + 10), .success)
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
                XCTAssertEqual(setDone.wait(timeout: .now() + 10), .success)
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
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
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
