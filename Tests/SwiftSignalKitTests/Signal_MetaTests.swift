import Dispatch
import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// The address of a local of a fresh frame: the stack grows down, so the
/// smaller the address, the deeper the stack.
@inline(never)
private func stackAddress() -> UInt {
    var marker: UInt8 = 0
    return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
}

/// A constant source made by a generator: subscribed as any signal (where
/// a `single` kept in place is delivered without a subscription), so it
/// completes during its start and leaves its inner object to be reused.
private func immediate<E>(_ value: Int) -> Signal<Int, E> {
    return Signal { subscriber in
        subscriber.putNext(value)
        subscriber.putCompletion()
        return EmptyDisposable
    }
}

final class Signal_MetaTests: XCTestCase {
    // MARK: switchToLatest

    func testSwitchToLatestForwardsOnlyTheLatestInner() {
        let outer = TestPipe<Signal<Int, TestError>, TestError>()
        let a = TestPipe<Int, TestError>()
        let b = TestPipe<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        let disposable = recorder.start(outer.signal() |> switchToLatest)

        outer.putNext(a.signal())
        a.putNext(1)
        a.putNext(2)
        XCTAssertEqual(a.subscriberCount, 1)
        outer.putNext(b.signal())
        XCTAssertEqual(a.subscriberCount, 0, "the previous inner is disposed")
        XCTAssertEqual(b.subscriberCount, 1)
        a.putNext(99)
        b.putNext(3)
        XCTAssertEqual(recorder.recordedValues, [1, 2, 3])
        XCTAssertEqual(recorder.completions.count, 0)
        disposable.dispose()
        XCTAssertEqual(outer.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)
        b.putNext(4)
        XCTAssertEqual(recorder.recordedValues, [1, 2, 3])
    }

    /// As in the original (whose switch state starts the new inner signal,
    /// then hands its disposable to a `MetaDisposable`, which disposes the
    /// previous one): the next inner signal is started while the previous one
    /// is still subscribed, and the previous one is disposed once that start
    /// has returned.
    func testSwitchToLatestStartsNextBeforeDisposingPrevious() {
        let outer = TestPipe<Signal<Int, NoError>, NoError>()
        let a = TestPipe<Int, NoError>()
        var subscribersOfASeenByB: [Int] = []
        let b = Signal<Int, NoError> { subscriber in
            subscribersOfASeenByB.append(a.subscriberCount)
            return EmptyDisposable
        }
        let disposable = (outer.signal() |> switchToLatest).start()
        outer.putNext(a.signal())
        outer.putNext(b)
        XCTAssertEqual(subscribersOfASeenByB, [1], "b starts while a is still subscribed")
        XCTAssertEqual(a.subscriberCount, 0, "a is disposed once b's start has returned")
        disposable.dispose()
    }

    /// What that order is for: an inner signal that joins a shared resource
    /// (here a `Multicast` key) replaces one that joined the same resource
    /// without the resource being torn down and started again in between.
    func testSwitchToLatestKeepsASharedResourceAliveAcrossTheSwitch() {
        let multicast = Multicast<Int>()
        let starts = Atomic<Int>(value: 0)
        let stops = Atomic<Int>(value: 0)
        let resource = Signal<Int, NoError> { subscriber in
            _ = starts.modify { $0 + 1 }
            return ActionDisposable {
                _ = stops.modify { $0 + 1 }
            }
        }
        let trigger = TestPipe<Int, NoError>()
        let disposable = (trigger.signal() |> mapToSignal { _ in
            multicast.get(key: "resource", signal: resource)
        }).start()
        trigger.putNext(1)
        trigger.putNext(2)
        trigger.putNext(3)
        XCTAssertEqual(starts.with { $0 }, 1, "the resource was started again at a switch")
        XCTAssertEqual(stops.with { $0 }, 0)
        disposable.dispose()
        XCTAssertEqual(stops.with { $0 }, 1)
    }

    /// Values, errors and the completion of the previous inner signal that come
    /// while the next one starts (it is still subscribed then) are dropped.
    func testSwitchToLatestDropsEventsOfThePreviousInnerDuringTheNextStart() {
        let outer = TestPipe<Signal<Int, TestError>, TestError>()
        let a = TestPipe<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        let disposable = recorder.start(outer.signal() |> switchToLatest)
        outer.putNext(a.signal())
        a.putNext(1)
        outer.putNext(Signal { subscriber in
            a.putNext(2)
            a.putError(.first)
            subscriber.putNext(10)
            return EmptyDisposable
        })
        outer.putNext(Signal { subscriber in
            subscriber.putNext(20)
            return EmptyDisposable
        })
        XCTAssertEqual(recorder.recordedValues, [1, 10, 20])
        XCTAssertEqual(recorder.recordedErrors.count, 0)
        XCTAssertEqual(recorder.completions.count, 0)
        disposable.dispose()
    }

    func testSwitchToLatestCompletesWhenOuterAndCurrentInnerHaveCompleted() {
        let outer = TestPipe<Signal<Int, NoError>, NoError>()
        let a = TestPipe<Int, NoError>()
        let recorder = Recorder<Int, NoError>()
        let disposable = recorder.start(outer.signal() |> switchToLatest)
        outer.putNext(a.signal())
        outer.putCompletion()
        XCTAssertEqual(recorder.completions.count, 0, "the inner still runs")
        a.putNext(1)
        a.putCompletion()
        XCTAssertEqual(recorder.recordedValues, [1])
        XCTAssertEqual(recorder.completions.count, 1)
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(outer.subscriberCount, 0)
        disposable.dispose()

        // Inner first, then outer.
        let outer2 = TestPipe<Signal<Int, NoError>, NoError>()
        let recorder2 = Recorder<Int, NoError>()
        _ = recorder2.start(outer2.signal() |> switchToLatest)
        outer2.putNext(.single(5))
        XCTAssertEqual(recorder2.completions.count, 0, "the outer still runs")
        outer2.putCompletion()
        XCTAssertEqual(recorder2.recordedValues, [5])
        XCTAssertEqual(recorder2.completions.count, 1)

        // No inner at all.
        let recorder3 = Recorder<Int, NoError>()
        _ = recorder3.start(Signal<Signal<Int, NoError>, NoError>.complete() |> switchToLatest)
        XCTAssertEqual(recorder3.completions.count, 1)
    }

