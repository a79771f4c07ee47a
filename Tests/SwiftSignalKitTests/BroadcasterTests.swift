import XCTest
import Dispatch
@testable import SwiftSignalKit

/// Subscribes a callback as a pipe would (without keeping anything alive).
@discardableResult
private func subscribe<T, S, R>(_ broadcaster: _Broadcaster<T, S>, _ next: @escaping (T) -> Void, _ body: (inout T?, inout S) -> R) -> (any Disposable, R) {
    return broadcaster.subscribe({ _ in next }, error: nil as ((NoError) -> Void)?, completed: nil, keepAlive: nil, body)
}

final class BroadcasterTests: XCTestCase {
    func testPublishReturningNilDeliversNothing() {
        let broadcaster = _Broadcaster<Int, Int>(value: 1, state: 0)
        var values: [Int] = []
        let (disposable, _) = subscribe(broadcaster, { values.append($0) }, { _, _ in })
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
        disposable.dispose()
        disposable.dispose() // no-op
        broadcaster.unsubscribe(12345) // stale: no-op
        broadcaster.publish { _, _ in 3 }
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
                broadcaster.publish { _, _ in value + 1 }
            }
            depth -= 1
        }, { _, _ in })
        subscribe(broadcaster, { second.append($0) }, { _, _ in })
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
                _ = releaseA.wait(timeout: .now() + 10)
            } else if value == 2 {
                log.modify { $0 + ["begin 2"] }
                releaseA.signal()
                _ = aDone.wait(timeout: .now() + 10)
                broadcaster.publish { _, _ in 3 }
                log.modify { $0 + ["end 2"] }
            } else {
                log.modify { $0 + ["\(value)"] }
            }
        }, { _, _ in })
        DispatchQueue(label: "BroadcasterTests.A").async {
            broadcaster.publish { _, _ in 1 }
            aDone.signal()
        }
        XCTAssertEqual(aInside.wait(timeout: .now() + 10), .success)
        DispatchQueue(label: "BroadcasterTests.B").async {
            broadcaster.publish { _, _ in 2 }
            bDone.signal()
        }
        XCTAssertEqual(bDone.wait(timeout: .now() + 10), .success)
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
        broadcaster?.publish { _, _ in 1 }
        XCTAssertEqual(received, [])
        late.dispose()
        broadcaster = nil
    }
}
