import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// A second dispose of a container (DisposableSet, MetaDisposable,
/// DisposableDict) made while the first one is still disposing what the
/// container holds: on another thread, or called back from one of the
/// disposals. It must not return before everything held is disposed (a
/// subscription held by the container must not deliver on that thread after
/// the call returned). The interleaving is made deterministic on the test
/// thread: the first disposal the container runs calls the container's
/// `dispose()` again, as the second thread would at that moment.
final class ContainerDisposeTests: XCTestCase {
    private final class Children: @unchecked Sendable {
        var disposed: [Bool]
        var reentered = false
        var disposedWhenTheSecondDisposeReturned: [Bool]?
        var disposals = 0

        init(count: Int) {
            self.disposed = Array(repeating: false, count: count)
        }

        /// Child `index`: the first one disposed disposes `container` again
        /// and records what had been disposed when that call returned.
        func child(_ index: Int, of container: @escaping () -> Disposable) -> Disposable {
            return ActionDisposable {
                self.disposals += 1
                self.disposed[index] = true
                if !self.reentered {
                    self.reentered = true
                    container().dispose()
                    self.disposedWhenTheSecondDisposeReturned = self.disposed
                }
            }
        }
    }

    private func checkSecondDispose(of container: Disposable, children: Children, file: StaticString = #filePath, line: UInt = #line) {
        container.dispose()
        XCTAssertEqual(children.disposedWhenTheSecondDisposeReturned, Array(repeating: true, count: children.disposed.count),
                       "the second dispose returned before everything held was disposed", file: file, line: line)
        XCTAssertEqual(children.disposals, children.disposed.count, "a child was disposed twice", file: file, line: line)
        // A third dispose, after both, disposes nothing more.
        container.dispose()
        XCTAssertEqual(children.disposals, children.disposed.count, file: file, line: line)
    }

    func testASecondDisposeOfADisposableSetDisposesWhatItHolds() {
        let set = DisposableSet()
        let children = Children(count: 5)
        for index in 0..<5 {
            set.add(children.child(index, of: { set }))
        }
        checkSecondDispose(of: set, children: children)
    }

    func testASecondDisposeOfADisposableDictDisposesWhatItHolds() {
        let dict = DisposableDict<Int>()
        let children = Children(count: 5)
        for index in 0..<5 {
            dict.set(children.child(index, of: { dict }), forKey: index)
        }
        checkSecondDispose(of: dict, children: children)
    }

    func testASecondDisposeOfAMetaDisposableDisposesWhatItHolds() {
        // The child that calls back is the held one itself; what it holds
        // (a set of the other children) is what the second dispose must
        // finish.
        let meta = MetaDisposable()
        let children = Children(count: 3)
        let inner = DisposableSet()
        inner.add(children.child(0, of: { meta }))
        inner.add(children.child(1, of: { meta }))
        inner.add(children.child(2, of: { meta }))
        meta.set(inner)
        checkSecondDispose(of: meta, children: children)
    }

    /// What the guarantee is for: a subscription in a set, disposed by a
    /// second dispose while the first is still on its way to it, delivers
    /// nothing on the second dispose's thread once that call has returned.
    func testASubscriptionInASetDeliversNothingAfterASecondDisposeReturned() {
        let pipe = ValuePipe<Int>()
        let set = DisposableSet()
        var delivered: [Int] = []
        var deliveredAfterTheSecondDispose: [Int]?
        set.add(ActionDisposable {
            set.dispose()
            pipe.putNext(2)
            deliveredAfterTheSecondDispose = delivered
        })
        set.add(pipe.signal().start(next: { delivered.append($0) }))
        pipe.putNext(1)
        set.dispose()
        XCTAssertEqual(deliveredAfterTheSecondDispose, [1], "a value delivered on the thread after its dispose returned")
        pipe.putNext(3)
        XCTAssertEqual(delivered, [1])
    }

    /// Two threads disposing one set holding subscriptions: each child is
    /// disposed exactly once, and every value put after a dispose returned
    /// on the putting thread is not delivered.
    func testTwoThreadsDisposingOneSetDisposeEachChildOnce() {
        for _ in 0..<200 {
            let set = DisposableSet()
            let counter = Counter()
            for _ in 0..<8 {
                set.add(ActionDisposable { counter.increment() })
            }
            let pipe = ValuePipe<Int>()
            let late = Counter()
            set.add(pipe.signal().start(next: { value in
                if value < 0 {
                    late.increment()
                }
            }))
            runThreads(2) { _ in
                set.dispose()
                pipe.putNext(-1)
            }
            XCTAssertEqual(counter.count, 8)
            XCTAssertEqual(late.count, 0, "a value delivered after a dispose returned on its thread")
        }
    }
}
