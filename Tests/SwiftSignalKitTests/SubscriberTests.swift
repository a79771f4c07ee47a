import XCTest
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class SubscriberTests: XCTestCase {
    private enum TestError: Error, Equatable {
        case failed
        case other
    }

    /// A signal that hands out its subscriber, so that the test can emit into it.
    private final class HotSource<T, E>: @unchecked Sendable {
        let subscriber = Atomic<Subscriber<T, E>?>(value: nil)
        let upstream = CountingDisposable()

        var signal: Signal<T, E> {
            return Signal { subscriber in
                self.subscriber.swap(subscriber)
                return self.upstream
            }
        }

        var current: Subscriber<T, E> {
            return self.subscriber.with { $0! }
        }
    }

    // MARK: - Values and terminal events

    func testValuesAreDeliveredInOrderThenCompletion() {
        let recorder = Recorder<Int, TestError>()
        let subscriber = recorder.makeSubscriber()
        subscriber.putNext(1)
        subscriber.putNext(2)
        subscriber.putNext(3)
        subscriber.putCompletion()
        XCTAssertEqual(recorder.recordedValues, [1, 2, 3])
        XCTAssertEqual(recorder.completions.count, 1)
        XCTAssertEqual(recorder.recordedErrors, [])
    }

    func testCompletionIsTheOnlyTerminalEventAndNothingFollowsIt() {
        let recorder = Recorder<Int, TestError>()
        let subscriber = recorder.makeSubscriber()
        subscriber.putNext(1)
        subscriber.putCompletion()
        subscriber.putNext(2)
        subscriber.putError(.failed)
        subscriber.putCompletion()
        subscriber.putNext(3)
        XCTAssertEqual(recorder.recordedValues, [1])
        XCTAssertEqual(recorder.completions.count, 1)
        XCTAssertEqual(recorder.recordedErrors, [])
    }

    func testErrorIsTheOnlyTerminalEventAndNothingFollowsIt() {
        let recorder = Recorder<Int, TestError>()
        let subscriber = recorder.makeSubscriber()
        subscriber.putNext(1)
        subscriber.putError(.failed)
        subscriber.putError(.other)
        subscriber.putCompletion()
        subscriber.putNext(2)
        XCTAssertEqual(recorder.recordedValues, [1])
        XCTAssertEqual(recorder.recordedErrors, [.failed])
        XCTAssertEqual(recorder.completions.count, 0)
    }

    func testNilCallbacksAreAllowed() {
        let subscriber = Subscriber<Int, TestError>()
        subscriber.putNext(1)
        subscriber.putError(.failed)
        subscriber.putCompletion()
        let onlyNext = Subscriber<Int, TestError>(next: { _ in })
        onlyNext.putNext(1)
        onlyNext.putCompletion()
        XCTAssertTrue(subscriber.description.contains("terminated: true"))
        XCTAssertTrue(onlyNext.description.contains("terminated: true"))
    }

    func testDescriptionReportsTermination() {
        let subscriber = Subscriber<Int, TestError>(next: { _ in })
        XCTAssertTrue(subscriber.description.hasPrefix("Subscriber<Int, "), subscriber.description)
        XCTAssertTrue(subscriber.description.contains("terminated: false"), subscriber.description)
        subscriber.putCompletion()
        XCTAssertTrue(subscriber.description.contains("terminated: true"), subscriber.description)
    }

    func testNothingIsDeliveredAfterDispose() {
        let source = HotSource<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        let disposable = recorder.start(source.signal)
        let subscriber = source.current
        subscriber.putNext(1)
        disposable.dispose()
        subscriber.putNext(2)
        subscriber.putError(.failed)
        subscriber.putCompletion()
        XCTAssertEqual(recorder.recordedValues, [1])
        XCTAssertEqual(recorder.recordedErrors, [])
        XCTAssertEqual(recorder.completions.count, 0)
    }

    // MARK: - Release of callbacks and kept-alive objects

    func testCallbacksAreReleasedAfterCompletion() {
        let recorder = Recorder<Int, TestError>()
        let subscriber = recorder.makeSubscriber()
        subscriber.putNext(1)
        XCTAssertEqual(recorder.released.count, 0)
        subscriber.putCompletion()
        // The subscriber is still alive: the release is due to termination.
        XCTAssertEqual(recorder.released.count, 1)
        withExtendedLifetime(subscriber) {}
        XCTAssertEqual(recorder.released.count, 1)
    }

    func testCallbacksAreReleasedAfterError() {
        let recorder = Recorder<Int, TestError>()
        let subscriber = recorder.makeSubscriber()
        XCTAssertEqual(recorder.released.count, 0)
        subscriber.putError(.failed)
        XCTAssertEqual(recorder.released.count, 1)
        withExtendedLifetime(subscriber) {}
    }

    func testCallbacksAreReleasedAfterDispose() {
        let source = HotSource<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        let disposable = recorder.start(source.signal)
        XCTAssertEqual(recorder.released.count, 0)
        disposable.dispose()
        // Both the disposable and the subscriber are still alive.
        XCTAssertEqual(recorder.released.count, 1)
        disposable.dispose()
        XCTAssertEqual(recorder.released.count, 1)
        withExtendedLifetime((disposable, source)) {}
    }

    func testKeptAliveObjectsLiveUntilTermination() {
        let released = Counter()
        let subscriber = Subscriber<Int, TestError>(next: { _ in })
        subscriber.keepAlive(DeinitTracker(released))
        subscriber.keepAlive(DeinitTracker(released))
        XCTAssertEqual(released.count, 0)
        subscriber.putNext(1)
        XCTAssertEqual(released.count, 0)
        subscriber.putCompletion()
        XCTAssertEqual(released.count, 2)
        withExtendedLifetime(subscriber) {}
    }

    func testKeptAliveObjectsAreReleasedOnDispose() {
        let released = Counter()
        let source = HotSource<Int, TestError>()
        let disposable = Signal<Int, TestError> { subscriber in
            subscriber.keepAlive(DeinitTracker(released))
            return source.signal.start(next: subscriber.putNext)
        }.start()
        XCTAssertEqual(released.count, 0)
        disposable.dispose()
        XCTAssertEqual(released.count, 1)
        withExtendedLifetime(disposable) {}
    }

    /// Nothing but the subscription's disposable holds the subscriber (the
    /// generator returns `EmptyDisposable`): the kept object lives while the
    /// subscription does. It was released when `start` returned (the
    /// disposable refers to the subscriber unretained; found by a new-user
    /// program).
    func testKeptAliveObjectsLiveWhileTheSubscriptionIsLive() {
        let released = Counter()
        let disposable = Signal<Int, TestError> { subscriber in
            subscriber.keepAlive(DeinitTracker(released))
            return EmptyDisposable
        }.start()
        XCTAssertEqual(released.count, 0, "live and held: kept")
        disposable.dispose()
        XCTAssertEqual(released.count, 1, "released on dispose")
        disposable.dispose()
        XCTAssertEqual(released.count, 1, "exactly once")
        withExtendedLifetime(disposable) {}
    }

    /// The same with an upstream disposable that does not capture the
    /// subscriber, and through an operator (its subscription holds the
    /// upstream one's disposable).
    func testKeptAliveObjectsLiveWhileAnOperatorsSubscriptionIsLive() {
        let released = Counter()
        let upstream = CountingDisposable()
        let disposable = (Signal<Int, TestError> { subscriber in
            subscriber.keepAlive(DeinitTracker(released))
            return upstream
        } |> take(2)).start()
        XCTAssertEqual(released.count, 0)
        disposable.dispose()
        XCTAssertEqual(released.count, 1)
        XCTAssertEqual(upstream.count, 1)
        withExtendedLifetime(disposable) {}
    }

    /// Once neither the disposable nor the source holds the subscription
    /// (nothing can reach or dispose it any more), the kept objects go with
    /// it, without `dispose()`, as the original releases a subscriber that
    /// nothing holds.
    func testKeptAliveObjectsAreReleasedWhenNothingHoldsTheSubscription() {
        let released = Counter()
        var disposable: (any Disposable)? = Signal<Int, TestError> { subscriber in
            subscriber.keepAlive(DeinitTracker(released))
            return EmptyDisposable
        }.start()
        XCTAssertEqual(released.count, 0)
        XCTAssertNotNil(disposable)
        disposable = nil
        XCTAssertEqual(released.count, 1)
    }

    /// The source holds the subscriber, the disposable is dropped: the kept
    /// objects live until the subscriber terminates (as in the original,
    /// where the subscriber holds them; the subscriber holds its handle).
    func testKeptAliveObjectsLiveWhileTheSourceHoldsTheSubscriber() {
        let released = Counter()
        let source = HotSource<Int, TestError>()
        var disposable: (any Disposable)? = Signal<Int, TestError> { subscriber in
            subscriber.keepAlive(DeinitTracker(released))
            return source.signal.start(next: subscriber.putNext, error: subscriber.putError, completed: subscriber.putCompletion)
        }.start()
        XCTAssertNotNil(disposable)
        disposable = nil
        XCTAssertEqual(released.count, 0)
        source.current.putCompletion()
        XCTAssertEqual(released.count, 1)
    }

    func testKeptAliveObjectsOfAStartedSignalAreReleasedOnCompletionAndError() {
        for fails in [false, true] {
            let released = Counter()
            let source = HotSource<Int, TestError>()
            let disposable = Signal<Int, TestError> { subscriber in
                subscriber.keepAlive(DeinitTracker(released))
                return source.signal.start(next: subscriber.putNext, error: subscriber.putError, completed: subscriber.putCompletion)
            }.start()
            source.current.putNext(1)
            XCTAssertEqual(released.count, 0)
            if fails {
                source.current.putError(.failed)
            } else {
                source.current.putCompletion()
            }
            XCTAssertEqual(released.count, 1, "released on the terminal event, the disposable still held")
            disposable.dispose()
            XCTAssertEqual(released.count, 1)
            withExtendedLifetime(disposable) {}
        }
    }

    func testKeepAliveAfterTheSubscriptionEndedReleasesTheObjectAtOnce() {
        let released = Counter()
        let kept = Atomic<Subscriber<Int, TestError>?>(value: nil)
        let disposable = Signal<Int, TestError> { subscriber in
            kept.swap(subscriber)
            return EmptyDisposable
        }.start()
        disposable.dispose()
        kept.with { $0 }!.keepAlive(DeinitTracker(released))
        XCTAssertEqual(released.count, 1)
        withExtendedLifetime(disposable) {}
    }

    /// A kept object's deinit may use the subscription (keep another object,
    /// dispose it again): no lock of the subscription is held while kept
    /// objects are released.
    func testAKeptObjectsDeinitMayReenterTheSubscription() {
        let released = Counter()
        let kept = Atomic<Subscriber<Int, TestError>?>(value: nil)
        let disposableBox = Atomic<(any Disposable)?>(value: nil)
        let disposable = Signal<Int, TestError> { subscriber in
            kept.swap(subscriber)
            subscriber.keepAlive(DeinitTracker {
                kept.with { $0 }?.keepAlive(DeinitTracker(released))
                disposableBox.with { $0 }?.dispose()
                released.increment()
            })
            return EmptyDisposable
        }.start()
        disposableBox.swap(disposable)
        disposable.dispose()
        XCTAssertEqual(released.count, 2)
        kept.swap(nil)
        disposableBox.swap(nil)
    }

    func testKeepAliveAfterTerminationReleasesTheObjectAtOnce() {
        let released = Counter()
        let subscriber = Subscriber<Int, TestError>()
        subscriber.putError(.failed)
        subscriber.keepAlive(DeinitTracker(released))
        XCTAssertEqual(released.count, 1)
        withExtendedLifetime(subscriber) {}
    }

    // MARK: - Upstream disposal

    func testUpstreamIsDisposedOnceOnCompletion() {
        let source = HotSource<Int, TestError>()
        let disposable = source.signal.start()
        XCTAssertEqual(source.upstream.count, 0)
        source.current.putNext(1)
        XCTAssertEqual(source.upstream.count, 0)
        source.current.putCompletion()
        XCTAssertEqual(source.upstream.count, 1)
        source.current.putCompletion()
        source.current.putError(.failed)
        disposable.dispose()
        XCTAssertEqual(source.upstream.count, 1)
    }

    func testUpstreamIsDisposedOnceOnError() {
        let source = HotSource<Int, TestError>()
        let disposable = source.signal.start()
        source.current.putError(.failed)
        XCTAssertEqual(source.upstream.count, 1)
        disposable.dispose()
        source.current.putCompletion()
        XCTAssertEqual(source.upstream.count, 1)
    }

    func testUpstreamIsDisposedOnceOnDispose() {
        let source = HotSource<Int, TestError>()
        let disposable = source.signal.start()
        XCTAssertEqual(source.upstream.count, 0)
        disposable.dispose()
        XCTAssertEqual(source.upstream.count, 1)
        disposable.dispose()
        source.current.putCompletion()
        source.current.putError(.failed)
        XCTAssertEqual(source.upstream.count, 1)
    }

    func testDisposableReturnedAfterSynchronousCompletionIsDisposedAtOnce() {
        let upstream = CountingDisposable()
        var completed = 0
        let disposable = Signal<Int, TestError> { subscriber in
            subscriber.putCompletion()
            XCTAssertEqual(upstream.count, 0)
            return upstream
        }.start(completed: { completed += 1 })
        XCTAssertEqual(completed, 1)
        XCTAssertEqual(upstream.count, 1)
        disposable.dispose()
        XCTAssertEqual(upstream.count, 1)
    }

    func testDisposableReturnedAfterSynchronousErrorIsDisposedAtOnce() {
        let upstream = CountingDisposable()
        let disposable = Signal<Int, TestError> { subscriber in
            subscriber.putError(.failed)
            return upstream
        }.start()
        XCTAssertEqual(upstream.count, 1)
        disposable.dispose()
        XCTAssertEqual(upstream.count, 1)
    }

    func testDisposableReturnedAfterTerminationOnAnotherThreadIsDisposedOnce() {
        for _ in 0 ..< 200 {
            let upstream = CountingDisposable()
            let completions = Counter()
            let group = DispatchGroup()
            let disposable = Signal<Int, TestError> { subscriber in
                group.enter()
                DispatchQueue.global().async {
                    subscriber.putCompletion()
                    group.leave()
                }
                return upstream
            }.start(completed: { completions.increment() })
            XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
            XCTAssertEqual(completions.count, 1)
            XCTAssertEqual(upstream.count, 1)
            disposable.dispose()
            XCTAssertEqual(upstream.count, 1)
        }
    }

    // MARK: - Reentrancy

    func testDisposeFromInsideNext() {
        let source = HotSource<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        let holder = Atomic<Disposable?>(value: nil)
        let tracker = Counter()
        let disposable = source.signal.start(next: { [trackerObject = DeinitTracker(tracker)] value in
            withExtendedLifetime(trackerObject) {
                recorder.values.modify { $0 + [value] }
                if value == 2 {
                    holder.with { $0 }?.dispose()
                }
            }
        }, completed: {
            recorder.completions.increment()
        })
        holder.swap(disposable)
        source.current.putNext(1)
        source.current.putNext(2)
        // Disposed from inside the callback: the upstream is disposed at once,
        // the callbacks once the callback has returned.
        XCTAssertEqual(source.upstream.count, 1)
        XCTAssertEqual(tracker.count, 1)
        source.current.putNext(3)
        source.current.putCompletion()
        XCTAssertEqual(recorder.recordedValues, [1, 2])
        XCTAssertEqual(recorder.completions.count, 0)
        XCTAssertEqual(source.upstream.count, 1)
    }

    func testCallbacksAreNotReleasedWhileTheCallbackDisposingItIsRunning() {
        let source = HotSource<Int, TestError>()
        let released = Counter()
        let holder = Atomic<Disposable?>(value: nil)
        let releasedDuringCallback = Atomic<Int>(value: -1)
        let disposable = source.signal.start(next: { [trackerObject = DeinitTracker(released)] _ in
            holder.with { $0 }?.dispose()
            // Still inside the callback: its captures must still be alive.
            releasedDuringCallback.swap(released.count)
            withExtendedLifetime(trackerObject) {}
        })
        holder.swap(disposable)
        source.current.putNext(1)
        XCTAssertEqual(releasedDuringCallback.with { $0 }, 0)
        XCTAssertEqual(released.count, 1)
    }

    func testDisposeFromInsideError() {
        let source = HotSource<Int, TestError>()
        let holder = Atomic<Disposable?>(value: nil)
        let errors = Counter()
        let disposable = source.signal.start(error: { _ in
            errors.increment()
            holder.with { $0 }?.dispose()
        })
        holder.swap(disposable)
        source.current.putError(.failed)
        source.current.putError(.other)
        XCTAssertEqual(errors.count, 1)
        XCTAssertEqual(source.upstream.count, 1)
    }

    func testDisposeFromInsideCompleted() {
        let source = HotSource<Int, TestError>()
        let holder = Atomic<Disposable?>(value: nil)
        let completions = Counter()
        let disposable = source.signal.start(completed: {
            completions.increment()
            holder.with { $0 }?.dispose()
        })
        holder.swap(disposable)
        source.current.putCompletion()
        source.current.putCompletion()
        XCTAssertEqual(completions.count, 1)
        XCTAssertEqual(source.upstream.count, 1)
    }

    func testPutNextFromInsideNextIsDeliveredReentrantly() {
        let subscriberHolder = Atomic<Subscriber<Int, TestError>?>(value: nil)
        let events = Atomic<[String]>(value: [])
        let subscriber = Subscriber<Int, TestError>(next: { value in
            events.modify { $0 + ["begin \(value)"] }
            if value < 3 {
                subscriberHolder.with { $0 }?.putNext(value + 1)
            }
            events.modify { $0 + ["end \(value)"] }
        })
        subscriberHolder.swap(subscriber)
        subscriber.putNext(1)
        XCTAssertEqual(events.with { $0 }, ["begin 1", "begin 2", "begin 3", "end 3", "end 2", "end 1"])
        subscriberHolder.swap(nil)
    }

    func testTerminationFromInsideNextDropsLaterEvents() {
        let subscriberHolder = Atomic<Subscriber<Int, TestError>?>(value: nil)
        let recorder = Recorder<Int, TestError>()
        let subscriber = Subscriber<Int, TestError>(next: { value in
            recorder.values.modify { $0 + [value] }
            if value == 2 {
                subscriberHolder.with { $0 }?.putCompletion()
                subscriberHolder.with { $0 }?.putNext(100)
            }
        }, completed: {
            recorder.completions.increment()
        })
        subscriberHolder.swap(subscriber)
        subscriber.putNext(1)
        subscriber.putNext(2)
        subscriber.putNext(3)
        XCTAssertEqual(recorder.recordedValues, [1, 2])
        XCTAssertEqual(recorder.completions.count, 1)
        subscriberHolder.swap(nil)
    }

    func testEventsFromInsideTerminalCallbacksAreDropped() {
        let subscriberHolder = Atomic<Subscriber<Int, TestError>?>(value: nil)
        let recorder = Recorder<Int, TestError>()
        let subscriber = Subscriber<Int, TestError>(next: { value in
            recorder.values.modify { $0 + [value] }
        }, error: { error in
            recorder.errors.modify { $0 + [error] }
            subscriberHolder.with { $0 }?.putNext(1)
            subscriberHolder.with { $0 }?.putCompletion()
            subscriberHolder.with { $0 }?.putError(.other)
        }, completed: {
            recorder.completions.increment()
        })
        subscriberHolder.swap(subscriber)
        subscriber.putError(.failed)
        XCTAssertEqual(recorder.recordedValues, [])
        XCTAssertEqual(recorder.recordedErrors, [.failed])
        XCTAssertEqual(recorder.completions.count, 0)
        subscriberHolder.swap(nil)
    }

    func testKeepAliveFromInsideNext() {
        let subscriberHolder = Atomic<Subscriber<Int, TestError>?>(value: nil)
        let released = Counter()
        let subscriber = Subscriber<Int, TestError>(next: { _ in
            subscriberHolder.with { $0 }?.keepAlive(DeinitTracker(released))
        })
        subscriberHolder.swap(subscriber)
        subscriber.putNext(1)
        XCTAssertEqual(released.count, 0)
        subscriber.putCompletion()
        XCTAssertEqual(released.count, 1)
        subscriberHolder.swap(nil)
    }

    // MARK: - Concurrency

    func testConcurrentPutNextDeliversEveryValue() {
        let threadCount = 8
        let perThread = 5_000
        let count = Counter()
        let sum = Atomic<Int>(value: 0)
        let recorder = Recorder<Int, TestError>()
        let subscriber = Subscriber<Int, TestError>(next: { value in
            count.increment()
            sum.modify { $0 + value }
        }, completed: {
            recorder.completions.increment()
        })
        runThreads(threadCount) { thread in
            for i in 0 ..< perThread {
                subscriber.putNext(thread * perThread + i)
            }
        }
        subscriber.putCompletion()
        let total = threadCount * perThread
        XCTAssertEqual(count.count, total)
        XCTAssertEqual(sum.with { $0 }, total * (total - 1) / 2)
        XCTAssertEqual(recorder.completions.count, 1)
    }

    func testConcurrentPutNextRacingDispose() {
        let threadCount = 4
        let perThread = 3_000
        let lateMarker = 1 << 40
        for _ in 0 ..< 20 {
            let source = HotSource<Int, TestError>()
            let released = Counter()
            let delivered = Counter()
            let violations = Counter()
            let enoughDelivered = DispatchSemaphore(value: 0)
            let disposeReturned = Atomic<Bool>(value: false)
            let disposable = source.signal.start(next: { [trackerObject = DeinitTracker(released)] value in
                withExtendedLifetime(trackerObject) {
                    if value >= lateMarker || value < 0 {
                        violations.increment()
                    }
                    if delivered.increment() == 100 {
                        enoughDelivered.signal()
                    }
                    // The callback's context (its captures) lives until the
                    // call returns, whatever the disposing thread has done:
                    // the subscriber calls it borrowed, without a retain.
                    if released.count != 0 {
                        violations.increment()
                    }
                }
            })
            let subscriber = source.current
            runThreads(threadCount + 1) { thread in
                if thread == threadCount {
                    XCTAssertEqual(enoughDelivered.wait(timeout: .now() + waitDeadline), .success)
                    disposable.dispose()
                    disposeReturned.swap(true)
                    // On the disposing thread, nothing is delivered any more.
                    subscriber.putNext(-1)
                } else {
                    for i in 0 ..< perThread {
                        // A value emitted after dispose() has returned (as seen
                        // by this thread) carries the marker and must be dropped.
                        let late = disposeReturned.with { $0 }
                        subscriber.putNext(late ? lateMarker + i : i)
                    }
                }
            }
            XCTAssertEqual(violations.count, 0)
            XCTAssertGreaterThanOrEqual(delivered.count, 100)
            XCTAssertLessThanOrEqual(delivered.count, threadCount * perThread)
            XCTAssertEqual(released.count, 1)
            XCTAssertEqual(source.upstream.count, 1)
            withExtendedLifetime((disposable, subscriber)) {}
        }
    }

    /// The value callback is called borrowed (no retain of its context for
    /// the call): a dispose on another thread, returning while the call is
    /// running, must not release the context under it. The release waits for
    /// the call's return and runs then, on the calling thread.
    func testDisposeOnAnotherThreadDuringACallReleasesTheCallbackAfterIt() {
        let source = HotSource<Int, TestError>()
        let released = Counter()
        // The completion callback is released with the value callback: it
        // shows when the release ran even where the compiler copies the
        // value callback for the call (unoptimized builds).
        let completionReleased = Counter()
        let entered = DispatchSemaphore(value: 0)
        let disposeReturned = DispatchSemaphore(value: 0)
        let releasedWhenDisposeReturned = Atomic<Int>(value: -1)
        let completionReleasedWhenDisposeReturned = Atomic<Int>(value: -1)
        let releasedAtTheCallsEnd = Atomic<Int>(value: -1)
        let calls = Counter()
        let disposable = source.signal.start(next: { [trackerObject = DeinitTracker(released)] _ in
            calls.increment()
            entered.signal()
            disposeReturned.wait()
            // The other thread's dispose has returned: the captures are
            // still alive.
            releasedAtTheCallsEnd.swap(released.count)
            withExtendedLifetime(trackerObject) {}
        }, completed: { [trackerObject = DeinitTracker(completionReleased)] in
            withExtendedLifetime(trackerObject) {}
        })
        let subscriber = source.current
        runThreads(2) { thread in
            if thread == 0 {
                subscriber.putNext(1)
            } else {
                entered.wait()
                disposable.dispose()
                releasedWhenDisposeReturned.swap(released.count)
                completionReleasedWhenDisposeReturned.swap(completionReleased.count)
                disposeReturned.signal()
            }
        }
        XCTAssertEqual(releasedWhenDisposeReturned.with { $0 }, 0, "the callback was released while a call into it was running")
        XCTAssertEqual(completionReleasedWhenDisposeReturned.with { $0 }, 0, "the callbacks were released while a call was running")
        XCTAssertEqual(releasedAtTheCallsEnd.with { $0 }, 0, "the callback's context was released under the call")
        XCTAssertEqual(released.count, 1, "the callback is released once the call has returned")
        XCTAssertEqual(completionReleased.count, 1)
        subscriber.putNext(2)
        XCTAssertEqual(calls.count, 1, "a value delivered after dispose returned")
        XCTAssertEqual(source.upstream.count, 1)
    }

    func testConcurrentTerminalEventsDeliverExactlyOne() {
        let threadCount = 6
        for _ in 0 ..< 100 {
            let source = HotSource<Int, TestError>()
            let terminals = Counter()
            let released = Counter()
            // The terminal callbacks linger (yielding, not sleeping) to widen
            // the window in which a second terminal event could slip in.
            let linger = {
                for _ in 0 ..< 200 {
                    sched_yield()
                }
            }
            let disposable = source.signal.start(error: { [tracker = DeinitTracker(released)] _ in
                withExtendedLifetime(tracker) {
                    terminals.increment()
                    linger()
                }
            }, completed: { [tracker = DeinitTracker(released)] in
                withExtendedLifetime(tracker) {
                    terminals.increment()
                    linger()
                }
            })
            let subscriber = source.current
            runThreads(threadCount) { thread in
                switch thread % 3 {
                case 0:
                    subscriber.putCompletion()
                case 1:
                    subscriber.putError(.failed)
                default:
                    subscriber.putNext(thread)
                    subscriber.putError(.other)
                }
            }
            XCTAssertEqual(terminals.count, 1)
            XCTAssertEqual(released.count, 2)
            XCTAssertEqual(source.upstream.count, 1)
            withExtendedLifetime(disposable) {}
        }
    }

    func testConcurrentDisposeRacingCompletionDisposesUpstreamOnce() {
        for _ in 0 ..< 100 {
            let source = HotSource<Int, TestError>()
            let recorder = Recorder<Int, TestError>()
            let disposable = recorder.start(source.signal)
            let subscriber = source.current
            runThreads(4) { thread in
                if thread % 2 == 0 {
                    disposable.dispose()
                } else {
                    subscriber.putCompletion()
                }
            }
            XCTAssertLessThanOrEqual(recorder.completions.count, 1)
            XCTAssertEqual(recorder.released.count, 1)
            XCTAssertEqual(source.upstream.count, 1)
        }
    }

    func testConcurrentKeepAliveRacingTerminationReleasesEveryObject() {
        let threadCount = 4
        let perThread = 500
        for _ in 0 ..< 10 {
            let released = Counter()
            let subscriber = Subscriber<Int, TestError>(next: { _ in })
            runThreads(threadCount + 1) { thread in
                if thread == threadCount {
                    subscriber.putCompletion()
                } else {
                    for _ in 0 ..< perThread {
                        subscriber.keepAlive(DeinitTracker(released))
                    }
                }
            }
            // The subscriber is still alive: every object was released because
            // of the termination (or at once, when kept after it).
            XCTAssertEqual(released.count, threadCount * perThread)
            withExtendedLifetime(subscriber) {}
        }
    }

    /// keepAlive on several threads racing the dispose of the subscription's
    /// disposable (the subscriber held only by the generator's closure
    /// capture, so only through the subscription): every object is released
    /// exactly once, by the dispose or at once when kept after it.
    func testConcurrentKeepAliveRacingDisposeReleasesEveryObjectOnce() {
        let threadCount = 4
        let perThread = 500
        for _ in 0 ..< 10 {
            let released = Counter()
            let kept = Atomic<Subscriber<Int, TestError>?>(value: nil)
            let disposable = Signal<Int, TestError> { subscriber in
                kept.swap(subscriber)
                return EmptyDisposable
            }.start()
            let subscriber = kept.swap(nil)!
            runThreads(threadCount + 1) { thread in
                if thread == threadCount {
                    disposable.dispose()
                } else {
                    for _ in 0 ..< perThread {
                        subscriber.keepAlive(DeinitTracker(released))
                    }
                }
            }
            XCTAssertEqual(released.count, threadCount * perThread)
            withExtendedLifetime((subscriber, disposable)) {}
        }
    }
}
