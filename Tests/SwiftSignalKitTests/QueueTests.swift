import XCTest
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class QueueTests: XCTestCase {
    /// True on the process's main thread, found independently of the library:
    /// on Linux the main thread's id equals the process id.
    private static func isMainThread() -> Bool {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: 128)
        let length = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        precondition(length > 0)
        let path = String(decoding: buffer[0 ..< length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path == "\(getpid())/task/\(getpid())"
        #else
        return pthread_main_np() != 0
        #endif
    }

    /// What one piece of work observed about where it ran.
    private struct Observation: Equatable {
        var mainThread: Bool
        var current: Bool

        /// Where the caller runs now, `queue` being the one it expects.
        static func here(expecting queue: Queue) -> Observation {
            return Observation(mainThread: QueueTests.isMainThread(), current: queue.isCurrent())
        }
    }

    /// Runs work on `queue` that hands a second piece of work to `submit`
    /// from inside itself, and returns the order they ran in: [1, 2, 3] when
    /// the second ran inline, [1, 3, 2] when it was deferred. The second must
    /// run on `queue` either way.
    private func orderOfNestedSubmission(on queue: Queue, file: StaticString = #filePath, line: UInt = #line, _ submit: @escaping (_ work: @escaping () -> Void) -> Void) -> [Int] {
        let order = Atomic<[Int]>(value: [])
        let done = DispatchGroup()
        done.enter()
        done.enter()
        queue.async {
            order.modify { $0 + [1] }
            submit {
                order.modify { $0 + [2] }
                XCTAssertTrue(queue.isCurrent(), file: file, line: line)
                done.leave()
            }
            order.modify { $0 + [3] }
            done.leave()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success, file: file, line: line)
        return order.with { $0 }
    }

    // MARK: - The main queue

    func testTestMethodsRunOnTheMainThread() {
        // The main-queue tests below rely on this.
        XCTAssertTrue(QueueTests.isMainThread())
    }

    func testMainQueueIsCurrentOnTheMainThread() {
        XCTAssertTrue(QueueTests.isMainThread())
        XCTAssertTrue(Queue.mainQueue().isCurrent())
        XCTAssertTrue(Queue.mainQueue() === Queue.mainQueue())
        // DispatchQueue.main is a fresh wrapper on each access on Linux: compare labels.
        XCTAssertEqual(Queue.mainQueue().queue.label, DispatchQueue.main.label)
    }

    func testMainQueueIsNotCurrentElsewhere() {
        let onGlobal = Atomic<Bool?>(value: nil)
        let onSerial = Atomic<Bool?>(value: nil)
        let onThread = Atomic<Bool?>(value: nil)
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            onGlobal.swap(Queue.mainQueue().isCurrent())
            group.leave()
        }
        group.enter()
        Queue().async {
            onSerial.swap(Queue.mainQueue().isCurrent())
            group.leave()
        }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        runThreads(1) { _ in
            onThread.swap(Queue.mainQueue().isCurrent())
        }
        XCTAssertEqual(onGlobal.with { $0 }, false)
        XCTAssertEqual(onSerial.with { $0 }, false)
        XCTAssertEqual(onThread.with { $0 }, false)
    }

    func testMainQueueAsyncOnTheMainThreadRunsInline() {
        var order: [Int] = []
        order.append(1)
        Queue.mainQueue().async {
            order.append(2)
        }
        order.append(3)
        XCTAssertEqual(order, [1, 2, 3])
    }

    func testMainQueueWorkFromAnotherThreadRunsOnTheMainThreadWhileXCTestWaits() {
        let observations = Atomic<[Observation]>(value: [])
        let order = Atomic<[Int]>(value: [])
        let done = self.expectation(description: "main-queue work ran")
        done.expectedFulfillmentCount = 3
        DispatchQueue.global().async {
            for i in 0 ..< 3 {
                Queue.mainQueue().async {
                    observations.modify { $0 + [Observation.here(expecting: Queue.mainQueue())] }
                    order.modify { $0 + [i] }
                    done.fulfill()
                }
            }
        }
        self.wait(for: [done], timeout: 10)
        XCTAssertEqual(observations.with { $0 }, [Observation](repeating: Observation(mainThread: true, current: true), count: 3))
        XCTAssertEqual(order.with { $0 }, [0, 1, 2])
    }

    func testMainQueueWorkDoesNotRunWhileTheMainThreadIsBlocked() {
        let ran = DispatchSemaphore(value: 0)
        let done = self.expectation(description: "main-queue work ran")
        let enqueued = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            Queue.mainQueue().async {
                ran.signal()
                done.fulfill()
            }
            enqueued.signal()
        }
        XCTAssertEqual(enqueued.wait(timeout: .now() + waitDeadline), .success)
        // Blocking the main thread on a semaphore does not drain the main
        // dispatch queue: only the run loop (or dispatchMain) does.
        XCTAssertEqual(ran.wait(timeout: .now() + 0.05), .timedOut)
        self.wait(for: [done], timeout: 10)
        XCTAssertEqual(ran.wait(timeout: .now() + waitDeadline), .success)
    }

    func testMainQueueAfterRunsOnTheMainThreadWhileXCTestWaits() {
        let observation = Atomic<Observation?>(value: nil)
        let done = self.expectation(description: "main-queue after ran")
        Queue.mainQueue().after(0.02) {
            observation.swap(Observation.here(expecting: Queue.mainQueue()))
            done.fulfill()
        }
        XCTAssertNil(observation.with { $0 })
        self.wait(for: [done], timeout: 10)
        XCTAssertEqual(observation.with { $0 }, Observation(mainThread: true, current: true))
    }

    func testMainQueueJustDispatchFromTheMainThreadIsDeferred() {
        let order = Atomic<[String]>(value: [])
        let done = self.expectation(description: "dispatched work ran")
        Queue.mainQueue().justDispatch {
            order.modify { $0 + ["dispatched"] }
            done.fulfill()
        }
        order.modify { $0 + ["caller"] }
        self.wait(for: [done], timeout: 10)
        XCTAssertEqual(order.with { $0 }, ["caller", "dispatched"])
    }

    func testMainQueueSyncFromAnotherThreadCompletesWhileXCTestWaits() {
        let observation = Atomic<Observation?>(value: nil)
        let done = self.expectation(description: "sync returned")
        DispatchQueue.global().async {
            Queue.mainQueue().sync {
                observation.swap(Observation.here(expecting: Queue.mainQueue()))
            }
            // sync returned: the work has run.
            XCTAssertNotNil(observation.with { $0 })
            done.fulfill()
        }
        self.wait(for: [done], timeout: 10)
        XCTAssertEqual(observation.with { $0 }, Observation(mainThread: true, current: true))
    }

    func testMainQueueSyncOnTheMainThreadRunsInline() {
        var ran = false
        Queue.mainQueue().sync {
            ran = true
        }
        XCTAssertTrue(ran)
    }

    // MARK: - Serial queues

    func testNewQueueIsNotCurrentOutsideItsWork() {
        let queue = Queue(name: "QueueTests.outside")
        XCTAssertFalse(queue.isCurrent())
        XCTAssertFalse(Queue().isCurrent())
    }

    func testAsyncFromOutsideRunsOnTheQueue() {
        let queue = Queue(name: "QueueTests.async")
        let observation = Atomic<Observation?>(value: nil)
        let done = DispatchSemaphore(value: 0)
        queue.async {
            observation.swap(Observation.here(expecting: queue))
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(observation.with { $0 }, Observation(mainThread: false, current: true))
    }

    func testAsyncRunsInlineWhenAlreadyOnTheQueue() {
        let queue = Queue()
        XCTAssertEqual(self.orderOfNestedSubmission(on: queue) { queue.async($0) }, [1, 2, 3])
    }

    func testJustDispatchNeverRunsInline() {
        let queue = Queue()
        XCTAssertEqual(self.orderOfNestedSubmission(on: queue) { queue.justDispatch($0) }, [1, 3, 2])
    }

    func testJustDispatchWithQoSNeverRunsInline() {
        let queue = Queue()
        XCTAssertEqual(self.orderOfNestedSubmission(on: queue) { queue.justDispatchWithQoS(qos: .userInitiated, $0) }, [1, 3, 2])
    }

    func testSyncRunsOnTheQueueAfterEarlierWorkAndWaits() {
        let queue = Queue()
        let order = Atomic<[String]>(value: [])
        let release = DispatchSemaphore(value: 0)
        queue.async {
            _ = release.wait(timeout: .now() + waitDeadline)
            order.modify { $0 + ["earlier"] }
        }
        release.signal()
        var current = false
        queue.sync {
            current = queue.isCurrent()
            order.modify { $0 + ["sync"] }
        }
        // No waiting needed: sync returns after its work has run.
        XCTAssertTrue(current)
        XCTAssertEqual(order.with { $0 }, ["earlier", "sync"])
    }

    func testSyncFromInsideTheQueueRunsInlineWithoutDeadlock() {
        let queue = Queue()
        XCTAssertEqual(self.orderOfNestedSubmission(on: queue) { work in queue.sync { work() } }, [1, 2, 3])
    }

    func testAfterRunsLaterOnTheQueue() {
        let queue = Queue()
        let order = Atomic<[String]>(value: [])
        let current = Atomic<Bool>(value: false)
        let done = DispatchSemaphore(value: 0)
        queue.after(0.02) {
            current.swap(queue.isCurrent())
            order.modify { $0 + ["after"] }
            done.signal()
        }
        // Enqueued after the call to `after`, but due at once: runs first.
        queue.justDispatch {
            order.modify { $0 + ["immediate"] }
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(order.with { $0 }, ["immediate", "after"])
        XCTAssertTrue(current.with { $0 })
    }

    func testAfterWithTheLongerDelayRunsLater() {
        let queue = Queue()
        let order = Atomic<[Int]>(value: [])
        let done = DispatchSemaphore(value: 0)
        queue.after(0.06) {
            order.modify { $0 + [2] }
            done.signal()
        }
        queue.after(0.01) {
            order.modify { $0 + [1] }
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(order.with { $0 }, [1, 2])
    }

    func testIsCurrentIsFalseOnAnotherQueue() {
        let first = Queue(name: "QueueTests.first")
        let second = Queue(name: "QueueTests.second")
        let observed = Atomic<[Bool]>(value: [])
        let done = DispatchSemaphore(value: 0)
        first.async {
            observed.modify { $0 + [first.isCurrent(), second.isCurrent()] }
            second.async {
                observed.modify { $0 + [first.isCurrent(), second.isCurrent()] }
                done.signal()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        // A sync hop from `first` into `second` does not make `first` current.
        XCTAssertEqual(observed.with { $0 }, [true, false, false, true])
    }

    func testSyncHopIntoAnotherQueueIsCurrentOnlyThere() {
        let first = Queue()
        let second = Queue()
        let observed = Atomic<[Bool]>(value: [])
        first.sync {
            second.sync {
                observed.modify { $0 + [first.isCurrent(), second.isCurrent()] }
            }
        }
        XCTAssertEqual(observed.with { $0 }, [false, true])
    }

    func testIsCurrentStaysRightAfterItHasLearnedItsQueue() {
        // After the first confirmation on its queue, `isCurrent` answers from
        // the raw dispatch specific it learned: it must still say false on
        // other queues and threads, and true again on its own.
        let first = Queue(name: "QueueTests.learn.first")
        let second = Queue(name: "QueueTests.learn.second")
        var observed: [Bool] = []
        first.sync {
            observed.append(first.isCurrent())
            observed.append(first.isCurrent())
        }
        second.sync {
            observed.append(first.isCurrent())
            observed.append(second.isCurrent())
            observed.append(second.isCurrent())
        }
        observed.append(first.isCurrent())
        DispatchQueue(label: "QueueTests.learn.plain").sync {
            observed.append(first.isCurrent())
            observed.append(second.isCurrent())
        }
        first.sync {
            observed.append(first.isCurrent())
            observed.append(second.isCurrent())
        }
        XCTAssertEqual(observed, [true, true, false, true, true, false, false, false, true, false])
    }

    func testWrappersOfOneDispatchQueueRecogniseEachOther() {
        let dispatchQueue = DispatchQueue(label: "QueueTests.shared")
        let first = Queue(queue: dispatchQueue)
        let second = Queue(queue: dispatchQueue)
        XCTAssertTrue(first.queue === dispatchQueue)
        XCTAssertTrue(second.queue === dispatchQueue)
        let observed = Atomic<[Bool]>(value: [])
        let order = Atomic<[Int]>(value: [])
        let done = DispatchSemaphore(value: 0)
        first.async {
            observed.modify { $0 + [first.isCurrent(), second.isCurrent()] }
            order.modify { $0 + [1] }
            second.async {
                order.modify { $0 + [2] }
            }
            order.modify { $0 + [3] }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(observed.with { $0 }, [true, true])
        XCTAssertEqual(order.with { $0 }, [1, 2, 3])

        // Work submitted to the dispatch queue directly is recognised too.
        dispatchQueue.async {
            observed.modify { $0 + [first.isCurrent(), second.isCurrent()] }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(observed.with { $0 }, [true, true, true, true])
    }

    func testAWrapperOfTheMainDispatchQueueMadeBeforeMainQueueIsStillCurrent() {
        // `Queue(queue: DispatchQueue.main)` made before the first
        // `Queue.mainQueue()` (which is made on first use): the main queue's
        // initializer replaced the dispatch queue's mark, so the wrapper was
        // never current again and its `sync` from the main thread was a
        // dispatch_sync onto the queue the thread owns (libdispatch stops
        // the process). The same first use, replayed on a queue of our own
        // (the process's main queue was made long ago):
        let dispatchQueue = DispatchQueue(label: "QueueTests.mainStandIn")
        let wrapper = Queue(queue: dispatchQueue)
        let main = Queue(queue: dispatchQueue, specialIsMainQueue: true)
        let later = Queue(queue: dispatchQueue)
        let observed = Atomic<[Bool]>(value: [])
        dispatchQueue.sync {
            observed.modify { $0 + [wrapper.isCurrent(), main.isCurrent(), later.isCurrent()] }
            // Runs inline (a deadlock or a stop otherwise, as above).
            if wrapper.isCurrent() {
                wrapper.sync {
                    observed.modify { $0 + [true] }
                }
            }
        }
        XCTAssertEqual(observed.with { $0 }, [true, true, true, true])
    }

    func testWrapperOfANamedQueuesDispatchQueueIsRecognised() {
        let original = Queue(name: "QueueTests.named")
        let wrapper = Queue(queue: original.queue)
        let observed = Atomic<[Bool]>(value: [])
        let done = DispatchSemaphore(value: 0)
        original.async {
            observed.modify { $0 + [wrapper.isCurrent()] }
            wrapper.async {
                observed.modify { $0 + [original.isCurrent()] }
                done.signal()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(observed.with { $0 }, [true, true])
        XCTAssertFalse(wrapper.isCurrent())
    }

    func testSerialQueueRunsConcurrentSubmissionsOneAtATimeInPerThreadOrder() {
        let threadCount = 6
        let perThread = 2_000
        let queue = Queue()
        final class SerialState: @unchecked Sendable {
            var inside = 0
            var overlaps = 0
            var lastPerThread: [Int]
            var outOfOrder = 0
            var total = 0

            init(threads: Int) {
                self.lastPerThread = [Int](repeating: -1, count: threads)
            }
        }
        let state = SerialState(threads: threadCount)
        runThreads(threadCount) { thread in
            for i in 0 ..< perThread {
                queue.async {
                    state.inside += 1
                    if state.inside != 1 {
                        state.overlaps += 1
                    }
                    if state.lastPerThread[thread] != i - 1 {
                        state.outOfOrder += 1
                    }
                    state.lastPerThread[thread] = i
                    state.total += 1
                    state.inside -= 1
                }
            }
        }
        var total = 0
        var overlaps = -1
        var outOfOrder = -1
        queue.sync {
            total = state.total
            overlaps = state.overlaps
            outOfOrder = state.outOfOrder
        }
        XCTAssertEqual(total, threadCount * perThread)
        XCTAssertEqual(overlaps, 0)
        XCTAssertEqual(outOfOrder, 0)
    }

    // MARK: - Global concurrent queues

    func testConcurrentDefaultQueueRunsWork() {
        let queue = Queue.concurrentDefaultQueue()
        XCTAssertTrue(queue === Queue.concurrentDefaultQueue())
        XCTAssertFalse(queue.isCurrent())
        let count = Atomic<Int>(value: 0)
        let group = DispatchGroup()
        for _ in 0 ..< 100 {
            group.enter()
            queue.async {
                count.modify { $0 + 1 }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(count.with { $0 }, 100)
        var ranSync = false
        queue.sync {
            ranSync = true
        }
        XCTAssertTrue(ranSync)
    }

    func testConcurrentBackgroundQueueRunsWork() {
        let queue = Queue.concurrentBackgroundQueue()
        XCTAssertTrue(queue === Queue.concurrentBackgroundQueue())
        XCTAssertFalse(queue === Queue.concurrentDefaultQueue())
        XCTAssertFalse(queue.isCurrent())
        let count = Atomic<Int>(value: 0)
        let group = DispatchGroup()
        for _ in 0 ..< 100 {
            group.enter()
            queue.async {
                count.modify { $0 + 1 }
                group.leave()
            }
        }
        group.enter()
        queue.after(0.01) {
            count.modify { $0 + 1 }
            group.leave()
        }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(count.with { $0 }, 101)
    }

    func testConcurrentDefaultQueueRunsWorkInParallel() {
        let queue = Queue.concurrentDefaultQueue()
        let firstStarted = DispatchSemaphore(value: 0)
        let secondRan = DispatchSemaphore(value: 0)
        let result = Atomic<DispatchTimeoutResult?>(value: nil)
        let group = DispatchGroup()
        group.enter()
        queue.async {
            firstStarted.signal()
            // Finishes only if the second block can run meanwhile.
            result.swap(secondRan.wait(timeout: .now() + waitDeadline))
            group.leave()
        }
        XCTAssertEqual(firstStarted.wait(timeout: .now() + waitDeadline), .success)
        group.enter()
        queue.async {
            secondRan.signal()
            group.leave()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(result.with { $0 }, .success)
    }
    /// `after` work on a host-drained queue, far from due, is dropped by the
    /// queue's close and released on the closing thread (before: a dispatch
    /// timer kept it until its deadline, then released it on its own thread).
    func testClosingAHostDrainedQueueReleasesAfterWorkNotYetDue() throws {
        let queue = try Queue.makeHostDrained(name: "QueueTests.closeAfter")
        let ran = Counter()
        weak var weakCapture: AfterCapture?
        do {
            let capture = AfterCapture()
            weakCapture = capture
            queue.after(100.0) {
                withExtendedLifetime(capture) {
                }
                ran.increment()
            }
        }
        XCTAssertNotNil(weakCapture)
        queue.closeHostDrained()
        XCTAssertNil(weakCapture, "the work was not released at the close")
        XCTAssertEqual(ran.count, 0)
        // On the queue closed already: released at once.
        do {
            let capture = AfterCapture()
            weakCapture = capture
            queue.after(100.0) {
                withExtendedLifetime(capture) {
                }
                ran.increment()
            }
        }
        XCTAssertNil(weakCapture)
        XCTAssertEqual(ran.count, 0)
    }

    /// `sync` on a host-drained queue that another thread closes while the
    /// sync waits for a drain: the close drops the sync's work and `sync`
    /// returns without having run it (before: it waited for ever). On a
    /// queue closed already, `sync` returns at once, without running it.
    func testSyncOnAHostDrainedQueueReturnsWithoutRunningWhenTheQueueCloses() throws {
        let queue = try Queue.makeHostDrained(name: "QueueTests.syncClose")
        let descriptor = try XCTUnwrap(queue.hostFileDescriptor)
        let ran = Counter()
        let returned = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            queue.sync {
                ran.increment()
            }
            returned.signal()
        }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&entry, 1, 10_000), 1, "the sync's work never became pending")
        queue.closeHostDrained()
        XCTAssertEqual(returned.wait(timeout: .now() + waitDeadline), .success, "sync never returned after the close")
        XCTAssertEqual(ran.count, 0)
        // Closed already (on another thread, so that a hang fails the test).
        DispatchQueue.global().async {
            queue.sync {
                ran.increment()
            }
            returned.signal()
        }
        XCTAssertEqual(returned.wait(timeout: .now() + waitDeadline), .success, "sync on a closed queue never returned")
        XCTAssertEqual(ran.count, 0)
    }

    /// A host-drained queue closed by one of its own tasks during a drain:
    /// the tasks that drain had not run yet are dropped, not run (before:
    /// the drain had taken them out of the queue and ran them after the
    /// close).
    func testClosingAHostDrainedQueueFromItsTaskDropsTheRestOfTheDrain() throws {
        let queue = try Queue.makeHostDrained(name: "QueueTests.closeInside")
        let ran = Counter()
        let released = Counter()
        queue.justDispatch {
            queue.closeHostDrained()
        }
        for _ in 0 ..< 2 {
            let tracker = DeinitTracker {
                released.increment()
            }
            queue.justDispatch {
                withExtendedLifetime(tracker) {
                }
                ran.increment()
            }
        }
        XCTAssertEqual(try queue.drain(), 1)
        XCTAssertEqual(ran.count, 0, "work ran after the close")
        XCTAssertEqual(released.count, 2, "the dropped work was not released during the drain")
        XCTAssertNil(queue.hostFileDescriptor)
    }

    // MARK: - Syncs nested through other queues

    /// Runs `body` in a child process (this test, alone, in the test binary
    /// again) and expects it to end cleanly: the nested syncs below stopped
    /// the process (SIGILL from libdispatch: a dispatch_sync onto a queue
    /// the thread already owns) or hung, which the suite must survive.
    private func expectCleanRunInChild(_ method: String = #function, _ body: () throws -> Void) rethrows {
        if isChildProcess() {
            try body()
            return
        }
        let outcome = runInChildProcess(self, method)
        XCTAssertEqual(outcome.exitStatus, 0, "\(outcome)")
    }

    /// `first.sync { second.sync { first.sync { ... } } }`: the thread holds
    /// `first` through the outer sync, so the inner one runs inline, at
    /// once, where it is (it stopped the process). `isCurrent` keeps its
    /// meaning: inside `second`'s work, only `second` is current.
    func testNestedSyncBackOntoAnOuterSerialQueueRunsInline() {
        expectCleanRunInChild {
            let first = Queue(name: "QueueTests.nested.first")
            let second = Queue(name: "QueueTests.nested.second")
            var log: [String] = []
            first.sync {
                log.append("first")
                second.sync {
                    log.append("second")
                    first.sync {
                        log.append("first again: first current \(first.isCurrent()), second current \(second.isCurrent())")
                        second.sync {
                            log.append("second again")
                        }
                    }
                    log.append("back in second")
                }
            }
            XCTAssertEqual(log, ["first", "second", "first again: first current false, second current true", "second again", "back in second"])
        }
    }

    /// The same from `first`'s asynchronous work: the thread runs it, so it
    /// holds `first` as well (it stopped the process).
    func testNestedSyncBackOntoTheQueueWhoseAsyncWorkRunsRunsInline() {
        expectCleanRunInChild {
            let first = Queue(name: "QueueTests.nestedAsync.first")
            let second = Queue(name: "QueueTests.nestedAsync.second")
            let log = Atomic<[String]>(value: [])
            let done = DispatchSemaphore(value: 0)
            first.async {
                second.sync {
                    first.sync {
                        log.modify { $0 + ["inner"] }
                    }
                }
                log.modify { $0 + ["outer"] }
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
            XCTAssertEqual(log.with { $0 }, ["inner", "outer"])
        }
    }

    /// Wrappers of a dispatch queue (`Queue(queue:)`, as the main queue) are
    /// recognised through their dispatch specific: the same nesting through
    /// another wrapper and a named queue (it stopped the process).
    func testNestedSyncBackOntoAnOuterWrapperQueueRunsInline() {
        expectCleanRunInChild {
            let first = Queue(queue: DispatchQueue(label: "QueueTests.nestedWrapper.first"))
            let second = Queue(queue: DispatchQueue(label: "QueueTests.nestedWrapper.second"))
            let third = Queue(name: "QueueTests.nestedWrapper.third")
            var ran = 0
            first.sync {
                second.sync {
                    third.sync {
                        first.sync {
                            second.sync {
                                ran += 1
                            }
                        }
                    }
                }
            }
            XCTAssertEqual(ran, 1)
        }
    }

    /// A global concurrent queue's `sync` runs the work on the calling
    /// thread and excludes nothing, so a sync onto it never waits for the
    /// thread itself; a sync back onto the serial queue around it runs
    /// inline (it stopped the process).
    func testNestedSyncThroughAConcurrentQueueBackOntoASerialQueueRunsInline() {
        expectCleanRunInChild {
            let serial = Queue(name: "QueueTests.nestedConcurrent")
            let concurrent = Queue.concurrentDefaultQueue()
            var ran = 0
            serial.sync {
                concurrent.sync {
                    serial.sync {
                        concurrent.sync {
                            ran += 1
                        }
                    }
                }
            }
            XCTAssertEqual(ran, 1)
        }
    }

    /// A virtual-time queue's task (run by the advancing thread) syncing
    /// through another queue back onto it: inline (it waited for ever for
    /// an advance, this thread's own).
    func testNestedSyncBackOntoTheVirtualTimeQueueBeingAdvancedRunsInline() throws {
        try expectCleanRunInChild {
            let virtual = Queue.virtualTime(name: "QueueTests.nestedVirtual")
            let other = Queue.virtualTime(name: "QueueTests.nestedVirtual.other")
            let serial = Queue(name: "QueueTests.nestedVirtual.serial")
            var log: [String] = []
            virtual.after(1) {
                serial.sync {
                    virtual.sync {
                        log.append("through serial at \(virtual.virtualNow!)")
                    }
                }
                other.sync {
                    virtual.sync {
                        log.append("through another virtual queue")
                    }
                }
            }
            try virtual.run()
            XCTAssertEqual(log, ["through serial at 1.0", "through another virtual queue"])
            virtual.closeHostDrained()
            other.closeHostDrained()
        }
    }

    /// A host-drained queue's task syncing back onto it through other
    /// queues, on the draining thread: inline. Through a serial queue it
    /// was already (the drain's mark is the thread's); through a
    /// virtual-time queue's sync, or from the task of another host-drained
    /// queue drained inside it, it waited for ever for a drain, this
    /// thread's own.
    func testNestedSyncBackOntoTheHostQueueBeingDrainedRunsInline() throws {
        try expectCleanRunInChild {
            let host = try Queue.makeHostDrained(name: "QueueTests.nestedHost")
            let inner = try Queue.makeHostDrained(name: "QueueTests.nestedHost.inner")
            let virtual = Queue.virtualTime(name: "QueueTests.nestedHost.virtual")
            let serial = Queue(name: "QueueTests.nestedHost.serial")
            var log: [String] = []
            host.justDispatch {
                inner.justDispatch {
                    host.sync {
                        log.append("from a nested drain")
                    }
                }
                XCTAssertEqual(try? inner.drain(), 1)
            }
            host.justDispatch {
                serial.sync {
                    host.sync {
                        log.append("through serial")
                    }
                }
                virtual.sync {
                    host.sync {
                        log.append("through virtual: host current \(host.isCurrent()), virtual current \(virtual.isCurrent())")
                    }
                }
            }
            XCTAssertEqual(try host.drain(), 2)
            XCTAssertEqual(log, ["from a nested drain", "through serial", "through virtual: host current false, virtual current true"])
            host.closeHostDrained()
            inner.closeHostDrained()
            virtual.closeHostDrained()
        }
    }

    /// The main queue is current on the main thread, so a sync back onto it
    /// through a serial queue's sync, from the main thread or from
    /// main-queue work (which XCTest's wait runs there), runs inline.
    func testNestedSyncBackOntoTheMainQueueRunsInline() {
        let serial = Queue(name: "QueueTests.nestedMain")
        var ran = 0
        Queue.mainQueue().sync {
            serial.sync {
                Queue.mainQueue().sync {
                    ran += 1
                }
            }
        }
        XCTAssertEqual(ran, 1)
        let done = self.expectation(description: "main-queue work")
        Queue.mainQueue().justDispatch {
            serial.sync {
                Queue.mainQueue().sync {
                    serial.sync {
                        done.fulfill()
                    }
                }
            }
        }
        self.wait(for: [done], timeout: 30)
    }

    /// What the thread holds ends with the sync that took it: after the
    /// nesting, on another thread, and after the sync returned, a sync onto
    /// the outer queue waits its turn again (it does not run inline while
    /// another thread runs that queue's work).
    func testAHeldQueueIsHeldOnlyByItsThreadAndOnlyDuringTheSync() {
        let first = Queue(name: "QueueTests.held.first")
        let second = Queue(name: "QueueTests.held.second")
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let order = Atomic<[String]>(value: [])
        first.async {
            second.sync {
                inside.signal()
                XCTAssertEqual(release.wait(timeout: .now() + 30), .success)
                order.modify { $0 + ["first's work ends"] }
            }
        }
        XCTAssertEqual(inside.wait(timeout: .now() + 30), .success)
        // `first` is held by the other thread: this sync waits for it.
        let waiter = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            first.sync {
                order.modify { $0 + ["another thread's sync"] }
            }
            waiter.signal()
        }
        release.signal()
        XCTAssertEqual(waiter.wait(timeout: .now() + 30), .success)
        second.sync {
            first.sync {
                order.modify { $0 + ["after"] }
            }
        }
        XCTAssertEqual(order.with { $0 }, ["first's work ends", "another thread's sync", "after"])
    }
}

/// What the work of `testClosingAHostDrainedQueueReleasesAfterWorkNotYetDue`
/// holds.
private final class AfterCapture: @unchecked Sendable {
}
