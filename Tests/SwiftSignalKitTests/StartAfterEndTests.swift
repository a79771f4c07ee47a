import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// Open bug 2 of the model-based tester, as a class: when a subscription ends
/// during its own synchronous start (a `take` or `take(until:)` downstream
/// completes it), no operator still running that start begins anything more
/// (a `merge` or `combineLatest` input, a `then` part, a `catch` alternative,
/// an inner signal, another round of a resubscribing loop), whatever
/// operators stand between the one that ended it and the one still starting.
///
/// Every pipeline is `ender(intermediate(starter(counted)))`: the starter
/// emits 1 synchronously and would then start `counted` (which counts its
/// starts and emits nothing); the ender completes on that first value; the
/// intermediate is each operator that makes a subscription of its own
/// between them (and, for reference, none, or a fused `map`). The tests run
/// on the main thread, where the main queue runs its work inline, so that
/// `deliverOn` and `runOn` over it are synchronous too.
final class StartAfterEndTests: XCTestCase {
    typealias S = Signal<Int, Int>

    /// What ends the subscription on its first value.
    var enders: [(String, (S) -> S)] { [
        ("take(1)", { $0 |> take(1) }),
        ("take(until:)", { $0 |> take(until: { _ in SignalTakeAction(passthrough: true, complete: true) }) }),
    ] }

    /// What is still starting when the first value ends the subscription:
    /// emits 1, then would start `counted`.
    var starters: [(String, (S) -> S)] { [
        ("merge", { counted in merge([.single(1), counted]) }),
        // The pair of initial values, emitted at subscription, is filtered
        // out: the first value is the first input's.
        ("combineLatest", { counted in combineLatest(S.single(1), 0, counted, 0) |> map { $0.0 + $0.1 } |> filter { $0 != 0 } }),
        ("then", { counted in S.single(1) |> then(counted) }),
        ("catch", { counted in (S.single(1) |> then(S.fail(0))) |> `catch` { _ in counted } }),
        ("mapToSignal", { counted in (S.single(1) |> then(S.single(2))) |> mapToSignal { $0 == 1 ? S.single(1) : counted } }),
        ("mapToQueue", { counted in (S.single(1) |> then(S.single(2))) |> mapToQueue { $0 == 1 ? S.single(1) : counted } }),
        ("mapToThrottled", { counted in (S.single(1) |> then(S.single(2))) |> mapToThrottled { $0 == 1 ? S.single(1) : counted } }),
        ("merge in mapToSignal", { counted in S.single(0) |> mapToSignal { _ in merge([S.single(1), counted]) } }),
        ("restart", { counted in restart(S.single(1) |> then(counted)) }),
        ("restartIfError", { counted in restartIfError(S.single(1) |> then(counted)) |> castError(Int.self) }),
        ("restart loop", { counted in
            let rounds = Counter()
            return restart(deferred { rounds.increment() == 1 ? S.single(1) : counted })
        }),
    ] }

    /// The operators between the ender and the starter.
    var intermediates: [(String, (S) -> S)] { [
        ("nothing", { $0 }),
        ("map (fused)", { $0 |> map { $0 } }),
        ("distinctUntilChanged", { distinctUntilChanged($0) }),
        ("beforeNext", { $0 |> beforeNext { _ in } }),
        ("afterNext", { $0 |> afterNext { _ in } }),
        ("beforeStarted", { $0 |> beforeStarted {} }),
        ("beforeCompleted", { $0 |> beforeCompleted {} }),
        ("afterCompleted", { $0 |> afterCompleted {} }),
        ("afterDisposed", { $0 |> afterDisposed {} }),
        ("withState", { withState($0, {}) }),
        ("mapError", { $0 |> mapError { $0 } }),
        ("dematerialize, materialize", { materialize(signal: dematerialize(signal: $0)) }),
        ("reduceLeft emitting", { $0 |> reduceLeft(value: 0, f: { sum, value, emit in
            emit(value)
            return sum + value
        }) }),
        ("reduceLeft generating", { $0 |> reduceLeft(0, generator: { sum, value in Signal<(Int, Passthrough<Int>), Int>.single((sum + value, .Some(value))) }) }),
        ("take(5)", { $0 |> take(5) }),
        ("take(until:) that never completes", { $0 |> take(until: { _ in SignalTakeAction(passthrough: true, complete: false) }) }),
        ("catch", { $0 |> `catch` { S.fail($0) } }),
        ("restart", { restart($0) }),
        ("then", { $0 |> then(S.complete()) }),
        ("merge", { merge([$0]) }),
        ("combineLatest", { combineLatest($0, 0, S.never(), 0) |> map { $0.0 } |> filter { $0 != 0 } }),
        ("mapToSignal (as the inner signal)", { signal in S.single(0) |> mapToSignal { _ in signal } }),
        ("mapToSignal (as the outer signal)", { $0 |> mapToSignal { S.single($0) } }),
        ("mapToQueue (as the outer signal)", { $0 |> mapToQueue { S.single($0) } }),
        ("deferred", { signal in deferred { signal } }),
        ("deliverOn (inline)", { $0 |> deliverOn(Queue.mainQueue()) }),
        ("runOn (inline)", { $0 |> runOn(Queue.mainQueue()) }),
        ("timeout", { $0 |> timeout(3600, queue: Queue.concurrentDefaultQueue(), alternate: S.never()) }),
        ("distinctUntilChanged, beforeNext", { distinctUntilChanged($0 |> beforeNext { _ in }) }),
        ("take(5), restart, distinctUntilChanged", { distinctUntilChanged(restart($0 |> take(5))) }),
    ] }