    func testSwitchToLatestErrors() {
        // Outer error.
        let outer = TestPipe<Signal<Int, TestError>, TestError>()
        let a = TestPipe<Int, TestError>()
        var errors: [TestError] = []
        var completions = 0
        var values: [Int] = []
        _ = (outer.signal() |> switchToLatest).start(next: { values.append($0) }, error: { errors.append($0) }, completed: { completions += 1 })
        outer.putNext(a.signal())
        outer.putError(.first)
        XCTAssertEqual(errors, [.first])
        XCTAssertEqual(a.subscriberCount, 0, "the running inner is disposed")
        XCTAssertEqual(outer.subscriberCount, 0)
        a.putNext(1)
        a.putError(.second)
        XCTAssertEqual(values, [])
        XCTAssertEqual(errors, [.first])
        XCTAssertEqual(completions, 0)

        // Inner error.
        let outer2 = TestPipe<Signal<Int, TestError>, TestError>()
        let b = TestPipe<Int, TestError>()
        var errors2: [TestError] = []
        _ = (outer2.signal() |> switchToLatest).start(error: { errors2.append($0) })
        outer2.putNext(b.signal())
        b.putError(.second)
        XCTAssertEqual(errors2, [.second])
        XCTAssertEqual(outer2.subscriberCount, 0, "the outer is disposed")
        outer2.putError(.first)
        XCTAssertEqual(errors2, [.second])
    }

    func testMapToSignal() {
        let source = TestPipe<Int, NoError>()
        var started: [Int] = []
        let recorder = Recorder<String, NoError>()
        let disposable = recorder.start(source.signal() |> mapToSignal { value -> Signal<String, NoError> in
            return Signal { subscriber in
                started.append(value)
                subscriber.putNext("\(value)a")
                subscriber.putNext("\(value)b")
                return EmptyDisposable
            }
        })
        source.putNext(1)
        source.putNext(2)
        XCTAssertEqual(started, [1, 2])
        XCTAssertEqual(recorder.recordedValues, ["1a", "1b", "2a", "2b"])
        disposable.dispose()
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testMapToSignalPromotingError() {
        let source = TestPipe<Int, NoError>()
        var values: [Int] = []
        var errors: [TestError] = []
        _ = (source.signal() |> mapToSignalPromotingError { value -> Signal<Int, TestError> in
            return value < 3 ? .single(value * 10) : .fail(.second)
        }).start(next: { values.append($0) }, error: { errors.append($0) })
        source.putNext(1)
        source.putNext(2)
        source.putNext(3)
        source.putNext(4)
        XCTAssertEqual(values, [10, 20])
        XCTAssertEqual(errors, [.second])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testSwitchToLatestReentrantEmitFromInnerValue() {
        // An inner value makes the outer emit a new inner: the running inner
        // is replaced from inside its own callback.
        let outer = TestPipe<Signal<Int, NoError>, NoError>()
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        var values: [Int] = []
        let disposable = (outer.signal() |> switchToLatest).start(next: { value in
            values.append(value)
            if value == 1 {
                outer.putNext(b.signal())
                a.putNext(2)
            }
        })
        outer.putNext(a.signal())
        a.putNext(1)
        b.putNext(3)
        XCTAssertEqual(values, [1, 3])
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 1)
        disposable.dispose()
        XCTAssertEqual(b.subscriberCount, 0)
    }

    func testDisposeFromInsideInnerValue() {
        let outer = TestPipe<Signal<Int, NoError>, NoError>()
        let a = TestPipe<Int, NoError>()
        var values: [Int] = []
        var disposable: (any Disposable)?
        disposable = (outer.signal() |> switchToLatest).start(next: { value in
            values.append(value)
            disposable?.dispose()
        })
        outer.putNext(a.signal())
        a.putNext(1)
        a.putNext(2)
        XCTAssertEqual(values, [1])
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(outer.subscriberCount, 0)
    }

    func testMetaReleasesCapturedObjects() {
        // Released by dispose: the downstream callbacks and the inner signal.
        let counter = Atomic<Int>(value: 0)
        let outer = TestPipe<Int, NoError>()
        let inner = TestPipe<Int, NoError>()
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(counter)
            let signal = outer.signal() |> mapToSignal { _ -> Signal<Int, NoError> in
                return Signal { subscriber in
                    // Held by the inner subscription until it is disposed.
                    let innerTracker = DeinitTracker(counter)
                    return inner.signal().start(next: { value in
                        _ = innerTracker
                        subscriber.putNext(value)
                    })
                }
            }
            disposable = signal.start(next: { _ in _ = tracker })
        }
        outer.putNext(1)
        outer.putNext(2)
        XCTAssertEqual(counter.with { $0 }, 1, "the first inner subscription is released once replaced")
        disposable?.dispose()
        XCTAssertEqual(counter.with { $0 }, 3)
        XCTAssertEqual(outer.subscriberCount, 0)
        XCTAssertEqual(inner.subscriberCount, 0)

        // Released by completion, with the disposable still held.
        let counter2 = Atomic<Int>(value: 0)
        let head = TestPipe<Int, NoError>()
        var disposable2: (any Disposable)?
        do {
            let tracker = DeinitTracker(counter2)
            let innerTracker = DeinitTracker(counter2)
            let second = Signal<Int, NoError> { subscriber in
                _ = innerTracker
                subscriber.putNext(1)
                subscriber.putCompletion()
                return EmptyDisposable
            }
            disposable2 = (head.signal() |> then(second)).start(next: { _ in _ = tracker })
        }
        XCTAssertEqual(counter2.with { $0 }, 0)
        head.putCompletion()
        XCTAssertEqual(counter2.with { $0 }, 2)
        XCTAssertNotNil(disposable2)

        // Waiting signals of a queue are released when it is disposed.
        let counter3 = Atomic<Int>(value: 0)
        let outer3 = TestPipe<Signal<Int, NoError>, NoError>()
        let head3 = TestPipe<Int, NoError>()
        let disposable3 = (outer3.signal() |> queue).start()
        outer3.putNext(head3.signal())
        do {
            let waitingTracker = DeinitTracker(counter3)
            outer3.putNext(Signal { _ in
                _ = waitingTracker
                return EmptyDisposable
            })
        }
        XCTAssertEqual(counter3.with { $0 }, 0)
        disposable3.dispose()
        XCTAssertEqual(counter3.with { $0 }, 1)
        XCTAssertEqual(head3.subscriberCount, 0)
        XCTAssertEqual(outer3.subscriberCount, 0)
    }

