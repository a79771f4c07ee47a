import XCTest
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class ActionDisposableTests: XCTestCase {
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
        let disposable = ActionDisposable { [tracker = DeinitTracker(released)] in
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
            let disposable = ActionDisposable { [tracker = DeinitTracker(released)] in
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
            let disposable = ActionDisposable { [tracker = DeinitTracker(released)] in
                withExtendedLifetime(tracker) {}
                runs.increment()
            }
            runThreads(threadCount) { _ in
                disposable.dispose()
            }
            XCTAssertEqual(runs.count, 1)
            XCTAssertEqual(released.count, 1)
            withExtendedLifetime(disposable) {}
        }
    }

    /// A dispose made on another thread while the action runs returns only
    /// once the action has returned, directly and through a set or a meta
    /// disposable holding it (before: it returned at once, while the action
    /// still ran). The action waits for that dispose to return, with a
    /// deadline: it must reach the deadline, and the dispose must see the
    /// action done.
    func testSecondDisposeOnAnotherThreadWaitsForTheRunningAction() {
        for form in 0 ..< 3 {
            let started = DispatchSemaphore(value: 0)
            let returned = DispatchSemaphore(value: 0)
            let returnedEarly = Atomic<Bool>(value: false)
            let actionDone = Atomic<Bool>(value: false)
            let doneWhenReturned = Atomic<Bool>(value: false)
            let action = ActionDisposable {
                started.signal()
                if returned.wait(timeout: .now() + 0.3) == .success {
                    _ = returnedEarly.swap(true)
                }
                _ = actionDone.swap(true)
            }
            let target: Disposable
            switch form {
            case 0:
                target = action
            case 1:
                let set = DisposableSet()
                set.add(action)
                target = set
            default:
                let meta = MetaDisposable()
                meta.set(action)
                target = meta
            }
            let thread = spawnThread {
                XCTAssertEqual(started.wait(timeout: .now() + waitDeadline), .success)
                target.dispose()
                _ = doneWhenReturned.swap(actionDone.with { $0 })
                returned.signal()
            }
            target.dispose()
            pthread_join(thread, nil)
            XCTAssertFalse(returnedEarly.with { $0 }, "form \(form): the second dispose returned while the action ran")
            XCTAssertTrue(doneWhenReturned.with { $0 }, "form \(form): the second dispose returned before the action was done")
        }
    }

    /// The action disposing its own disposable (on its own thread) returns
    /// at once rather than waiting for itself.
    func testDisposeFromTheActionItselfDoesNotWait() {
        let runs = Counter()
        let holder = Atomic<ActionDisposable?>(value: nil)
        let set = DisposableSet()
        let disposable = ActionDisposable {
            runs.increment()
            holder.with { $0 }?.dispose()
            set.dispose()
        }
        set.add(disposable)
        holder.swap(disposable)
        set.dispose()
        XCTAssertEqual(runs.count, 1)
        holder.swap(nil)
    }
}
