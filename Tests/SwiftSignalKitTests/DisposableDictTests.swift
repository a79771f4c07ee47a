import XCTest
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SwiftSignalKit

final class DisposableDictTests: XCTestCase {
    /// A thread-safe counter.
    private final class Counter: @unchecked Sendable {
        private let value = Atomic<Int>(value: 0)

        @discardableResult
        func increment() -> Int {
            return self.value.modify { $0 + 1 }
        }

        var count: Int {
            return self.value.with { $0 }
        }
    }

    /// Counts its own deallocation.
    private final class Tracker {
        let counter: Counter

        init(_ counter: Counter) {
            self.counter = counter
        }

        deinit {
            self.counter.increment()
        }
    }

    /// Counts how many times it is disposed.
    private final class CountingDisposable: Disposable, @unchecked Sendable {
        let counter = Counter()

        func dispose() {
            self.counter.increment()
        }

        var count: Int {
            return self.counter.count
        }
    }

    private final class ThreadBody {
        let body: () -> Void

        init(_ body: @escaping () -> Void) {
            self.body = body
        }
    }

    /// Runs `body(0 ..< count)` on `count` new threads, released together once
    /// all exist, and joins them.
    private static func runThreads(_ count: Int, _ body: @escaping (Int) -> Void) {
        let go = DispatchSemaphore(value: 0)
        var threads: [pthread_t] = []
        for index in 0 ..< count {
            let context = Unmanaged.passRetained(ThreadBody {
                go.wait()
                body(index)
            }).toOpaque()
            var thread = pthread_t()
            let result = pthread_create(&thread, nil, { context in
                Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
            precondition(result == 0)
            threads.append(thread)
        }
        for _ in 0 ..< count {
            go.signal()
        }
        for thread in threads {
            pthread_join(thread, nil)
        }
    }

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
        dict.set(ActionDisposable { [tracker = Tracker(released)] in
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
            DisposableDictTests.runThreads(threadCount + 1) { thread in
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
        DisposableDictTests.runThreads(threadCount) { thread in
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