    // MARK: queue

    func testQueueRunsInnerSignalsOneAfterAnother() {
        let outer = TestPipe<Signal<Int, NoError>, NoError>()
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        let c = TestPipe<Int, NoError>()
        let recorder = Recorder<Int, NoError>()
        _ = recorder.start(outer.signal() |> queue)
        outer.putNext(a.signal())
        outer.putNext(b.signal())
        outer.putNext(c.signal())
        outer.putCompletion()
        XCTAssertEqual([a.subscriberCount, b.subscriberCount, c.subscriberCount], [1, 0, 0])
        a.putNext(1)
        a.putCompletion()
        XCTAssertEqual([a.subscriberCount, b.subscriberCount, c.subscriberCount], [0, 1, 0])
        b.putNext(2)
        b.putCompletion()
        XCTAssertEqual([a.subscriberCount, b.subscriberCount, c.subscriberCount], [0, 0, 1])
        XCTAssertEqual(recorder.completions.count, 0)
        c.putNext(3)
        c.putCompletion()
        XCTAssertEqual(recorder.recordedValues, [1, 2, 3])
        XCTAssertEqual(recorder.completions.count, 1)
    }

    func testQueueCompletionWaitsForPendingAndErrorDropsThem() {
        let outer = TestPipe<Signal<Int, TestError>, TestError>()
        let head = TestPipe<Int, TestError>()
        var startedWaiting = 0
        var errors: [TestError] = []
        var completions = 0
        _ = (outer.signal() |> queue).start(error: { errors.append($0) }, completed: { completions += 1 })
        outer.putNext(head.signal())
        outer.putNext(Signal { subscriber in
            startedWaiting += 1
            subscriber.putCompletion()
            return EmptyDisposable
        })
        head.putError(.first)
        XCTAssertEqual(errors, [.first])
        XCTAssertEqual(startedWaiting, 0, "waiting signals are dropped unstarted")
        XCTAssertEqual(outer.subscriberCount, 0)
        XCTAssertEqual(completions, 0)
    }

    func testQueueDoesNotGrowTheStackWithManyWaitingSynchronousSignals() {
        let count = loadCount(100_000)
        var outer: Subscriber<Signal<Int, NoError>, NoError>?
        let head = TestPipe<Int, NoError>()
        var sum = 0
        var received = 0
        var lastValue = -1
        var ordered = true
        var completions = 0
        var minimumAddress = UInt.max
        var baseAddress: UInt = 0
        _ = (Signal { subscriber in
            outer = subscriber
            return EmptyDisposable
        } |> queue).start(next: { value in
            let address = stackAddress()
            if received == 0 {
                baseAddress = address
            }
            minimumAddress = min(minimumAddress, address)
            if value != lastValue + 1 {
                ordered = false
            }
            lastValue = value
            sum += value
            received += 1
        }, completed: {
            completions += 1
        })
        outer?.putNext(head.signal())
        for i in 1 ... count {
            outer?.putNext(.single(i))
        }
        outer?.putCompletion()
        outer = nil
        XCTAssertEqual(received, 0)
        head.putNext(0)
        head.putCompletion()
        XCTAssertEqual(received, count + 1)
        XCTAssertTrue(ordered)
        XCTAssertEqual(sum, count * (count + 1) / 2)
        XCTAssertEqual(completions, 1)
        // The first value came from the head (delivered from the test's
        // frame); the rest from the trampoline: only a few frames deeper.
        XCTAssertLessThan(baseAddress &- minimumAddress, 64 * 1024)
    }

    func testQueueDoesNotGrowTheStackWhenInnerSignalsFeedTheOuter() {
        self.checkInnerSignalsFeedingTheOuter(throttle: false)
    }

    func testThrottledDoesNotGrowTheStackWhenInnerSignalsFeedTheOuter() {
        self.checkInnerSignalsFeedingTheOuter(throttle: true)
    }

    /// Each inner signal, while being started, makes the outer emit the next
    /// one and then completes: without a trampoline each would start inside
    /// the previous one.
    private func checkInnerSignalsFeedingTheOuter(throttle: Bool) {
        do {
            let count = loadCount(100_000)
            var outerSubscriber: Subscriber<Int, NoError>?
            var outerDisposed = 0
            let outer = Signal<Int, NoError> { subscriber in
                outerSubscriber = subscriber
                subscriber.putNext(1)
                return ActionDisposable {
                    outerDisposed += 1
                }
            }
            var received = 0
            var ordered = true
            var completions = 0
            var minimumAddress = UInt.max
            var baseAddress: UInt = 0
            let transform: (Int) -> Signal<Int, NoError> = { value in
                return Signal { subscriber in
                    subscriber.putNext(value)
                    if value < count {
                        outerSubscriber?.putNext(value + 1)
                    } else {
                        outerSubscriber?.putCompletion()
                    }
                    subscriber.putCompletion()
                    return EmptyDisposable
                }
            }
            let signal = throttle ? (outer |> mapToThrottled(transform)) : (outer |> mapToQueue(transform))
            _ = signal.start(next: { value in
                let address = stackAddress()
                if received == 0 {
                    baseAddress = address
                }
                minimumAddress = min(minimumAddress, address)
                if value != received + 1 {
                    ordered = false
                }
                received += 1
            }, completed: {
                completions += 1
            })
            XCTAssertEqual(received, count)
            XCTAssertTrue(ordered)
            XCTAssertEqual(completions, 1)
            XCTAssertLessThan(baseAddress &- minimumAddress, 64 * 1024)
            XCTAssertEqual(outerDisposed, 1)
            outerSubscriber = nil
        }
    }

