import XCTest
import Dispatch
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// The order of a terminal event and the value calls in flight
/// (`_InFlightCalls`): a value callback that has begun returns before the
/// terminal callback runs, and none begins after it; a terminal event put
/// from inside a value callback of its own subscription runs at once, nested,
/// as in SwiftSignalKit. Each interleaving is forced with semaphores (a value
/// callback held on another thread), not left to chance; the last test
/// races eight threads as the C soak does (Tests/soak/terminal.c).
final class InFlightCallsTests: XCTestCase {
    private enum TestError: Error, Equatable {
        case failed
    }

    /// A signal that hands out its subscriber.
    private final class HotSource: @unchecked Sendable {
        let subscriber = Atomic<Subscriber<Int, TestError>?>(value: nil)

        var signal: Signal<Int, TestError> {
            return Signal { subscriber in
                self.subscriber.swap(subscriber)
                return EmptyDisposable
            }
        }

        var current: Subscriber<Int, TestError> {
            return self.subscriber.with { $0! }
        }
    }

    /// Events as they were seen, in order, with the thread of each terminal one.
    private final class Events: @unchecked Sendable {
        let log = Atomic<[String]>(value: [])
        let terminalThread = Atomic<Thread?>(value: nil)

        func add(_ event: String) {
            self.log.modify { $0 + [event] }
        }

        var all: [String] {
            return self.log.with { $0 }
        }
    }

    /// Starts `signal`; a value of 1 blocks its callback (on whichever thread
    /// delivers it) until `gate` is signalled, after signalling `entered`.
    /// The callbacks hold `holding` (to see when they are released).
    private func observe(_ signal: Signal<Int, TestError>, _ events: Events, entered: DispatchSemaphore, gate: DispatchSemaphore, holding: AnyObject? = nil) -> Disposable {
        return signal.start(next: { value in
            withExtendedLifetime(holding) {
                events.add("next \(value) begins")
                if value == 1 {
                    entered.signal()
                    XCTAssertEqual(gate.wait(timeout: .now() + waitDeadline), .success)
                }
                events.add("next \(value) ends")
            }
        }, error: { _ in
            events.terminalThread.swap(Thread.current)
            events.add("error")
        }, completed: {
            events.terminalThread.swap(Thread.current)
            events.add("completed")
        })
    }

    func testACompletionWaitsForTheValueCallbackRunningOnAnotherThread() {
        let source = HotSource()
        let events = Events()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let disposable = self.observe(source.signal, events, entered: entered, gate: gate)
        let putter = Thread { source.current.putNext(1) }
        putter.start()
        XCTAssertEqual(entered.wait(timeout: .now() + waitDeadline), .success)
        source.current.putCompletion()
        // The value callback still runs: the completion waits for it, and
        // nothing put after the completion is delivered.
        source.current.putNext(2)
        XCTAssertEqual(events.all, ["next 1 begins"])
        gate.signal()
        let done = expectation(description: "completed")
        DispatchQueue.global().async {
            while !events.all.contains("completed") {
                sched_yield()
            }
            done.fulfill()
        }
        wait(for: [done], timeout: waitDeadline)
        XCTAssertEqual(events.all, ["next 1 begins", "next 1 ends", "completed"])
        // Delivered by the thread whose call returned last.
        XCTAssertTrue(events.terminalThread.with { $0 } === putter)
        disposable.dispose()
    }

    func testAnErrorWaitsForTheValueCallbackRunningOnAnotherThread() {
        let source = HotSource()
        let events = Events()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let disposable = self.observe(source.signal, events, entered: entered, gate: gate)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            source.current.putNext(1)
            finished.signal()
        }.start()
        XCTAssertEqual(entered.wait(timeout: .now() + waitDeadline), .success)
        source.current.putError(.failed)
        XCTAssertEqual(events.all, ["next 1 begins"])
        gate.signal()
        XCTAssertEqual(finished.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(events.all, ["next 1 begins", "next 1 ends", "error"])
        disposable.dispose()
    }

    func testAPipesCompletionWaitsForTheValueCallbackRunningOnAnotherThread() {
        let pipe = SignalPipe<Int, TestError>()
        let events = Events()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let disposable = self.observe(pipe.signal(), events, entered: entered, gate: gate)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            pipe.putNext(1)
            finished.signal()
        }.start()
        XCTAssertEqual(entered.wait(timeout: .now() + waitDeadline), .success)
        pipe.putCompletion()
        pipe.putNext(2)
        XCTAssertEqual(events.all, ["next 1 begins"])
        gate.signal()
        XCTAssertEqual(finished.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(events.all, ["next 1 begins", "next 1 ends", "completed"])
        disposable.dispose()
    }

