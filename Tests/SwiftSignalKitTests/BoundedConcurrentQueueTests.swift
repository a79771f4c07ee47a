import XCTest
import Dispatch
import Synchronization
import SwiftSignalKit
import SwiftSignalKitTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Counts the tasks running at once and the most there ever were.
private final class Occupancy: Sendable {
    let running = Synchronization.Atomic<Int>(0)
    let most = Synchronization.Atomic<Int>(0)
    let finished = Synchronization.Atomic<Int>(0)

    func enter() {
        let now = self.running.add(1, ordering: .sequentiallyConsistent).newValue
        var seen = self.most.load(ordering: .sequentiallyConsistent)
        while now > seen {
            let (exchanged, original) = self.most.compareExchange(expected: seen, desired: now, ordering: .sequentiallyConsistent)
            if exchanged {
                break
            }
            seen = original
        }
    }

    func leave() {
        self.running.subtract(1, ordering: .sequentiallyConsistent)
        self.finished.add(1, ordering: .sequentiallyConsistent)
    }
}

final class BoundedConcurrentQueueTests: XCTestCase {
    /// 12 jobs that block until released on a queue of 3 workers: 3 run at
    /// once (each signals on entry), the fourth waits for a worker; once
    /// released, all 12 run, never more than 3 at once.
    func testNeverMoreThanMaxWorkersJobsRunAtOnce() throws {
        let queue = try Queue.makeBoundedConcurrent(maxWorkers: 3, name: "bounded")
        XCTAssertEqual(queue.maxWorkers, 3)
        let occupancy = Occupancy()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let jobs = 12
        for _ in 0 ..< jobs {
            done.enter()
            queue.async {
                occupancy.enter()
                entered.signal()
                gate.wait()
                occupancy.leave()
                done.leave()
            }
        }
        for _ in 0 ..< 3 {
            XCTAssertEqual(entered.wait(timeout: .now() + waitDeadline), .success, "3 jobs run at once")
        }
        // Every worker is blocked: no fourth job can have started.
        XCTAssertEqual(entered.wait(timeout: .now()), .timedOut)
        XCTAssertEqual(occupancy.running.load(ordering: .sequentiallyConsistent), 3)
        for _ in 0 ..< jobs {
            gate.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(occupancy.finished.load(ordering: .sequentiallyConsistent), jobs)
        XCTAssertEqual(occupancy.most.load(ordering: .sequentiallyConsistent), 3)
    }

    /// Many short jobs from several threads: every one runs once, on at most
    /// `maxWorkers` distinct threads (order is not promised).
    func testEveryJobRunsOnceOnAtMostMaxWorkersThreads() throws {
        let queue = try Queue.makeBoundedConcurrent(maxWorkers: 2)
        // The library's Atomic (a pthread mutex, which ThreadSanitizer sees),
        // not Synchronization.Mutex (a futex on Linux, which it does not: its
        // accesses read as a race under make test-swift-tsan).
        let ran = SwiftSignalKit.Atomic<(jobs: Set<Int>, threads: Set<UInt>)>(value: ([], []))
        let occupancy = Occupancy()
        let done = DispatchGroup()
        let total = 2_000
        DispatchQueue.concurrentPerform(iterations: 4) { part in
            for i in stride(from: part, to: total, by: 4) {
                done.enter()
                queue.async {
                    occupancy.enter()
                    let thread = UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))
                    var again = false
                    _ = ran.modify { state in
                        var state = state
                        again = !state.jobs.insert(i).inserted
                        state.threads.insert(thread)
                        return state
                    }
                    XCTAssertFalse(again, "job \(i) ran twice")
                    occupancy.leave()
                    done.leave()
                }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        ran.with {
            XCTAssertEqual($0.jobs.count, total)
            XCTAssertLessThanOrEqual($0.threads.count, 2)
        }
        XCTAssertLessThanOrEqual(occupancy.most.load(ordering: .sequentiallyConsistent), 2)
    }

    func testWorkerCountsOutsideTheRangeAreRefused() {
        for count in [0, -1, Int.min, Queue.maxBoundedConcurrentWorkers + 1, Int.max] {
            XCTAssertThrowsError(try Queue.makeBoundedConcurrent(maxWorkers: count)) { error in
                XCTAssertEqual(error as? BoundedConcurrentQueueError, .invalidWorkerCount(count))
                XCTAssertTrue("\(error)".contains("1 to 1024 workers"), "\(error)")
            }
        }
        XCTAssertNil(Queue(name: "serial").maxWorkers)
    }

    /// A thread the system refuses ends the creation: the error says which,
    /// and the threads already started have exited when it is thrown (each
    /// held the core, +1, until its end: the core is gone at the throw; a
    /// tester's immediate retry was refused for threads still on their way
    /// out, 4 of 11 runs).
    func testARefusedThreadIsAnErrorNotATrapAndLeavesNoThread() {
        for _ in 0 ..< 20 {
            let starts = Synchronization.Atomic<Int>(0)
            weak var core: AnyObject?
            XCTAssertThrowsError(try Queue.makeBoundedConcurrent(maxWorkers: 4, name: nil, startThread: { context in
                if starts.add(1, ordering: .relaxed).newValue > 2 {
                    return (EAGAIN, nil)
                }
                core = Unmanaged<AnyObject>.fromOpaque(context).takeUnretainedValue()
                return Queue.startBoundedConcurrentThreadForTesting(context)
            })) { error in
                XCTAssertEqual(error as? BoundedConcurrentQueueError, .threadRefused(errno: EAGAIN, started: 2))
                XCTAssertTrue("\(error)".contains("refused worker thread 3"), "\(error)")
            }
            XCTAssertNil(core, "a started thread still held the core when the creation failed")
        }
        XCTAssertThrowsError(try Queue.makeBoundedConcurrent(maxWorkers: 1, name: nil, startThread: { _ in (ENOMEM, nil) })) { error in
            XCTAssertEqual(error as? BoundedConcurrentQueueError, .threadRefused(errno: ENOMEM, started: 0))
        }
    }

    /// With one worker, a job that syncs onto its own queue runs the work at
    /// once (waiting for another worker would wait for ever); the queue is
    /// never current, as a global concurrent queue.
    func testSyncFromItsOwnWorkRunsThereAndTheQueueIsNeverCurrent() throws {
        let queue = try Queue.makeBoundedConcurrent(maxWorkers: 1)
        let seen = SwiftSignalKit.Atomic<[String]>(value: [])
        let done = DispatchSemaphore(value: 0)
        queue.async {
            _ = seen.modify { $0 + ["job current \(queue.isCurrent())"] }
            queue.sync {
                _ = seen.modify { $0 + ["sync"] }
            }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        var fromOutside = false
        queue.sync {
            fromOutside = true
        }
        XCTAssertTrue(fromOutside)
        XCTAssertEqual(seen.with { $0 }, ["job current false", "sync"])
    }

    /// The last reference released with jobs waiting for the one worker:
    /// the release returns at once (the queue is gone), and every job still
    /// runs.
    func testReleasingTheQueueWithJobsPendingRunsThem() throws {
        let occupancy = Occupancy()
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        weak var gone: Queue?
        do {
            let queue = try Queue.makeBoundedConcurrent(maxWorkers: 1)
            gone = queue
            for _ in 0 ..< 5 {
                done.enter()
                queue.async {
                    occupancy.enter()
                    gate.wait()
                    occupancy.leave()
                    done.leave()
                }
            }
        }
        XCTAssertNil(gone, "the jobs do not hold the queue")
        for _ in 0 ..< 5 {
            gate.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(occupancy.finished.load(ordering: .sequentiallyConsistent), 5)
        XCTAssertEqual(occupancy.most.load(ordering: .sequentiallyConsistent), 1)
    }

    /// `after` and an operator scheduling on the queue run their work there.
    func testAfterAndDeliverOnRunOnTheQueue() throws {
        let queue = try Queue.makeBoundedConcurrent(maxWorkers: 2)
        let fired = DispatchSemaphore(value: 0)
        queue.after(0.001) {
            fired.signal()
        }
        XCTAssertEqual(fired.wait(timeout: .now() + waitDeadline), .success)
        let values = SwiftSignalKit.Atomic<[Int]>(value: [])
        let completed = DispatchSemaphore(value: 0)
        let disposable = (Signal<Int, NoError>.single(7) |> deliverOn(queue)).start(next: { value in
            _ = values.modify { $0 + [value] }
        }, completed: {
            completed.signal()
        })
        XCTAssertEqual(completed.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(values.with { $0 }, [7])
        disposable.dispose()
    }
}
