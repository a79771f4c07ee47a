import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// `share`, `replay(_:)` and `SignalPipe(replayCount:)` (issue 33) beyond the
/// shared marble table.
final class Signal_ShareTests: XCTestCase {
    private enum TestError: Error {
        case failed
    }

    func testOneUpstreamSubscriptionWhileSubscribersAreAttached() {
        let source = TestPipe<Int, TestError>()
        let shared = share(source.signal())
        let a = Recorder<Int, TestError>()
        let b = Recorder<Int, TestError>()
        let da = a.start(shared)
        let db = b.start(shared)
        XCTAssertEqual(source.subscribed, 1)
        source.putNext(1)
        da.dispose()
        XCTAssertEqual(source.disposed, 0, "b is still attached")
        source.putNext(2)
        db.dispose()
        XCTAssertEqual(source.disposed, 1)
        XCTAssertEqual(a.values.with { $0 }, [1])
        XCTAssertEqual(b.values.with { $0 }, [1, 2])
        XCTAssertEqual(a.released.count + b.released.count, 2, "callbacks released on disposal")
        let c = Recorder<Int, TestError>()
        let dc = c.start(shared)
        XCTAssertEqual(source.subscribed, 2, "connected anew")
        dc.dispose()
    }

    func testDisposingFromInsideAValueCallbackLeavesTheOthersConnected() {
        let source = TestPipe<Int, TestError>()
        let shared = share(source.signal())
        let box = DisposableBox()
        var first: [Int] = []
        box.disposable.set(shared.start(next: { value in
            first.append(value)
            box.disposable.dispose()
        }))
        let other = Recorder<Int, TestError>()
        let d = other.start(shared)
        source.putNext(1)
        source.putNext(2)
        XCTAssertEqual(first, [1])
        XCTAssertEqual(other.values.with { $0 }, [1, 2])
        XCTAssertEqual(source.subscriberCount, 1)
        d.dispose()
        XCTAssertEqual(source.subscriberCount, 0)
    }

    /// A subscriber that reacts to the completion by subscribing again gets
    /// a new connection, not the ended one.
    func testResubscribingFromTheCompletionConnectsAnew() {
        let starts = Counter()
        let source = Signal<Int, TestError> { subscriber in
            let n = starts.increment()
            subscriber.putNext(n)
            if n < 3 {
                subscriber.putCompletion()
            }
            return EmptyDisposable
        }
        let shared = share(source)
        var values: [Int] = []
        var inner: Disposable?
        let outer = shared.start(next: { values.append($0) }, completed: {
            inner = shared.start(next: { values.append($0) })
        })
        XCTAssertEqual(values, [1, 2])
        inner?.dispose()
        outer.dispose()
    }

    func testAnEndlessSynchronousUpstreamStopsWhenTheConnectingSubscriberEnds() {
        let shared = share(restart(Signal<Int, NoError>.single(1)))
        var values: [Int] = []
        (shared |> take(3)).start(next: { values.append($0) }).dispose()
        XCTAssertEqual(values, [1, 1, 1])
    }

    func testReplayCountKeepsTheLastValues() {
        let pipe = SignalPipe<Int, NoError>(replayCount: 3)
        for value in 1 ... 5 {
            pipe.putNext(value)
        }
        var values: [Int] = []
        pipe.signal().start(next: { values.append($0) }).dispose()
        XCTAssertEqual(values, [3, 4, 5])
        pipe.putCompletion()
        var late: [String] = []
        pipe.signal().start(next: { late.append("\($0)") }, completed: { late.append("completed") }).dispose()
        XCTAssertEqual(late, ["3", "4", "5", "completed"])
    }

