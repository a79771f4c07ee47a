import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// The bounded buffer's reference model: what is delivered and what dropped
/// when `capacity` values may wait, for a run of puts separated by drains
/// (each drain delivers everything pending, as a host-drained queue's
/// drain of a `deliverOn` does, or as the delivering thread does after a
/// reentrant burst).
struct BoundedBufferModel {
    enum Step: Equatable {
        case put(Int)
        case drain
    }

    enum Policy: CaseIterable {
        case dropNewest, dropOldest, latest, error
    }

    var delivered: [Int] = []
    var dropped: [Int] = []
    var failed = false
    /// Put after the error reached the consumer (whose dispose ended the
    /// upstream): never seen by the buffer.
    var unseen = 0

    init(capacity: Int, policy: Policy, steps: [Step]) {
        var pending: [Int] = []
        var ended = false
        for step in steps {
            switch step {
            case let .put(value):
                if self.failed && ended {
                    self.unseen += 1
                } else if self.failed {
                    self.dropped.append(value)
                } else if pending.count < capacity {
                    pending.append(value)
                } else {
                    switch policy {
                    case .dropNewest:
                        self.dropped.append(value)
                    case .dropOldest:
                        self.dropped.append(pending.removeFirst())
                        pending.append(value)
                    case .latest:
                        self.dropped.append(pending.removeLast())
                        pending.append(value)
                    case .error:
                        self.failed = true
                        self.dropped.append(value)
                    }
                }
            case .drain:
                self.delivered += pending
                pending = []
                ended = self.failed
            }
        }
        self.delivered += pending
    }
}

func overflow(_ policy: BoundedBufferModel.Policy) -> SignalOverflow<SignalOverflowError> {
    switch policy {
    case .dropNewest: return .dropNewest
    case .dropOldest: return .dropOldest
    case .latest: return .latest
    case .error: return .error
    }
}

final class Signal_BackpressureTests: XCTestCase {
    /// A log of what a bounded buffer delivered, dropped and ended with.
    final class Log: @unchecked Sendable {
        let lock = Lock()
        var delivered: [Int] = []
        var dropped: [Int] = []
        var counts: [Int] = []
        var error: SignalOverflowError?
        var completed = false

        func onDrop(_ value: Int, _ count: Int) {
            self.lock.locked {
                self.dropped.append(value)
                self.counts.append(count)
            }
        }
    }

    // MARK: onBackpressureBuffer: reentrant puts wait in the buffer

    /// Value 0's delivery puts 1...5 reentrantly into a buffer of 2.
    func reentrant(_ policy: SignalOverflow<SignalOverflowError>) -> Log {
        let log = Log()
        // A source that puts into the operator reentrantly (a pipe would
        // queue a put made inside its own delivery).
        var subscriber: Subscriber<Int, SignalOverflowError>?
        let source = Signal<Int, SignalOverflowError> { sub in
            subscriber = sub
            return EmptyDisposable
        }
        let signal = source |> onBackpressureBuffer(capacity: 2, overflow: policy, onDrop: log.onDrop)
        let disposable = signal.start(next: { value in
            log.delivered.append(value)
            if value == 0 {
                for next in 1 ... 5 {
                    subscriber?.putNext(next)
                }
            }
        }, error: { error in
            log.error = error
        })
        subscriber?.putNext(0)
        subscriber?.putNext(6)
        disposable.dispose()
        return log
    }

    func testOnBackpressureBufferDropNewestDropsTheIncomingValue() {
        let log = self.reentrant(.dropNewest)
        XCTAssertEqual(log.delivered, [0, 1, 2, 6])
        XCTAssertEqual(log.dropped, [3, 4, 5])
        XCTAssertEqual(log.counts, [1, 2, 3])
        XCTAssertNil(log.error)
    }

    func testOnBackpressureBufferDropOldestDropsTheOldestPending() {
        let log = self.reentrant(.dropOldest)
        XCTAssertEqual(log.delivered, [0, 4, 5, 6])
        XCTAssertEqual(log.dropped, [1, 2, 3])
    }