    func testNothingStartsAfterTheSubscriptionEndedDuringItsStartThroughAnyOperator() {
        let starts = Counter()
        let counted = S { _ in
            _ = starts.increment()
            return EmptyDisposable
        }
        var failures: [String] = []
        for (enderName, ender) in self.enders {
            for (starterName, starter) in self.starters {
                for (intermediateName, intermediate) in self.intermediates {
                    let name = "\(enderName) over \(intermediateName) over \(starterName)"
                    _ = starts.value.swap(0)
                    var values: [Int] = []
                    var completed = false
                    let disposable = ender(intermediate(starter(counted))).start(next: { values.append($0) }, completed: { completed = true })
                    disposable.dispose()
                    if values != [1] || !completed {
                        failures.append("\(name): delivered \(values), completed: \(completed)")
                    }
                    if starts.count != 0 {
                        failures.append("\(name): \(starts.count) start(s) after the end")
                    }
                }
            }
        }
        XCTAssertEqual(failures, [], "\(failures.count) failures:\n" + failures.joined(separator: "\n"))
    }

    /// Bug 3 of the model-based tester, as a class: a subscription that ended
    /// by its terminal event keeps its upstream until the terminal callback
    /// has returned (then disposes it, SwiftSignalKit's order). A value that
    /// callback puts into a source up there must not make a meta operator
    /// start an inner signal for the subscription that is over, whatever
    /// operators stand in between. Every pipeline is
    /// `ender(intermediate(pipe |> mapToSignal))`: the pipe's 0 starts a
    /// manual source, whose 1 ends the subscription; the user's terminal
    /// callback puts 1 into the pipe, which would start `counted`.
    func testNothingStartsWhileTheTerminalEventIsDeliveredThroughAnyOperator() {
        let starts = Counter()
        let counted = S { _ in
            _ = starts.increment()
            return EmptyDisposable
        }
        // What ends the subscription on its first value, and what it delivers.
        let enders: [(String, (S) -> S, [Int], String)] = self.enders.map { ($0.0, $0.1, [1], "completed") } + [
            ("an error from an inner signal", { $0 |> mapToSignal { S.fail($0) } }, [], "error 1"),
        ]
        var failures: [String] = []
        for (enderName, ender, expectedValues, expectedEnd) in enders {
            for (intermediateName, intermediate) in self.intermediates {
                let name = "\(enderName) over \(intermediateName)"
                let pipe = ValuePipe<Int>()
                let source = ManualSource<Int, Int>()
                _ = starts.value.swap(0)
                var values: [Int] = []
                var end = ""
                let starter = pipe.signal() |> castError(Int.self) |> mapToSignal { $0 == 0 ? source.signal() : counted }
                let disposable = ender(intermediate(starter)).start(next: { values.append($0) }, error: { error in
                    end = "error \(error)"
                    pipe.putNext(1)
                }, completed: {
                    end = "completed"
                    pipe.putNext(1)
                })
                pipe.putNext(0)
                source.put(1)
                disposable.dispose()
                if values != expectedValues || end != expectedEnd {
                    failures.append("\(name): delivered \(values), \(end)")
                }
                if starts.count != 0 {
                    failures.append("\(name): \(starts.count) start(s) after the end")
                }
            }
        }
        XCTAssertEqual(failures, [], "\(failures.count) failures:\n" + failures.joined(separator: "\n"))
    }

    /// The walk `isEnded` makes while a terminal event is delivered (bug 3)
    /// follows unretained links, each subscriber on the way pinned: here
    /// another thread disposes the subscription while one thread delivers
    /// its completion, from which the pipe is put into. Whoever wins,
    /// nothing starts after the end and the inner subscription is disposed
    /// exactly once (the sanitizer runs check the memory).
    func testNothingStartsWhileTheTerminalEventIsDeliveredAndAnotherThreadDisposes() {
        let rounds = threadSanitizerIsActive ? 300 : 2_000
        let starts = Counter()
        let counted = S { _ in
            _ = starts.increment()
            return EmptyDisposable
        }
        var disposals: [Int] = []
        for _ in 0 ..< rounds {
            let pipe = ValuePipe<Int>()
            let source = ManualSource<Int, Int>()
            let starter = pipe.signal() |> castError(Int.self) |> mapToSignal { $0 == 0 ? source.signal() : counted }
            let disposable = (distinctUntilChanged(starter) |> take(1)).start(completed: {
                pipe.putNext(1)
            })
            pipe.putNext(0)
            runThreads(2) { index in
                if index == 0 {
                    source.put(1)
                } else {
                    disposable.dispose()
                }
            }
            disposals.append(source.disposals.with { $0 })
        }
        XCTAssertEqual(starts.count, 0)
        XCTAssertEqual(Set(disposals), [1])
    }

    /// A subscription started from a callback (the user's, here on the
    /// completion of a subscription that is still starting) is not part of
    /// that subscription: it starts all its inputs.
    func testASubscriptionStartedFromACallbackDuringAStartIsNotEnded() {
        let starts = Counter()
        let counted = S { _ in
            _ = starts.increment()
            return EmptyDisposable
        }
        var inner: (any Disposable)?
        var values: [Int] = []
        let outer = (distinctUntilChanged(merge([S.single(1), S.never()])) |> take(1)).start(completed: {
            inner = distinctUntilChanged(merge([S.single(2), counted])).start(next: { values.append($0) })
        })
        XCTAssertEqual(values, [2])
        XCTAssertEqual(starts.count, 1)
        inner?.dispose()
        outer.dispose()
    }
}