    func testThrottledKeepsOnlyTheLatestWaitingSignal() {
        let outer = TestPipe<Signal<Int, NoError>, NoError>()
        let head = TestPipe<Int, NoError>()
        var started: [Int] = []
        func inner(_ value: Int) -> Signal<Int, NoError> {
            return Signal { subscriber in
                started.append(value)
                subscriber.putNext(value)
                subscriber.putCompletion()
                return EmptyDisposable
            }
        }
        let recorder = Recorder<Int, NoError>()
        _ = recorder.start(outer.signal() |> throttled)
        outer.putNext(head.signal())
        outer.putNext(inner(1))
        outer.putNext(inner(2))
        outer.putNext(inner(3))
        outer.putCompletion()
        head.putNext(0)
        XCTAssertEqual(started, [], "the running one is never interrupted")
        head.putCompletion()
        XCTAssertEqual(started, [3])
        XCTAssertEqual(recorder.recordedValues, [0, 3])
        XCTAssertEqual(recorder.completions.count, 1)
        // Nothing waiting: starts at once.
        let recorder2 = Recorder<Int, NoError>()
        _ = recorder2.start(Signal<Signal<Int, NoError>, NoError> { subscriber in
            subscriber.putNext(inner(4))
            subscriber.putNext(inner(5))
            subscriber.putCompletion()
            return EmptyDisposable
        } |> throttled)
        XCTAssertEqual(recorder2.recordedValues, [4, 5])
        XCTAssertEqual(recorder2.completions.count, 1)
    }

    func testDroppedSignalIsReleasedOutsideTheLock() {
        // The dropped waiting signal's captured object emits into the outer
        // from its deinit: deadlocks if it were released with the lock held.
        let outer = TestPipe<Signal<Int, NoError>, NoError>()
        let head = TestPipe<Int, NoError>()
        let values = Atomic<[Int]>(value: [])
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let disposable = (outer.signal() |> throttled).start(next: { value in
                values.modify { $0 + [value] }
            })
            outer.putNext(head.signal())
            do {
                let reentrant = DeinitTracker {
                    outer.putNext(.single(2))
                }
                outer.putNext(Signal { subscriber in
                    _ = reentrant
                    subscriber.putNext(1)
                    return EmptyDisposable
                })
            }
            // Replaces the waiting signal: its release re-enters `throttled`.
            outer.putNext(.single(3))
            head.putCompletion()
            disposable.dispose()
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(values.with { $0 }, [2])
    }

    func testQueueDisposalStopsEverything() {
        let outer = TestPipe<Signal<Int, NoError>, NoError>()
        let head = TestPipe<Int, NoError>()
        let second = TestPipe<Int, NoError>()
        let recorder = Recorder<Int, NoError>()
        let disposable = recorder.start(outer.signal() |> queue)
        outer.putNext(head.signal())
        outer.putNext(second.signal())
        disposable.dispose()
        XCTAssertEqual(head.subscriberCount, 0)
        XCTAssertEqual(outer.subscriberCount, 0)
        head.putNext(1)
        head.putCompletion()
        XCTAssertEqual(second.subscriberCount, 0, "a waiting signal is not started after dispose")
        XCTAssertEqual(recorder.recordedValues, [])
        XCTAssertEqual(recorder.completions.count, 0)
    }

    // MARK: then

    func testThenConcatenates() {
        let recorder = Recorder<Int, NoError>()
        _ = recorder.start(Signal<Int, NoError>.single(1) |> then(.single(2)) |> then(.single(3)))
        XCTAssertEqual(recorder.recordedValues, [1, 2, 3])
        XCTAssertEqual(recorder.completions.count, 1)

        // Asynchronous first signal.
        let first = TestPipe<Int, NoError>()
        var secondStarted = 0
        let second = Signal<Int, NoError> { subscriber in
            secondStarted += 1
            subscriber.putNext(20)
            subscriber.putCompletion()
            return EmptyDisposable
        }
        let recorder2 = Recorder<Int, NoError>()
        _ = recorder2.start(first.signal() |> then(second))
        XCTAssertEqual(secondStarted, 0)
        first.putNext(10)
        XCTAssertEqual(secondStarted, 0)
        first.putCompletion()
        XCTAssertEqual(secondStarted, 1)
        XCTAssertEqual(recorder2.recordedValues, [10, 20])
        XCTAssertEqual(recorder2.completions.count, 1)
        XCTAssertEqual(first.subscriberCount, 0)
    }

    func testThenErrors() {
        var secondStarted = 0
        let second = Signal<Int, TestError> { subscriber in
            secondStarted += 1
            subscriber.putCompletion()
            return EmptyDisposable
        }
        var errors: [TestError] = []
        var completions = 0
        _ = (Signal<Int, TestError>.fail(.first) |> then(second)).start(error: { errors.append($0) }, completed: { completions += 1 })
        XCTAssertEqual(errors, [.first])
        XCTAssertEqual(secondStarted, 0)
        XCTAssertEqual(completions, 0)

        var values: [Int] = []
        _ = (Signal<Int, TestError>.single(1) |> then(.fail(.second)) |> then(second)).start(next: { values.append($0) }, error: { errors.append($0) }, completed: { completions += 1 })
        XCTAssertEqual(values, [1])
        XCTAssertEqual(errors, [.first, .second])
        XCTAssertEqual(secondStarted, 0)
        XCTAssertEqual(completions, 0)
    }

    func testThenDisposedBeforeFirstCompletesNeverStartsNext() {
        let first = TestPipe<Int, NoError>()
        var secondStarted = 0
        let second = Signal<Int, NoError> { _ in
            secondStarted += 1
            return EmptyDisposable
        }
        let disposable = (first.signal() |> then(second)).start()
        XCTAssertEqual(first.subscriberCount, 1)
        disposable.dispose()
        XCTAssertEqual(first.subscriberCount, 0)
        first.putCompletion()
        XCTAssertEqual(secondStarted, 0)
    }

