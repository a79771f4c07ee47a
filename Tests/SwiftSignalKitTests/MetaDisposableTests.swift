import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class MetaDisposableTests: XCTestCase {
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
        meta.set(ActionDisposable { [tracker = DeinitTracker(released)] in
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
            let tracker: DeinitTracker
            init(_ tracker: DeinitTracker) {
                self.tracker = tracker
            }
            func dispose() {
            }
        }
        meta.set(Held(DeinitTracker(released)))
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
            runThreads(threadCount + 1) { thread in
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
        runThreads(threadCount) { thread in
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
