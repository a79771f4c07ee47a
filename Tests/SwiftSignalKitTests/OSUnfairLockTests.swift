import Dispatch
import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// `OSUnfairLock` and `createOSUnfairLock()`, the newest original's lock.
final class OSUnfairLockTests: XCTestCase {
    func testWithLockExcludesTheOtherThreads() {
        let lock = createOSUnfairLock()
        let counts = Unprotected()
        let threads = 8, perThread = 20_000
        runThreads(threads) { _ in
            for _ in 0 ..< perThread {
                lock.withLock {
                    counts.value += 1
                }
            }
        }
        XCTAssertEqual(lock.withLock { counts.value }, threads * perThread)
    }

    func testTryLockTakesAFreeLockOnlyAndNeverTheOneThisThreadHolds() {
        let lock = createOSUnfairLock()
        XCTAssertTrue(lock.tryLock())
        XCTAssertFalse(lock.tryLock(), "taken again by the thread that holds it")
        let other = DispatchSemaphore(value: 0)
        let tookIt = Atomic<Bool>(value: true)
        DispatchQueue.global().async {
            _ = tookIt.swap(lock.tryLock())
            other.signal()
        }
        XCTAssertEqual(other.wait(timeout: .now() + 30), .success)
        XCTAssertFalse(tookIt.with { $0 }, "taken by another thread while held")
        lock.unlock()
        let third = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            if lock.tryLock() {
                _ = tookIt.swap(true)
                lock.unlock()
            }
            third.signal()
        }
        XCTAssertEqual(third.wait(timeout: .now() + 30), .success)
        XCTAssertTrue(tookIt.with { $0 }, "a free lock was refused")
    }

    func testWithLockPassesOnTheErrorAndLetsGo() {
        struct Refused: Error {}
        let lock = createOSUnfairLock()
        XCTAssertThrowsError(try lock.withLock { () throws -> Int in throw Refused() })
        XCTAssertTrue(lock.tryLock(), "the lock was kept after the error")
        lock.unlock()
    }

    /// The lock is not recursive: taken again by its holder, it stops the
    /// process with a message (as `os_unfair_lock` does), instead of
    /// waiting for ever.
    func testLockingAgainOnTheHoldingThreadStopsTheProcessInWords() {
        if isChildProcess() {
            let lock = createOSUnfairLock()
            lock.lock()
            lock.lock()
            return
        }
        let outcome = runInChildProcess(self)
        XCTAssertNotEqual(outcome.exitStatus, 0, "\(outcome)")
        XCTAssertTrue(outcome.output.contains("OSUnfairLock: locked again by the thread that holds it"), "\(outcome)")
    }
}
