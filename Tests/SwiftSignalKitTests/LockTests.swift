import XCTest
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class LockTests: XCTestCase {
    private struct SomeError: Error, Equatable {
        let code: Int
    }

    func testLockedRunsTheClosure() {
        let lock = Lock()
        var ran = 0
        lock.locked {
            ran += 1
        }
        lock.locked {
            ran += 1
        }
        XCTAssertEqual(ran, 2)
    }

    func testLockedIsMutuallyExclusive() {
        let threadCount = 8
        let perThread = 10_000
        let lock = Lock()
        let state = Unprotected()
        runThreads(threadCount) { _ in
            for _ in 0 ..< perThread {
                lock.locked {
                    state.update()
                }
            }
        }
        XCTAssertEqual(state.value, threadCount * perThread)
        XCTAssertEqual(state.overlaps, 0)
    }

    func testThrowingLockedRunsTheClosure() throws {
        let lock = Lock()
        var ran = 0
        try lock.throwingLocked {
            ran += 1
        }
        XCTAssertEqual(ran, 1)
    }

    func testThrowingLockedRethrowsAndReleasesTheLock() {
        let lock = Lock()
        XCTAssertThrowsError(try lock.throwingLocked {
            throw SomeError(code: 3)
        }) { error in
            XCTAssertEqual(error as? SomeError, SomeError(code: 3))
        }
        // The lock must be free again: take it from another thread, with a
        // deadline, so that a leaked lock fails instead of hanging.
        let acquired = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            lock.locked {
            }
            acquired.signal()
        }
        XCTAssertEqual(acquired.wait(timeout: .now() + waitDeadline), .success)
    }

    func testLockBlocksOtherThreadsWhileHeld() {
        let lock = Lock()
        let order = Atomic<[String]>(value: [])
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        done.enter()
        DispatchQueue.global().async {
            lock.locked {
                holding.signal()
                _ = release.wait(timeout: .now() + waitDeadline)
                order.modify { $0 + ["holder"] }
            }
            done.leave()
        }
        XCTAssertEqual(holding.wait(timeout: .now() + waitDeadline), .success)
        done.enter()
        DispatchQueue.global().async {
            lock.locked {
                order.modify { $0 + ["waiter"] }
            }
            done.leave()
        }
        // The waiter cannot get in before the holder has been released.
        XCTAssertEqual(order.with { $0 }, [])
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(order.with { $0 }, ["holder", "waiter"])
    }

    func testConcurrentThrowingLockedIsMutuallyExclusive() {
        let threadCount = 4
        let perThread = 5_000
        let lock = Lock()
        let state = Unprotected()
        let thrown = Atomic<Int>(value: 0)
        runThreads(threadCount) { _ in
            for i in 0 ..< perThread {
                do {
                    try lock.throwingLocked {
                        state.value += 1
                        if i % 3 == 0 {
                            throw SomeError(code: i)
                        }
                    }
                } catch {
                    thrown.modify { $0 + 1 }
                }
            }
        }
        XCTAssertEqual(state.value, threadCount * perThread)
        XCTAssertEqual(thrown.with { $0 }, threadCount * ((perThread + 2) / 3))
    }

    /// `locked` from inside its own closure runs the inner closure at once,
    /// in a child process (it deadlocked silently, as the original does: the
    /// child's alarm would end it).
    func testLockedFromInsideItsOwnClosureRunsAtOnce() {
        if isChildProcess() {
            let lock = Lock()
            var ran: [String] = []
            lock.locked {
                ran.append("outer")
                try? lock.throwingLocked {
                    ran.append("inner")
                }
                lock.locked {
                    ran.append("inner again")
                }
            }
            XCTAssertEqual(ran, ["outer", "inner", "inner again"])
            // The lock was let go: another thread takes it.
            let other = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                lock.locked {
                }
                other.signal()
            }
            XCTAssertEqual(other.wait(timeout: .now() + 30), .success)
            return
        }
        let outcome = runInChildProcess(self)
        XCTAssertEqual(outcome.exitStatus, 0, "\(outcome)")
    }
}