    func testLongChainOfThenUsesNoStackBeyondItsNesting() {
        // Left-nested: ((((s |> then(a)) |> then(b)) ...). Starting it nests
        // `depth` starts down to `s`; every later signal must be started no
        // deeper than that. Without the trampoline, each level would start its
        // next signal from inside the completion of the level below, a few
        // hundred bytes deeper each time.
        let depth = 500
        var sourceStart = UInt.max
        var deepestNextStart = UInt.max
        let source = Signal<Int, NoError> { subscriber in
            sourceStart = stackAddress()
            subscriber.putNext(0)
            subscriber.putCompletion()
            return EmptyDisposable
        }
        func next(_ value: Int) -> Signal<Int, NoError> {
            return Signal { subscriber in
                deepestNextStart = min(deepestNextStart, stackAddress())
                subscriber.putNext(value)
                subscriber.putCompletion()
                return EmptyDisposable
            }
        }
        var signal = source
        for i in 1 ... depth {
            signal = signal |> then(next(i))
        }
        var values: [Int] = []
        var completions = 0
        _ = signal.start(next: { values.append($0) }, completed: { completions += 1 })
        XCTAssertEqual(values, Array(0 ... depth))
        XCTAssertEqual(completions, 1)
        XCTAssertLessThan(sourceStart &- min(sourceStart, deepestNextStart), 4 * 1024)

        // Right-nested: a |> then(b |> then(c |> then(...))): the deepest start
        // is the last signal; the completions must not go deeper.
        var lastStart = UInt.max
        var deepestCompletion = UInt.max
        var right = Signal<Int, NoError> { subscriber in
            lastStart = stackAddress()
            subscriber.putNext(depth)
            subscriber.putCompletion()
            return EmptyDisposable
        }
        for i in (0 ..< depth).reversed() {
            right = Signal<Int, NoError> { subscriber in
                subscriber.putNext(i)
                subscriber.putCompletion()
                return EmptyDisposable
            } |> then(right)
        }
        var rightValues: [Int] = []
        var rightCompletions = 0
        _ = right.start(next: { rightValues.append($0) }, completed: {
            deepestCompletion = stackAddress()
            rightCompletions += 1
        })
        XCTAssertEqual(rightValues, Array(0 ... depth))
        XCTAssertEqual(rightCompletions, 1)
        XCTAssertLessThan(lastStart &- min(lastStart, deepestCompletion), 4 * 1024)
    }

    func testTwentyThousandNestedThenOnASmallStack() {
        // 20_000 nested `then`, left- and right-nested, started, delivered and
        // released on a thread with a 512 KB stack (a dispatch worker's): a
        // nested chain runs as one flat sequence, so nothing grows with the
        // nesting (the original, and this port before, nested a start and a
        // subscriber per level and overflowed).
        let depth = 20_000
        onSmallStack(timeout: 30) {
            var left = Signal<Int, NoError>.single(0)
            for i in 1 ... depth {
                left = left |> then(i % 2_500 == 0 ? .single(i) : .complete())
            }
            var right = Signal<Int, NoError>.single(depth)
            for i in (0 ..< depth).reversed() {
                right = (i % 2_500 == 0 ? .single(i) : .complete()) |> then(right)
            }
            var values: [Int] = []
            var completions = 0
            _ = left.start(next: { values.append($0) }, completed: { completions += 1 })
            var rightValues: [Int] = []
            var rightCompletions = 0
            _ = right.start(next: { rightValues.append($0) }, completed: { rightCompletions += 1 })
            left = .complete()
            right = .complete()
            XCTAssertEqual(values, Array(stride(from: 0, through: depth, by: 2_500)))
            XCTAssertEqual(completions, 1)
            XCTAssertEqual(rightValues, Array(stride(from: 0, through: depth, by: 2_500)))
            XCTAssertEqual(rightCompletions, 1)
        }
    }

    func testThenChainsShareTheirPartsAndStayStartable() {
        // A nested chain whose inner `then` is also used on its own, after
        // the chain is released.
        let inner = Signal<Int, NoError>.single(1) |> then(.single(2))
        var outer: Signal<Int, NoError>? = inner |> then(.single(3)) |> then(inner)
        var values: [Int] = []
        _ = outer!.start(next: { values.append($0) })
        XCTAssertEqual(values, [1, 2, 3, 1, 2])
        outer = nil
        values = []
        _ = inner.start(next: { values.append($0) })
        XCTAssertEqual(values, [1, 2])
    }

    // MARK: deferred, ignoreValues

    func testDeferredCallsTheGeneratorOnEachStart() {
        var calls = 0
        let signal: Signal<Int, NoError> = deferred {
            calls += 1
            return .single(calls)
        }
        XCTAssertEqual(calls, 0)
        var values: [Int] = []
        var completions = 0
        _ = signal.start(next: { values.append($0) }, completed: { completions += 1 })
        _ = signal.start(next: { values.append($0) }, completed: { completions += 1 })
        XCTAssertEqual(calls, 2)
        XCTAssertEqual(values, [1, 2])
        XCTAssertEqual(completions, 2)

        let pipe = TestPipe<Int, TestError>()
        var errors: [TestError] = []
        let disposable = deferred { pipe.signal() }.start(error: { errors.append($0) })
        XCTAssertEqual(pipe.subscriberCount, 1)
        pipe.putError(.second)
        XCTAssertEqual(errors, [.second])
        XCTAssertEqual(pipe.subscriberCount, 0)
        disposable.dispose()

        let pipe2 = TestPipe<Int, TestError>()
        let disposable2 = deferred { pipe2.signal() }.start()
        disposable2.dispose()
        XCTAssertEqual(pipe2.subscriberCount, 0)
    }

