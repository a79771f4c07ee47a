import XCTest
import Dispatch
@testable import SwiftSignalKit
import SwiftSignalKitTestSupport

/// Subscribes a callback as a pipe would (without keeping anything alive).
@discardableResult
private func subscribe<T, S, R>(_ broadcaster: _Broadcaster<T, S>, _ next: @escaping (T) -> Void, _ body: (inout T?, inout S) -> R) -> (any Disposable, R) {
    return broadcaster.subscribe({ _ in next }, error: nil as ((NoError) -> Void)?, completed: nil, keepAlive: nil, body)
}

final class BroadcasterTests: XCTestCase {
    func testPublishDecidingFalseDeliversNothing() {
        let broadcaster = _Broadcaster<Int, Int>(value: 1, state: 0)
        var values: [Int] = []
        let (disposable, _) = subscribe(broadcaster, { values.append($0) }, { _, _ in })
        broadcaster.publish(9) { state in
            state = 5
            return .drop
        }
        XCTAssertEqual(values, [1])
        XCTAssertEqual(broadcaster.withState { value, state in [value!, state] }, [1, 5])
        broadcaster.publish(2) { _ in .cacheAndDeliver }
        XCTAssertEqual(values, [1, 2])
        disposable.dispose()
        disposable.dispose() // no-op
        XCTAssertEqual(broadcaster.subscribers.count, 0)
        XCTAssertEqual((disposable as! _BroadcasterEntryBase).slot, -1)
        broadcaster.publish(3) { _ in .deliver }
        XCTAssertEqual(values, [1, 2])
    }

    func testSubscribeBodyRunsBeforeTheReplayIsRead() {
        let broadcaster = _Broadcaster<Int, Int>(value: 1, state: 0)
        var values: [Int] = []
        let (_, result) = subscribe(broadcaster, { values.append($0) }, { value, state -> String in
            value = 7
            state += 1
            return "body"
        })
        XCTAssertEqual(result, "body")
        XCTAssertEqual(values, [7])
    }

    func testNestedPublishesAreDeliveredInOrderWithoutRecursion() {
        let broadcaster = _Broadcaster<Int, Int>(value: nil, state: 0)
        var first: [Int] = []
        var second: [Int] = []
        var depth = 0
        var maxDepth = 0
        subscribe(broadcaster, { value in
            depth += 1
            maxDepth = max(maxDepth, depth)
            first.append(value)
            if value < 5 {
                broadcaster.publish(value + 1) { _ in .deliver }
            }
            depth -= 1
        }, { _, _ in })
        subscribe(broadcaster, { second.append($0) }, { _, _ in })
        broadcaster.publish(1) { _ in .deliver }
        XCTAssertEqual(first, [1, 2, 3, 4, 5])
        XCTAssertEqual(second, [1, 2, 3, 4, 5])
        XCTAssertEqual(maxDepth, 1)
    }

    func testReplacedValuesAreReleasedOutsideTheLock() {
        // The replaced value's deinit calls back into the broadcaster: releasing
        // it under the (non-recursive) lock would deadlock.
        let broadcaster = _Broadcaster<Reentrant, Int>(value: nil, state: 0)
        let done = DispatchSemaphore(value: 0)
        let reentered = Atomic(value: 0)
        DispatchQueue(label: "BroadcasterTests.worker").async {
            for id in 0 ..< 3 {
                let value = Reentrant(id)
                value.onDeinit = { [weak broadcaster] in
                    broadcaster?.withState { _, state in state += 1 }
                    reentered.modify { $0 + 1 }
                }
                broadcaster.publish(value) { _ in .cacheAndDeliver }
            }
            // Resetting the cache through `withState` releases outside too.
            broadcaster.withState { current, _ in current = nil }
            done.signal()
        }
        guard done.wait(timeout: .now() + waitDeadline) == .success else {
            // Do not touch the broadcaster: its lock is held by a deadlocked thread.
            XCTFail("deadlock: a replaced value was released under the lock")
            return
        }
        XCTAssertEqual(reentered.with { $0 }, 3)
        XCTAssertEqual(broadcaster.withState { _, state in state }, 3)
    }

