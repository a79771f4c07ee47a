import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// `withoutWaitingForRoom`: a put into a full bounded place of the block
/// policy leaves its value beyond the capacity instead of waiting, and the
/// room signal completes once the place has room again; one table over
/// every bounded place that can wait.
final class Signal_RoomTests: XCTestCase {
    /// One bounded place, stalled until `open`: the operator between the
    /// pipe and the subscriber, what stalls its consumer, and what lets it
    /// go on.
    struct Place: @unchecked Sendable {
        let name: String
        let capacity: Int
        /// The signal to subscribe to, over the pipe's; the values it
        /// delivers, in order, to `deliver`.
        let make: (Signal<Held, SignalOverflowError>, Gate) -> Signal<[Int], SignalOverflowError>
        /// Puts made before the stalled puts (from another thread: a
        /// delivery on the putting thread may be what stalls).
        let prime: (ValuePipe<Held>, Gate) -> Void
        /// Makes room (the values waiting flow) once the gate is open.
        let release: (Gate) -> Void
        /// The most values alive at once beyond the place's capacity and
        /// the one beyond it: those being delivered, the one just made,
        /// the stalling one.
        var inFlight = 3
        /// Waits for what `release` started (zip's other input's puts).
        var finish: (Gate) -> Void = { _ in }
    }

    /// A gate that, once open, stays open; `stalled` counts the callers
    /// that waited on it while it was shut.
    final class Gate: @unchecked Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let other = ValuePipe<Held>()
        let otherDone = DispatchSemaphore(value: 0)

        func pass() {
            self.entered.signal()
            self.semaphore.wait()
            self.semaphore.signal()
        }

        func open() {
            self.semaphore.signal()
        }

