import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// A value that counts the instances alive: the memory a bounded place
/// holds, in values.
final class Held: @unchecked Sendable {
    static let liveCount = Atomic<Int>(value: 0)
    static var live: Int { liveCount.with { $0 } }
    let payload: Int
    init(_ payload: Int) {
        self.payload = payload
        _ = Held.liveCount.modify { $0 + 1 }
    }
    deinit {
        _ = Held.liveCount.modify { $0 - 1 }
    }
}

/// The capacities of zip, mergeMap and buffer(timeSpan:): each holds at most
/// `capacity` values under a producer far faster than its consumer, drops
/// what the policy says (counted), loses nothing with error and block, and
/// releases everything however it ends.
final class Signal_BoundedPlacesTests: XCTestCase {
    final class Log: @unchecked Sendable {
        let lock = Lock()
        var delivered: [Int] = []
        var dropped: [Int] = []
        var lastCount = 0
        var error: SignalOverflowError?
        var completed = false

        func onDrop(_ value: Held, _ count: Int) {
            self.lock.locked {
                self.dropped.append(value.payload)
                self.lastCount = count
            }
        }

        func deliver(_ value: Int) {
            self.lock.locked {
                self.delivered.append(value)
            }
        }
    }

    static var dropPolicies: [(String, SignalOverflow<SignalOverflowError>)] { [("dropNewest", .dropNewest), ("dropOldest", .dropOldest), ("latest", .latest)] }

    override func tearDown() {
        XCTAssertEqual(Held.live, 0, "every value is released")
        super.tearDown()
    }

    // MARK: zip

    /// The array a bounded zip's combination, or a `buffer(count:)`'s
    /// values, is delivered in is reused for the next only when the
    /// subscriber kept nothing of it: a kept array never changes, and a
    /// reused one holds no value between deliveries (its values are
    /// released once their delivery returns).
    func testZipAndBufferReuseADeliveredArrayOnlyWhenNothingKeepsIt() {
        let first = ValuePipe<Held>()
        let second = ValuePipe<Held>()
        let zipped = zip([first.signal() |> castError(SignalOverflowError.self), second.signal() |> castError(SignalOverflowError.self)], capacity: 4, overflow: .dropNewest)
        let buffered = first.signal() |> buffer(count: 2) |> castError(SignalOverflowError.self)
        for (name, signal, secondPipe) in [("zip", zipped, second), ("buffer", buffered, first)] {
            var kept: [[Held]] = []
            var liveAfterDelivery: [Int] = []
            var keep = true
            let disposable = signal.start(next: { values in
                if keep {
                    kept.append(values)
                }
            })
            for round in 0 ..< 6 {
                keep = round % 2 == 0
                first.putNext(Held(2 * round))
                secondPipe.putNext(Held(2 * round + 1))
                liveAfterDelivery.append(Held.live)
            }
            XCTAssertEqual(kept.map { $0.map(\.payload) }, [[0, 1], [4, 5], [8, 9]], "\(name): a kept array changed")
            // The kept arrays' values stay (2 each); an array not kept is
            // released with its delivery, not held by the reused array.
            XCTAssertEqual(liveAfterDelivery, [2, 2, 4, 4, 6, 6], name)
            kept = []
            XCTAssertEqual(Held.live, 0, name)
            disposable.dispose()
        }
    }

