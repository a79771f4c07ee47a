import XCTest
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SwiftSignalKit

final class ActionDisposableTests: XCTestCase {
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

    func testActionDoesNotRunBeforeDispose() {
        let runs = Counter()
        let disposable = ActionDisposable {
            runs.increment()
        }
        XCTAssertEqual(runs.count, 0)
        withExtendedLifetime(disposable) {}
        XCTAssertEqual(runs.count, 0)
    }

    func testActionRunsExactlyOnce() {
        let runs = Counter()
        let disposable = ActionDisposable {
            runs.increment()
        }
        disposable.dispose()
        XCTAssertEqual(runs.count, 1)
        disposable.dispose()
        disposable.dispose()
        XCTAssertEqual(runs.count, 1)
    }

    func testActionIsReleasedAfterRunning() {
        let released = Counter()
        let disposable = ActionDisposable { [tracker = Tracker(released)] in
            withExtendedLifetime(tracker) {}
        }
        XCTAssertEqual(released.count, 0)
        disposable.dispose()
        // The disposable is still alive; the action it held is gone.
        XCTAssertEqual(released.count, 1)
        withExtendedLifetime(disposable) {}
    }

    func testActionIsReleasedWithoutRunningWhenNeverDisposed() {
        let released = Counter()
        let runs = Counter()
        do {
            let disposable = ActionDisposable { [tracker = Tracker(released)] in
                withExtendedLifetime(tracker) {}
                runs.increment()
            }
            withExtendedLifetime(disposable) {}
        }
        XCTAssertEqual(released.count, 1)
        XCTAssertEqual(runs.count, 0)
    }

    func testDisposeFromInsideTheActionDoesNotDeadlockOrRunTwice() {
        let runs = Counter()
        let holder = Atomic<ActionDisposable?>(value: nil)
        let disposable = ActionDisposable {
            runs.increment()
            holder.with { $0 }?.dispose()
        }
        holder.swap(disposable)
        disposable.dispose()
        XCTAssertEqual(runs.count, 1)
        holder.swap(nil)
    }

    func testConcurrentDisposeRunsTheActionExactlyOnce() {
        let threadCount = 8
        for _ in 0 ..< 100 {
            let runs = Counter()
            let released = Counter()
            let disposable = ActionDisposable { [tracker = Tracker(released)] in
                withExtendedLifetime(tracker) {}
                runs.increment()
            }
            ActionDisposableTests.runThreads(threadCount) { _ in
                disposable.dispose()
            }
            XCTAssertEqual(runs.count, 1)
            XCTAssertEqual(released.count, 1)
            withExtendedLifetime(disposable) {}
        }
    }
}
