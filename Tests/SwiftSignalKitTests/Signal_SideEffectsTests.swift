import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

final class Signal_SideEffectsTests: XCTestCase {
    func testBeforeNextAndAfterNextWrapTheDelivery() {
        let source = TestPipe<Int, Int>()
        var log: [String] = []
        _ = (source.signal() |> beforeNext { value -> String in
            log.append("before \(value)")
            return "ignored"
        } |> afterNext { value -> Int in
            log.append("after \(value)")
            return 0
        }).start(next: { log.append("next \($0)") }, error: { log.append("error \($0)") }, completed: { log.append("completed") })
        source.putNext(1)
        source.putNext(2)
        source.putError(3)
        XCTAssertEqual(log, ["before 1", "next 1", "after 1", "before 2", "next 2", "after 2", "error 3"])
    }

    func testAfterNextRunsEvenWhenTheDeliveryEndedTheSubscription() {
        let source = TestPipe<Int, Int>()
        var log: [String] = []
        _ = (source.signal() |> afterNext { value in
            log.append("after \(value)")
        } |> take(1)).start(next: { log.append("next \($0)") }, completed: { log.append("completed") })
        source.putNext(1)
        source.putNext(2)
        XCTAssertEqual(log, ["next 1", "completed", "after 1"])
        XCTAssertEqual(source.subscriberCount, 0)
    }

    func testBeforeStartedRunsOnEachStartBeforeSubscribing() {
        var log: [String] = []
        let upstream = Signal<Int, NoError> { subscriber in
            log.append("subscribed")
            subscriber.putNext(1)
            return EmptyDisposable
        }
        let signal = upstream |> beforeStarted {
            log.append("started")
        }
        XCTAssertEqual(log, [])
        _ = signal.start(next: { log.append("next \($0)") })
        _ = signal.start()
        XCTAssertEqual(log, ["started", "subscribed", "next 1", "started", "subscribed"])
    }

    func testBeforeAndAfterCompleted() {
        var log: [String] = []
        _ = (syncSignal([1]) |> beforeCompleted {
            log.append("before completed")
        } |> afterCompleted {
            log.append("after completed")
        }).start(next: { log.append("next \($0)") }, completed: { log.append("completed") })
        XCTAssertEqual(log, ["next 1", "before completed", "completed", "after completed"])
    }

    func testCompletedHooksAreNotCalledOnErrorOrDispose() {
        let source = TestPipe<Int, Int>()
        var log: [String] = []
        let signal = source.signal() |> beforeCompleted {
            log.append("before completed")
        } |> afterCompleted {
            log.append("after completed")
        }
        _ = signal.start(error: { log.append("error \($0)") })
        source.putError(1)
        let disposable = signal.start()
        disposable.dispose()
        source.putCompletion()
        XCTAssertEqual(log, ["error 1"])
    }

    func testAfterDisposedRunsOnceAfterUpstreamDisposal() {
        var log: [String] = []
        let upstream = Signal<Int, NoError> { _ in
            return ActionDisposable {
                log.append("upstream disposed")
            }
        }
        let disposable = (upstream |> afterDisposed {
            log.append("after disposed")
        }).start()
        XCTAssertEqual(log, [])
        disposable.dispose()
        disposable.dispose()
        XCTAssertEqual(log, ["upstream disposed", "after disposed"])
    }

    func testAfterDisposedRunsAfterTermination() {
        let source = TestPipe<Int, Int>()
        var log: [String] = []
        let signal = source.signal() |> afterDisposed { () -> Int in
            log.append("after disposed")
            return 0
        }
        let disposable = signal.start(completed: { log.append("completed") })
        source.putCompletion()
        XCTAssertEqual(log, ["completed", "after disposed"])
        disposable.dispose()
        XCTAssertEqual(log, ["completed", "after disposed"])

        log = []
        _ = signal.start(error: { log.append("error \($0)") })
        source.putError(2)
        XCTAssertEqual(log, ["error 2", "after disposed"])

        // Terminating synchronously while started: it runs before start returns.
        log = []
        _ = (syncSignal([1]) |> afterDisposed {
            log.append("after disposed")
        }).start(completed: { log.append("completed") })
        XCTAssertEqual(log, ["completed", "after disposed"])
    }