    /// One input of a zip sends `total` values before the other sends any.
    func testZipHoldsAtMostCapacityPerInputForEachDropPolicy() {
        let total = loadCount(100_000)
        let capacity = 100
        for (name, policy) in Self.dropPolicies {
            let fast = ValuePipe<Held>()
            let slow = ValuePipe<Held>()
            let log = Log()
            var maxLive = 0
            let disposable = zip([fast.signal() |> castError(SignalOverflowError.self), slow.signal() |> castError(SignalOverflowError.self)], capacity: capacity, overflow: policy, onDrop: log.onDrop).start(next: { values in
                log.deliver(values[0].payload)
            })
            for value in 0 ..< total {
                fast.putNext(Held(value))
                if value % 997 == 0 {
                    maxLive = max(maxLive, Held.live)
                }
            }
            XCTAssertLessThanOrEqual(maxLive, capacity + 1, name)
            XCTAssertEqual(log.dropped.count, total - capacity, name)
            XCTAssertEqual(log.lastCount, total - capacity, name)
            for value in 0 ..< 3 {
                slow.putNext(Held(-value))
            }
            switch name {
            case "dropNewest":
                XCTAssertEqual(log.delivered, [0, 1, 2])
                XCTAssertEqual(log.dropped.first, capacity)
            case "dropOldest":
                XCTAssertEqual(log.delivered, [total - capacity, total - capacity + 1, total - capacity + 2])
                XCTAssertEqual(log.dropped.first, 0)
            default:
                // latest: the newest waiting value is replaced each time.
                XCTAssertEqual(log.delivered, [0, 1, 2])
                XCTAssertEqual(log.dropped.first, capacity - 1)
                XCTAssertEqual(log.dropped.last, total - 2)
            }
            // Values still waiting are released on disposal, unreported.
            disposable.dispose()
            XCTAssertEqual(log.dropped.count, total - capacity, name)
            XCTAssertEqual(Held.live, 0, name)
        }
    }

    func testZipErrorFailsAtOnceAndLosesNothing() {
        let fast = ValuePipe<Held>()
        let slow = ValuePipe<Held>()
        let log = Log()
        let total = 10_000
        let disposable = zip([fast.signal() |> castError(SignalOverflowError.self), slow.signal() |> castError(SignalOverflowError.self)], capacity: 50, overflow: .error, onDrop: log.onDrop).start(next: { values in
            log.deliver(values[0].payload)
        }, error: { log.error = $0 })
        slow.putNext(Held(-1))
        for value in 0 ..< total {
            fast.putNext(Held(value))
        }
        // 0 paired; 1...50 waited; 51 overflowed: it and the 50 waiting are
        // dropped, and the error ended the subscription (the rest never came).
        XCTAssertEqual(log.delivered, [0])
        XCTAssertEqual(log.error, SignalOverflowError(operatorName: "zip", capacity: 50, reason: .overflow))
        assertSameSequence(log.dropped.sorted(), Array(1 ... 51))
        XCTAssertEqual(log.lastCount, 51)
        XCTAssertEqual(log.delivered.count + log.dropped.count, 52)
        disposable.dispose()
    }

