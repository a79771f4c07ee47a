import XCTest
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class AtomicTests: XCTestCase {
    func testWithReturnsTheClosuresResult() {
        let atomic = Atomic<[Int]>(value: [1, 2, 3])
        XCTAssertEqual(atomic.with { $0.count }, 3)
        XCTAssertEqual(atomic.with { $0.reduce(0, +) }, 6)
    }

    func testModifyStoresAndReturnsTheNewValue() {
        let atomic = Atomic<Int>(value: 1)
        XCTAssertEqual(atomic.modify { $0 + 10 }, 11)
        XCTAssertEqual(atomic.with { $0 }, 11)
    }

    func testSwapStoresAndReturnsThePreviousValue() {
        let atomic = Atomic<String>(value: "a")
        XCTAssertEqual(atomic.swap("b"), "a")
        XCTAssertEqual(atomic.swap("c"), "b")
        XCTAssertEqual(atomic.with { $0 }, "c")
    }

    func testTryWithSucceedsWhenUnlocked() throws {
        let atomic = Atomic<Int>(value: 5)
        XCTAssertEqual(try atomic.tryWith { $0 * 2 }, 10)
        // The lock was released: a second call and a blocking call both succeed.
        XCTAssertEqual(try atomic.tryWith { $0 }, 5)
        XCTAssertEqual(atomic.modify { $0 + 1 }, 6)
    }

    func testTryWithThrowsIsLockedWhileAnotherThreadHoldsTheLock() {
        let atomic = Atomic<Int>(value: 1)
        let locked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holderDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            atomic.with { _ in
                locked.signal()
                // Hold the lock until the test thread has tried.
                _ = release.wait(timeout: .now() + waitDeadline)
            }
            holderDone.signal()
        }
        XCTAssertEqual(locked.wait(timeout: .now() + waitDeadline), .success)
        var ranWhileLocked = false
        XCTAssertThrowsError(try atomic.tryWith { _ in ranWhileLocked = true }) { error in
            guard case AtomicLockError.isLocked = error else {
                XCTFail("unexpected error \(error)")
                return
            }
        }
        XCTAssertFalse(ranWhileLocked)
        release.signal()
        XCTAssertEqual(holderDone.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(try atomic.tryWith { $0 }, 1)
    }

    func testConcurrentModifyIsExact() {
        let threadCount = 8
        let perThread = 10_000
        let atomic = Atomic<Int>(value: 0)
        runThreads(threadCount) { _ in
            for _ in 0 ..< perThread {
                atomic.modify { $0 + 1 }
            }
        }
        XCTAssertEqual(atomic.with { $0 }, threadCount * perThread)
    }

    func testConcurrentSwapHandsOutEveryValueOnce() {
        let threadCount = 8
        let perThread = 2_000
        let atomic = Atomic<Int>(value: -1)
        let seen = Atomic<[Int]>(value: [])
        runThreads(threadCount) { thread in
            var local: [Int] = []
            for i in 0 ..< perThread {
                local.append(atomic.swap(thread * perThread + i))
            }
            seen.modify { $0 + local }
        }
        // Every stored value is returned by exactly one later swap, except the
        // last one, which is still stored.
        var all = seen.with { $0 }
        all.append(atomic.with { $0 })
        XCTAssertEqual(all.sorted(), Array(-1 ..< threadCount * perThread))
    }

    func testConcurrentTryWithNeverRunsTwoClosuresAtOnce() {
        let threadCount = 4
        let perThread = 5_000
        let shared = Unprotected()
        let atomic = Atomic<Unprotected>(value: shared)
        let succeeded = Atomic<Int>(value: 0)
        runThreads(threadCount) { _ in
            var local = 0
            for _ in 0 ..< perThread {
                if (try? atomic.tryWith({ $0.value += 1 })) != nil {
                    local += 1
                }
            }
            succeeded.modify { $0 + local }
        }
        // Unsynchronised increments would lose updates (and ThreadSanitizer
        // would report them) if tryWith let two closures run together.
        XCTAssertEqual(shared.value, succeeded.with { $0 })
        XCTAssertGreaterThan(shared.value, 0)
    }

    // MARK: - Reentrancy

    /// Runs `body` in a child process (this test again, alone) and expects
    /// it to finish with its assertions met: a nested locking that
    /// deadlocked (as on the original) would leave the child to its alarm
    /// instead of hanging the suite.
    private func expectReentrancyToRun(_ method: String = #function, _ body: () -> Void) {
        if isChildProcess() {
            body()
            return
        }
        let outcome = runInChildProcess(self, method)
        XCTAssertEqual(outcome.exitStatus, 0, "\(outcome)")
    }

    func testWithFromInsideItsOwnClosureRunsAtOnce() {
        expectReentrancyToRun {
            let atomic = Atomic<Int>(value: 1)
            let result = atomic.with { value in
                atomic.with { $0 + value }
            }
            XCTAssertEqual(result, 2)
            // The lock was let go: another thread takes it.
            let other = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                atomic.modify { $0 + 10 }
                other.signal()
            }
            XCTAssertEqual(other.wait(timeout: .now() + 30), .success)
            XCTAssertEqual(atomic.with { $0 }, 11)
        }
    }

    func testModifyFromInsideWithIsSeenAfterwards() {
        expectReentrancyToRun {
            let atomic = Atomic<String>(value: "a")
            let inner = atomic.with { _ in
                atomic.modify { $0 + "b" }
            }
            XCTAssertEqual(inner, "ab")
            XCTAssertEqual(atomic.with { $0 }, "ab")
            // An outer modify stores its own result over the inner one's.
            let outer = atomic.modify { value in
                XCTAssertEqual(atomic.swap("x"), "ab")
                return value + "c"
            }
            XCTAssertEqual(outer, "abc")
            XCTAssertEqual(atomic.with { $0 }, "abc")
        }
    }
}