    func testOnBackpressureBufferLatestReplacesTheNewestPending() {
        let log = self.reentrant(.latest)
        XCTAssertEqual(log.delivered, [0, 1, 5, 6])
        XCTAssertEqual(log.dropped, [2, 3, 4])
    }

    func testOnBackpressureBufferErrorDeliversThePendingValuesThenFails() {
        let log = self.reentrant(.error)
        XCTAssertEqual(log.delivered, [0, 1, 2])
        XCTAssertEqual(log.dropped, [3, 4, 5])
        XCTAssertEqual(log.error, SignalOverflowError(operatorName: "onBackpressureBuffer", capacity: 2, reason: .overflow))
        XCTAssertEqual(log.error?.description, "onBackpressureBuffer: overflow: a value arrived with 2 values pending (capacity 2, policy error)")
        // One value, not "1 values".
        XCTAssertEqual(SignalOverflowError(operatorName: "zip", capacity: 1, reason: .overflow).description,
                       "zip: overflow: a value arrived with 1 value pending (capacity 1, policy error)")
    }

    func testOnBackpressureBufferBlockRefusesAReentrantPutInsteadOfWaitingForItself() {
        let log = self.reentrant(.block)
        XCTAssertEqual(log.delivered, [0, 1, 2])
        XCTAssertEqual(log.dropped, [3, 4, 5])
        XCTAssertEqual(log.error?.reason, .wouldDeadlock)
        XCTAssertTrue(log.error?.description.contains("capacity 2") ?? false)
    }

    func testOnBackpressureBufferCompletionFollowsThePendingValues() {
        var subscriber: Subscriber<Int, NoError>?
        let source = Signal<Int, NoError> { sub in
            subscriber = sub
            return EmptyDisposable
        }
        var events: [String] = []
        let disposable = (source |> onBackpressureBuffer(capacity: 4, overflow: .dropNewest)).start(next: { value in
            events.append("\(value)")
            if value == 0 {
                subscriber?.putNext(1)
                subscriber?.putCompletion()
                subscriber?.putNext(2)
            }
        }, completed: {
            events.append("completed")
        })
        subscriber?.putNext(0)
        XCTAssertEqual(events, ["0", "1", "completed"])
        disposable.dispose()
    }

    // MARK: deliverOn(queue, capacity:): the policies against the model

    /// Runs `steps` through `deliverOn(host queue, capacity:)`: puts from
    /// this thread (not the queue's: they wait), drains by `drain()`.
    func runHostDrained(capacity: Int, policy: BoundedBufferModel.Policy, steps: [BoundedBufferModel.Step]) throws -> Log {
        let queue = try Queue.makeHostDrained(name: "backpressure.model")
        let log = Log()
        let pipe = ValuePipe<Int>()
        let signal = pipe.signal() |> castError(SignalOverflowError.self) |> deliverOn(queue, capacity: capacity, overflow: overflow(policy), onDrop: log.onDrop)
        let disposable = signal.start(next: { log.delivered.append($0) }, error: { log.error = $0 })
        for step in steps {
            switch step {
            case let .put(value):
                pipe.putNext(value)
            case .drain:
                while try queue.drain() > 0 {
                }
            }
        }
        while try queue.drain() > 0 {
        }
        disposable.dispose()
        queue.closeHostDrained()
        return log
    }

