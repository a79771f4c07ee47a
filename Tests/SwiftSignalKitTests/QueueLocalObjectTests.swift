import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// An object that records, under a lock, on which queue it lived and died.
private final class Confined: @unchecked Sendable {
    let queue: Queue
    let log: Atomic<[String]>
    let deinitOnQueue: Atomic<Bool?>
    let deinitSemaphore: DispatchSemaphore
    var counter = 0

    init(queue: Queue, log: Atomic<[String]>, deinitOnQueue: Atomic<Bool?>, deinitSemaphore: DispatchSemaphore) {
        self.queue = queue
        self.log = log
        self.deinitOnQueue = deinitOnQueue
        self.deinitSemaphore = deinitSemaphore
    }

    deinit {
        self.deinitOnQueue.swap(self.queue.isCurrent())
        self.deinitSemaphore.signal()
    }
}

private final class Fixture: @unchecked Sendable {
    let queue = Queue(name: "QueueLocalObjectTests")
    let log = Atomic<[String]>(value: [])
    let deinitOnQueue = Atomic<Bool?>(value: nil)
    let deinitSemaphore = DispatchSemaphore(value: 0)
    let generatedOnQueue = Atomic<Bool?>(value: nil)

    func make() -> QueueLocalObject<Confined> {
        return QueueLocalObject(queue: self.queue, generate: {
            self.generatedOnQueue.swap(self.queue.isCurrent())
            return Confined(queue: self.queue, log: self.log, deinitOnQueue: self.deinitOnQueue, deinitSemaphore: self.deinitSemaphore)
        })
    }

    func append(_ entry: String) {
        self.log.modify { $0 + [entry] }
    }
}

final class QueueLocalObjectTests: XCTestCase {
    func testGenerateWithAndSyncWithRunOnTheQueueInOrder() {
        let fixture = Fixture()
        let object = fixture.make()
        XCTAssertTrue(object.queue === fixture.queue)
        for i in 0 ..< 100 {
            object.with { confined in
                XCTAssertTrue(fixture.queue.isCurrent())
                confined.counter += 1
                fixture.append("with \(i)")
            }
        }
        let result = object.syncWith { confined -> Int in
            XCTAssertTrue(fixture.queue.isCurrent())
            return confined.counter
        }
        XCTAssertEqual(result, 100, "syncWith runs after the work enqueued before it")
        XCTAssertEqual(fixture.generatedOnQueue.with { $0 }, true)
        XCTAssertEqual(fixture.log.with { $0 }, (0 ..< 100).map { "with \($0)" })
    }