    func testIgnoreValuesPassesOnlyTheTerminalEvent() {
        let pipe = TestPipe<Int, TestError>()
        var completions = 0
        var errors: [TestError] = []
        // `Never` values cannot be delivered: the type proves it.
        let signal: Signal<Never, TestError> = pipe.signal() |> ignoreValues
        _ = signal.start(error: { errors.append($0) }, completed: { completions += 1 })
        pipe.putNext(1)
        pipe.putNext(2)
        pipe.putCompletion()
        XCTAssertEqual(completions, 1)
        XCTAssertEqual(errors, [])

        let pipe2 = TestPipe<Int, TestError>()
        let disposable = (pipe2.signal() |> ignoreValues).start(error: { errors.append($0) }, completed: { completions += 1 })
        pipe2.putNext(1)
        pipe2.putError(.first)
        XCTAssertEqual(errors, [.first])
        XCTAssertEqual(completions, 1)
        XCTAssertEqual(pipe2.subscriberCount, 0)
        disposable.dispose()
    }

    // MARK: threading

    func testQueueSerializesInnerSignalsFromConcurrentEmitters() {
        let threads = 4
        let perThread = 2_500
        let outer = TestPipe<Signal<Int, NoError>, NoError>()
        let inFlight = Atomic<Int>(value: 0)
        let maximumInFlight = Atomic<Int>(value: 0)
        let sum = Atomic<Int>(value: 0)
        let count = Atomic<Int>(value: 0)
        let completions = Atomic<Int>(value: 0)
        let disposable = (outer.signal() |> queue).start(next: { value in
            let now = inFlight.modify { $0 + 1 }
            maximumInFlight.modify { max($0, now) }
            sum.modify { $0 + value }
            count.modify { $0 + 1 }
            inFlight.modify { $0 - 1 }
        }, completed: {
            completions.modify { $0 + 1 }
        })
        let group = DispatchGroup()
        for thread in 0 ..< threads {
            DispatchQueue.global().async(group: group) {
                for i in 0 ..< perThread {
                    let value = thread * perThread + i
                    outer.putNext(Signal { subscriber in
                        subscriber.putNext(value)
                        subscriber.putCompletion()
                        return EmptyDisposable
                    })
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        outer.putCompletion()
        let total = threads * perThread
        XCTAssertEqual(count.with { $0 }, total)
        XCTAssertEqual(sum.with { $0 }, total * (total - 1) / 2)
        XCTAssertEqual(maximumInFlight.with { $0 }, 1, "inner signals never overlap")
        XCTAssertEqual(completions.with { $0 }, 1)
        disposable.dispose()
    }

    func testSwitchToLatestLeavesExactlyOneInnerSubscribedUnderConcurrentEmitters() {
        let threads = 4
        let perThread = 500
        let outer = TestPipe<Signal<Int, NoError>, NoError>()
        let inners = (0 ..< threads * perThread).map { _ in TestPipe<Int, NoError>() }
        let disposable = (outer.signal() |> switchToLatest).start()
        let group = DispatchGroup()
        for thread in 0 ..< threads {
            DispatchQueue.global().async(group: group) {
                for i in 0 ..< perThread {
                    outer.putNext(inners[thread * perThread + i].signal())
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(inners.reduce(0) { $0 + $1.subscriberCount }, 1)
        disposable.dispose()
        XCTAssertEqual(inners.reduce(0) { $0 + $1.subscriberCount }, 0)
        XCTAssertEqual(outer.subscriberCount, 0)
    }

    func testConcurrentSubscribeEmitDispose() {
        // Threads subscribe to and dispose mapToSignal chains over shared pipes
        // while another thread emits into them; at the end nothing is attached
        // and every captured tracker has been released.
        let outer = TestPipe<Int, NoError>()
        let inner = TestPipe<Int, NoError>()
        let released = Atomic<Int>(value: 0)
        let created = Atomic<Int>(value: 0)
        let synchronousValues = Atomic<Int>(value: 0)
        let subscribers = 3
        let iterations = 500
        whileEmitting(into: [outer, inner], workers: subscribers, iterations: iterations) {
            let tracker = DeinitTracker(released)
            created.modify { $0 + 1 }
            let disposable = (outer.signal() |> mapToSignal { _ in inner.signal() }).start(next: { _ in _ = tracker })
            let single = (Signal<Int, NoError>.single(1) |> mapToSignal { value in Signal<Int, NoError>.single(value + 1) |> then(.single(value + 2)) }).start(next: { value in
                synchronousValues.modify { $0 + value }
            })
            disposable.dispose()
            single.dispose()
        }
        XCTAssertEqual(outer.subscriberCount, 0)
        XCTAssertEqual(inner.subscriberCount, 0)
        XCTAssertEqual(synchronousValues.with { $0 }, subscribers * iterations * 5)
        XCTAssertEqual(released.with { $0 }, created.with { $0 })
        XCTAssertEqual(created.with { $0 }, subscribers * iterations)
    }

    // startWith and concat (issue 33) beyond the shared marble table
    // (Tests/SwiftSignalKitTestSupport/OperatorLifecycle.swift).

    func testOperatorsThatEndEarlyStopASynchronousEndlessUpstream() {
        assertEndsAnEndlessUpstream([
            ("startWith then take", { $0 |> startWith(0) |> take(3) }, [0, 1, 2]),
        ])
    }

    func testDisposingFromInsideAValueCallback() {
        assertDisposableFromInsideAValueCallback([
            ("startWith", { $0 |> startWith(0) |> skip(1) }),
            ("concat", { concat([$0, .single(9)]) }),
        ])
    }

    func testConcatOfNothingCompletesAndOfManySynchronousOnesDoesNotGrowTheStack() {
        onSmallStack {
            var completed = 0
            concat([Signal<Int, NoError>]()).start(completed: { completed += 1 }).dispose()
            XCTAssertEqual(completed, 1)
            let count = loadCount(100_000)
            var sum = 0
            concat(Array(repeating: Signal<Int, NoError>.single(1), count: count)).start(next: { sum += $0 }).dispose()
            XCTAssertEqual(sum, count)
        }
    }

    func testAbandonedSubscriptionsAreFreedWhenTheSourceLetsGo() {
        assertFreedWhenAbandoned([
            ("startWith", { $0 |> startWith(0) }),
            ("concat", { concat([$0, .single(1)]) }),
        ])
    }

    // MARK: the inner objects reused after a synchronous completion

    /// A signal that completes at once leaves its inner object to the next
    /// inner signal; one still running keeps its own. The id of a reused
    /// object is the new inner signal's: a replaced asynchronous inner
    /// signal (still holding the object it was started with) is dropped,
    /// whatever the reuse did since.
    func testSwitchToLatestReusingInnerObjectsDropsReplacedSignals() {
        for (name, operatorUnderTest) in [
            ("switchToLatest", { (signal: Signal<Signal<Int, NoError>, NoError>) in signal |> switchToLatest }),
            ("mapToSignal", { (signal: Signal<Signal<Int, NoError>, NoError>) in signal |> mapToSignal { $0 } }),
        ] as [(String, (Signal<Signal<Int, NoError>, NoError>) -> Signal<Int, NoError>)] {
            let outer = ValuePipe<Signal<Int, NoError>>()
            let slow = ValuePipe<Int>()
            var values: [Int] = []
            let disposable = operatorUnderTest(outer.signal()).start(next: { values.append($0) })
            outer.putNext(.single(1))
            outer.putNext(slow.signal())
            slow.putNext(2)
            outer.putNext(immediate(3))
            slow.putNext(98)
            outer.putNext(immediate(4))
            slow.putNext(99)
            outer.putNext(.single(5))
            XCTAssertEqual(values, [1, 2, 3, 4, 5], name)
            disposable.dispose()
        }
    }

    func testQueueAndMergeMapReusingInnerObjectsKeepEveryInnersValues() {
        for (name, operatorUnderTest) in [
            ("queue", { (signal: Signal<Signal<Int, NoError>, NoError>) in signal |> queue }),
            ("mergeMap", { (signal: Signal<Signal<Int, NoError>, NoError>) in signal |> mergeMap { $0 } }),
            ("mergeMap bounded", { (signal: Signal<Signal<Int, NoError>, NoError>) in signal |> mergeMap(maxConcurrent: 2, capacity: 8, overflow: .dropNewest) { $0 } }),
        ] as [(String, (Signal<Signal<Int, NoError>, NoError>) -> Signal<Int, NoError>)] {
            let outer = ValuePipe<Signal<Int, NoError>>()
            let slow = SignalPipe<Int, NoError>()
            var values: [Int] = []
            var completed = 0
            let disposable = operatorUnderTest(outer.signal()).start(next: { values.append($0) }, completed: { completed += 1 })
            outer.putNext(.single(1))
            outer.putNext(slow.signal() |> take(2))
            outer.putNext(immediate(3))
            slow.putNext(10)
            outer.putNext(immediate(4))
            slow.putNext(11)
            outer.putNext(.single(5))
            let expected = name == "queue" ? [1, 10, 11, 3, 4, 5] : [1, 3, 10, 4, 11, 5]
            XCTAssertEqual(values, expected, name)
            XCTAssertEqual(completed, 0, name)
            disposable.dispose()
        }
    }

    /// An inner object waiting to be reused holds neither the operator's
    /// state nor the downstream subscriber: the subscriber's callbacks go
    /// with a dispose, and with the outer signal's end without one, as
    /// before (a reference kept there would keep both alive in a cycle).
    func testReusedInnerObjectsKeepNothingAlive() {
        final class Tracked: @unchecked Sendable {}
        for (name, operatorUnderTest) in [
            ("switchToLatest", { (signal: Signal<Signal<Int, NoError>, NoError>) in signal |> switchToLatest }),
            ("queue", { (signal: Signal<Signal<Int, NoError>, NoError>) in signal |> queue }),
            ("throttled", { (signal: Signal<Signal<Int, NoError>, NoError>) in signal |> throttled }),
            ("mergeMap", { (signal: Signal<Signal<Int, NoError>, NoError>) in signal |> mergeMap { $0 } }),
            ("mergeMap bounded", { (signal: Signal<Signal<Int, NoError>, NoError>) in signal |> mergeMap(maxConcurrent: 1, capacity: 4, overflow: .dropNewest) { $0 } }),
        ] as [(String, (Signal<Signal<Int, NoError>, NoError>) -> Signal<Int, NoError>)] {
            for disposing in [true, false] {
                weak var weakTracked: Tracked?
                var outer: ValuePipe<Signal<Int, NoError>>? = ValuePipe()
                var sum = 0
                var disposable: (any Disposable)?
                do {
                    let tracked = Tracked()
                    weakTracked = tracked
                    disposable = operatorUnderTest(outer!.signal()).start(next: { value in
                        withExtendedLifetime(tracked) { sum += value }
                    })
                }
                for value in 1 ... 3 {
                    outer!.putNext(value == 2 ? .single(value) : immediate(value))
                }
                XCTAssertEqual(sum, 6, name)
                XCTAssertNotNil(weakTracked, name)
                if disposing {
                    disposable?.dispose()
                } else {
                    outer = nil
                }
                disposable = nil
                XCTAssertNil(weakTracked, "\(name): the subscriber's callbacks are still held (disposing: \(disposing))")
                withExtendedLifetime(outer) {}
            }
        }
    }

    /// Threads putting inner signals at once, most completing during their
    /// start (their objects reused), some not (from a pipe, completed
    /// later from another thread): `mergeMap` delivers every value once,
    /// `switchToLatest` and `queue` deliver no value twice and none after
    /// the end, and every subscriber's callbacks go when it is disposed.
    /// Run under ThreadSanitizer by `make test` (test-swift-tsan).
    func testInnerObjectsReusedWhileThreadsPutInnerSignals() {
        final class Tracked: @unchecked Sendable {}
        let threads = 4
        let perThread = loadCount(2_000)
        for name in ["mergeMap", "switchToLatest", "queue"] {
            weak var weakTracked: Tracked?
            let outer = SignalPipe<Signal<Int, NoError>, NoError>()
            let slow = SignalPipe<Int, NoError>()
            let delivered = Atomic<Int>(value: 0)
            let signals: Signal<Int, NoError>
            switch name {
            case "mergeMap":
                signals = outer.signal() |> mergeMap { $0 }
            case "switchToLatest":
                signals = outer.signal() |> switchToLatest
            default:
                signals = outer.signal() |> queue
            }
            var disposable: (any Disposable)?
            do {
                let tracked = Tracked()
                weakTracked = tracked
                disposable = signals.start(next: { value in
                    withExtendedLifetime(tracked) {
                        _ = delivered.modify { $0 + value }
                    }
                })
            }
            DispatchQueue.concurrentPerform(iterations: threads + 1) { index in
                if index == threads {
                    // Completes the slow inner signals meanwhile.
                    for _ in 0 ..< perThread / 10 {
                        slow.putCompletion()
                    }
                    return
                }
                for i in 0 ..< perThread {
                    outer.putNext(i % 50 == 0 ? (slow.signal() |> take(1)) : i % 2 == 0 ? .single(1) : immediate(1))
                }
            }
            let total = delivered.with { $0 }
            if name == "mergeMap" {
                XCTAssertEqual(total, threads * (perThread - perThread / 50), name)
            } else {
                XCTAssertLessThanOrEqual(total, threads * perThread, name)
            }
            disposable?.dispose()
            disposable = nil
            XCTAssertNil(weakTracked, "\(name): the subscriber's callbacks are still held")
        }
    }

    // MARK: singles delivered without a subscription

    /// The meta operators deliver a `single` kept in place without
    /// subscribing to it (its value, then its completion, as its start
    /// would). Each scenario is played twice, once with singles and once
    /// with the same constant sources made by a generator (subscribed as
    /// any signal), and the two must record the same events: values,
    /// completion, and which values the function was called for. The
    /// scenarios: plain; a slow inner signal among them; the downstream
    /// taking 3 (the subscription ends inside a single's value); a value
    /// put back into the outer signal from inside a delivery (a re-entrant
    /// start, which in switch mode replaces the single delivering); a
    /// dispose from inside a value.
    func testSinglesDeliverAsTheSameConstantSourceSubscribed() {
        let operators: [(String, (@escaping (Int) -> Signal<Int, NoError>) -> (Signal<Int, NoError>) -> Signal<Int, NoError>)] = [
            ("mapToSignal", { mapToSignal($0) }),
            ("mapToQueue", { mapToQueue($0) }),
            ("mapToThrottled", { mapToThrottled($0) }),
            ("mergeMap", { mergeMap($0) }),
            ("mergeMap 1", { mergeMap(maxConcurrent: 1, $0) }),
            ("mergeMap 2 bounded", { mergeMap(maxConcurrent: 2, capacity: 4, overflow: .dropNewest, $0) }),
        ]
        let scenarios = ["plain", "slow", "take", "reentrant", "dispose"]
        for (name, makeOperator) in operators {
            for scenario in scenarios {
                var records: [[String]] = []
                for inPlace in [true, false] {
                    let outer = ValuePipe<Int>()
                    let slow = ValuePipe<Int>()
                    var events: [String] = []
                    let constant: (Int) -> Signal<Int, NoError> = { value in
                        if inPlace {
                            return .single(value)
                        }
                        return Signal { subscriber in
                            subscriber.putNext(value)
                            subscriber.putCompletion()
                            return EmptyDisposable
                        }
                    }
                    let f: (Int) -> Signal<Int, NoError> = { value in
                        events.append("f\(value)")
                        if scenario == "slow" && value == 2 {
                            return slow.signal() |> take(2)
                        }
                        return constant(value)
                    }
                    var signal = outer.signal() |> makeOperator(f)
                    if scenario == "take" {
                        signal = signal |> take(3)
                    }
                    var disposable: (any Disposable)?
                    disposable = signal.start(next: { value in
                        events.append("v\(value)")
                        if scenario == "reentrant" && value < 3 {
                            outer.putNext(value + 10)
                        }
                        if scenario == "dispose" && value == 3 {
                            disposable?.dispose()
                        }
                    }, completed: {
                        events.append("c")
                    })
                    for value in 1 ... 5 {
                        outer.putNext(value)
                        if scenario == "slow" && value == 3 {
                            slow.putNext(20)
                            slow.putNext(21)
                        }
                    }
                    outer.putCompletion()
                    records.append(events)
                    disposable?.dispose()
                }
                XCTAssertEqual(records[0], records[1], "\(name), \(scenario): singles (first) against subscribed constant sources")
                XCTAssertTrue(records[0].contains("v1"), "\(name), \(scenario): \(records[0])")
            }
        }
    }

    /// A single that waits behind a running inner signal (queue mode, and
    /// `mergeMap` at its limit) is delivered when that one completes, in
    /// order, and the operator completes after it: the slot it takes is
    /// freed as its completion would free it.
    func testSinglesWaitingBehindARunningInnerSignalRunInOrder() {
        for (name, makeOperator) in [
            ("mapToQueue", { mapToQueue($0) }),
            ("mergeMap 1", { mergeMap(maxConcurrent: 1, $0) }),
            ("mergeMap 1 bounded", { mergeMap(maxConcurrent: 1, capacity: 8, overflow: .dropOldest, $0) }),
        ] as [(String, (@escaping (Int) -> Signal<Int, NoError>) -> (Signal<Int, NoError>) -> Signal<Int, NoError>)] {
            let outer = ValuePipe<Int>()
            let slow = TestPipe<Int, NoError>()
            var values: [Int] = []
            var completed = 0
            let f: (Int) -> Signal<Int, NoError> = { value in
                value == 0 ? (slow.signal() |> take(1)) : .single(value)
            }
            let disposable = (outer.signal() |> makeOperator(f)).start(next: { values.append($0) }, completed: { completed += 1 })
            outer.putNext(0)
            for value in 1 ... 4 {
                outer.putNext(value)
            }
            outer.putCompletion()
            XCTAssertEqual(values, [], name)
            slow.putNext(100)
            XCTAssertEqual(values, [100, 1, 2, 3, 4], name)
            XCTAssertEqual(completed, 1, name)
            XCTAssertEqual(slow.subscriberCount, 0, name)
            disposable.dispose()
        }
    }
}
