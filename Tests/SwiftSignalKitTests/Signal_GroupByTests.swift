import Foundation
import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// `groupBy` (issue 33) beyond the shared marble table.
final class Signal_GroupByTests: XCTestCase {
    private struct Failure: Error, Equatable {}

    func testGroupsReceiveTheirValuesAndTheTerminalEvent() {
        let source = ValuePipe<Int>()
        let odd = Recorder<Int, NoError>()
        let even = Recorder<Int, NoError>()
        var keys: [Int] = []
        var oddGroup: Signal<Int, NoError>?
        var disposables: [Disposable] = []
        let d = (source.signal() |> groupBy { $0 % 2 }).start(next: { key, group in
            keys.append(key)
            if key == 1 {
                oddGroup = group
            }
            disposables.append((key == 1 ? odd : even).start(group))
        })
        source.putNext(1)
        source.putNext(2)
        // A subscriber that comes later receives the values from then on.
        let late = Recorder<Int, NoError>()
        if let oddGroup {
            disposables.append(late.start(oddGroup))
        }
        source.putNext(3)
        source.putCompletion()
        XCTAssertEqual(keys, [1, 0])
        XCTAssertEqual(odd.events.with { $0 }, ["1", "3", "completed"])
        XCTAssertEqual(even.events.with { $0 }, ["2", "completed"])
        XCTAssertEqual(late.events.with { $0 }, ["3", "completed"])
        d.dispose()
        disposables.forEach { $0.dispose() }
    }

    func testAnErrorFailsEveryGroupThenTheOuter() {
        let source = SignalPipe<Int, Failure>()
        var events: [String] = []
        let d = (source.signal() |> groupBy { $0 }).start(next: { key, group in
            _ = group.start(error: { _ in events.append("group \(key) failed") })
        }, error: { _ in
            events.append("outer failed")
        })
        source.putNext(1)
        source.putError(Failure())
        XCTAssertEqual(events, ["group 1 failed", "outer failed"])
        d.dispose()
    }

    /// The groups end in the order they were made, whatever their keys
    /// (they were ended in a dictionary's order, which changes from one
    /// process to the next: 16 orders of 4 groups in 20 runs), for a
    /// completion and for an error.
    func testTheGroupsEndInTheOrderTheyWereMade() {
        let keys = [7, 3, 12, 0, 5, 9, 1, 4, 11, 2]
        for fails in [false, true] {
            let source = SignalPipe<Int, Failure>()
            var ends: [String] = []
            let d = (source.signal() |> groupBy { $0 }).start(next: { key, group in
                _ = group.start(error: { _ in ends.append("\(key)") }, completed: { ends.append("\(key)") })
            }, error: { _ in
                ends.append("outer")
            }, completed: {
                ends.append("outer")
            })
            for key in keys {
                source.putNext(key)
            }
            source.putNext(3)
            if fails {
                source.putError(Failure())
            } else {
                source.putCompletion()
            }
            XCTAssertEqual(ends, keys.map { "\($0)" } + ["outer"], fails ? "error" : "completion")
            d.dispose()
        }
    }

    /// Disposing the outer subscription ends the groups without an event:
    /// their subscribers' callbacks are released.
    func testDisposingTheOuterEndsTheGroups() {
        let source = TestPipe<Int, Failure>()
        let group = Recorder<Int, Failure>()
        var held: Disposable?
        let d = (source.signal() |> groupBy { $0 }).start(next: { _, signal in
            held = group.start(signal)
        })
        source.putNext(1)
        d.dispose()
        XCTAssertEqual(source.subscriberCount, 0)
        XCTAssertEqual(group.events.with { $0 }, ["1"])
        XCTAssertEqual(group.released.count, 1, "the group's subscription ended")
        source.putNext(1)
        XCTAssertEqual(group.events.with { $0 }, ["1"])
        held?.dispose()
    }

    /// Issue 40: eight threads emit into one pipe; each group is subscribed
    /// from the callback that receives its pair, as the documentation
    /// advises. Every value reaches its group (before the fix, a value that
    /// another thread emitted while the pair was being delivered went to a
    /// group nobody had subscribed yet: 3 to 11 of 32,000 were lost in every
    /// run), and each thread's values of a key arrive in the order it emitted
    /// them.
    func testGroupsSubscribedFromThePairsCallbackMissNoValueUnderThreads() {
        let threads = 8
        let perThread = loadCount(4_000)
        for round in 0 ..< 2 {
            let source = SignalPipe<Int, NoError>()
            let received = Atomic<[Int: GroupValues]>(value: [:])
            let pairsOfAKeySeenBefore = Counter()
            var disposables: [Disposable] = []
            let groupDisposables = Atomic<[Disposable]>(value: [])
            let d = (source.signal() |> groupBy { ($0 / threads) % 64 }).start(next: { key, group in
                let values = GroupValues()
                _ = received.modify { dict in
                    var dict = dict
                    if dict[key] != nil {
                        pairsOfAKeySeenBefore.increment()
                    }
                    dict[key] = values
                    return dict
                }
                let disposable = group.start(next: { value in
                    values.append(value)
                })
                _ = groupDisposables.modify { $0 + [disposable] }
            })
            disposables.append(d)
            // Each thread puts every key (the i-th value's key is i % 64), at
            // about the same time: runThreads releases them together.
            runThreads(threads) { thread in
                for i in 0 ..< perThread {
                    source.putNext(i * threads + thread)
                }
            }
            XCTAssertEqual(pairsOfAKeySeenBefore.count, 0, "round \(round): a second group of a key")
            let groups = received.with { $0 }.mapValues { $0.all }
            let all = groups.values.flatMap { $0 }
            XCTAssertEqual(all.count, threads * perThread, "round \(round): values lost")
            XCTAssertEqual(Set(all), Set(0 ..< threads * perThread), "round \(round)")
            for (key, values) in groups {
                XCTAssertTrue(values.allSatisfy { ($0 / threads) % 64 == key }, "round \(round): a value in the wrong group")
                for thread in 0 ..< threads {
                    let mine = values.filter { $0 % threads == thread }
                    XCTAssertEqual(mine, mine.sorted(), "round \(round): thread \(thread)'s values of key \(key) out of order")
                }
            }
            d.dispose()
            groupDisposables.with { $0 }.forEach { $0.dispose() }
        }
    }

