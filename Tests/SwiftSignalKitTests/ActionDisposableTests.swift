import XCTest
import Dispatch
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
}
