import XCTest
import Dispatch
import Synchronization
import _SwiftSignalKitShims
@testable import SwiftSignalKit
import SwiftSignalKitTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The spin lock biased to its first thread (Support/BiasedLock.swift),
/// behind `combineLatest` and `zip`: the owner's holds take no atomic
/// read-modify-write until another thread takes the lock, which revokes
/// the bias for good. A revocation during an owner's hold cannot be held
/// open by a test (a hold is a few instructions of library code): the
/// threaded counts below and the schedule explorer (`make test-explore`,
/// Tests/soak/collide.c over `combineLatest`) race them.
final class BiasedSpinLockTests: XCTestCase {
    /// A counter written only under the lock: a lost update is a hold that
    /// overlapped another.
    final class Guarded: @unchecked Sendable {
        let lock = _BiasedSpinLock()
        var count = 0
        var inside = 0
        var overlaps = 0

        func increment() {
            self.lock.lock()
            self.inside += 1
            if self.inside != 1 {
                self.overlaps += 1
            }
            self.count += 1
            self.inside -= 1
            self.lock.unlock()
        }
    }

    func testTheFirstThreadOwnsTheLockUntilAnotherTakesIt() throws {
        try XCTSkipUnless(_sks_heavy_fence_available() != 0, "the kernel refuses membarrier: nothing is biased")
        let guarded = Guarded()
        XCTAssertEqual(guarded.lock.bias.load(ordering: .relaxed), 0)
        var token: UInt = 0
        var heldBiased = false
        let owner = spawnThread {
            token = UInt(_sks_thread_token())
            guarded.increment()
            guarded.lock.lock()
            heldBiased = guarded.lock.holder.load(ordering: .relaxed) == token
            guarded.lock.unlock()
        }
        pthread_join(owner, nil)
        XCTAssertEqual(guarded.lock.bias.load(ordering: .relaxed), token, "biased to the first thread")
        XCTAssertTrue(heldBiased, "its second hold took no spin lock")
        XCTAssertEqual(guarded.lock.holder.load(ordering: .relaxed), 0)
        guarded.increment()
        XCTAssertEqual(guarded.lock.bias.load(ordering: .relaxed), 1, "revoked by this thread")
        XCTAssertEqual(guarded.count, 2)
    }

    func testHoldsNeverOverlapWhenTheOwnerRacesOtherThreads() {
        // The owner keeps locking while other threads start locking too
        // (each revocation a race with the owner's holds); every round a
        // new lock, so that every round has a revocation. Run under TSan
        // too (make test-swift-tsan).
        let rounds = 200
        let perThread = 2_000
        for _ in 0 ..< rounds {
            let guarded = Guarded()
            let start = DispatchSemaphore(value: 0)
            let owner = spawnThread {
                for _ in 0 ..< perThread {
                    guarded.increment()
                }
            }
            let others = (0 ..< 2).map { _ in
                spawnThread {
                    _ = start.wait(timeout: .now() + waitDeadline)
                    for _ in 0 ..< perThread {
                        guarded.increment()
                    }
                }
            }
            start.signal()
            start.signal()
            pthread_join(owner, nil)
            others.forEach { pthread_join($0, nil) }
            XCTAssertEqual(guarded.overlaps, 0)
            XCTAssertEqual(guarded.count, 3 * perThread)
            if guarded.overlaps != 0 || guarded.count != 3 * perThread {
                return
            }
        }
    }
}
