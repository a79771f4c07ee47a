import XCTest
import Dispatch
import SwiftSignalKit

final class DisposableTests: XCTestCase {
    /// A minimal conformance: the protocol needs only `dispose()`.
    private final class FlagDisposable: Disposable {
        var disposed = 0

        func dispose() {
            self.disposed += 1
        }
    }

    func testEmptyDisposableIsASharedInstance() {
        let first = EmptyDisposable
        let second = EmptyDisposable
        XCTAssertTrue(first === second)
    }

    func testEmptyDisposableCanBeDisposedRepeatedly() {
        EmptyDisposable.dispose()
        EmptyDisposable.dispose()
        // Still usable as a generator's result after being disposed.
        var values: [Int] = []
        let disposable = Signal<Int, NoError> { subscriber in
            subscriber.putNext(1)
            return EmptyDisposable
        }.start(next: { values.append($0) })
        disposable.dispose()
        XCTAssertEqual(values, [1])
    }

    func testEmptyDisposableCanBeDisposedConcurrently() {
        let iterations = 10_000
        let count = Atomic<Int>(value: 0)
        DispatchQueue.concurrentPerform(iterations: iterations) { _ in
            EmptyDisposable.dispose()
            count.modify { $0 + 1 }
        }
        XCTAssertEqual(count.with { $0 }, iterations)
    }

    func testDisposableIsAClassProtocolUsableThroughAnyDisposable() {
        let flag = FlagDisposable()
        let disposable: any Disposable = flag
        disposable.dispose()
        XCTAssertEqual(flag.disposed, 1)
        XCTAssertTrue(disposable === flag)
    }
}
