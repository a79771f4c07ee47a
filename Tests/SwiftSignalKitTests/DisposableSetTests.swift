import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class DisposableSetTests: XCTestCase {
    func testDisposeDisposesEveryAddedDisposableOnce() {
        let set = DisposableSet()
        let items = (0 ..< 5).map { _ in CountingDisposable() }
        for item in items {
            set.add(item)
        }
        XCTAssertEqual(items.map { $0.count }, [0, 0, 0, 0, 0])
        set.dispose()
        XCTAssertEqual(items.map { $0.count }, [1, 1, 1, 1, 1])
        set.dispose()
        XCTAssertEqual(items.map { $0.count }, [1, 1, 1, 1, 1])
    }

    func testAddAfterDisposeDisposesAtOnce() {
        let set = DisposableSet()
        set.dispose()
        let late = CountingDisposable()
        set.add(late)
        XCTAssertEqual(late.count, 1)
        set.dispose()
        XCTAssertEqual(late.count, 1)
    }

    func testRemoveDoesNotDisposeAndExcludesFromLaterDispose() {
        let set = DisposableSet()
        let kept = CountingDisposable()
        let removed = CountingDisposable()
        set.add(kept)
        set.add(removed)
        set.remove(removed)
        XCTAssertEqual(removed.count, 0)
        set.dispose()
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(removed.count, 0)
    }

    func testRemoveLastTakesOutTheLatestWithoutDisposingIt() {
        // The original's DisposableSet has removeLast() too (Telegram code
        // calls it to undo the last add); it did not compile here.
        let set = DisposableSet()
        let first = CountingDisposable()
        let second = CountingDisposable()
        let third = CountingDisposable()
        set.add(first)
        set.add(second)
        set.add(third)
        set.remove(third)
        set.removeLast()
        XCTAssertEqual([first.count, second.count, third.count], [0, 0, 0])
        set.dispose()
        XCTAssertEqual([first.count, second.count, third.count], [1, 0, 0])
        // On an empty or disposed set it does nothing (the original traps on
        // an empty one, as Array.removeLast does).
        set.removeLast()
        DisposableSet().removeLast()
    }

    func testRemoveUsesIdentityAndIgnoresUnknownDisposables() {
        let set = DisposableSet()
        let first = CountingDisposable()
        let second = CountingDisposable()
        set.add(first)
        set.remove(second)
        set.remove(EmptyDisposable)
        set.dispose()
        XCTAssertEqual(first.count, 1)
        XCTAssertEqual(second.count, 0)
        // Removing after dispose is harmless.
        set.remove(first)
        XCTAssertEqual(first.count, 1)
    }

    func testDisposedItemsAreReleased() {
        let set = DisposableSet()
        let released = Counter()
        set.add(ActionDisposable { [tracker = DeinitTracker(released)] in
            withExtendedLifetime(tracker) {}
        })
        XCTAssertEqual(released.count, 0)
        set.dispose()
        XCTAssertEqual(released.count, 1)
        withExtendedLifetime(set) {}
    }

    func testRemovedItemsAreReleased() {
        let set = DisposableSet()
        let released = Counter()
        var item: ActionDisposable? = ActionDisposable { [tracker = DeinitTracker(released)] in
            withExtendedLifetime(tracker) {}
        }
        set.add(item!)
        set.remove(item!)
        item = nil
        XCTAssertEqual(released.count, 1)
        withExtendedLifetime(set) {}
    }

    func testDisposableMayCallBackIntoTheSet() {
        let set = DisposableSet()
        let added = CountingDisposable()
        set.add(ActionDisposable {
            // Runs outside the lock, after the set is marked disposed.
            set.add(added)
            set.remove(added)
            set.dispose()
        })
        set.dispose()
        XCTAssertEqual(added.count, 1)
    }

    func testConcurrentAddAndDisposeDisposeEveryDisposableExactlyOnce() {
        let threadCount = 6
        let perThread = 1_000
        for _ in 0 ..< 5 {
            let set = DisposableSet()
            let all = (0 ..< threadCount).map { _ in (0 ..< perThread).map { _ in CountingDisposable() } }
            runThreads(threadCount + 1) { thread in
                if thread == threadCount {
                    set.dispose()
                } else {
                    for disposable in all[thread] {
                        set.add(disposable)
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

    func testConcurrentAddAndRemove() {
        let threadCount = 6
        let perThread = 1_000
        let set = DisposableSet()
        let all = (0 ..< threadCount).map { _ in (0 ..< perThread).map { _ in CountingDisposable() } }
        runThreads(threadCount) { thread in
            for (index, disposable) in all[thread].enumerated() {
                set.add(disposable)
                if index % 2 == 0 {
                    set.remove(disposable)
                }
            }
        }
        set.dispose()
        for list in all {
            for (index, disposable) in list.enumerated() {
                XCTAssertEqual(disposable.count, index % 2 == 0 ? 0 : 1)
            }
        }
    }

    /// A container holding itself, directly or through others: its dispose
    /// reached itself again and disposed the members again without end (a
    /// stack overflow). Now it returns, each member disposed once.
    func testContainersHoldingThemselvesAreDisposedOnce() {
        let count = Atomic(value: 0)
        let set = DisposableSet()
        set.add(ActionDisposable { count.modify { $0 + 1 } })
        set.add(set)
        set.dispose()
        XCTAssertEqual(count.with { $0 }, 1)

        let meta = MetaDisposable()
        let inner = DisposableSet()
        inner.add(ActionDisposable { count.modify { $0 + 1 } })
        inner.add(meta)
        meta.set(inner)
        let dict = DisposableDict<Int>()
        dict.set(dict, forKey: 0)
        dict.set(meta, forKey: 1)
        dict.dispose()
        XCTAssertEqual(count.with { $0 }, 2)
    }
}
