import XCTest
import Dispatch
@testable import SwiftSignalKit

final class BroadcasterTests: XCTestCase {
    func testPublishReturningNilDeliversNothing() {
        let broadcaster = _Broadcaster<Int, Int>(value: 1, state: 0)
        var values: [Int] = []
        let (index, _) = broadcaster.subscribe({ values.append($0) }, { _, _ in })
        broadcaster.publish { _, state in
            state = 5
            return nil
        }
        XCTAssertEqual(values, [1])
        XCTAssertEqual(broadcaster.withState { value, state in [value!, state] }, [1, 5])
        broadcaster.publish { value, _ in
            value = 2
            return 2
        }
        XCTAssertEqual(values, [1, 2])
        broadcaster.unsubscribe(index)
        broadcaster.unsubscribe(index) // stale: no-op
        broadcaster.unsubscribe(12345)
        broadcaster.publish { _, _ in 3 }
        XCTAssertEqual(values, [1, 2])
    }

    func testSubscribeBodyRunsBeforeTheReplayIsRead() {
        let broadcaster = _Broadcaster<Int, Int>(value: 1, state: 0)
        var values: [Int] = []
        let (_, result) = broadcaster.subscribe({ values.append($0) }, { value, state -> String in
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
        _ = broadcaster.subscribe({ value in
            depth += 1
            maxDepth = max(maxDepth, depth)
            first.append(value)
            if value < 5 {
                broadcaster.publish { _, _ in value + 1 }
            }
            depth -= 1
        }, { _, _ in })
        _ = broadcaster.subscribe({ second.append($0) }, { _, _ in })
        broadcaster.publish { _, _ in 1 }
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
                broadcaster.publish { current, _ in
                    current = value
                    return value
                }
            }
            // Resetting the cache through `withState` releases outside too.
            broadcaster.withState { current, _ in current = nil }
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success else {
            // Do not touch the broadcaster: its lock is held by a deadlocked thread.
            XCTFail("deadlock: a replaced value was released under the lock")
            return
        }
        XCTAssertEqual(reentered.with { $0 }, 3)
        XCTAssertEqual(broadcaster.withState { _, state in state }, 3)
    }
}