    /// The operators whose values reach the stages below without a
    /// subscriber's call of their own (`Signal.init(delivering:)`): a
    /// terminal event that another input brings (its error, or zip's end)
    /// waits for the value call a first input's emission has running on
    /// another thread. Before, it ran at once beside it (the C soak's
    /// failing callbacks found it: Tests/soak/terminal.c).
    func testAnotherInputsTerminalEventWaitsForTheValueCallbackRunningOnAnotherThread() {
        typealias Shape = (name: String, make: (Signal<Int, TestError>, Signal<Int, TestError>) -> Signal<Int, TestError>, before: [(Int, Int)], held: (Int, Int), end: Int, terminal: String)
        let shapes: [Shape] = [
            ("combineLatest", { combineLatest($0, $1) |> map { $0.0 } }, [(1, 0)], (0, 1), 1, "error"),
            ("zip", { zip($0, $1) |> map { $0.0 } }, [(0, 1)], (1, 0), 0, "completed"),
            ("withLatestFrom", { $0 |> withLatestFrom($1) |> map { $0.0 } }, [(1, 0)], (0, 1), 1, "error"),
            ("sample", { $0 |> sample($1) }, [(0, 1)], (1, 0), 0, "error"),
        ]
        for shape in shapes {
            let pipes = [SignalPipe<Int, TestError>(), SignalPipe<Int, TestError>()]
            let events = Events()
            let entered = DispatchSemaphore(value: 0)
            let gate = DispatchSemaphore(value: 0)
            let disposable = self.observe(shape.make(pipes[0].signal(), pipes[1].signal()), events, entered: entered, gate: gate)
            for (pipe, value) in shape.before {
                pipes[pipe].putNext(value)
            }
            let finished = DispatchSemaphore(value: 0)
            let (heldPipe, heldValue) = (pipes[shape.held.0], shape.held.1)
            Thread {
                heldPipe.putNext(heldValue)
                finished.signal()
            }.start()
            XCTAssertEqual(entered.wait(timeout: .now() + waitDeadline), .success, shape.name)
            if shape.terminal == "error" {
                pipes[shape.end].putError(.failed)
            } else {
                pipes[shape.end].putCompletion()
            }
            XCTAssertEqual(events.all.filter { !$0.hasPrefix("next 0") }, ["next 1 begins"], "\(shape.name): the \(shape.terminal) ran beside the value call")
            gate.signal()
            XCTAssertEqual(finished.wait(timeout: .now() + waitDeadline), .success, shape.name)
            XCTAssertEqual(events.all.filter { !$0.hasPrefix("next 0") }, ["next 1 begins", "next 1 ends", shape.terminal], shape.name)
            disposable.dispose()
        }
    }

    /// A terminal event put while the generator still runs, and left waiting
    /// for a value call on another thread: the generator's return makes the
    /// subscription's disposable (`assignDisposable`), which must not count
    /// as a dispose. Before, it disposed the subscription there, which
    /// dropped the waiting event: the error or completion never arrived (an
    /// acceptance program found it, a few rounds in a hundred, with four
    /// threads putting from a generator's start). Then the upstream is
    /// disposed, once, after the event.
    func testATerminalEventWaitingWhenTheGeneratorReturnsIsDeliveredThenTheUpstreamDisposed() {
        for terminal in ["error", "completed"] {
            let events = Events()
            let entered = DispatchSemaphore(value: 0)
            let gate = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            let signal = Signal<Int, TestError> { subscriber in
                Thread {
                    subscriber.putNext(1)
                    finished.signal()
                }.start()
                XCTAssertEqual(entered.wait(timeout: .now() + waitDeadline), .success, terminal)
                // The value call runs on the other thread: the event waits.
                if terminal == "error" {
                    subscriber.putError(.failed)
                } else {
                    subscriber.putCompletion()
                }
                return ActionDisposable {
                    events.add("upstream disposed")
                }
            }
            let disposable = self.observe(signal, events, entered: entered, gate: gate)
            XCTAssertEqual(events.all, ["next 1 begins"], terminal)
            gate.signal()
            XCTAssertEqual(finished.wait(timeout: .now() + waitDeadline), .success, terminal)
            XCTAssertEqual(events.all, ["next 1 begins", "next 1 ends", terminal, "upstream disposed"], terminal)
            disposable.dispose()
            XCTAssertEqual(events.all.filter { $0 == "upstream disposed" }.count, 1, terminal)
        }
    }

