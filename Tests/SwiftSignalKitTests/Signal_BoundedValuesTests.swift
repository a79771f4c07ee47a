import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// The bounded AsyncSequence bridge, `values(capacity:overflow:onDrop:)`: a
/// reader slower than its producer holds at most `capacity` values, each
/// policy drops what it says (counted), block makes the producer run at the
/// reader's pace and loses nothing, and everything is released.
final class Signal_BoundedValuesTests: XCTestCase {
    override func tearDown() {
        XCTAssertEqual(Held.live, 0, "every value is released")
        super.tearDown()
    }

    /// Waits, without blocking the task's thread, for `semaphore`.
    func wait(_ semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }

    /// `pipe`'s values, signalling `subscribed` once the pipe has the
    /// subscriber (a producer waits for it: a value put before would reach
    /// nobody).
    func subscribed(_ pipe: ValuePipe<Held>, _ subscribed: DispatchSemaphore) -> Signal<Held, SignalOverflowError> {
        return Signal { subscriber in
            let disposable = pipe.signal().start(next: { subscriber.putNext($0) }, completed: { subscriber.putCompletion() })
            subscribed.signal()
            return disposable
        }
    }

    /// A signal that cannot fail (a pipe's, Telegram's usual
    /// `Signal<T, NoError>`) has the bounded form too: docs/swift.md's
    /// example did not compile ("requires that 'NoError' conform to 'Error'").
    func testASignalThatCannotFailHasTheBoundedForm() async throws {
        let source = Signal<Int, NoError> { subscriber in
            for value in 0 ..< 5 {
                subscriber.putNext(value)
            }
            subscriber.putCompletion()
            return EmptyDisposable
        }
        var all: [Int] = []
        for try await value in source.values(capacity: 10, overflow: .block) {
            all.append(value)
        }
        XCTAssertEqual(all, [0, 1, 2, 3, 4])
        var latest: [Int] = []
        for try await value in source.values(capacity: 2, overflow: .dropOldest) {
            latest.append(value)
        }
        XCTAssertEqual(latest, [3, 4], "the values put while the reader had not taken one: the oldest dropped")
    }

    /// Every value is put while the reader sits on its first one.
    func testAFastProducerAndAStalledReaderHoldAtMostTheCapacity() async throws {
        let total = loadCount(100_000)
        let capacity = 100
        let policies: [(String, SignalOverflow<SignalOverflowError>)] = [("dropNewest", .dropNewest), ("dropOldest", .dropOldest), ("latest", .latest)]
        for (name, policy) in policies {
            let pipe = ValuePipe<Held>()
            let dropped = Atomic<Int>(value: 0)
            let produced = DispatchSemaphore(value: 0)
            let most = Atomic<Int>(value: 0)
            var got: [Int] = []
            let ready = DispatchSemaphore(value: 0)
            var iterator = self.subscribed(pipe, ready).values(capacity: capacity, overflow: policy, onDrop: { _, count in
                _ = dropped.swap(count)
            }).makeAsyncIterator()
            DispatchQueue.global().async {
                ready.wait()
                for value in 0 ..< total {
                    pipe.putNext(Held(value))
                    if value % 997 == 0 {
                        _ = most.modify { Swift.max($0, Held.live) }
                    }
                }
                produced.signal()
                pipe.putCompletion()
            }
            // The first read subscribes; the producer may be ahead already.
            if let first = try await iterator.next() {
                got.append(first.payload)
            }
            await self.wait(produced)
            while let value = try await iterator.next() {
                got.append(value.payload)
            }
            XCTAssertLessThanOrEqual(most.with { $0 }, capacity + 2, name)
            XCTAssertEqual(got.count + dropped.with { $0 }, total, name)
            XCTAssertEqual(got, got.sorted(), name)
            if name != "dropNewest" {
                XCTAssertEqual(got.last, total - 1, name)
            }
        }
    }

    func testBlockMakesTheProducerWaitForTheReaderAndLosesNothing() async throws {
        let total = loadCount(20_000)
        let capacity = 8
        let pipe = ValuePipe<Held>()
        let most = Atomic<Int>(value: 0)
        let ready = DispatchSemaphore(value: 0)
        let values = self.subscribed(pipe, ready).values(capacity: capacity, overflow: .block)
        var iterator = values.makeAsyncIterator()
        DispatchQueue.global().async {
            ready.wait()
            for value in 0 ..< total {
                pipe.putNext(Held(value))
                _ = most.modify { Swift.max($0, Held.live) }
            }
            pipe.putCompletion()
        }
        var got: [Int] = []
        while let value = try await iterator.next() {
            got.append(value.payload)
        }
        assertSameSequence(got, Array(0 ..< total))
        // The values waiting, the one the reader holds, the one being put.
        XCTAssertLessThanOrEqual(most.with { $0 }, capacity + 3)
    }

    func testBlockRefusesAValueEmittedOnTheReadersThreadDuringTheStart() async throws {
        let source = Signal<Int, SignalOverflowError> { subscriber in
            for value in 0 ..< 10 {
                subscriber.putNext(value)
            }
            return EmptyDisposable
        }
        var got: [Int] = []
        do {
            for try await value in source.values(capacity: 2, overflow: .block) {
                got.append(value)
            }
            XCTFail("no error")
        } catch let error as SignalOverflowError {
            XCTAssertEqual(error.reason, .wouldDeadlock)
        }
        XCTAssertEqual(got, [0, 1])
    }

    func testErrorThrowsAfterTheValuesWaiting() async throws {
        let source = Signal<Int, SignalOverflowError> { subscriber in
            for value in 0 ..< 10 {
                subscriber.putNext(value)
            }
            return EmptyDisposable
        }
        var got: [Int] = []
        var dropped: [Int] = []
        do {
            for try await value in source.values(capacity: 3, overflow: .error, onDrop: { value, _ in dropped.append(value) }) {
                got.append(value)
            }
            XCTFail("no error")
        } catch let error as SignalOverflowError {
            XCTAssertEqual(error, SignalOverflowError(operatorName: "values(capacity:)", capacity: 3, reason: .overflow))
        }
        XCTAssertEqual(got, [0, 1, 2])
        XCTAssertEqual(dropped, Array(3 ..< 10))
    }

    func testLeavingEarlyReleasesTheValuesWaitingAndFreesABlockedProducer() async throws {
        let pipe = ValuePipe<Held>()
        let producerDone = DispatchSemaphore(value: 0)
        do {
            let ready = DispatchSemaphore(value: 0)
            var iterator = self.subscribed(pipe, ready).values(capacity: 2, overflow: .block).makeAsyncIterator()
            DispatchQueue.global().async {
                ready.wait()
                for value in 0 ..< 10 {
                    pipe.putNext(Held(value))
                }
                producerDone.signal()
            }
            let first = try await iterator.next()
            XCTAssertEqual(first?.payload, 0)
        }
        // The iterator is gone: its subscription is disposed, the producer
        // waiting for room returns.
        await self.wait(producerDone)
    }
}