    func testZipBlockMakesTheLeadingProducerWaitAndDeliversEveryPair() {
        let total = 20_000
        let a = ValuePipe<Held>()
        let b = ValuePipe<Held>()
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        let disposable = zip(a.signal() |> castError(SignalOverflowError.self), b.signal() |> castError(SignalOverflowError.self), capacity: 8, overflow: .block).start(next: { pair in
            XCTAssertEqual(pair.0.payload, pair.1.payload)
            log.deliver(pair.0.payload)
            // At most 8 waiting on one side, two pairs being delivered, and
            // one value being made and put by each producer.
            XCTAssertLessThanOrEqual(Held.live, 8 + 4 + 2)
            if pair.0.payload == total - 1 {
                done.signal()
            }
        }, error: { log.error = $0; done.signal() })
        runThreads(2) { thread in
            let pipe = thread == 0 ? a : b
            for value in 0 ..< total {
                pipe.putNext(Held(value))
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertNil(log.error)
        // Two threads may deliver pairs at once, in either order.
        assertSameSequence(log.delivered.sorted(), Array(0 ..< total))
        disposable.dispose()
    }

    func testZipBlockRefusesAThreadThatFeedsBothInputs() {
        let a = ValuePipe<Held>()
        let b = ValuePipe<Held>()
        let log = Log()
        let disposable = zip([a.signal() |> castError(SignalOverflowError.self), b.signal() |> castError(SignalOverflowError.self)], capacity: 3, overflow: .block, onDrop: log.onDrop).start(next: { values in
            log.deliver(values[0].payload)
        }, error: { log.error = $0 })
        b.putNext(Held(0))
        for value in 0 ..< 5 {
            a.putNext(Held(value))
        }
        XCTAssertEqual(log.delivered, [0])
        XCTAssertEqual(log.error?.reason, .wouldDeadlock)
        XCTAssertTrue(log.error?.description.contains("capacity 3") ?? false)
        assertSameSequence(log.dropped.sorted(), [1, 2, 3, 4])
        disposable.dispose()
    }

    /// The first input emits more than the capacity during its start, on
    /// the thread that starts the zip, before the second input is started:
    /// waiting there would never end (the fuzzer found the hang); the
    /// stream fails instead, and every value it held is reported dropped.
    func testZipBlockRefusesTheStartingThreadWhileInputsAreStillToStart() {
        let first = Signal<Held, SignalOverflowError> { subscriber in
            for value in 0 ..< 5 {
                subscriber.putNext(Held(value))
            }
            return EmptyDisposable
        }
        let second = ValuePipe<Held>()
        let log = Log()
        let started = DispatchSemaphore(value: 0)
        let disposable = Atomic<(any Disposable)?>(value: nil)
        DispatchQueue.global().async {
            _ = disposable.swap(zip([first, second.signal() |> castError(SignalOverflowError.self)], capacity: 3, overflow: .block, onDrop: log.onDrop).start(next: { values in
                log.deliver(values[0].payload)
            }, error: { log.error = $0 }))
            started.signal()
        }
        guard started.wait(timeout: .now() + 30) == .success else {
            XCTFail("the start waited for room that only its own later starts could make")
            return
        }
        XCTAssertEqual(log.error?.reason, .wouldDeadlock)
        XCTAssertEqual(log.delivered, [])
        // 3 refused with the 0, 1 and 2 waiting; 4, put once the error had
        // reached the subscriber, reaches nothing and is not reported (it
        // was, as a drop after the error: signalkit.h says it is not).
        assertSameSequence(log.dropped.sorted(), [0, 1, 2, 3])
        disposable.with { $0 }?.dispose()
    }

    func testZipBlockedProducerReturnsWhenTheSubscriptionIsDisposed() {
        let a = ValuePipe<Held>()
        let b = ValuePipe<Held>()
        let disposable = zip([a.signal(), b.signal()], capacity: 2, overflow: SignalOverflow<NoError>.block(refused: { _ in preconditionFailure("no refusal expected") })).start()
        let producerDone = DispatchSemaphore(value: 0)
        let waiting = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for value in 0 ..< 2 {
                a.putNext(Held(value))
            }
            waiting.signal()
            a.putNext(Held(2))
            producerDone.signal()
        }
        XCTAssertEqual(waiting.wait(timeout: .now() + waitDeadline), .success)
        // The third put waits (or is about to); disposing frees it.
        disposable.dispose()
        XCTAssertEqual(producerDone.wait(timeout: .now() + waitDeadline), .success)
    }

    func testTypedZipReportsWhichInputDropped() {
        let a = ValuePipe<Int>()
        let b = ValuePipe<String>()
        var dropped: [String] = []
        var pairs: [String] = []
        let disposable = zip(a.signal(), b.signal(), capacity: 2, overflow: .dropNewest, onDrop: { value, count in
            switch value {
            case let .first(number): dropped.append("first \(number) #\(count)")
            case let .second(text): dropped.append("second \(text) #\(count)")
            }
        }).start(next: { pairs.append("\($0.0)\($0.1)") })
        for value in 0 ..< 4 {
            a.putNext(value)
        }
        b.putNext("x")
        b.putNext("y")
        XCTAssertEqual(dropped, ["first 2 #1", "first 3 #2"])
        XCTAssertEqual(pairs, ["0x", "1y"])
        disposable.dispose()
    }

    // MARK: mergeMap

    /// Inner signals that emit their value and complete only when the test
    /// says (`completeNext`), one running at a time.
    final class Inners: @unchecked Sendable {
        let lock = Lock()
        var running: [Subscriber<Int, SignalOverflowError>] = []

        func signal(_ value: Held) -> Signal<Int, SignalOverflowError> {
            let payload = value.payload
            return Signal { subscriber in
                subscriber.putNext(payload)
                self.lock.locked { self.running.append(subscriber) }
                return EmptyDisposable
            }
        }

        func completeAll() {
            while true {
                var next: Subscriber<Int, SignalOverflowError>?
                self.lock.locked {
                    if !self.running.isEmpty {
                        next = self.running.removeFirst()
                    }
                }
                guard let next else {
                    return
                }
                next.putCompletion()
            }
        }
    }

    func testMergeMapHoldsAtMostCapacityWaitingValuesForEachDropPolicy() {
        let total = loadCount(100_000)
        let capacity = 10
        for (name, policy) in Self.dropPolicies {
            let pipe = ValuePipe<Held>()
            let inners = Inners()
            let log = Log()
            var maxLive = 0
            var completed = false
            let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> mergeMap(maxConcurrent: 1, capacity: capacity, overflow: policy, onDrop: log.onDrop, inners.signal)).start(next: { log.deliver($0) }, completed: { completed = true })
            for value in 0 ..< total {
                pipe.putNext(Held(value))
                if value % 997 == 0 {
                    maxLive = max(maxLive, Held.live)
                }
            }
            // The one running has its value mapped already: 10 wait.
            XCTAssertLessThanOrEqual(maxLive, capacity + 1, name)
            XCTAssertEqual(log.dropped.count, total - 1 - capacity, name)
            XCTAssertEqual(log.lastCount, total - 1 - capacity, name)
            pipe.putCompletion()
            inners.completeAll()
            XCTAssertTrue(completed, name)
            switch name {
            case "dropNewest":
                XCTAssertEqual(log.delivered, Array(0 ... capacity))
            case "dropOldest":
                XCTAssertEqual(log.delivered, [0] + Array(total - capacity ..< total))
            default:
                XCTAssertEqual(log.delivered, Array(0 ..< capacity) + [total - 1])
            }
            disposable.dispose()
            XCTAssertEqual(Held.live, 0, name)
        }
    }

