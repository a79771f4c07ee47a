import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class MulticastTests: XCTestCase {
    func testSubscribersOfOneKeyShareOneSubscription() {
        let multicast = Multicast<Int>()
        let source = ManualSource<Int, NoError>()
        var a: [Int] = []
        var b: [Int] = []
        let da = multicast.get(key: "k", signal: source.signal()).start(next: { a.append($0) })
        source.put(1)
        let db = multicast.get(key: "k", signal: source.signal()).start(next: { b.append($0) })
        XCTAssertEqual(source.starts.with { $0 }, 1)
        source.put(2)
        XCTAssertEqual(a, [1, 2])
        XCTAssertEqual(b, [2], "no replay for a late subscriber")
        da.dispose()
        XCTAssertEqual(source.disposals.with { $0 }, 0, "one subscriber is left")
        source.put(3)
        XCTAssertEqual(a, [1, 2])
        XCTAssertEqual(b, [2, 3])
        db.dispose()
        XCTAssertEqual(source.disposals.with { $0 }, 1, "the last subscriber disposes the shared subscription")

        // The key is free again: the next subscriber starts a new subscription.
        var c: [Int] = []
        let dc = multicast.get(key: "k", signal: source.signal()).start(next: { c.append($0) })
        XCTAssertEqual(source.starts.with { $0 }, 2)
        source.put(4)
        XCTAssertEqual(c, [4])
        dc.dispose()
        XCTAssertEqual(source.active, 0)
    }

    func testDifferentKeysAreIndependent() {
        let multicast = Multicast<Int>()
        let one = ManualSource<Int, NoError>()
        let two = ManualSource<Int, NoError>()
        var a: [Int] = []
        var b: [Int] = []
        let da = multicast.get(key: "one", signal: one.signal()).start(next: { a.append($0) })
        let db = multicast.get(key: "two", signal: two.signal()).start(next: { b.append($0) })
        one.put(1)
        two.put(2)
        XCTAssertEqual(a, [1])
        XCTAssertEqual(b, [2])
        da.dispose()
        XCTAssertEqual(one.active, 0)
        XCTAssertEqual(two.active, 1)
        db.dispose()
        XCTAssertEqual(two.active, 0)
    }

    func testCompletionReachesAllSubscribersAndClearsTheKey() {
        let multicast = Multicast<Int>()
        let source = ManualSource<Int, NoError>()
        var completions = 0
        var values: [Int] = []
        let da = multicast.get(key: "k", signal: source.signal()).start(next: { values.append($0) }, completed: { completions += 1 })
        let db = multicast.get(key: "k", signal: source.signal()).start(completed: { completions += 1 })
        source.put(1)
        source.complete()
        XCTAssertEqual(completions, 2)
        source.put(2)
        XCTAssertEqual(values, [1], "nothing after completion")
        XCTAssertEqual(source.active, 0)
        // The key was cleared: a new subscriber starts the signal anew.
        let dc = multicast.get(key: "k", signal: source.signal()).start()
        XCTAssertEqual(source.starts.with { $0 }, 2)
        da.dispose()
        db.dispose()
        dc.dispose()
        XCTAssertEqual(source.active, 0)
    }

    func testSynchronouslyCompletingSignal() {
        let multicast = Multicast<Int>()
        var values: [Int] = []
        var completed = 0
        for _ in 0 ..< 2 {
            let d = multicast.get(key: "k", signal: .single(5)).start(next: { values.append($0) }, completed: { completed += 1 })
            d.dispose()
        }
        XCTAssertEqual(values, [5, 5])
        XCTAssertEqual(completed, 2)
    }

    func testDisposeFromInsideCallbackAndClosureRelease() {
        let multicast = Multicast<Int>()
        let source = ManualSource<Int, NoError>()
        var released = 0
        var values: [Int] = []
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker { released += 1 }
            disposable = multicast.get(key: "k", signal: source.signal()).start(next: { value in
                _ = tracker
                values.append(value)
                disposable?.dispose()
            })
        }
        source.put(1)
        source.put(2)
        XCTAssertEqual(values, [1])
        XCTAssertEqual(released, 1)
        XCTAssertEqual(source.active, 0)
    }

    func testSubscriptionsKeepTheMulticastAliveUntilDisposed() {
        let source = ManualSource<Int, NoError>()
        weak var weakMulticast: Multicast<Int>?
        var disposable: (any Disposable)?
        do {
            let multicast = Multicast<Int>()
            weakMulticast = multicast
            disposable = multicast.get(key: "k", signal: source.signal()).start()
        }
        XCTAssertNotNil(weakMulticast)
        disposable?.dispose()
        XCTAssertNil(weakMulticast)
        XCTAssertEqual(source.active, 0)
    }

    func testConcurrentSubscribeDisposeNeverLeaksTheSharedSubscription() {
        let multicast = Multicast<Int>()
        let source = ManualSource<Int, NoError>()
        let received = Atomic(value: 0)
        let persistent = multicast.get(key: "k", signal: source.signal()).start(next: { _ in received.modify { $0 + 1 } })
        let group = DispatchGroup()
        for _ in 0 ..< 8 {
            DispatchQueue(label: "MulticastTests.worker").async(group: group) {
                for _ in 0 ..< 500 {
                    let d = multicast.get(key: "k", signal: source.signal()).start()
                    d.dispose()
                }
            }
        }
        DispatchQueue(label: "MulticastTests.worker").async(group: group) {
            for i in 0 ..< 5_000 {
                source.put(i)
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(source.starts.with { $0 }, 1, "the persistent subscriber keeps the one shared subscription")
        XCTAssertEqual(received.with { $0 }, 5_000)
        persistent.dispose()
        XCTAssertEqual(source.active, 0)

        // Without a persistent subscriber, the key comes and goes: every start
        // is matched by a disposal.
        let churn = ManualSource<Int, NoError>()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0 ..< 500 {
                let d = multicast.get(key: "c", signal: churn.signal()).start()
                d.dispose()
            }
        }
        XCTAssertGreaterThan(churn.starts.with { $0 }, 0)
        XCTAssertEqual(churn.active, 0)
    }

    func testMulticastPromiseIsAPlainContainer() {
        let promise = MulticastPromise<Int>()
        XCTAssertNil(promise.value)
        var received: [Int] = []
        var index = 0
        promise.lock.locked {
            index = promise.subscribers.add({ received.append($0) })
            promise.value = 3
        }
        var callbacks: [(Int) -> Void] = []
        promise.lock.locked {
            callbacks = promise.subscribers.copyItems()
        }
        callbacks.forEach { $0(3) }
        XCTAssertEqual(received, [3])
        XCTAssertEqual(promise.value, 3)
        promise.lock.locked {
            promise.subscribers.remove(index)
        }
        XCTAssertTrue(promise.subscribers.isEmpty)
    }
}