    func testAfterDisposedRunsOnceUnderConcurrentDisposal() {
        for _ in 0 ..< 100 {
            let source = TestPipe<Int, Int>()
            let calls = Counter()
            let disposable = (source.signal() |> afterDisposed {
                calls.increment()
            }).start()
            nonisolated(unsafe) let unsafeDisposable = disposable
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                if index == 0 {
                    source.putCompletion()
                } else {
                    unsafeDisposable.dispose()
                }
            }
            XCTAssertEqual(calls.count, 1)
            XCTAssertEqual(source.subscriberCount, 0)
        }
    }

    func testWithStateGivesEachSubscriptionItsOwnState() {
        final class State {
            let id: Int
            var log: [String] = []
            init(id: Int) {
                self.id = id
            }
        }
        let source = TestPipe<Int, Int>()
        var created: [State] = []
        var disposedIds: [Int] = []
        let signal = withState(source.signal(), { () -> State in
            let state = State(id: created.count)
            created.append(state)
            return state
        }, next: { value, state in
            state.log.append("next \(value)")
        }, error: { error, state in
            state.log.append("error \(error)")
        }, completed: { state in
            state.log.append("completed")
        }, disposed: { state in
            state.log.append("disposed")
            disposedIds.append(state.id)
        })
        XCTAssertEqual(created.count, 0)
        var downstream: [String] = []
        let first = signal.start(next: { downstream.append("0: \($0)") })
        let second = signal.start(next: { downstream.append("1: \($0)") }, error: { downstream.append("1 error \($0)") })
        XCTAssertEqual(created.count, 2)
        source.putNext(1)
        first.dispose()
        first.dispose()
        source.putNext(2)
        source.putError(3)
        second.dispose()
        XCTAssertEqual(created[0].log, ["next 1", "disposed"])
        XCTAssertEqual(created[1].log, ["next 1", "next 2", "error 3", "disposed"])
        XCTAssertEqual(disposedIds, [0, 1])
        XCTAssertEqual(downstream.sorted(), ["0: 1", "1 error 3", "1: 1", "1: 2"])
    }

    func testWithStateCallbacksRunBeforeDeliveryAndDisposedAfterCompletion() {
        var log: [String] = []
        _ = withState(syncSignal([1]), { return "state" }, next: { value, state in
            log.append("\(state) next \(value)")
        }, completed: { state in
            log.append("\(state) completed")
        }, disposed: { state in
            log.append("\(state) disposed")
        }).start(next: { log.append("next \($0)") }, completed: { log.append("completed") })
        XCTAssertEqual(log, ["state next 1", "next 1", "state completed", "completed", "state disposed"])

        // The defaults compile and pass everything through.
        var values: [Int] = []
        _ = withState(syncSignal([4, 5]), { return 0 }).start(next: { values.append($0) })
        XCTAssertEqual(values, [4, 5])
    }

    func testSideEffectClosuresAreReleasedAfterDispose() {
        let source = TestPipe<Int, Int>()
        let deallocated = Counter()
        let stateDeallocated = Counter()
        var disposables: [any Disposable] = []
        do {
            let tracker = DeinitTracker(deallocated)
            let signal = source.signal()
                |> beforeNext { _ in tracker.touch() }
                |> afterNext { _ in tracker.touch() }
                |> beforeStarted { tracker.touch() }
                |> beforeCompleted { tracker.touch() }
                |> afterCompleted { tracker.touch() }
                |> afterDisposed { tracker.touch() }
            disposables.append(signal.start())
            disposables.append(withState(source.signal(), { DeinitTracker(stateDeallocated) }, next: { _, _ in tracker.touch() }).start())
        }
        source.putNext(1)
        XCTAssertEqual(deallocated.count, 0)
        XCTAssertEqual(stateDeallocated.count, 0)
        for disposable in disposables {
            disposable.dispose()
        }
        XCTAssertEqual(deallocated.count, 1)
        XCTAssertEqual(stateDeallocated.count, 1)
        withExtendedLifetime(disposables) {
        }
    }

    func testDisposeFromInsideSideEffect() {
        let source = TestPipe<Int, Int>()
        let box = DisposableBox()
        var log: [String] = []
        box.disposable.set((source.signal() |> beforeNext { value in
            log.append("before \(value)")
            box.disposable.dispose()
        } |> afterDisposed {
            log.append("after disposed")
        }).start(next: { log.append("next \($0)") }))
        source.putNext(1)
        source.putNext(2)
        // The value in flight is dropped once disposed; afterDisposed ran once.
        XCTAssertEqual(log, ["before 1", "after disposed"])
        XCTAssertEqual(source.subscriberCount, 0)
    }
}