    /// Subscribers join and leave from several threads while the upstream
    /// emits: when everyone has left, every upstream subscription made has
    /// been disposed (run under TSan by `make test-swift-tsan`). (Not that
    /// there is at most one at any instant: a disconnection disposes the
    /// old one outside the lock, while another thread may connect anew.)
    func testConcurrentSubscribersShareOneConnection() {
        let source = TestPipe<Int, NoError>()
        let shared = source.signal() |> replay(2)
        let stop = Atomic(value: false)
        let emitter = DispatchSemaphore(value: 0)
        DispatchQueue(label: "Signal_ShareTests.emitter").async {
            var i = 0
            while !stop.with({ $0 }) {
                source.putNext(i)
                i += 1
            }
            emitter.signal()
        }
        runThreads(4) { _ in
            for _ in 0 ..< 200 {
                let d = shared.start(next: { _ in })
                d.dispose()
            }
        }
        stop.swap(true)
        XCTAssertEqual(emitter.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(source.subscriberCount, 0)
        XCTAssertEqual(source.subscribed, source.disposed)
    }

    /// A subscription kept (its disposable never disposed) ends when the
    /// upstream lets go of it without an event, as a `ValuePipe`'s do when
    /// the pipe goes: the shared connection does not keep its subscribers
    /// (and itself) alive. The C API's pipes work this way; before, the
    /// session's pipe and the subscribers' disposables held each other.
    func testSubscribersEndWhenTheUpstreamLetsGoWithoutAnEvent() {
        for count in [0, 1, 3] {
            var pipe: ValuePipe<Int>? = ValuePipe<Int>()
            let shared = pipe!.signal() |> replay(count)
            let released = Counter()
            var kept: [any Disposable] = []
            for _ in 0 ..< 2 {
                let tracker = DeinitTracker(released)
                kept.append(shared.start(next: { _ in tracker.touch() }))
            }
            pipe!.putNext(1)
            XCTAssertEqual(released.count, 0)
            pipe = nil
            XCTAssertEqual(released.count, 2, "replay(\(count)): the subscribers' callbacks were kept")
            withExtendedLifetime(kept) {}
        }
    }
    /// The subscriber that connected a shared signal may leave while others
    /// stay: the connection's upstream outlives it, and must not reach back
    /// to it. Here an inner signal of `mapToQueue` completes after the first
    /// subscriber has gone, with the next one waiting, and the queue asks
    /// whether its subscription has ended below (`Subscriber.isEnded`, during
    /// a terminal event). That followed the link from the shared upstream to
    /// the gone subscriber's subscription: freed, a crash in the debug build
    /// (found by the model tester, case seed 1026539); its disposable kept,
    /// ended, so the queue stopped. The link now holds only while the start
    /// runs.
    func testTheUpstreamDoesNotReachTheSubscriberThatConnectedItAfterItLeft() {
        for (count, keepFirst) in [(0, true), (1, true), (0, false), (1, false)] {
            let outer = ValuePipe<Int>()
            let inner = ManualSource<Int, NoError>()
            let source = outer.signal() |> mapToQueue { value -> Signal<Int, NoError> in
                return inner.signal() |> map { $0 + value }
            }
            let shared = source |> replay(count)
            var first: (any Disposable)? = shared.start()
            let values = Atomic<[Int]>(value: [])
            let second = shared.start(next: { value in
                _ = values.modify { $0 + [value] }
            })
            first?.dispose()
            let kept = keepFirst ? first : nil
            first = nil
            outer.putNext(10)
            outer.putNext(20)   // waits for the first inner signal
            inner.put(1)
            inner.complete()    // the queue starts the second inner signal
            inner.put(2)
            inner.complete()
            XCTAssertEqual(values.with { $0 }, [11, 22], "replay(\(count)), first disposable kept: \(keepFirst)")
            XCTAssertEqual(inner.starts.with { $0 }, 2)
            second.dispose()
            withExtendedLifetime(kept) {}
        }
    }

    /// Once the last subscriber of a session has ended, its upstream starts
    /// nothing more, also from inside that subscriber's completion callback
    /// (the session's upstream is disposed only after the callback): a
    /// value put there reaches `mergeMap`, which must not start an inner
    /// signal for it. Before, the upstream learnt that its subscriber had
    /// ended only from the disposal, and started the inner signal.
    func testTheUpstreamStartsNothingOnceItsLastSubscriberEnded() {
        for count in [0, 1] {
            let outer = ValuePipe<Int>()
            let inner = ManualSource<Int, NoError>()
            let shared = outer.signal() |> mergeMap(maxConcurrent: Int.max) { value -> Signal<Int, NoError> in
                return inner.signal() |> map { $0 + value }
            } |> replay(count)
            var completions = 0
            let disposable = (shared |> take(1)).start(completed: {
                completions += 1
                outer.putNext(5)
            })
            outer.putNext(10)
            XCTAssertEqual(inner.starts.with { $0 }, 1)
            inner.put(1)   // take(1) completes; its callback puts 5
            XCTAssertEqual(completions, 1)
            XCTAssertEqual(inner.starts.with { $0 }, 1, "replay(\(count)): an inner signal started for a session whose subscribers have all ended")
            disposable.dispose()
        }
    }
}