    func testADisposeDropsATerminalEventStillWaiting() {
        let source = HotSource()
        let events = Events()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let released = Counter()
        let disposable = source.signal.start(next: { [tracker = DeinitTracker(released)] value in
            withExtendedLifetime(tracker) {
                events.add("next \(value) begins")
                entered.signal()
                XCTAssertEqual(gate.wait(timeout: .now() + waitDeadline), .success)
                events.add("next \(value) ends")
            }
        }, completed: {
            events.add("completed")
        })
        let finished = DispatchSemaphore(value: 0)
        Thread {
            source.current.putNext(1)
            finished.signal()
        }.start()
        XCTAssertEqual(entered.wait(timeout: .now() + waitDeadline), .success)
        source.current.putCompletion()
        disposable.dispose()
        gate.signal()
        XCTAssertEqual(finished.wait(timeout: .now() + waitDeadline), .success)
        // Nothing starts after a dispose: the waiting completion is dropped,
        // and the callbacks are released once the running one has returned.
        XCTAssertEqual(events.all, ["next 1 begins", "next 1 ends"])
        XCTAssertEqual(released.count, 1)
    }

    func testACompletionPutFromInsideTheValueCallbackRunsAtOnceNested() {
        // SwiftSignalKit's order, kept: the callback that ends its own
        // subscription sees the terminal event before it returns.
        let source = HotSource()
        let events = Events()
        let disposable = source.signal.start(next: { value in
            events.add("next \(value) begins")
            source.current.putCompletion()
            events.add("next \(value) ends")
        }, completed: {
            events.add("completed")
        })
        source.current.putNext(1)
        XCTAssertEqual(events.all, ["next 1 begins", "completed", "next 1 ends"])
        disposable.dispose()
    }

    func testACompletionPutThroughAnOperatorFromInsideTheValueCallbackRunsAtOnceNested() {
        // The callback reaches its own subscription's completion through a
        // pipe that completes the source, and an operator's subscriber
        // between them, further down its stack.
        let source = HotSource()
        let trigger = ValuePipe<Void>()
        let completing = Signal<Int, TestError> { subscriber in
            source.subscriber.swap(subscriber)
            return trigger.signal().start(next: { _ in
                subscriber.putCompletion()
            })
        }
        let events = Events()
        let disposable = (completing |> distinctUntilChanged).start(next: { value in
            events.add("next \(value) begins")
            trigger.putNext(())
            events.add("next \(value) ends")
        }, completed: {
            events.add("completed")
        })
        source.current.putNext(1)
        XCTAssertEqual(events.all, ["next 1 begins", "completed", "next 1 ends"])
        disposable.dispose()
    }

    func testNothingFollowsTheTerminalEventWithEightThreadsPutting() {
        // As Tests/soak/terminal.c, in rounds: eight threads put while a
        // ninth completes; a value callback running when the completion runs,
        // or beginning after it, fails the round.
        let rounds = 200
        for round in 0..<rounds {
            let source = HotSource()
            let running = Atomic<Int>(value: 0)
            let completions = Atomic<Int>(value: 0)
            let late = Atomic<Int>(value: 0)
            let overlaps = Atomic<Int>(value: 0)
            let disposable = source.signal.start(next: { _ in
                if completions.with({ $0 }) != 0 {
                    late.modify { $0 + 1 }
                }
                running.modify { $0 + 1 }
                running.modify { $0 - 1 }
            }, completed: {
                if running.with({ $0 }) != 0 {
                    overlaps.modify { $0 + 1 }
                }
                completions.modify { $0 + 1 }
            })
            let subscriber = source.current
            DispatchQueue.concurrentPerform(iterations: 9) { index in
                if index == 8 {
                    subscriber.putCompletion()
                } else {
                    for value in 0..<50 {
                        subscriber.putNext(value)
                    }
                }
            }
            XCTAssertEqual(completions.with { $0 }, 1, "round \(round)")
            XCTAssertEqual(late.with { $0 }, 0, "round \(round)")
            XCTAssertEqual(overlaps.with { $0 }, 0, "round \(round)")
            disposable.dispose()
        }
    }

    // MARK: calls biased to their thread

