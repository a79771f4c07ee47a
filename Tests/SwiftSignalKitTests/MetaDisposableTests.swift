import XCTest
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SwiftSignalKit

final class MetaDisposableTests: XCTestCase {
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

    func testSetDoesNotDisposeTheNewDisposable() {
        let meta = MetaDisposable()
        let first = CountingDisposable()
        meta.set(first)
        XCTAssertEqual(first.count, 0)
    }

    func testSetDisposesThePreviousDisposable() {
        let meta = MetaDisposable()
        let first = CountingDisposable()
        let second = CountingDisposable()
        meta.set(first)
        meta.set(second)
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(second.count, 0)
        meta.dispose()
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(second.count, 1)
    }

    func testSettingTheSameDisposableAgainDoesNotDisposeIt() {
        let meta = MetaDisposable()
        let first = CountingDisposable()
        meta.set(first)
        meta.set(first)
        XCTAssertEqual(first.count, 0)
        meta.dispose()
        XCTAssertEqual(first.count, 1)
    }

    func testSetNilDisposesThePreviousAndEmptiesTheSlot() {
        let meta = MetaDisposable()
        let first = CountingDisposable()
        meta.set(first)
        meta.set(nil)
        XCTAssertEqual(first.count, 1)
        meta.dispose()
        XCTAssertEqual(first.count, 1)
    }

    func testDisposeDisposesTheCurrentOnceOnly() {
        let meta = MetaDisposable()
        let first = CountingDisposable()
        meta.set(first)
        meta.dispose()
        meta.dispose()
        XCTAssertEqual(first.count, 1)
    }

    func testSetAfterDisposeDisposesAtOnce() {
        let meta = MetaDisposable()
        meta.dispose()
        let late = CountingDisposable()
        meta.set(late)
        XCTAssertEqual(late.count, 1)
        meta.dispose()
        meta.set(nil)
        XCTAssertEqual(late.count, 1)
    }

    func testReleasesTheReplacedDisposable() {
        let meta = MetaDisposable()
        let released = Counter()
        meta.set(ActionDisposable { [tracker = Tracker(released)] in
            withExtendedLifetime(tracker) {}
        })
        XCTAssertEqual(released.count, 0)
        meta.set(EmptyDisposable)
        XCTAssertEqual(released.count, 1)
        withExtendedLifetime(meta) {}
    }

    func testReleasesTheDisposableOnDispose() {
        let meta = MetaDisposable()
        let released = Counter()
        final class Held: Disposable {
            let tracker: Tracker
            init(_ tracker: Tracker) {
                self.tracker = tracker
            }
            func dispose() {
            }
        }
        meta.set(Held(Tracker(released)))
        XCTAssertEqual(released.count, 0)
        meta.dispose()
        XCTAssertEqual(released.count, 1)
        withExtendedLifetime(meta) {}
    }

    func testDisposableMayCallBackIntoTheMetaDisposable() {
        let meta = MetaDisposable()
        let inner = CountingDisposable()
        let replacement = CountingDisposable()
        meta.set(ActionDisposable {
            // Runs outside the lock: calling back in must not deadlock.
            meta.set(replacement)
        })
        meta.set(inner)
        // The first one's action put `replacement` after `inner` was stored,
        // replacing (and disposing) `inner`.
        XCTAssertEqual(inner.count, 1)
        XCTAssertEqual(replacement.count, 0)
        meta.set(ActionDisposable {
            meta.dispose()
        })
        XCTAssertEqual(replacement.count, 1)
        meta.dispose()
        XCTAssertEqual(replacement.count, 1)
    }

    func testConcurrentSetAndDisposeDisposeEveryDisposableExactlyOnce() {
        let threadCount = 6
        let perThread = 1_000
        for _ in 0 ..< 5 {
            let meta = MetaDisposable()
            let all = (0 ..< threadCount).map { _ in (0 ..< perThread).map { _ in CountingDisposable() } }
            MetaDisposableTests.runThreads(threadCount + 1) { thread in
                if thread == threadCount {
                    meta.dispose()
                } else {
                    for disposable in all[thread] {
                        meta.set(disposable)
                    }
                }
            }
            meta.dispose()
            for list in all {
                for disposable in list {
                    XCTAssertEqual(disposable.count, 1)
                }
            }
        }
    }

    func testConcurrentSetWithoutDisposeLeavesExactlyOneUndisposed() {
        let threadCount = 6
        let perThread = 1_000
        let meta = MetaDisposable()
        let all = (0 ..< threadCount).map { _ in (0 ..< perThread).map { _ in CountingDisposable() } }
        MetaDisposableTests.runThreads(threadCount) { thread in
            for disposable in all[thread] {
                meta.set(disposable)
            }
        }
        let counts = all.flatMap { $0.map { $0.count } }
        XCTAssertEqual(counts.filter { $0 == 0 }.count, 1)
        XCTAssertEqual(counts.filter { $0 == 1 }.count, threadCount * perThread - 1)
        meta.dispose()
        XCTAssertEqual(all.flatMap { $0.map { $0.count } }.filter { $0 == 1 }.count, threadCount * perThread)
    }
}