    func testMergeMapErrorDropsTheWaitingValuesAndLosesNothing() {
        let pipe = ValuePipe<Held>()
        let inners = Inners()
        let log = Log()
        let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> mergeMap(maxConcurrent: 2, capacity: 5, overflow: .error, onDrop: log.onDrop, inners.signal)).start(next: { log.deliver($0) }, error: { log.error = $0 })
        for value in 0 ..< 1_000 {
            pipe.putNext(Held(value))
        }
        // 0 and 1 run, 2...6 wait, 7 overflows; the error disposes the rest.
        XCTAssertEqual(log.delivered, [0, 1])
        XCTAssertEqual(log.error, SignalOverflowError(operatorName: "mergeMap", capacity: 5, reason: .overflow))
        assertSameSequence(log.dropped.sorted(), Array(2 ... 7))
        XCTAssertEqual(log.delivered.count + log.dropped.count, 8)
        disposable.dispose()
    }

    func testMergeMapBlockDeliversEveryValueOfAFasterProducer() {
        let total = 5_000
        let queue = Queue(name: "bounded.mergeMap")
        let pipe = ValuePipe<Int>()
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> mergeMap(maxConcurrent: 1, capacity: 4, overflow: .block) { value in
            Signal<Int, SignalOverflowError> { subscriber in
                queue.async {
                    subscriber.putNext(value)
                    subscriber.putCompletion()
                }
                return EmptyDisposable
            }
        }).start(next: { value in
            log.deliver(value)
            if value == total - 1 {
                done.signal()
            }
        }, error: { log.error = $0; done.signal() })
        runThreads(1) { _ in
            for value in 0 ..< total {
                pipe.putNext(value)
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertNil(log.error)
        assertSameSequence(log.delivered, Array(0 ..< total))
        disposable.dispose()
        queue.sync {}
    }

    func testMergeMapBlockRefusesAPutFromInsideAnInnerStart() {
        var outer: Subscriber<Int, SignalOverflowError>?
        let source = Signal<Int, SignalOverflowError> { subscriber in
            outer = subscriber
            return EmptyDisposable
        }
        var delivered: [Int] = []
        var error: SignalOverflowError?
        let disposable = (source |> mergeMap(maxConcurrent: 1, capacity: 2, overflow: .block) { value in
            Signal<Int, SignalOverflowError> { subscriber in
                subscriber.putNext(value)
                if value == 0 {
                    for next in 1 ... 5 {
                        outer?.putNext(next)
                    }
                }
                return EmptyDisposable
            }
        }).start(next: { delivered.append($0) }, error: { error = $0 })
        outer?.putNext(0)
        XCTAssertEqual(delivered, [0])
        XCTAssertEqual(error?.reason, .wouldDeadlock)
        disposable.dispose()
    }

    /// A put from inside a delivery of the operator's own values (the
    /// consumer's callback, on the thread of an inner signal that is still
    /// running) is refused too: that inner signal cannot end and free its
    /// slot before the call returns. Before, the put waited for good (an
    /// acceptance program: the inner pipe's completion, on another thread,
    /// waited for the blocked callback).
    func testMergeMapBlockRefusesAPutFromInsideADeliveryOfItsValues() {
        var outer: Subscriber<Int, SignalOverflowError>?
        let source = Signal<Int, SignalOverflowError> { subscriber in
            outer = subscriber
            return EmptyDisposable
        }
        let inner = SignalPipe<Int, SignalOverflowError>()
        var delivered: [Int] = []
        var error: SignalOverflowError?
        let disposable = (source |> mergeMap(maxConcurrent: 1, capacity: 2, overflow: .block) { _ in
            inner.signal()
        }).start(next: { value in
            delivered.append(value)
            if value == 7 {
                for next in 100 ..< 105 {
                    outer?.putNext(next)
                }
            }
        }, error: { error = $0 })
        outer?.putNext(0)
        inner.putNext(7)
        XCTAssertEqual(delivered, [7])
        XCTAssertEqual(error?.reason, .wouldDeadlock)
        disposable.dispose()
    }

    // MARK: buffer(timeSpan:)

    func testBufferTimeHoldsAtMostCapacityPerPeriodForEachDropPolicy() {
        let total = loadCount(100_000)
        let capacity = 100
        for (name, policy) in Self.dropPolicies {
            let queue = Queue(name: "bounded.buffer")
            let pipe = ValuePipe<Held>()
            let log = Log()
            var arrays: [[Int]] = []
            var maxLive = 0
            let completed = DispatchSemaphore(value: 0)
            // A period far longer than the test: the values wait.
            let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> buffer(timeSpan: 3600, queue: queue, capacity: capacity, overflow: policy, onDrop: log.onDrop)).start(next: { arrays.append($0.map(\.payload)) }, completed: { completed.signal() })
            for value in 0 ..< total {
                pipe.putNext(Held(value))
                if value % 997 == 0 {
                    maxLive = max(maxLive, Held.live)
                }
            }
            XCTAssertLessThanOrEqual(maxLive, capacity + 1, name)
            XCTAssertEqual(log.dropped.count, total - capacity, name)
            XCTAssertEqual(log.lastCount, total - capacity, name)
            pipe.putCompletion()
            XCTAssertEqual(completed.wait(timeout: .now() + waitDeadline), .success)
            switch name {
            case "dropNewest":
                XCTAssertEqual(arrays, [Array(0 ..< capacity)])
            case "dropOldest":
                XCTAssertEqual(arrays, [Array(total - capacity ..< total)])
            default:
                XCTAssertEqual(arrays, [Array(0 ..< capacity - 1) + [total - 1]])
            }
            disposable.dispose()
            queue.sync {}
            XCTAssertEqual(Held.live, 0, name)
        }
    }

    func testBufferTimeErrorEmitsTheCollectedValuesThenFailsLosingNothing() {
        let queue = Queue(name: "bounded.buffer.error")
        let pipe = ValuePipe<Held>()
        let log = Log()
        var arrays: [[Int]] = []
        let failed = DispatchSemaphore(value: 0)
        let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> buffer(timeSpan: 3600, queue: queue, capacity: 10, overflow: .error, onDrop: log.onDrop)).start(next: { arrays.append($0.map(\.payload)) }, error: { log.error = $0; failed.signal() })
        let total = 1_000
        // The queue is stalled until every value is put: the error reaches
        // the consumer (and disposes the upstream) after the last.
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        for value in 0 ..< total {
            pipe.putNext(Held(value))
        }
        gate.signal()
        XCTAssertEqual(failed.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(arrays, [Array(0 ..< 10)])
        XCTAssertEqual(log.error?.reason, .overflow)
        // Every value after the tenth is dropped.
        assertSameSequence(log.dropped, Array(10 ..< total))
        XCTAssertEqual(arrays.joined().count + log.dropped.count, total)
        disposable.dispose()
        queue.sync {}
    }

    func testBufferTimeBlockWaitsForThePeriodsEndAndLosesNothing() {
        let queue = Queue(name: "bounded.buffer.block")
        let pipe = ValuePipe<Int>()
        let log = Log()
        let completed = DispatchSemaphore(value: 0)
        let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> buffer(timeSpan: 0.001, queue: queue, capacity: 16, overflow: .block)).start(next: { array in
            XCTAssertLessThanOrEqual(array.count, 16)
            for value in array {
                log.deliver(value)
            }
        }, error: { log.error = $0 }, completed: { completed.signal() })
        let total = 2_000
        runThreads(1) { _ in
            for value in 0 ..< total {
                pipe.putNext(value)
            }
            pipe.putCompletion()
        }
        XCTAssertEqual(completed.wait(timeout: .now() + 60), .success)
        XCTAssertNil(log.error)
        assertSameSequence(log.delivered, Array(0 ..< total))
        disposable.dispose()
        queue.sync {}
    }

    func testBufferTimeBlockRefusesWhereThePeriodCannotEnd() throws {
        let hostDrained = try Queue.makeHostDrained(name: "bounded.buffer.host")
        let virtual = Queue.virtualTime(name: "bounded.buffer.virtual")
        let never = Queue(name: "bounded.buffer.never")
        let cases: [(Queue, Double)] = [(hostDrained, 1), (virtual, 1), (never, 0)]
        for (index, (queue, period)) in cases.enumerated() {
            let pipe = ValuePipe<Held>()
            let log = Log()
            let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> buffer(timeSpan: period, queue: queue, capacity: 2, overflow: .block, onDrop: log.onDrop)).start(next: { log.deliver($0.count) }, error: { log.error = $0 })
            // The dispatch queue is stalled until every value is put.
            let gate = DispatchSemaphore(value: 0)
            if index == 2 {
                queue.async { gate.wait() }
            }
            for value in 0 ..< 5 {
                pipe.putNext(Held(value))
            }
            gate.signal()
            XCTAssertEqual(log.dropped, [2, 3, 4], "case \(index)")
            switch index {
            case 0:
                _ = try queue.drain()
                XCTAssertEqual(log.error?.reason, .cannotWaitForQueue)
            case 1:
                _ = try queue.run()
                XCTAssertEqual(log.error?.reason, .cannotWaitForQueue)
            default:
                queue.sync {}
                XCTAssertEqual(log.error?.reason, .periodNeverEnds)
                XCTAssertTrue(log.error?.description.contains("its period never ends") ?? false)
            }
            // The two collected values come first.
            XCTAssertEqual(log.delivered, [2])
            disposable.dispose()
        }
    }
}