    // A subscriber's calls go uncounted on the thread its first value came
    // from (`Subscriber.withValueCall`); a termination on another thread
    // counts them first. Each test delivers a value before the one it
    // holds, so that the held call is the biased owner's.

    /// A completion, an error or a dispose on another thread while the
    /// owner's call runs: the terminal event waits for that call (and is
    /// delivered by the owner's thread, whose call returns last), no call
    /// begins after it, and the callbacks are released after the call.
    func testATerminationOnAnotherThreadWaitsForTheCallOfTheThreadTheValuesAreBiasedTo() {
        final class Tracked: @unchecked Sendable {}
        for ending in ["completion", "error", "dispose"] {
            let source = HotSource()
            let events = Events()
            let entered = DispatchSemaphore(value: 0)
            let gate = DispatchSemaphore(value: 0)
            weak var watched: Tracked?
            var disposable: (any Disposable)?
            do {
                let tracked = Tracked()
                watched = tracked
                disposable = self.observe(source.signal, events, entered: entered, gate: gate, holding: tracked)
            }
            let finished = DispatchSemaphore(value: 0)
            let putter = Thread {
                source.current.putNext(0)
                source.current.putNext(1)
                source.current.putNext(3)
                finished.signal()
            }
            putter.start()
            XCTAssertEqual(entered.wait(timeout: .now() + waitDeadline), .success, ending)
            switch ending {
            case "completion":
                source.current.putCompletion()
            case "error":
                source.current.putError(.failed)
            default:
                disposable?.dispose()
            }
            source.current.putNext(2)
            XCTAssertEqual(events.all, ["next 0 begins", "next 0 ends", "next 1 begins"], ending)
            XCTAssertNotNil(watched, "\(ending): the callbacks are released while a call runs")
            gate.signal()
            XCTAssertEqual(finished.wait(timeout: .now() + waitDeadline), .success, ending)
            let terminal = ["completion": ["completed"], "error": ["error"], "dispose": []][ending]!
            XCTAssertEqual(events.all, ["next 0 begins", "next 0 ends", "next 1 begins", "next 1 ends"] + terminal, ending)
            if ending != "dispose" {
                XCTAssertTrue(events.terminalThread.with { $0 } === putter, "\(ending): delivered by the thread whose call returned last")
            }
            disposable?.dispose()
            disposable = nil
            XCTAssertNil(watched, "\(ending): the callbacks are kept after the subscription ended")
        }
    }

    /// The owner's calls nested (its value callback puts into its own
    /// subscriber): a completion on another thread while the inner one runs
    /// waits for both, the outer one too.
    func testATerminationOnAnotherThreadWaitsForEveryNestedCallOfTheOwner() {
        let source = HotSource()
        let events = Events()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let disposable = source.signal.start(next: { value in
            events.add("next \(value) begins")
            if value == 1 {
                source.current.putNext(11)
            }
            if value == 11 {
                entered.signal()
                XCTAssertEqual(gate.wait(timeout: .now() + waitDeadline), .success)
            }
            events.add("next \(value) ends")
        }, completed: {
            events.add("completed")
        })
        let finished = DispatchSemaphore(value: 0)
        Thread {
            source.current.putNext(0)
            source.current.putNext(1)
            finished.signal()
        }.start()
        XCTAssertEqual(entered.wait(timeout: .now() + waitDeadline), .success)
        source.current.putCompletion()
        XCTAssertEqual(events.all, ["next 0 begins", "next 0 ends", "next 1 begins", "next 11 begins"])
        gate.signal()
        XCTAssertEqual(finished.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(events.all, ["next 0 begins", "next 0 ends", "next 1 begins", "next 11 begins", "next 11 ends",
                                    "next 1 ends", "completed"])
        disposable.dispose()
    }

    /// The owner ending its own subscription from inside its call: the
    /// completion runs at once, nested, as without the bias.
    func testTheOwnersCompletionFromInsideItsCallRunsAtOnceNested() {
        let source = HotSource()
        let events = Events()
        let disposable = source.signal.start(next: { value in
            events.add("next \(value) begins")
            if value == 1 {
                source.current.putCompletion()
            }
            events.add("next \(value) ends")
        }, completed: {
            events.add("completed")
        })
        source.current.putNext(0)
        source.current.putNext(1)
        source.current.putNext(2)
        XCTAssertEqual(events.all, ["next 0 begins", "next 0 ends", "next 1 begins", "completed", "next 1 ends"])
        disposable.dispose()
    }
}
