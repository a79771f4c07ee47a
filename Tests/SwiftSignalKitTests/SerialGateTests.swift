import XCTest
import Foundation
import Dispatch
import Synchronization
@testable import SwiftSignalKit
import SwiftSignalKitTestSupport

/// `_SignalSerialGate` (scan's and pairwise's gate): owned by the first
/// thread that pushes, which then enters with plain stores, until another
/// thread's first push takes the ownership away (`revoke`, a heavy fence).
/// Each handover is forced with semaphores (the owner held inside its
/// handler), not left to chance; the last test races them.
final class SerialGateTests: XCTestCase {
    /// What a handler saw: the events in the order handled, the threads
    /// that handled them, and whether two ever ran at once.
    private final class Record: @unchecked Sendable {
        let lock = NSLock()
        var events: [Int] = []
        var threads: [UInt] = []
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)

        func handle(_ event: Int, _ body: () -> Void = {}) -> Bool {
            if self.inside.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue != 0 {
                self.overlaps.wrappingAdd(1, ordering: .relaxed)
            }
            self.lock.lock()
            self.events.append(event)
            self.threads.append(UInt(pthread_self()))
            self.lock.unlock()
            body()
            self.inside.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            return event >= 0
        }

        var handled: [Int] {
            self.lock.lock()
            defer { self.lock.unlock() }
            return self.events
        }
    }

    private func thread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        return done
    }

    func testTheFirstPushingThreadOwnsTheGateAndItsNestedPushesFollowInOrder() {
        let gate = _SignalSerialGate<Int>()
        let record = Record()
        func handle(_ event: Int) -> Bool {
            return record.handle(event) {
                if event == 1 {
                    // From inside the handler: handled after it, before the
                    // push returns.
                    gate.push(10, handle)
                    gate.push(11, handle)
                }
            }
        }
        gate.push(0, handle)
        gate.push(1, handle)
        gate.push(2, handle)
        XCTAssertEqual(record.handled, [0, 1, 10, 11, 2])
        if gate.owner.load(ordering: .relaxed) != 0 {
            XCTAssertNotEqual(gate.owner.load(ordering: .relaxed), _SignalSerialGate<Int>.revokedOwner, "no other thread pushed")
            XCTAssertEqual(gate.state.load(ordering: .relaxed), 0, "the owner's pushes leave the shared word alone")
            XCTAssertEqual(gate.busy.load(ordering: .relaxed), 0, "the owner is idle between pushes")
        }
    }

    /// Another thread pushes while the owner is inside its handler: the
    /// event waits for it and is handled on the owner's thread, after the
    /// owner's own event, never beside it.
    func testAnotherThreadsPushWhileTheOwnerHandlesWaitsForIt() {
        let gate = _SignalSerialGate<Int>()
        let record = Record()
        let inHandler = DispatchSemaphore(value: 0)
        let mayReturn = DispatchSemaphore(value: 0)
        let owner = Atomic<UInt>(0)
        @Sendable func handle(_ event: Int) -> Bool {
            return record.handle(event) {
                if event == 1 {
                    inHandler.signal()
                    mayReturn.wait()
                }
            }
        }
        let done = self.thread {
            owner.store(UInt(pthread_self()), ordering: .relaxed)
            gate.push(0, handle)
            gate.push(1, handle)
        }
        inHandler.wait()
        gate.push(2, handle)
        XCTAssertEqual(record.handled, [0, 1], "the other thread's event waits for the owner's handler")
        XCTAssertTrue([0, _SignalSerialGate<Int>.revokedOwner].contains(gate.owner.load(ordering: .relaxed)), "no thread owns the gate once another pushed")
        mayReturn.signal()
        done.wait()
        XCTAssertEqual(record.handled, [0, 1, 2])
        XCTAssertEqual(record.threads.last, owner.load(ordering: .relaxed), "handled by the thread that was handling")
        XCTAssertEqual(record.overlaps.load(ordering: .relaxed), 0)
        // Both threads now take the shared mode.
        gate.push(3, handle)
        XCTAssertEqual(record.handled, [0, 1, 2, 3])
        XCTAssertEqual(gate.state.load(ordering: .relaxed), 0)
    }

    /// Another thread pushes while the owner is idle: handled at once, on
    /// the pushing thread; the owner's later pushes take the shared mode.
    func testAnotherThreadsPushWhileTheOwnerIsIdleIsHandledAtOnce() {
        let gate = _SignalSerialGate<Int>()
        let record = Record()
        let pushed = DispatchSemaphore(value: 0)
        let next = DispatchSemaphore(value: 0)
        let done = self.thread {
            gate.push(0) { record.handle($0) }
            pushed.signal()
            next.wait()
            gate.push(2) { record.handle($0) }
        }
        pushed.wait()
        gate.push(1) { record.handle($0) }
        XCTAssertEqual(record.handled, [0, 1])
        XCTAssertEqual(record.threads.last, UInt(pthread_self()))
        next.signal()
        done.wait()
        XCTAssertEqual(record.handled, [0, 1, 2])
        XCTAssertEqual(gate.state.load(ordering: .relaxed), 0, "idle in the shared mode")
    }

    /// A handler that stops (a terminal event) closes the gate in either
    /// mode: later pushes, and what was queued, are dropped.
    func testAStoppingHandlerClosesTheGateInBothModes() {
        for handOver in [false, true] {
            let gate = _SignalSerialGate<Int>()
            let record = Record()
            gate.push(0) { record.handle($0) }
            if handOver {
                self.thread { gate.push(1) { record.handle($0) } }.wait()
            }
            gate.push(-1) { record.handle($0) }
            gate.push(5) { record.handle($0) }
            self.thread { gate.push(6) { record.handle($0) } }.wait()
            XCTAssertEqual(record.handled, handOver ? [0, 1, -1] : [0, -1])
            XCTAssertEqual(gate.state.load(ordering: .relaxed), 3)
        }
    }

    /// The owner and other threads push at once, the handover landing
    /// anywhere: every event handled once, one at a time, each thread's in
    /// the order it pushed them.
    func testRacingPushesAreHandledOnceEachOneAtATimeInEachThreadsOrder() {
        let rounds = loadCount(400)
        for round in 0 ..< rounds {
            let gate = _SignalSerialGate<Int>()
            let record = Record()
            let perThread = 100
            let threads = 2 + round % 3
            runThreads(threads) { index in
                for i in 0 ..< perThread {
                    gate.push(index * 1000 + i) { event in
                        return record.handle(event) {
                            if event % 1000 == 50 {
                                // Nested, from inside the handler.
                                gate.push(event + 500) { record.handle($0) }
                            }
                        }
                    }
                }
            }
            let handled = record.handled
            XCTAssertEqual(handled.count, threads * (perThread + 1), "round \(round)")
            XCTAssertEqual(record.overlaps.load(ordering: .relaxed), 0, "round \(round): two handlers ran at once")
            for index in 0 ..< threads {
                let mine = handled.filter { $0 / 1000 == index && $0 % 1000 < 500 }
                XCTAssertEqual(mine, Array(0 ..< perThread).map { index * 1000 + $0 }, "round \(round), thread \(index)")
            }
            if record.overlaps.load(ordering: .relaxed) != 0 || handled.count != threads * (perThread + 1) {
                return
            }
        }
    }
}

