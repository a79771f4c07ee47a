import XCTest
import Dispatch
import Synchronization
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// Orderings and deadlines on a virtual-time queue; the real clock is used
/// only where the behaviour under test is a race with a real timer.
final class Signal_TimingTests: XCTestCase {
    // MARK: delay

    /// The upstream starts on `queue` exactly `timeout` after the
    /// subscription, not a nanosecond earlier; its values then pass at once.
    private func checkDelaysSubscription(_ operatorUnderTest: (Signal<Int, NoError>) -> Signal<Int, NoError>, queue: Queue, timeout: Double, file: StaticString = #filePath, line: UInt = #line) throws {
        let starts = Counter()
        let startedOnQueue = Atomic<Bool?>(value: nil)
        let startedAt = Atomic<Int64>(value: -1)
        let values = Atomic<[Int]>(value: [])
        let completions = Counter()
        let upstream = Signal<Int, NoError> { subscriber in
            _ = startedAt.swap(queue.virtualNowNanoseconds ?? -1)
            _ = startedOnQueue.swap(queue.isCurrent())
            starts.increment()
            subscriber.putNext(1)
            subscriber.putNext(2)
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let disposable = operatorUnderTest(upstream).start(next: { value in
            _ = values.modify { $0 + [value] }
        }, completed: {
            completions.increment()
        })
        let deadline = Int64((timeout * 1e9).rounded())
        try queue.advance(to: Double(deadline - 1) / 1e9)
        XCTAssertEqual(starts.count, 0, "started early", file: file, line: line)
        try queue.run()
        XCTAssertEqual(starts.count, 1, file: file, line: line)
        XCTAssertEqual(startedAt.with { $0 }, deadline, file: file, line: line)
        XCTAssertEqual(startedOnQueue.with { $0 }, true, file: file, line: line)
        XCTAssertEqual(values.with { $0 }, [1, 2], file: file, line: line)
        XCTAssertEqual(completions.count, 1, file: file, line: line)
        XCTAssertEqual(queue.pendingVirtualWork, 0, "a timer is left", file: file, line: line)
        disposable.dispose()
    }

    private func checkDisposeBeforeFiringNeverStarts(_ operatorUnderTest: (Signal<Int, NoError>) -> Signal<Int, NoError>, queue: Queue, file: StaticString = #filePath, line: UInt = #line) throws {
        let starts = Counter()
        let released = Counter()
        do {
            let tracker = DeinitTracker { released.increment() }
            let upstream = Signal<Int, NoError> { _ in
                _ = tracker
                starts.increment()
                return EmptyDisposable
            }
            let disposable = operatorUnderTest(upstream).start()
            XCTAssertEqual(queue.pendingVirtualWork, 1, file: file, line: line)
            disposable.dispose()
        }
        // The invalidated timer and everything it captured are gone at once,
        // its task too.
        XCTAssertEqual(released.count, 1, file: file, line: line)
        XCTAssertEqual(queue.pendingVirtualWork, 0, file: file, line: line)
        try queue.advance(by: 10)
        XCTAssertEqual(starts.count, 0, file: file, line: line)
    }

    func testDelayStartsUpstreamOnQueueAfterTimeout() throws {
        let queue = Queue.virtualTime()
        try checkDelaysSubscription({ $0 |> delay(0.1, queue: queue) }, queue: queue, timeout: 0.1)
    }

    func testDelayDisposedBeforeFiringNeverStartsUpstream() throws {
        let queue = Queue.virtualTime()
        try checkDisposeBeforeFiringNeverStarts({ $0 |> delay(0.05, queue: queue) }, queue: queue)
    }

    func testDelayPassesErrorThroughAndDisposeAfterStartDisposesUpstream() throws {
        let queue = Queue.virtualTime()
        let errors = Atomic<[Int]>(value: [])
        let failing = Signal<Int, Int>.fail(3) |> delay(0.02, queue: queue)
        let d1 = failing.start(error: { error in
            _ = errors.modify { $0 + [error] }
        })
        try queue.run()
        XCTAssertEqual(errors.with { $0 }, [3])
        d1.dispose()

        let pipe = TestPipe<Int, Int>()
        let upstream = Signal<Int, Int> { subscriber in
            return pipe.signal().start(next: { subscriber.putNext($0) })
        }
        let d2 = (upstream |> delay(0.02, queue: queue)).start()
        try queue.run()
        XCTAssertEqual(pipe.subscriberCount, 1)
        d2.dispose()
        XCTAssertEqual(pipe.subscriberCount, 0)
    }

    // MARK: suspendAwareDelay

    func testSuspendAwareDelayStartsUpstreamOnQueueAfterTimeout() throws {
        let queue = Queue.virtualTime()
        try checkDelaysSubscription({ $0 |> suspendAwareDelay(0.1, granularity: 0.01, queue: queue) }, queue: queue, timeout: 0.1)
    }

    /// With the default granularity of 4 s, a short delay must still end on
    /// time: the tick period never exceeds the timeout.
    func testSuspendAwareDelayWithCoarseGranularityIsNotLate() throws {
        let queue = Queue.virtualTime()
        try checkDelaysSubscription({ $0 |> suspendAwareDelay(0.05, queue: queue) }, queue: queue, timeout: 0.05)
    }

    /// The first tick at or past the delay starts the upstream: with ticks
    /// every 30 ms, a delay of 100 ms starts at 120 ms.
    func testSuspendAwareDelayStartsAtTheFirstTickPastTheDelay() throws {
        let queue = Queue.virtualTime()
        let startedAt = Atomic<Double?>(value: nil)
        let upstream = Signal<Int, NoError> { _ in
            _ = startedAt.swap(queue.virtualNow)
            return EmptyDisposable
        }
        let disposable = (upstream |> suspendAwareDelay(0.1, granularity: 0.03, queue: queue)).start()
        try queue.run()
        XCTAssertEqual(startedAt.with { $0 }, 0.12)
        disposable.dispose()
    }

    func testSuspendAwareDelayDisposedBeforeFiringNeverStartsUpstream() throws {
        let queue = Queue.virtualTime()
        try checkDisposeBeforeFiringNeverStarts({ $0 |> suspendAwareDelay(0.05, granularity: 0.01, queue: queue) }, queue: queue)
    }

    func testSuspendAwareDelayStartsUpstreamOnce() throws {
        // The repeating timer must stop after starting the upstream: run()
        // would otherwise never find the queue idle.
        let queue = Queue.virtualTime()
        let starts = Counter()
        let upstream = Signal<Int, NoError> { _ in
            starts.increment()
            return EmptyDisposable
        }
        let disposable = (upstream |> suspendAwareDelay(0.02, granularity: 0.005, queue: queue)).start()
        try queue.run()
        XCTAssertEqual(starts.count, 1)
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        disposable.dispose()
    }

    func testDelayOfNotANumberNeverStartsTheUpstream() throws {
        // As a Timer of NaN seconds: never (the original's deadline is
        // `distantFuture`); it started the upstream at once.
        let queue = Queue.virtualTime()
        let starts = Counter()
        let disposable = (Signal<Int, NoError> { _ in
            starts.increment()
            return EmptyDisposable
        } |> delay(.nan, queue: queue)).start()
        try queue.advance(by: 1000)
        XCTAssertEqual(starts.count, 0)
        disposable.dispose()
        queue.closeHostDrained()
    }

    /// A NaN granularity is a tick period that is not a number: as a
    /// Timer of NaN seconds, never (it ticked every millisecond, the
    /// smallest period, and started the upstream at the timeout). A NaN
    /// timeout never starts the upstream either, as `delay(.nan)` (it
    /// started it on the first tick, after the granularity).
    func testSuspendAwareDelayOfNotANumberNeverTicksNorStartsTheUpstream() throws {
        for (timeout, granularity) in [(1.0, Double.nan), (Double.nan, 4.0), (Double.nan, Double.nan)] {
            let queue = Queue.virtualTime()
            let starts = Counter()
            let disposable = (Signal<Int, NoError> { _ in
                starts.increment()
                return EmptyDisposable
            } |> suspendAwareDelay(timeout, granularity: granularity, queue: queue)).start()
            let ran = try queue.advance(by: 10)
            XCTAssertEqual(starts.count, 0, "timeout \(timeout), granularity \(granularity)")
            XCTAssertEqual(ran, 0, "timeout \(timeout), granularity \(granularity): ticks ran")
            disposable.dispose()
            queue.closeHostDrained()
        }
    }

    // MARK: timeout

    func testTimeoutSwitchesToAlternateWhenUpstreamIsSilent() throws {
        let queue = Queue.virtualTime()
        let pipe = TestPipe<Int, NoError>()
        let log = Atomic<[String]>(value: [])
        let alternate = Signal<Int, NoError> { subscriber in
            _ = log.modify { $0 + ["alternate started on queue: \(queue.isCurrent()) at \(queue.virtualNow!), upstream subscribers: \(pipe.subscriberCount)"] }
            subscriber.putNext(42)
            return EmptyDisposable
        }
        let disposable = (pipe.signal() |> timeout(0.05, queue: queue, alternate: alternate)).start(next: { value in
            _ = log.modify { $0 + ["\(value)"] }
        }, completed: {
            _ = log.modify { $0 + ["completed"] }
        })
        XCTAssertEqual(pipe.subscriberCount, 1)
        try queue.run()
        // The upstream was disposed before the alternate started; it is ignored now.
        pipe.putNext(1)
        pipe.putCompletion()
        XCTAssertEqual(log.with { $0 }, ["alternate started on queue: true at 0.05, upstream subscribers: 0", "42"])
        disposable.dispose()
    }

    func testTimeoutOfNotANumberNeverSwitchesToTheAlternate() throws {
        let queue = Queue.virtualTime()
        let pipe = TestPipe<Int, NoError>()
        let alternateStarts = Counter()
        let alternate = Signal<Int, NoError> { _ in
            alternateStarts.increment()
            return EmptyDisposable
        }
        let disposable = (pipe.signal() |> timeout(.nan, queue: queue, alternate: alternate)).start()
        try queue.advance(by: 1000)
        XCTAssertEqual(alternateStarts.count, 0)
        XCTAssertEqual(pipe.subscriberCount, 1)
        disposable.dispose()
        queue.closeHostDrained()
    }

    func testTimeoutFirstUpstreamValueCancelsTimer() throws {
        let queue = Queue.virtualTime()
        let pipe = TestPipe<Int, NoError>()
        let alternateStarts = Counter()
        let values = Atomic<[Int]>(value: [])
        let alternate = Signal<Int, NoError> { subscriber in
            alternateStarts.increment()
            subscriber.putNext(-1)
            return EmptyDisposable
        }
        let disposable = (pipe.signal() |> timeout(0.05, queue: queue, alternate: alternate)).start(next: { value in
            _ = values.modify { $0 + [value] }
        })
        try queue.advance(by: 0.049)
        pipe.putNext(1)
        XCTAssertEqual(queue.pendingVirtualWork, 0, "the timer was dropped")
        try queue.advance(by: 10)
        XCTAssertEqual(alternateStarts.count, 0)
        // Still subscribed to the upstream, long after the timeout.
        pipe.putNext(2)
        XCTAssertEqual(values.with { $0 }, [1, 2])
        disposable.dispose()
        XCTAssertEqual(pipe.subscriberCount, 0)
    }

    /// The upstream wins during its own start (a replaying pipe), so the timer
    /// is never started; the subscription's disposable is dropped without
    /// being disposed, then the pipe goes. Nothing of the subscription may
    /// stay alive: the never-started timer held the switch to the alternate,
    /// which held the subscription (found by fuzz_api with the instrumented
    /// core: a leak under ASan).
    func testTimeoutWonByTheUpstreamDuringItsStartKeepsNothingAlive() {
        let queue = Queue.virtualTime()
        let released = Counter()
        var pipe: ValuePipe<Int>? = ValuePipe<Int>(replay: true)
        pipe?.putNext(1)
        do {
            let tracker = DeinitTracker(released)
            let alternate = Signal<Int, NoError>.never()
            _ = ((pipe!.signal() |> castError(NoError.self)) |> timeout(1.75, queue: queue, alternate: alternate)).start(next: { _ in
                tracker.touch()
            })
        }
        pipe = nil
        XCTAssertEqual(released.count, 1, "the subscriber's callbacks were released")
        XCTAssertEqual(queue.pendingVirtualWork, 0)
    }

    func testTimeoutUpstreamTerminalEventFirstCancelsTimer() throws {
        let queue = Queue.virtualTime()
        let alternateStarts = Counter()
        let alternate = Signal<Int, Int> { subscriber in
            alternateStarts.increment()
            subscriber.putNext(-1)
            return EmptyDisposable
        }
        let events = Atomic<[String]>(value: [])
        _ = (Signal<Int, Int>.complete() |> timeout(0.03, queue: queue, alternate: alternate)).start(next: { value in
            _ = events.modify { $0 + ["next \(value)"] }
        }, error: { error in
            _ = events.modify { $0 + ["error \(error)"] }
        }, completed: {
            _ = events.modify { $0 + ["completed"] }
        })
        _ = (Signal<Int, Int>.fail(9) |> timeout(0.03, queue: queue, alternate: alternate)).start(next: { value in
            _ = events.modify { $0 + ["next \(value)"] }
        }, error: { error in
            _ = events.modify { $0 + ["error \(error)"] }
        }, completed: {
            _ = events.modify { $0 + ["completed"] }
        })
        XCTAssertEqual(queue.pendingVirtualWork, 0, "both timers were dropped")
        try queue.advance(by: 10)
        XCTAssertEqual(events.with { $0 }, ["completed", "error 9"])
        XCTAssertEqual(alternateStarts.count, 0)
    }

    func testTimeoutDisposedBeforeFiringDisposesUpstreamAndNeverStartsAlternate() throws {
        let queue = Queue.virtualTime()
        let pipe = TestPipe<Int, NoError>()
        let alternateStarts = Counter()
        let released = Counter()
        do {
            let tracker = DeinitTracker { released.increment() }
            let alternate = Signal<Int, NoError> { _ in
                _ = tracker
                alternateStarts.increment()
                return EmptyDisposable
            }
            let disposable = (pipe.signal() |> timeout(0.05, queue: queue, alternate: alternate)).start()
            XCTAssertEqual(pipe.subscriberCount, 1)
            disposable.dispose()
        }
        XCTAssertEqual(pipe.subscriberCount, 0)
        XCTAssertEqual(released.count, 1)
        XCTAssertEqual(queue.pendingVirtualWork, 0)
        try queue.advance(by: 10)
        XCTAssertEqual(alternateStarts.count, 0)
    }

    /// A race between a real timer and events from another thread, which
    /// virtual time cannot produce: stays on the real clock.
    /// The timer is armed after the upstream's start returns. An upstream
    /// that wins on another thread just then (here: a spinning thread that
    /// the start releases, then returns after a delay that grows with the
    /// round) may invalidate the timer before it is started; the timer must
    /// not stay armed then (a start after an invalidate arms a `Timer`
    /// again), and the alternate must never start. The virtual clock shows
    /// an armed timer as pending work, and never moves, so only a timer
    /// left armed could fire. A stress test: without the check after the
    /// timer's start it fails in some runs, not in all (the window is a
    /// few hundred nanoseconds).
    func testTimeoutUpstreamWinningOnAnotherThreadWhileTheTimerIsArmedLeavesNoTimer() {
        let queue = Queue.virtualTime()
        let alternateStarts = Counter()
        let alternate = Signal<Int, NoError> { subscriber in
            alternateStarts.increment()
            subscriber.putCompletion()
            return EmptyDisposable
        }
        for round in 0 ..< 2000 {
            let spinning = DispatchSemaphore(value: 0)
            let go = Synchronization.Atomic<Bool>(false)
            let done = DispatchSemaphore(value: 0)
            let upstream = Signal<Int, NoError> { subscriber in
                DispatchQueue.global().async {
                    spinning.signal()
                    while !go.load(ordering: .acquiring) {
                    }
                    // A value and no completion: a completion ends the
                    // subscription, and that would invalidate the timer.
                    subscriber.putNext(1)
                    done.signal()
                }
                XCTAssertEqual(spinning.wait(timeout: .now() + waitDeadline), .success)
                go.store(true, ordering: .releasing)
                // A delay growing with the round, so that the rounds sweep
                // the moments around the timer's start.
                var spins = (round % 1000) * 8
                while spins > 0 {
                    spins = go.load(ordering: .acquiring) ? spins - 1 : 0
                }
                return EmptyDisposable
            }
            let values = Atomic<[Int]>(value: [])
            let disposable = (upstream |> timeout(1, queue: queue, alternate: alternate)).start(next: { value in
                _ = values.modify { $0 + [value] }
            })
            XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
            XCTAssertEqual(values.with { $0 }, [1])
            guard queue.pendingVirtualWork == 0 else {
                XCTFail("round \(round): a timer is still armed after the upstream won")
                disposable.dispose()
                break
            }
            disposable.dispose()
        }
        XCTAssertEqual(alternateStarts.count, 0)
    }

    func testTimeoutRaceHasExactlyOneWinner() {
        let queue = Queue(name: "timeout.race")
        let subscriptions = 300
        let group = DispatchGroup()
        let results = Atomic<[[Int]]>(value: [])
        let completions = Counter()
        let upstream = Signal<Int, NoError> { subscriber in
            DispatchQueue.global().async {
                subscriber.putNext(1)
                subscriber.putNext(1)
                subscriber.putCompletion()
            }
            return EmptyDisposable
        }
        let alternate = Signal<Int, NoError> { subscriber in
            subscriber.putNext(2)
            subscriber.putCompletion()
            return EmptyDisposable
        }
        var disposables: [any Disposable] = []
        for _ in 0 ..< subscriptions {
            group.enter()
            let values = Atomic<[Int]>(value: [])
            disposables.append((upstream |> timeout(0.0005, queue: queue, alternate: alternate)).start(next: { value in
                _ = values.modify { $0 + [value] }
            }, completed: {
                let final = values.with { $0 }
                _ = results.modify { $0 + [final] }
                completions.increment()
                group.leave()
            }))
        }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(completions.count, subscriptions)
        for result in results.with({ $0 }) {
            XCTAssertTrue(result == [1, 1] || result == [2], "mixed result \(result)")
        }
        for disposable in disposables {
            disposable.dispose()
        }
    }
}