        /// A serial queue held by this gate (its first work passes it).
        func stall(_ name: String) -> Queue {
            let queue = Queue(name: name)
            queue.async { self.pass() }
            return queue
        }
    }

    static var places: [Place] { [
        Place(name: "deliverOn", capacity: 4, make: { signal, gate in
            let queue = gate.stall("room.deliverOn")
            return signal |> deliverOn(queue, capacity: 4, overflow: .block) |> map { [$0.payload] }
        }, prime: { _, gate in gate.entered.wait() }, release: { _ in }),
        Place(name: "onBackpressureBuffer", capacity: 4, make: { signal, gate in
            return signal |> onBackpressureBuffer(capacity: 4, overflow: .block) |> map { value in
                if value.payload == -1 {
                    gate.pass()
                }
                return [value.payload]
            }
        }, prime: { pipe, gate in
            // The delivery of -1, on a thread of its own, stalls.
            DispatchQueue.global().async { pipe.putNext(Held(-1)) }
            gate.entered.wait()
        }, release: { _ in }),
        Place(name: "mergeMap", capacity: 4, make: { signal, gate in
            let queue = gate.stall("room.mergeMap")
            return signal |> mergeMap(maxConcurrent: 1, capacity: 4, overflow: .block) { value in
                let payload = value.payload
                return Signal<[Int], SignalOverflowError> { subscriber in
                    queue.async {
                        subscriber.putNext([payload])
                        subscriber.putCompletion()
                    }
                    return EmptyDisposable
                }
            }
        }, prime: { _, gate in gate.entered.wait() }, release: { _ in }),
        Place(name: "buffer(timeSpan:)", capacity: 4, make: { signal, gate in
            let queue = gate.stall("room.buffer")
            return signal |> buffer(timeSpan: 0.001, queue: queue, capacity: 4, overflow: .block) |> map { $0.map { $0.payload } }
        }, prime: { _, gate in gate.entered.wait() }, release: { _ in }, inFlight: 4 + 1 + 1),
        Place(name: "zip", capacity: 4, make: { signal, gate in
            return zip(signal, gate.other.signal() |> castError(SignalOverflowError.self), capacity: 4, overflow: .block) |> map { [$0.0.payload] }
        }, prime: { _, _ in }, release: { gate in
            // The other input's values make room (one pair each).
            DispatchQueue.global().async {
                for value in 0 ..< 64 {
                    gate.other.putNext(Held(value))
                }
                gate.otherDone.signal()
            }
        }, inFlight: 4 + 1 + 2 + 1, finish: { gate in
            // Its queue (it may run ahead, waiting for room itself), its
            // value being put, the pair delivered, the value being made.
            XCTAssertEqual(gate.otherDone.wait(timeout: .now() + 30), .success, "the other input's puts ended")
        }),
    ] }

    override func tearDown() {
        XCTAssertEqual(Held.live, 0, "every value is released")
        super.tearDown()
    }

    /// A producer that puts each value without waiting and waits for each
    /// room signal's completion before its next put: no put waits (the
    /// producer runs while the consumer is stalled), the first room signal
    /// comes with the value after the capacity and completes only once the
    /// consumer goes on, the place holds at most its capacity and the one
    /// value beyond it, and every value arrives once, in order.
    func testAPutWithoutWaitingFillsBeyondTheCapacityByOneAndItsRoomSignalCompletesWithRoom() {
        for place in Self.places {
            let gate = Gate()
            let pipe = ValuePipe<Held>()
            let lock = Lock()
            var delivered: [Int] = []
            var failure: SignalOverflowError?
            let total = 64
            let last = DispatchSemaphore(value: 0)
            let disposable = place.make(pipe.signal() |> castError(SignalOverflowError.self), gate).start(next: { values in
                lock.locked { delivered.append(contentsOf: values) }
                if values.contains(total - 1) {
                    last.signal()
                }
            }, error: { error in lock.locked { failure = error }; last.signal() })
            place.prime(pipe, gate)
            let produced = DispatchSemaphore(value: 0)
            let firstRoomAt = Atomic<Int>(value: -1)
            let completedEarly = Atomic<Bool>(value: false)
            let mostHeld = Atomic<Int>(value: 0)
            DispatchQueue.global().async {
                for value in 0 ..< total {
                    let (_, room) = withoutWaitingForRoom {
                        pipe.putNext(Held(value))
                    }
                    _ = mostHeld.modify { Swift.max($0, Held.live) }
                    guard let room else {
                        continue
                    }
                    let completed = DispatchSemaphore(value: 0)
                    let first = firstRoomAt.with { $0 } < 0
                    let wait = room.start(completed: { completed.signal() })
                    if first {
                        _ = firstRoomAt.swap(value)
                        // The consumer is stalled: no room yet.
                        if completed.wait(timeout: .now()) == .success {
                            _ = completedEarly.swap(true)
                            completed.signal()
                        }
                        gate.open()
                        place.release(gate)
                    }
                    if completed.wait(timeout: .now() + 30) != .success {
                        XCTFail("\(place.name): the room signal never completed")
                        break
                    }
                    wait.dispose()
                }
                produced.signal()
            }
            if produced.wait(timeout: .now() + 60) != .success {
                XCTFail("\(place.name): a put waited for room")
                gate.open()
                place.release(gate)
                produced.wait()
            }
            gate.open()
            let expected = Array(0 ..< total)
            XCTAssertEqual(last.wait(timeout: .now() + 30), .success, "\(place.name): the last value arrived")
            place.finish(gate)
            disposable.dispose()
            var got: [Int] = []
            var failed: SignalOverflowError?
            lock.locked {
                got = delivered.filter { $0 >= 0 }
                failed = failure
            }
            XCTAssertNil(failed, place.name)
            XCTAssertEqual(got, expected, "\(place.name): every value once, in order")
            let at = firstRoomAt.with { $0 }
            XCTAssertGreaterThanOrEqual(at, place.capacity - 1, "\(place.name): the first room signal came before the place was full")
            XCTAssertLessThanOrEqual(at, place.capacity + 1, "\(place.name): a room signal came with the value after the capacity")
            XCTAssertFalse(completedEarly.with { $0 }, "\(place.name): the room signal completed while the consumer was stalled")
            XCTAssertLessThanOrEqual(mostHeld.with { $0 }, place.capacity + 1 + place.inFlight, place.name)
        }
    }

    /// The consumer disposed while a room signal waits: the place ends,
    /// nothing is left to wait for, and the room signal completes (once
    /// the stalled drain runs and finds the subscription ended, as a
    /// waiting producer is woken) without the values being delivered.
    func testARoomSignalCompletesWhenItsPlaceEnds() {
        let gate = Gate()
        let queue = gate.stall("room.end")
        gate.entered.wait()
        let pipe = ValuePipe<Held>()
        let delivered = Atomic<Int>(value: 0)
        let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> deliverOn(queue, capacity: 2, overflow: .block)).start(next: { _ in
            _ = delivered.modify { $0 + 1 }
        })
        var room: Signal<Never, NoError>?
        for value in 0 ..< 3 {
            room = withoutWaitingForRoom { pipe.putNext(Held(value)) }.room
        }
        guard let room else {
            XCTFail("the third put filled the place beyond its capacity")
            gate.open()
            return
        }
        let completed = DispatchSemaphore(value: 0)
        let wait = room.start(completed: { completed.signal() })
        XCTAssertEqual(completed.wait(timeout: .now()), .timedOut, "no room while the consumer is stalled")
        disposable.dispose()
        gate.open()
        XCTAssertEqual(completed.wait(timeout: .now() + 30), .success, "the room signal completed")
        queue.sync {}
        XCTAssertEqual(delivered.with { $0 }, 0, "nothing delivered after the dispose")
        wait.dispose()
    }

    /// A place freed while a room signal waits on it (a zip whose leading
    /// input filled its queue beyond the capacity, then every handle let
    /// go, nothing disposed and nothing woken): the room signal does not
    /// keep it alive, and completes once it is gone.
    func testARoomSignalCompletesWhenItsPlaceIsFreed() {
        var a: ValuePipe<Held>? = ValuePipe<Held>()
        var b: ValuePipe<Held>? = ValuePipe<Held>()
        var disposable: Disposable? = zip(a!.signal() |> castError(SignalOverflowError.self), b!.signal() |> castError(SignalOverflowError.self), capacity: 2, overflow: .block).start()
        var room: Signal<Never, NoError>?
        for value in 0 ..< 3 {
            room = withoutWaitingForRoom { a?.putNext(Held(value)) }.room
        }
        guard let room else {
            XCTFail("the third value filled the zip's queue beyond its capacity")
            return
        }
        let completed = DispatchSemaphore(value: 0)
        let wait = room.start(completed: { completed.signal() })
        XCTAssertEqual(completed.wait(timeout: .now()), .timedOut, "no room while the other input sends nothing")
        disposable = nil
        a = nil
        b = nil
        XCTAssertEqual(completed.wait(timeout: .now() + 30), .success, "the room signal completed once its place was gone")
        wait.dispose()
        withExtendedLifetime(disposable) {}
    }

    /// `values(capacity:overflow: .block)`, the reader's ring: a producer
    /// on another thread puts without waiting while the reader sits on its
    /// first value; the put after the capacity returns a room signal, which
    /// completes once the reader reads on; every value arrives in order.
    func testARoomSignalOfTheReadersRingCompletesWhenTheReaderReadsOn() async throws {
        let capacity = 2
        let pipe = ValuePipe<Int>()
        let subscribed = DispatchSemaphore(value: 0)
        let source = Signal<Int, SignalOverflowError> { subscriber in
            let disposable = pipe.signal().start(next: { subscriber.putNext($0) }, completed: { subscriber.putCompletion() })
            subscribed.signal()
            return disposable
        }
        var iterator = source.values(capacity: capacity, overflow: .block).makeAsyncIterator()
        let roomAt = Atomic<Int>(value: -1)
        let completedEarly = Atomic<Bool>(value: false)
        let roomCompleted = Atomic<Bool>(value: false)
        let filled = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            subscribed.wait()
            var room: Signal<Never, NoError>?
            for value in 0 ..< capacity + 2 {
                if let made = withoutWaitingForRoom({ pipe.putNext(value) }).room {
                    _ = roomAt.swap(value)
                    room = made
                }
            }
            let completed = DispatchSemaphore(value: 0)
            let wait = room?.start(completed: { completed.signal() })
            _ = completedEarly.swap(completed.wait(timeout: .now()) == .success)
            filled.signal()
            _ = roomCompleted.swap(completed.wait(timeout: .now() + 30) == .success)
            wait?.dispose()
            pipe.putCompletion()
        }
        var got: [Int] = []
        if let first = try await iterator.next() {
            got.append(first)
        }
        // The reader sits on its first value until the producer filled the ring.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                filled.wait()
                continuation.resume()
            }
        }
        while let value = try await iterator.next() {
            got.append(value)
        }
        XCTAssertEqual(got, Array(0 ..< capacity + 2))
        // 0 went to the waiting reader (or, put before the reader waited,
        // into the ring), the next ones filled the ring, the last went
        // beyond it.
        XCTAssertTrue([capacity, capacity + 1].contains(roomAt.with { $0 }), "room signal at \(roomAt.with { $0 })")
        XCTAssertFalse(completedEarly.with { $0 }, "no room while the reader sat")
        XCTAssertTrue(roomCompleted.with { $0 }, "the room signal completed once the reader read on")
    }

    /// Scopes nest: an inner scope's room signal names the places of its
    /// own puts only, and the outer scope goes on after it ends.
    func testScopesNest() {
        let gate = Gate()
        let queue = gate.stall("room.nest")
        gate.entered.wait()
        let pipe = ValuePipe<Held>()
        let disposable = (pipe.signal() |> castError(SignalOverflowError.self) |> deliverOn(queue, capacity: 1, overflow: .block)).start()
        let outer = withoutWaitingForRoom { () -> Signal<Never, NoError>? in
            pipe.putNext(Held(0))
            let inner = withoutWaitingForRoom { pipe.putNext(Held(1)) }.room
            pipe.putNext(Held(2))
            return inner
        }
        XCTAssertNotNil(outer.result, "the inner scope's put filled the place")
        XCTAssertNotNil(outer.room, "the outer scope's put after the inner scope filled it too")
        XCTAssertNil(withoutWaitingForRoom { () -> Void in }.room, "a scope without puts has nothing to wait for")
        gate.open()
        let completed = DispatchSemaphore(value: 0)
        let wait = outer.room?.start(completed: { completed.signal() })
        XCTAssertEqual(completed.wait(timeout: .now() + 30), .success)
        wait?.dispose()
        disposable.dispose()
        queue.sync {}
    }
}