    func testDeliverOnWithCapacityMatchesTheModelForEveryPolicy() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0 ..< 300 {
            let capacity = Int.random(in: 1 ... 6, using: &generator)
            var steps: [BoundedBufferModel.Step] = []
            var next = 0
            for _ in 0 ..< Int.random(in: 0 ... 40, using: &generator) {
                if Int.random(in: 0 ..< 5, using: &generator) == 0 {
                    steps.append(.drain)
                } else {
                    steps.append(.put(next))
                    next += 1
                }
            }
            for policy in BoundedBufferModel.Policy.allCases {
                let model = BoundedBufferModel(capacity: capacity, policy: policy, steps: steps)
                let log = try self.runHostDrained(capacity: capacity, policy: policy, steps: steps)
                XCTAssertEqual(log.delivered, model.delivered, "round \(round), capacity \(capacity), \(policy), \(steps)")
                XCTAssertEqual(log.dropped, model.dropped, "round \(round), capacity \(capacity), \(policy), \(steps)")
                XCTAssertEqual(log.counts, Array(stride(from: 1, through: model.dropped.count, by: 1)))
                XCTAssertEqual(log.error != nil, model.failed)
                XCTAssertEqual(log.delivered.count + log.dropped.count + model.unseen, next, "nothing lost silently")
            }
        }
    }

    func testDeliverOnWithCapacityBlockCannotWaitOnAHostDrainedQueue() throws {
        let queue = try Queue.makeHostDrained(name: "backpressure.block.host")
        let log = Log()
        let pipe = ValuePipe<Int>()
        let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> deliverOn(queue, capacity: 2, overflow: .block, onDrop: log.onDrop)).start(next: { log.delivered.append($0) }, error: { log.error = $0 })
        for value in 0 ..< 4 {
            pipe.putNext(value)
        }
        _ = try queue.drain()
        XCTAssertEqual(log.delivered, [0, 1])
        XCTAssertEqual(log.dropped, [2, 3])
        XCTAssertEqual(log.error?.reason, .cannotWaitForQueue)
        disposable.dispose()
        queue.closeHostDrained()
    }

    func testDeliverOnWithCapacityReportsThePendingValuesWhenItsQueueCloses() throws {
        let queue = try Queue.makeHostDrained(name: "backpressure.close")
        let log = Log()
        let pipe = ValuePipe<Int>()
        let disposable = (pipe.signal() |> deliverOn(queue, capacity: 8, overflow: .dropNewest, onDrop: log.onDrop)).start(next: { log.delivered.append($0) })
        for value in 0 ..< 3 {
            pipe.putNext(value)
        }
        queue.closeHostDrained()
        pipe.putNext(3)
        XCTAssertEqual(log.delivered, [])
        XCTAssertEqual(log.dropped, [0, 1, 2, 3])
        XCTAssertEqual(log.counts, [1, 2, 3, 4])
        disposable.dispose()
    }

    // MARK: block and error lose nothing, across threads

    func testBlockDeliversEveryValueOfAFasterProducerInOrder() {
        for operatorKind in 0 ..< 2 {
            let queue = Queue(name: "backpressure.block")
            let pipe = ValuePipe<Int>()
            let total = 20_000
            let done = DispatchSemaphore(value: 0)
            let log = Log()
            let bounded: (Signal<Int, SignalOverflowError>) -> Signal<Int, SignalOverflowError> = operatorKind == 0
                ? deliverOn(queue, capacity: 16, overflow: .block, onDrop: log.onDrop)
                : onBackpressureBuffer(capacity: 16, overflow: .block, onDrop: log.onDrop)
            let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> bounded).start(next: { value in
                log.delivered.append(value)
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
            queue.sync {}
            XCTAssertNil(log.error)
            assertSameSequence(log.delivered, Array(0 ..< total))
            XCTAssertEqual(log.dropped, [])
            disposable.dispose()
        }
    }

    func testBlockWithSeveralProducersLosesNothing() {
        let queue = Queue(name: "backpressure.block.many")
        let pipe = ValuePipe<Int>()
        let perThread = 5_000
        let threads = 4
        let done = DispatchSemaphore(value: 0)
        let log = Log()
        let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> deliverOn(queue, capacity: 8, overflow: .block, onDrop: log.onDrop)).start(next: { value in
            log.delivered.append(value)
            if log.delivered.count == perThread * threads {
                done.signal()
            }
        })
        runThreads(threads) { thread in
            for value in 0 ..< perThread {
                pipe.putNext(thread * perThread + value)
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        queue.sync {
            XCTAssertEqual(Set(log.delivered).count, perThread * threads)
            for thread in 0 ..< threads {
                let own = log.delivered.filter { $0 / perThread == thread }
                assertSameSequence(own, Array(thread * perThread ..< (thread + 1) * perThread))
            }
        }
        XCTAssertEqual(log.dropped, [])
        disposable.dispose()
    }

    func testErrorPolicyCountsAddUpUnderAFasterProducer() {
        let queue = Queue(name: "backpressure.error")
        let pipe = ValuePipe<Int>()
        let total = 50_000
        let done = DispatchSemaphore(value: 0)
        let log = Log()
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> deliverOn(queue, capacity: 100, overflow: .error, onDrop: log.onDrop)).start(next: { value in
            if value == 0 {
                // The consumer stalls until the producer has put every value.
                started.signal()
                gate.wait()
            }
            log.delivered.append(value)
        }, error: { error in
            log.error = error
            done.signal()
        })
        pipe.putNext(0)
        XCTAssertEqual(started.wait(timeout: .now() + waitDeadline), .success)
        for value in 1 ..< total {
            pipe.putNext(value)
        }
        gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        queue.sync {}
        XCTAssertEqual(log.error?.reason, .overflow)
        // Value 0 was being delivered; 1...100 waited; 101 overflowed; the
        // rest came before the error disposed the upstream.
        assertSameSequence(log.delivered, Array(0 ... 100))
        assertSameSequence(log.dropped, Array(101 ..< total))
        XCTAssertEqual(log.delivered.count + log.dropped.count, total)
        disposable.dispose()
    }

    // MARK: memory held, abandonment

    final class Tracked: @unchecked Sendable {
        static let liveCount = Atomic<Int>(value: 0)
        static var live: Int { liveCount.with { $0 } }
        let payload: Int
        init(_ payload: Int) {
            self.payload = payload
            _ = Tracked.liveCount.modify { $0 + 1 }
        }
        deinit {
            _ = Tracked.liveCount.modify { $0 - 1 }
        }
    }

    func testAStalledConsumerHoldsAtMostCapacityValuesForEveryPolicy() {
        let policies: [SignalOverflow<SignalOverflowError>] = [.dropNewest, .dropOldest, .latest, .error]
        for policy in policies {
            let queue = Queue(name: "backpressure.memory")
            let pipe = ValuePipe<Tracked>()
            let gate = DispatchSemaphore(value: 0)
            let started = DispatchSemaphore(value: 0)
            var maxLive = 0
            let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> deliverOn(queue, capacity: 1000, overflow: policy)).start(next: { value in
                if value.payload == 0 {
                    started.signal()
                    gate.wait()
                }
            })
            pipe.putNext(Tracked(0))
            XCTAssertEqual(started.wait(timeout: .now() + waitDeadline), .success)
            for value in 1 ..< loadCount(100_000) {
                pipe.putNext(Tracked(value))
                if value % 1000 == 0 {
                    maxLive = max(maxLive, Tracked.live)
                }
            }
            // The value being delivered, and at most 1,000 waiting.
            XCTAssertLessThanOrEqual(maxLive, 1001)
            gate.signal()
            queue.sync {}
            disposable.dispose()
            queue.sync {}
            XCTAssertEqual(Tracked.live, 0)
        }
    }

    func testDisposingWithValuesPendingReleasesThemAndWakesABlockedProducer() {
        let queue = Queue(name: "backpressure.abandon")
        let pipe = ValuePipe<Tracked>()
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let box = MetaDisposable()
        box.set((pipe.signal() |> castError(SignalOverflowError.self) |> deliverOn(queue, capacity: 4, overflow: .block)).start(next: { value in
            if value.payload == 0 {
                started.signal()
                gate.wait()
            }
        }))
        let producerDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for value in 0 ..< 100 {
                pipe.putNext(Tracked(value))
            }
            producerDone.signal()
        }
        XCTAssertEqual(started.wait(timeout: .now() + waitDeadline), .success)
        box.dispose()
        gate.signal()
        XCTAssertEqual(producerDone.wait(timeout: .now() + waitDeadline), .success)
        queue.sync {}
        queue.sync {}
        XCTAssertEqual(Tracked.live, 0)
    }
}