    /// Issue 40, step by step: while thread A is in the callback that
    /// receives the pair of a new group, thread B emits a second value of
    /// that key; A then subscribes to the group. The group receives both
    /// values, A's first (before the fix B's value went to a group nobody had
    /// subscribed yet, and was lost).
    func testAValueEmittedByAnotherThreadWhileThePairIsDeliveredReachesTheGroup() {
        let source = SignalPipe<Int, NoError>()
        let group = Recorder<Int, NoError>()
        let emitted = DispatchSemaphore(value: 0)
        var disposables: [Disposable] = []
        let d = (source.signal() |> groupBy { $0 % 2 }).start(next: { _, signal in
            startDetachedThread(stackSize: 1 << 20) {
                source.putNext(3)
                emitted.signal()
            }
            XCTAssertEqual(emitted.wait(timeout: .now() + 30), .success, "thread B's put returned")
            disposables.append(group.start(signal))
        })
        source.putNext(1)
        XCTAssertEqual(group.events.with { $0 }, ["1", "3"])
        d.dispose()
        disposables.forEach { $0.dispose() }
    }

    /// Issue 40: a group's signal subscribed after the upstream ended
    /// receives the terminal event at once, as a pipe's later subscriber
    /// does (before the fix it received nothing, and a program waiting for
    /// the group to end waited forever).
    func testAGroupSubscribedAfterTheEndReceivesTheTerminalEvent() {
        let source = SignalPipe<Int, Failure>()
        var groups: [Int: Signal<Int, Failure>] = [:]
        let d = (source.signal() |> groupBy { $0 }).start(next: { key, group in
            groups[key] = group
        })
        source.putNext(1)
        source.putCompletion()
        let late = Recorder<Int, Failure>()
        let lateDisposable = late.start(groups[1]!)
        XCTAssertEqual(late.events.with { $0 }, ["completed"])

        let failing = SignalPipe<Int, Failure>()
        var failed: Signal<Int, Failure>?
        let d2 = (failing.signal() |> groupBy { $0 }).start(next: { _, group in
            failed = group
        }, error: { _ in })
        failing.putNext(2)
        failing.putError(Failure())
        let lateFailed = Recorder<Int, Failure>()
        let lateFailedDisposable = lateFailed.start(failed!)
        XCTAssertEqual(lateFailed.events.with { $0 }, ["error Failure()"])
        d.dispose()
        d2.dispose()
        lateDisposable.dispose()
        lateFailedDisposable.dispose()
    }

    /// After the outer subscription is disposed, a group's later subscriber
    /// receives nothing, and its callbacks are released at once.
    func testAGroupSubscribedAfterTheOuterDisposalReceivesNothing() {
        let source = SignalPipe<Int, Failure>()
        var kept: Signal<Int, Failure>?
        let d = (source.signal() |> groupBy { $0 }).start(next: { _, group in
            kept = group
        })
        source.putNext(1)
        d.dispose()
        let late = Recorder<Int, Failure>()
        let lateDisposable = late.start(kept!)
        XCTAssertEqual(late.events.with { $0 }, [])
        XCTAssertEqual(late.released.count, 1, "the late subscription ended at once")
        lateDisposable.dispose()
    }

    /// A value of a new key emitted from inside the callback that receives
    /// the key's pair reaches the group after the first value.
    func testAValueEmittedFromThePairsCallbackFollowsTheFirstValue() {
        let source = SignalPipe<Int, NoError>()
        let group = Recorder<Int, NoError>()
        var disposables: [Disposable] = []
        let d = (source.signal() |> groupBy { $0 % 2 }).start(next: { _, signal in
            disposables.append(group.start(signal))
            source.putNext(3)
        })
        source.putNext(1)
        XCTAssertEqual(group.events.with { $0 }, ["1", "3"])
        d.dispose()
        disposables.forEach { $0.dispose() }
    }
}

/// One group's values, appended under a lock: an `Atomic`'s `modify` copies
/// the whole collection at each value (quadratic: 5 of the TSan suite's 73
/// seconds went to copying in the test above).
private final class GroupValues: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []

    func append(_ value: Int) {
        self.lock.lock()
        self.values.append(value)
        self.lock.unlock()
    }

    var all: [Int] {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.values
    }
}