    func testSyncWithFromTheQueueRunsInline() {
        let fixture = Fixture()
        let object = fixture.make()
        let done = DispatchSemaphore(value: 0)
        let inner = Atomic<Int?>(value: nil)
        object.with { confined in
            confined.counter = 7
            inner.swap(object.syncWith { $0.counter })
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(inner.with { $0 }, 7)
    }

    func testSyncWithBeforeTheObjectExistsReturnsNil() {
        let fixture = Fixture()
        let holder = Atomic<QueueLocalObject<Confined>?>(value: nil)
        let inner = Atomic<Int?>(value: -1)
        let ran = Atomic(value: false)
        let gate = DispatchSemaphore(value: 0)
        fixture.queue.async {
            _ = gate.wait(timeout: .now() + waitDeadline)
        }
        let object = QueueLocalObject<Confined>(queue: fixture.queue, generate: {
            // Runs on the queue, before the object exists.
            inner.swap(holder.with { $0 }?.syncWith { _ in 1 })
            ran.swap(true)
            return Confined(queue: fixture.queue, log: fixture.log, deinitOnQueue: fixture.deinitOnQueue, deinitSemaphore: fixture.deinitSemaphore)
        })
        holder.swap(object)
        gate.signal()
        XCTAssertEqual(object.syncWith { _ in 2 }, 2)
        XCTAssertTrue(ran.with { $0 })
        XCTAssertNil(inner.with { $0 }, "syncWith returns nil while the object does not exist")
        holder.swap(nil)
    }

    func testCreatedInlineWhenInitRunsOnTheQueue() {
        let queue = Queue(name: "QueueLocalObjectTests.nil")
        let inner = Atomic<Bool?>(value: nil)
        let holder = Atomic<QueueLocalObject<Confined>?>(value: nil)
        let done = DispatchSemaphore(value: 0)
        let log = Atomic<[String]>(value: [])
        let deinitOnQueue = Atomic<Bool?>(value: nil)
        let deinitSemaphore = DispatchSemaphore(value: 0)
        queue.sync {
            // On the queue, `generate` runs inline, during `init`.
            let object = QueueLocalObject<Confined>(queue: queue, generate: {
                return Confined(queue: queue, log: log, deinitOnQueue: deinitOnQueue, deinitSemaphore: deinitSemaphore)
            })
            holder.swap(object)
            inner.swap(object.syncWith { _ in true } ?? false)
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(inner.with { $0 }, true, "created inline on its queue, the object exists at once")
        holder.swap(nil)
        XCTAssertEqual(deinitSemaphore.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(deinitOnQueue.with { $0 }, true)
    }

    func testDeinitReleasesTheObjectOnTheQueueAfterPendingWork() {
        let fixture = Fixture()
        var object: QueueLocalObject<Confined>? = fixture.make()
        let gate = DispatchSemaphore(value: 0)
        object!.with { _ in
            // Hold the queue so that the release has to wait behind this work.
            _ = gate.wait(timeout: .now() + waitDeadline)
            fixture.append("work")
        }
        object = nil
        XCTAssertNil(fixture.deinitOnQueue.with { $0 }, "the object is alive while work is pending")
        gate.signal()
        XCTAssertEqual(fixture.deinitSemaphore.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(fixture.deinitOnQueue.with { $0 }, true, "released on its queue")
        XCTAssertEqual(fixture.log.with { $0 }, ["work"])
    }

    func testSignalWithRunsOnTheQueueAndDisposesTheResult() {
        let fixture = Fixture()
        let object = fixture.make()
        let disposed = Atomic(value: 0)
        let started = DispatchSemaphore(value: 0)
        let values = Atomic<[Int]>(value: [])
        let signal: Signal<Int, NoError> = object.signalWith { confined, subscriber in
            XCTAssertTrue(fixture.queue.isCurrent())
            confined.counter += 1
            subscriber.putNext(confined.counter)
            started.signal()
            return ActionDisposable {
                disposed.modify { $0 + 1 }
            }
        }
        let d = signal.start(next: { value in values.modify { $0 + [value] } })
        XCTAssertEqual(started.wait(timeout: .now() + waitDeadline), .success)
        // Flush the queue, so that the result of `f` is in place.
        XCTAssertEqual(object.syncWith { _ in true }, true)
        XCTAssertEqual(values.with { $0 }, [1])
        XCTAssertEqual(disposed.with { $0 }, 0)
        d.dispose()
        XCTAssertEqual(disposed.with { $0 }, 1)
        d.dispose()
        XCTAssertEqual(disposed.with { $0 }, 1)
    }

    func testSignalWithDisposedBeforeItRunsNeverRunsF() {
        let fixture = Fixture()
        let object = fixture.make()
        let gate = DispatchSemaphore(value: 0)
        object.with { _ in
            _ = gate.wait(timeout: .now() + waitDeadline)
        }
        let ran = Atomic(value: 0)
        let d = object.signalWith { (_, _: Subscriber<Int, NoError>) -> any Disposable in
            ran.modify { $0 + 1 }
            return EmptyDisposable
        }.start()
        d.dispose()
        gate.signal()
        XCTAssertEqual(object.syncWith { _ in true }, true)
        XCTAssertEqual(ran.with { $0 }, 0)
    }

    func testSignalWithDoesNotKeepTheObjectAlive() {
        let fixture = Fixture()
        var object: QueueLocalObject<Confined>? = fixture.make()
        let signal: Signal<Int, NoError> = object!.signalWith { _, subscriber in
            subscriber.putNext(1)
            return EmptyDisposable
        }
        object = nil
        XCTAssertEqual(fixture.deinitSemaphore.wait(timeout: .now() + waitDeadline), .success)
        var values: [Int] = []
        let d = signal.start(next: { values.append($0) })
        XCTAssertEqual(values, [])
        d.dispose()
    }
}
