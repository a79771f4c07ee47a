import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class DisposableDictTests: XCTestCase {
    func testSetStoresPerKeyAndDisposeDisposesAll() {
        let dict = DisposableDict<String>()
        let a = CountingDisposable()
        let b = CountingDisposable()
        dict.set(a, forKey: "a")
        dict.set(b, forKey: "b")
        XCTAssertEqual(a.count, 0)
        XCTAssertEqual(b.count, 0)
        dict.dispose()
        XCTAssertEqual(a.count, 1)
        XCTAssertEqual(b.count, 1)
        dict.dispose()
        XCTAssertEqual(a.count, 1)
        XCTAssertEqual(b.count, 1)
    }

    func testReplacingAKeyDisposesOnlyThatKeysPrevious() {
        let dict = DisposableDict<Int>()
        let first = CountingDisposable()
        let other = CountingDisposable()
        let second = CountingDisposable()
        dict.set(first, forKey: 1)
        dict.set(other, forKey: 2)
        dict.set(second, forKey: 1)
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(other.count, 0)
        XCTAssertEqual(second.count, 0)
        dict.dispose()
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(other.count, 1)
        XCTAssertEqual(second.count, 1)
    }

    func testSettingTheSameDisposableAgainDoesNotDisposeIt() {
        let dict = DisposableDict<Int>()
        let first = CountingDisposable()
        dict.set(first, forKey: 1)
        dict.set(first, forKey: 1)
        XCTAssertEqual(first.count, 0)
        dict.dispose()
        XCTAssertEqual(first.count, 1)
    }

    func testSetNilDisposesAndRemovesTheKey() {
        let dict = DisposableDict<Int>()
        let first = CountingDisposable()
        let other = CountingDisposable()
        dict.set(first, forKey: 1)
        dict.set(other, forKey: 2)
        dict.set(nil, forKey: 1)
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(other.count, 0)
        dict.set(nil, forKey: 3)
        dict.dispose()
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(other.count, 1)
    }

    func testSetAfterDisposeDisposesAtOnce() {
        let dict = DisposableDict<Int>()
        dict.dispose()
        let late = CountingDisposable()
        dict.set(late, forKey: 1)
        XCTAssertEqual(late.count, 1)
        dict.set(nil, forKey: 1)
        dict.dispose()
        XCTAssertEqual(late.count, 1)
    }

    func testReplacedDisposableIsReleased() {
        let dict = DisposableDict<Int>()
        let released = Counter()
        dict.set(ActionDisposable { [tracker = DeinitTracker(released)] in
            withExtendedLifetime(tracker) {}
        }, forKey: 1)
        XCTAssertEqual(released.count, 0)
        dict.set(nil, forKey: 1)
        XCTAssertEqual(released.count, 1)
        withExtendedLifetime(dict) {}
    }

    func testDisposableMayCallBackIntoTheDict() {
        let dict = DisposableDict<Int>()
        let replacement = CountingDisposable()
        dict.set(ActionDisposable {
            dict.set(replacement, forKey: 2)
        }, forKey: 1)
        dict.set(nil, forKey: 1)
        XCTAssertEqual(replacement.count, 0)
        dict.set(ActionDisposable {
            dict.dispose()
        }, forKey: 3)
        dict.set(EmptyDisposable, forKey: 3)
        XCTAssertEqual(replacement.count, 1)
    }

    func testConcurrentSetsPerKeyDisposeEveryDisposableExactlyOnce() {
        let threadCount = 6
        let perThread = 1_000
        for _ in 0 ..< 5 {
            let dict = DisposableDict<Int>()
            let all = (0 ..< threadCount).map { _ in (0 ..< perThread).map { _ in CountingDisposable() } }
            runThreads(threadCount + 1) { thread in
                if thread == threadCount {
                    dict.dispose()
                } else {
                    for (index, disposable) in all[thread].enumerated() {
                        // Threads share keys, so replacements race.
                        dict.set(disposable, forKey: index % 4)
                    }
                }
            }
            for list in all {
                for disposable in list {
                    XCTAssertEqual(disposable.count, 1)
                }
            }
        }
    }

    func testConcurrentSetsWithoutDisposeLeaveOneUndisposedPerKey() {
        let threadCount = 6
        let perThread = 1_000
        let keyCount = 4
        let dict = DisposableDict<Int>()
        let all = (0 ..< threadCount).map { _ in (0 ..< perThread).map { _ in CountingDisposable() } }
        runThreads(threadCount) { thread in
            for (index, disposable) in all[thread].enumerated() {
                dict.set(disposable, forKey: index % keyCount)
            }
        }
        var undisposedPerKey = [Int](repeating: 0, count: keyCount)
        for list in all {
            for (index, disposable) in list.enumerated() where disposable.count == 0 {
                undisposedPerKey[index % keyCount] += 1
            }
        }
        XCTAssertEqual(undisposedPerKey, [Int](repeating: 1, count: keyCount))
        dict.dispose()
        XCTAssertEqual(all.flatMap { $0.map { $0.count } }.filter { $0 == 1 }.count, threadCount * perThread)
    }
}