    func testNestedPublishOfASecondDeliveringThreadWaitsForItsDelivery() {
        // Thread A delivers (and holds the uncontended slot) while thread B
        // delivers too; B's nested publication must still wait for the end of
        // B's current delivery, even after A has finished.
        let broadcaster = _Broadcaster<Int, Int>(value: nil, state: 0)
        let aInside = DispatchSemaphore(value: 0)
        let releaseA = DispatchSemaphore(value: 0)
        let aDone = DispatchSemaphore(value: 0)
        let bDone = DispatchSemaphore(value: 0)
        let log = Atomic<[String]>(value: [])
        subscribe(broadcaster, { value in
            if value == 1 {
                aInside.signal()
                _ = releaseA.wait(timeout: .now() + waitDeadline)
            } else if value == 2 {
                log.modify { $0 + ["begin 2"] }
                releaseA.signal()
                _ = aDone.wait(timeout: .now() + waitDeadline)
                broadcaster.publish(3) { _ in .deliver }
                log.modify { $0 + ["end 2"] }
            } else {
                log.modify { $0 + ["\(value)"] }
            }
        }, { _, _ in })
        DispatchQueue(label: "BroadcasterTests.A").async {
            broadcaster.publish(1) { _ in .deliver }
            aDone.signal()
        }
        XCTAssertEqual(aInside.wait(timeout: .now() + waitDeadline), .success)
        DispatchQueue(label: "BroadcasterTests.B").async {
            broadcaster.publish(2) { _ in .deliver }
            bDone.signal()
        }
        XCTAssertEqual(bDone.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(log.with { $0 }, ["begin 2", "end 2", "3"])
    }

    func testClosingFreesUndisposedSubscriptionsAndEndsLaterOnes() {
        // The broadcaster holds an undisposed subscription and its callbacks;
        // `close` (a pipe's deinit) ends it and releases them.
        final class Token {}
        weak var weakToken: Token?
        var broadcaster: _Broadcaster<Int, Int>? = _Broadcaster<Int, Int>(value: nil, state: 0)
        do {
            let token = Token()
            weakToken = token
            let signal = Signal<Int, NoError>(fused: { [weak broadcaster] makeNext, error, completed in
                return broadcaster!.subscribe(makeNext, error: error, completed: completed, keepAlive: nil, { _, _ in }).0
            })
            _ = signal.start(next: { _ in withExtendedLifetime(token) {} })
        }
        XCTAssertNotNil(weakToken)
        broadcaster?.close()
        XCTAssertNil(weakToken)
        var received: [Int] = []
        let (late, _) = subscribe(broadcaster!, { received.append($0) }, { _, _ in })
        broadcaster?.publish(1) { _ in .deliver }
        XCTAssertEqual(received, [])
        late.dispose()
        broadcaster = nil
    }

    /// The bag of subscriptions against a model (the live entries in the
    /// order they were added) over random additions and removals, in phases
    /// that grow it past its kept storage and empty it again: every live
    /// entry's `slot` finds it, the non-hole slots are the model in order,
    /// removed entries are out (and removing them again is refused), and
    /// the holes never outnumber the entries. The seed is in every failure.
    func testSubscriptionSlotsMatchAModelThroughRandomChurn() throws {
        // One seed under ThreadSanitizer: one thread, nothing for it to see.
        for seed: UInt64 in threadSanitizerIsActive ? [5] : [5, 6, 99] {
            var random = SplitMix64(state: seed)
            var bag = _BroadcasterSubscribers()
            var model: [_BroadcasterEntryBase] = []
            var removed: [_BroadcasterEntryBase] = []
            var step = 0
            func check() -> Bool {
                let present = bag.slots.compactMap { $0 }
                if present.count != model.count || zip(present, model).contains(where: { $0 !== $1 }) {
                    XCTFail("seed \(seed), step \(step): the slots are not the live entries in order")
                    return false
                }
                if bag.count != model.count || bag.slots.count - bag.count > bag.count || bag.slots.last.map({ $0 == nil }) == true {
                    XCTFail("seed \(seed), step \(step): count \(bag.count), \(bag.slots.count) slots")
                    return false
                }
                if let lost = model.first(where: { bag.slots[$0.slot - bag.base] !== $0 }) {
                    XCTFail("seed \(seed), step \(step): an entry's slot \(lost.slot) (base \(bag.base)) does not hold it")
                    return false
                }
                if bag.slots[..<bag.head].contains(where: { $0 != nil }) || (!bag.slots.isEmpty && bag.slots[bag.head] == nil) {
                    XCTFail("seed \(seed), step \(step): \(bag.head) leading holes is wrong")
                    return false
                }
                return true
            }
            outer: for largest in [40, 4_500, 300] {
                for growing in [true, false] {
                    while growing ? model.count < largest : !model.isEmpty {
                        step += 1
                        if Int.random(in: 0 ..< 100, using: &random) < (growing ? 60 : 30) {
                            let entry = _BroadcasterEntryBase()
                            bag.add(entry)
                            model.append(entry)
                        } else if !model.isEmpty {
                            let index: Int
                            switch Int.random(in: 0 ..< 3, using: &random) {
                            case 0: index = 0
                            case 1: index = model.count - 1
                            default: index = Int.random(in: 0 ..< model.count, using: &random)
                            }
                            let entry = model.remove(at: index)
                            if !bag.remove(entry) || entry.slot != -1 {
                                XCTFail("seed \(seed), step \(step): a live entry was not removed")
                                break outer
                            }
                            removed.append(entry)
                        }
                        if !removed.isEmpty && Int.random(in: 0 ..< 10, using: &random) == 0 {
                            let stale = removed[Int.random(in: 0 ..< removed.count, using: &random)]
                            if bag.remove(stale) {
                                XCTFail("seed \(seed), step \(step): a removed entry was removed again")
                                break outer
                            }
                        }
                        if (model.count < 64 || step % (model.count < 1_000 ? 101 : 2_003) == 0) && !check() {
                            break outer
                        }
                    }
                }
            }
            XCTAssertTrue(bag.slots.isEmpty, "seed \(seed)")
            let left = _BroadcasterEntryBase()
            bag.add(left)
            XCTAssertEqual(bag.takeAll().count, 1)
            XCTAssertEqual(left.slot, -1)
            XCTAssertFalse(bag.remove(left))
        }
    }

    func testADeliverySeesTheSubscriptionsPresentWhenItBeganWhateverHappensDuringIt() {
        // Twenty subscriptions, two of them disposed first (holes in the
        // snapshot). During the delivery of 1, subscription 1 disposes 0
        // (already called), 8..<20 (not called yet: they must not be) and
        // subscribes a new one (which must not get 1): the bag squeezes its
        // holes out meanwhile, while the delivery goes on over its snapshot.
        let broadcaster = _Broadcaster<Int, Int>(value: nil, state: 0)
        var log: [String] = []
        var disposables: [any Disposable] = []
        var late: (any Disposable)?
        for id in 0 ..< 20 {
            let (disposable, _) = subscribe(broadcaster, { value in
                log.append("\(id):\(value)")
                if id == 1 && value == 1 {
                    disposables[0].dispose()
                    for other in 8 ..< 20 {
                        disposables[other].dispose()
                    }
                    late = subscribe(broadcaster, { log.append("late:\($0)") }, { _, _ in }).0
                }
            }, { _, _ in })
            disposables.append(disposable)
        }
        disposables[3].dispose()
        disposables[7].dispose()
        broadcaster.publish(1) { _ in .deliver }
        XCTAssertEqual(log, ["0:1", "1:1", "2:1", "4:1", "5:1", "6:1"])
        log = []
        broadcaster.publish(2) { _ in .deliver }
        XCTAssertEqual(log, ["1:2", "2:2", "4:2", "5:2", "6:2", "late:2"])
        XCTAssertEqual(broadcaster.subscribers.count, 6)
        log = []
        // The squeezed bag goes on dropping holes in the order it keeps.
        late?.dispose()
        disposables[2].dispose()
        broadcaster.publish(3) { _ in .deliver }
        XCTAssertEqual(log, ["1:3", "4:3", "5:3", "6:3"])
    }
}
