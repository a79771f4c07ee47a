import Dispatch
import XCTest
import SwiftSignalKit
import SwiftSignalKitTestSupport

/// The elements of a tuple, as `Int`s.
private func ints(_ tuple: Any) -> [Int] {
    return Mirror(reflecting: tuple).children.map { $0.value as! Int }
}

final class Signal_CombineTests: XCTestCase {
    func testTwoSignalsEmitOnceBothHaveEmitted() {
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<String, NoError>()
        var values: [String] = []
        var completions = 0
        let disposable = combineLatest(a.signal(), b.signal()).start(next: { pair in
            values.append("\(pair.0)\(pair.1)")
        }, completed: {
            completions += 1
        })
        a.putNext(1)
        a.putNext(2)
        XCTAssertEqual(values, [])
        b.putNext("x")
        b.putNext("y")
        a.putNext(3)
        XCTAssertEqual(values, ["2x", "2y", "3y"])
        a.putCompletion()
        XCTAssertEqual(completions, 0, "b still runs")
        b.putNext("z")
        XCTAssertEqual(values, ["2x", "2y", "3y", "3z"])
        b.putCompletion()
        XCTAssertEqual(completions, 1)
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)
        disposable.dispose()
    }

    func testCompletesWhenAllCompleteEvenWithoutValues() {
        var completions = 0
        var nexts = 0
        _ = combineLatest(Signal<Int, NoError>.complete(), Signal<Int, NoError>.single(1)).start(next: { _ in nexts += 1 }, completed: { completions += 1 })
        XCTAssertEqual(nexts, 0)
        XCTAssertEqual(completions, 1)

        var pairs: [[Int]] = []
        _ = combineLatest(Signal<Int, NoError>.single(1), Signal<Int, NoError>.single(2)).start(next: { pairs.append([$0.0, $0.1]) }, completed: { completions += 1 })
        XCTAssertEqual(pairs, [[1, 2]])
        XCTAssertEqual(completions, 2)
    }

    func testInitialValues() {
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        var values: [[Int]] = []
        let disposable = combineLatest(a.signal(), 10, b.signal(), 20).start(next: { values.append([$0.0, $0.1]) })
        XCTAssertEqual(values, [[10, 20]], "the initial values are emitted at subscription, as in the original")
        b.putNext(21)
        a.putNext(11)
        XCTAssertEqual(values, [[10, 20], [10, 21], [11, 21]])
        disposable.dispose()
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)
        a.putNext(12)
        XCTAssertEqual(values, [[10, 20], [10, 21], [11, 21]])
    }

    /// The original emits the pair of initial values before it starts the
    /// inputs, on the subscribing thread, with or without a queue: a screen
    /// built from `combineLatest(slow1, default1, slow2, default2)` shows the
    /// defaults at once.
    func testInitialValuesAreEmittedBeforeTheInputsStartWithOrWithoutAQueue() {
        let queue = Queue(name: "Signal_CombineTests.initial")
        for withQueue in [false, true] {
            var log: [String] = []
            let a = Signal<Int, NoError> { subscriber in
                log.append("a started")
                return EmptyDisposable
            }
            let b = Signal<Int, NoError> { subscriber in
                log.append("b started")
                subscriber.putNext(2)
                return EmptyDisposable
            }
            let combined = withQueue ? combineLatest(queue: queue, a, 0, b, 0) : combineLatest(a, 0, b, 0)
            let disposable = combined.start(next: { log.append("\($0.0),\($0.1)") })
            queue.sync {}
            XCTAssertEqual(log, ["0,0", "a started", "b started", "0,2"], "queue: \(withQueue)")
            disposable.dispose()
        }
        // A downstream that ends on the initial pair starts no input.
        var started = 0
        let counted = Signal<Int, NoError> { _ in
            started += 1
            return EmptyDisposable
        }
        var values: [Int] = []
        _ = (combineLatest(counted, 1, counted, 2) |> map { $0.0 + $0.1 } |> take(1)).start(next: { values.append($0) })
        XCTAssertEqual(values, [3])
        XCTAssertEqual(started, 0)
    }

    func testFirstErrorPassesOnceAndDisposesTheOthers() {
        let a = TestPipe<Int, TestError>()
        let b = TestPipe<Int, TestError>()
        var errors: [TestError] = []
        var values: [[Int]] = []
        var completions = 0
        _ = combineLatest(a.signal(), b.signal()).start(next: { values.append([$0.0, $0.1]) }, error: { errors.append($0) }, completed: { completions += 1 })
        a.putNext(1)
        b.putError(.second)
        XCTAssertEqual(errors, [.second])
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)
        a.putNext(2)
        a.putError(.first)
        XCTAssertEqual(values, [])
        XCTAssertEqual(errors, [.second])
        XCTAssertEqual(completions, 0)

        // A synchronous error of the first input: the second is never started.
        var secondStarted = 0
        let second = Signal<Int, TestError> { _ in
            secondStarted += 1
            return EmptyDisposable
        }
        _ = combineLatest(Signal<Int, TestError>.fail(.first), second).start(error: { errors.append($0) })
        XCTAssertEqual(errors, [.second, .first])
        XCTAssertEqual(secondStarted, 0)

        // The same for the array form.
        let c = TestPipe<Int, TestError>()
        _ = combineLatest([c.signal(), Signal<Int, TestError>.fail(.first), second]).start(error: { errors.append($0) })
        XCTAssertEqual(errors, [.second, .first, .first])
        XCTAssertEqual(secondStarted, 0)
        XCTAssertEqual(c.subscriberCount, 0)
    }

    func testHigherArities() {
        let a = TestPipe<Int, NoError>()
        var triples: [[Int]] = []
        _ = combineLatest(a.signal(), Signal<String, NoError>.single("s"), Signal<Double, NoError>.single(0.5)).start(next: { value in
            let (i, s, d) = value
            XCTAssertEqual(s, "s")
            XCTAssertEqual(d, 0.5)
            triples.append([i])
        })
        a.putNext(1)
        a.putNext(2)
        XCTAssertEqual(triples, [[1], [2]])

        let pipes5 = (0 ..< 5).map { _ in TestPipe<Int, NoError>() }
        var fives: [[Int]] = []
        var completions = 0
        _ = combineLatest(pipes5[0].signal(), pipes5[1].signal(), pipes5[2].signal(), pipes5[3].signal(), pipes5[4].signal()).start(next: { fives.append(ints($0)) }, completed: { completions += 1 })
        for (index, pipe) in pipes5.enumerated() {
            pipe.putNext(index)
        }
        pipes5[2].putNext(20)
        XCTAssertEqual(fives, [[0, 1, 2, 3, 4], [0, 1, 20, 3, 4]])
        for pipe in pipes5.dropLast() {
            pipe.putCompletion()
        }
        XCTAssertEqual(completions, 0)
        pipes5[4].putCompletion()
        XCTAssertEqual(completions, 1)
        XCTAssertEqual(pipes5.reduce(0) { $0 + $1.subscriberCount }, 0)
    }

    func testTwentySixSignals() {
        let p = (0 ..< 26).map { _ in TestPipe<Int, TestError>() }
        var values: [[Int]] = []
        var errors: [TestError] = []
        let signal: Signal<(Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int), TestError> = combineLatest(
            p[0].signal(), p[1].signal(), p[2].signal(), p[3].signal(), p[4].signal(), p[5].signal(),
            p[6].signal(), p[7].signal(), p[8].signal(), p[9].signal(), p[10].signal(), p[11].signal(),
            p[12].signal(), p[13].signal(), p[14].signal(), p[15].signal(), p[16].signal(), p[17].signal(),
            p[18].signal(), p[19].signal(), p[20].signal(), p[21].signal(), p[22].signal(), p[23].signal(),
            p[24].signal(), p[25].signal())
        _ = signal.start(next: { values.append(ints($0)) }, error: { errors.append($0) })
        for index in 0 ..< 25 {
            p[index].putNext(index)
        }
        XCTAssertEqual(values, [])
        p[25].putNext(25)
        p[0].putNext(100)
        XCTAssertEqual(values, [Array(0 ..< 26), [100] + Array(1 ..< 26)])
        p[13].putError(.first)
        XCTAssertEqual(errors, [.first])
        XCTAssertEqual(p.reduce(0) { $0 + $1.subscriberCount }, 0)
    }

    func testArrayForm() {
        var empty: [[Int]] = []
        var completions = 0
        _ = combineLatest([Signal<Int, NoError>]()).start(next: { empty.append($0) }, completed: { completions += 1 })
        XCTAssertEqual(empty, [[]])
        XCTAssertEqual(completions, 1)

        let pipes = (0 ..< 3).map { _ in TestPipe<Int, NoError>() }
        var values: [[Int]] = []
        let disposable = combineLatest(pipes.map { $0.signal() }).start(next: { values.append($0) }, completed: { completions += 1 })
        pipes[2].putNext(2)
        pipes[0].putNext(0)
        XCTAssertEqual(values, [])
        pipes[1].putNext(1)
        pipes[1].putNext(11)
        XCTAssertEqual(values, [[0, 1, 2], [0, 11, 2]])
        pipes[0].putCompletion()
        pipes[1].putCompletion()
        XCTAssertEqual(completions, 1)
        disposable.dispose()
        XCTAssertEqual(pipes.reduce(0) { $0 + $1.subscriberCount }, 0)
        pipes[2].putNext(22)
        XCTAssertEqual(values, [[0, 1, 2], [0, 11, 2]])
    }

    /// The array form emits its latest values as one array that it updates
    /// in place once no emission holds it any more: every emission read must
    /// be the model's combination, and an array a subscriber kept must never
    /// change afterwards (kept at every emission, every third, or none).
    func testArrayFormEmissionsMatchAModelWhetherKeptOrNot() {
        var random = SplitMix64(state: 0x5EED)
        for keepEvery in [0, 1, 3] {
            let pipes = (0 ..< 4).map { _ in TestPipe<Int, NoError>() }
            var read: [[Int]] = []
            var kept: [(index: Int, values: [Int])] = []
            let disposable = combineLatest(pipes.map { $0.signal() }).start(next: { values in
                if keepEvery > 0 && read.count % keepEvery == 0 {
                    kept.append((read.count, values))
                }
                read.append(values.map { $0 })
            })
            var latest: [Int?] = Array(repeating: nil, count: pipes.count)
            var expected: [[Int]] = []
            for n in 0 ..< 1000 {
                let input = random.below(pipes.count)
                pipes[input].putNext(n)
                latest[input] = n
                if latest.allSatisfy({ $0 != nil }) {
                    expected.append(latest.map { $0! })
                }
            }
            XCTAssertEqual(read, expected, "keeping every \(keepEvery)")
            XCTAssertEqual(kept.isEmpty, keepEvery == 0)
            for (index, values) in kept {
                XCTAssertEqual(values, expected[index], "emission \(index) changed after it was kept")
            }
            disposable.dispose()
        }
    }

    /// A replaced value is released once its emission is done, whether the
    /// latest values are updated in place or copied (an earlier emission kept).
    func testArrayFormReleasesReplacedValues() {
        final class Token {}
        let pipes = (0 ..< 2).map { _ in TestPipe<Token, NoError>() }
        var keep = false
        var kept: [[Token]] = []
        let disposable = combineLatest(pipes.map { $0.signal() }).start(next: { values in
            if keep {
                kept.append(values)
            }
        })
        weak var first: Token?
        weak var second: Token?
        do {
            let a = Token()
            let b = Token()
            first = a
            second = b
            pipes[0].putNext(a)
            pipes[1].putNext(Token())
            pipes[1].putNext(b)
        }
        XCTAssertNotNil(first)
        pipes[0].putNext(Token())
        XCTAssertNil(first, "the replaced value outlived its emission")
        keep = true
        pipes[0].putNext(Token())
        keep = false
        pipes[1].putNext(Token())
        XCTAssertNotNil(second, "a value of a kept emission was released")
        kept.removeAll()
        pipes[0].putNext(Token())
        XCTAssertNil(second, "the value outlived the emission that kept it")
        disposable.dispose()
    }

    /// The pair form holds each latest value exactly as long as it is the
    /// latest (or an emission holds it), on either side, initial values
    /// included, and lets both go when the subscription ends.
    /// Both implementations of the pair: one type (one callback function for
    /// both inputs) and two types (one for each).
    func testPairFormHoldsEachLatestValueUntilReplacedOrDisposed() {
        final class Token {}
        final class OtherToken {}
        checkPairLifetimes(Token.init, Token.init)
        checkPairLifetimes(Token.init, OtherToken.init)
    }

    private func checkPairLifetimes<A: AnyObject, B: AnyObject>(_ makeA: () -> A, _ makeB: () -> B, line: UInt = #line) {
        let first = TestPipe<A, NoError>()
        let second = TestPipe<B, NoError>()
        var kept: [(A, B)] = []
        weak var initial1: A?
        weak var initial2: B?
        weak var a: A?
        weak var b: B?
        var disposable: (any Disposable)?
        do {
            let v1 = makeA()
            let v2 = makeB()
            initial1 = v1
            initial2 = v2
            disposable = combineLatest(first.signal(), v1, second.signal(), v2).start(next: { pair in
                kept.append(pair)
            })
        }
        XCTAssertEqual(kept.count, 1, "the pair of initial values, at subscription", line: line)
        kept.removeAll()
        XCTAssertNotNil(initial1, line: line)
        XCTAssertNotNil(initial2, line: line)
        do {
            let token = makeA()
            a = token
            first.putNext(token)
        }
        XCTAssertNil(initial1, "the replaced initial value outlived its replacement", line: line)
        kept.removeAll()
        XCTAssertNotNil(initial2, "the latest second value (the initial one) was released", line: line)
        do {
            let token = makeB()
            b = token
            second.putNext(token)
        }
        XCTAssertNil(initial2, "the replaced initial value outlived its replacement", line: line)
        kept.removeAll()
        XCTAssertNotNil(a, "the latest first value was released", line: line)
        XCTAssertNotNil(b, "the latest second value was released", line: line)
        second.putNext(makeB())
        kept.removeAll()
        XCTAssertNil(b, "the replaced second value outlived its emission", line: line)
        XCTAssertNotNil(a, line: line)
        disposable?.dispose()
        disposable = nil
        XCTAssertNil(a, "the latest value outlived the subscription", line: line)

        // Values that never made a pair (one side only) are released too.
        weak var lone: A?
        do {
            let token = makeA()
            lone = token
            let subscription = combineLatest(first.signal(), second.signal()).start()
            first.putNext(token)
            subscription.dispose()
        }
        XCTAssertNil(lone, "a value that never made a pair outlived the subscription", line: line)
    }

    /// The pair of one type and the pair of two types (two implementations,
    /// see `combineLatestSameType`) deliver the same events for the same
    /// script of values, completions and errors on their two inputs, with
    /// and without initial values.
    func testPairOfOneTypeAndOfTwoTypesDeliverAlike() {
        struct Wrapped: Equatable {
            let value: Int
        }
        var generator = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 1 ... 1_000_000, using: &generator)
        var random = SplitMix64(state: seed)
        for round in 0 ..< 300 {
            // A step: 0/1 a value into input 0/1, 2/3 its completion, 4 an
            // error of input 0.
            let steps = (0 ..< Int.random(in: 0 ... 12, using: &random)).map { _ in Int.random(in: 0 ... 4, using: &random) }
            let initial = Bool.random(using: &random)
            var same: [String] = []
            var two: [String] = []
            do {
                let a = TestPipe<Int, TestError>()
                let b = TestPipe<Int, TestError>()
                let signal = initial ? combineLatest(a.signal(), -1, b.signal(), -2) : combineLatest(a.signal(), b.signal())
                let disposable = signal.start(next: { same.append("\($0.0),\($0.1)") }, error: { _ in same.append("error") }, completed: { same.append("completed") })
                run(steps, { a.putNext($0) }, { b.putNext($0) }, { a.putCompletion() }, { b.putCompletion() }, { a.putError(.first) })
                disposable.dispose()
            }
            do {
                let a = TestPipe<Int, TestError>()
                let b = TestPipe<Wrapped, TestError>()
                let signal = initial ? combineLatest(a.signal(), -1, b.signal(), Wrapped(value: -2)) : combineLatest(a.signal(), b.signal())
                let disposable = signal.start(next: { two.append("\($0.0),\($0.1.value)") }, error: { _ in two.append("error") }, completed: { two.append("completed") })
                run(steps, { a.putNext($0) }, { b.putNext(Wrapped(value: $0)) }, { a.putCompletion() }, { b.putCompletion() }, { a.putError(.first) })
                disposable.dispose()
            }
            XCTAssertEqual(same, two, "seed \(seed), round \(round), steps \(steps), initial values: \(initial)")
        }
    }

    private func run(_ steps: [Int], _ put0: (Int) -> Void, _ put1: (Int) -> Void, _ complete0: () -> Void, _ complete1: () -> Void, _ fail0: () -> Void) {
        for (index, step) in steps.enumerated() {
            switch step {
            case 0: put0(index)
            case 1: put1(index)
            case 2: complete0()
            case 3: complete1()
            default: fail0()
            }
        }
    }

    func testQueueParameterDeliversOnTheQueue() {
        let queue = Queue(name: "combine-test")
        let done = DispatchSemaphore(value: 0)
        let onQueue = Atomic<[Bool]>(value: [])
        let received = Atomic<[[Int]]>(value: [])

        // Two-signal form, inputs emitting on a thread that is not the queue.
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        let disposable = combineLatest(queue: queue, a.signal(), b.signal()).start(next: { pair in
            onQueue.modify { $0 + [queue.isCurrent()] }
            received.modify { $0 + [[pair.0, pair.1]] }
        }, completed: {
            onQueue.modify { $0 + [queue.isCurrent()] }
            done.signal()
        })
        a.putNext(1)
        b.putNext(2)
        a.putNext(3)
        a.putCompletion()
        b.putCompletion()
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(received.with { $0 }, [[1, 2], [3, 2]])
        XCTAssertEqual(onQueue.with { $0 }, [true, true, true])
        disposable.dispose()

        // Initial values, arity 3 and the array form.
        onQueue.swap([])
        let group = DispatchGroup()
        group.enter()
        group.enter()
        group.enter()
        let withInitial = Atomic<[[Int]]>(value: [])
        _ = combineLatest(queue: queue, Signal<Int, NoError>.single(1), 0, Signal<Int, NoError>.complete(), 5).start(next: { pair in
            onQueue.modify { $0 + [queue.isCurrent()] }
            withInitial.modify { $0 + [[pair.0, pair.1]] }
        }, completed: {
            group.leave()
        })
        let triple = Atomic<[Int]>(value: [])
        _ = combineLatest(queue: queue, Signal<Int, NoError>.single(1), Signal<Int, NoError>.single(2), Signal<Int, NoError>.single(3)).start(next: { value in
            onQueue.modify { $0 + [queue.isCurrent()] }
            triple.swap(ints(value))
        }, completed: {
            group.leave()
        })
        let array = Atomic<[Int]>(value: [])
        _ = combineLatest(queue: queue, [Signal<Int, NoError>.single(4), Signal<Int, NoError>.single(5)]).start(next: { value in
            onQueue.modify { $0 + [queue.isCurrent()] }
            array.swap(value)
        }, completed: {
            group.leave()
        })
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        // The pair of initial values comes first, at subscription, on the
        // subscribing thread (as in the original); then the others, on the
        // queue.
        XCTAssertEqual(withInitial.with { $0 }, [[0, 5], [1, 5]])
        XCTAssertEqual(triple.with { $0 }, [1, 2, 3])
        XCTAssertEqual(array.with { $0 }, [4, 5])
        XCTAssertEqual(onQueue.with { $0 }, [false, true, true, true])

        // Already on the queue: delivered inline.
        var inline: [[Int]] = []
        queue.sync {
            _ = combineLatest(queue: queue, Signal<Int, NoError>.single(1), Signal<Int, NoError>.single(2)).start(next: { inline.append([$0.0, $0.1]) })
        }
        XCTAssertEqual(inline, [[1, 2]])
    }

    func testReleasesCapturedObjects() {
        let counter = Atomic<Int>(value: 0)
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(counter)
            let arrayTracker = DeinitTracker(counter)
            let pairs = combineLatest(a.signal(), b.signal()).start(next: { _ in _ = tracker })
            let arrays = combineLatest([a.signal(), b.signal()]).start(next: { _ in _ = arrayTracker })
            let disposables = DisposableSet()
            disposables.add(pairs)
            disposables.add(arrays)
            disposable = disposables
        }
        a.putNext(1)
        b.putNext(2)
        XCTAssertEqual(counter.with { $0 }, 0)
        disposable?.dispose()
        XCTAssertEqual(counter.with { $0 }, 2)
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)

        // Released on completion.
        var kept: (any Disposable)?
        do {
            let tracker = DeinitTracker(counter)
            kept = combineLatest(Signal<Int, NoError>.single(1), Signal<Int, NoError>.single(2), Signal<Int, NoError>.single(3)).start(next: { _ in _ = tracker })
        }
        XCTAssertEqual(counter.with { $0 }, 3)
        XCTAssertNotNil(kept)

        // Replaced values are released, outside the lock.
        let values = TestPipe<DeinitTracker, NoError>()
        let other = TestPipe<Int, NoError>()
        let valueCounter = Atomic<Int>(value: 0)
        let subscription = combineLatest(values.signal(), other.signal()).start()
        values.putNext(DeinitTracker(valueCounter))
        values.putNext(DeinitTracker(valueCounter))
        XCTAssertEqual(valueCounter.with { $0 }, 1)
        subscription.dispose()
        XCTAssertEqual(valueCounter.with { $0 }, 2)
    }

    func testReplacedValueIsReleasedOutsideTheLock() {
        // The replaced value's deinit emits into the other input: deadlocks if
        // the value were released with the state's lock held.
        let values = TestPipe<DeinitTracker, NoError>()
        let other = TestPipe<Int, NoError>()
        let seen = Atomic<[Int]>(value: [])
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let disposable = combineLatest(values.signal(), other.signal()).start(next: { pair in
                seen.modify { $0 + [pair.1] }
            })
            other.putNext(0)
            values.putNext(DeinitTracker { other.putNext(1) })
            values.putNext(DeinitTracker {})
            disposable.dispose()
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(seen.with { $0 }, [0, 0, 1])
    }

    func testReentrantEmitAndDispose() {
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        var values: [[Int]] = []
        var disposable: (any Disposable)?
        disposable = combineLatest(a.signal(), b.signal()).start(next: { pair in
            values.append([pair.0, pair.1])
            if pair.0 == 1 {
                a.putNext(2)
            } else if pair.0 == 2 {
                disposable?.dispose()
                b.putNext(100)
            }
        })
        a.putNext(1)
        b.putNext(1)
        XCTAssertEqual(values, [[1, 1], [2, 1]])
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)
    }

    func testConcurrentInputsExactCounts() {
        // Every input has a value first; then each of 4 threads emits 1000
        // values into its own input: exactly one combination per value.
        let threads = 4
        let perThread = 1_000
        for useArray in [false, true] {
            let pipes = (0 ..< threads).map { _ in TestPipe<Int, NoError>() }
            let count = Atomic<Int>(value: 0)
            let completions = Atomic<Int>(value: 0)
            let disposable: any Disposable
            if useArray {
                disposable = combineLatest(pipes.map { $0.signal() }).start(next: { _ in count.modify { $0 + 1 } }, completed: { completions.modify { $0 + 1 } })
            } else {
                disposable = combineLatest(pipes[0].signal(), pipes[1].signal(), pipes[2].signal(), pipes[3].signal()).start(next: { _ in count.modify { $0 + 1 } }, completed: { completions.modify { $0 + 1 } })
            }
            for pipe in pipes {
                pipe.putNext(0)
            }
            XCTAssertEqual(count.with { $0 }, 1)
            let group = DispatchGroup()
            for thread in 0 ..< threads {
                DispatchQueue.global().async(group: group) {
                    for i in 0 ..< perThread {
                        pipes[thread].putNext(i)
                    }
                    pipes[thread].putCompletion()
                }
            }
            XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
            XCTAssertEqual(count.with { $0 }, 1 + threads * perThread)
            XCTAssertEqual(completions.with { $0 }, 1)
            disposable.dispose()
        }
    }

    func testConcurrentWithQueueIsSerializedAndEndsWithTheLatestValues() {
        let queue = Queue(name: "combine-stress")
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        let inFlight = Atomic<Int>(value: 0)
        let maximumInFlight = Atomic<Int>(value: 0)
        let last = Atomic<[Int]>(value: [])
        let count = Atomic<Int>(value: 0)
        let done = DispatchSemaphore(value: 0)
        let perThread = 1_000
        let disposable = combineLatest(queue: queue, a.signal(), b.signal()).start(next: { pair in
            let now = inFlight.modify { $0 + 1 }
            maximumInFlight.modify { max($0, now) }
            last.swap([pair.0, pair.1])
            count.modify { $0 + 1 }
            inFlight.modify { $0 - 1 }
        }, completed: {
            done.signal()
        })
        a.putNext(0)
        b.putNext(0)
        let group = DispatchGroup()
        for pipe in [a, b] {
            DispatchQueue.global().async(group: group) {
                for i in 1 ... perThread {
                    pipe.putNext(i)
                }
                pipe.putCompletion()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(done.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(count.with { $0 }, 1 + 2 * perThread)
        XCTAssertEqual(maximumInFlight.with { $0 }, 1)
        XCTAssertEqual(last.with { $0 }, [perThread, perThread])
        disposable.dispose()
    }

    func testConcurrentSubscribeAndDispose() {
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        let released = Atomic<Int>(value: 0)
        let iterations = 500
        whileEmitting(into: [a, b], workers: 3, iterations: iterations) {
            let tracker = DeinitTracker(released)
            let disposable = combineLatest(a.signal(), b.signal(), Signal<Int, NoError>.single(0)).start(next: { _ in _ = tracker })
            disposable.dispose()
        }
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)
        XCTAssertEqual(released.with { $0 }, 3 * iterations)
    }

    // The two-signal combination without a queue is a fused signal (no
    // subscriber between its pair state and the downstream's stages): what
    // that could break, checked on TestPipe inputs (generators) and on
    // ValuePipe inputs (fused sources).

    func testPairTakeOneDownstreamStopsBothInputs() {
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        var values: [[Int]] = []
        var completions = 0
        _ = (combineLatest(a.signal(), b.signal()) |> map { [$0.0, $0.1] } |> take(1)).start(next: { values.append($0) }, completed: { completions += 1 })
        a.putNext(1)
        XCTAssertEqual(a.subscriberCount, 1)
        b.putNext(2)
        XCTAssertEqual(values, [[1, 2]])
        XCTAssertEqual(completions, 1)
        XCTAssertEqual(a.subscriberCount, 0)
        XCTAssertEqual(b.subscriberCount, 0)
        a.putNext(3)
        XCTAssertEqual(values, [[1, 2]])

        // On pipes (fused sources).
        let c = ValuePipe<Int>()
        let d = ValuePipe<Int>()
        var pairs: [[Int]] = []
        _ = (combineLatest(c.signal(), d.signal()) |> take(2)).start(next: { pairs.append([$0.0, $0.1]) }, completed: { completions += 1 })
        c.putNext(1)
        d.putNext(2)
        c.putNext(3)
        c.putNext(4)
        d.putNext(5)
        XCTAssertEqual(pairs, [[1, 2], [3, 2]])
        XCTAssertEqual(completions, 2)
    }

    func testPairTakeOneDuringTheStartStopsTheInputs() {
        // The first input emits synchronously and, with initial values, the
        // pair it makes (after the pair of initial values, emitted at
        // subscription) completes the take during its start: the second input
        // is never started, and the first one's loop stops.
        var emitted = 0
        let first = Signal<Int, NoError> { subscriber in
            for i in 0 ..< 5 {
                emitted += 1
                subscriber.putNext(i)
            }
            return EmptyDisposable
        }
        var secondStarted = 0
        let second = Signal<Int, NoError> { _ in
            secondStarted += 1
            return EmptyDisposable
        }
        var values: [[Int]] = []
        var completions = 0
        _ = (combineLatest(first, 10, second, 20) |> take(2)).start(next: { values.append([$0.0, $0.1]) }, completed: { completions += 1 })
        XCTAssertEqual(values, [[10, 20], [0, 20]])
        XCTAssertEqual(completions, 1)
        XCTAssertEqual(secondStarted, 0)

        // Ended by the pair of initial values: no input starts.
        values = []
        emitted = 0
        _ = (combineLatest(first, 10, second, 20) |> take(1)).start(next: { values.append([$0.0, $0.1]) }, completed: { completions += 1 })
        XCTAssertEqual(values, [[10, 20]])
        XCTAssertEqual(completions, 2)
        XCTAssertEqual(emitted, 0)
        XCTAssertEqual(secondStarted, 0)

        // The pair made while starting the second input: it stops at once.
        values = []
        emitted = 0
        _ = (combineLatest(Signal<Int, NoError>.single(7), first) |> take(2)).start(next: { values.append([$0.0, $0.1]) }, completed: { completions += 1 })
        XCTAssertEqual(values, [[7, 0], [7, 1]])
        XCTAssertEqual(completions, 3)
        XCTAssertEqual(emitted, 5)
    }

    func testPairDisposeInsideADownstreamStageStopsDelivery() {
        let a = ValuePipe<Int>()
        let b = ValuePipe<Int>()
        var disposable: (any Disposable)?
        var mapped: [Int] = []
        var values: [Int] = []
        disposable = (combineLatest(a.signal(), b.signal()) |> map { pair -> Int in
            mapped.append(pair.0)
            if pair.0 == 2 {
                disposable?.dispose()
            }
            return pair.0 + pair.1
        }).start(next: { values.append($0) })
        a.putNext(1)
        b.putNext(10)
        a.putNext(2)
        a.putNext(3)
        b.putNext(20)
        XCTAssertEqual(mapped, [1, 2])
        XCTAssertEqual(values, [11], "nothing after the dispose inside the map")
    }

    func testPairErrorAndCompletionThroughDownstreamStages() {
        let a = ValuePipe<Int>()
        let b = TestPipe<Int, TestError>()
        var events: [String] = []
        _ = (combineLatest(a.signal() |> castError(TestError.self), b.signal()) |> map { $0.0 + $0.1 } |> filter { $0 > 0 }).start(next: { events.append("\($0)") }, error: { events.append("error \($0)") }, completed: { events.append("completed") })
        a.putNext(1)
        b.putNext(1)
        b.putError(.first)
        a.putNext(5)
        b.putNext(5)
        XCTAssertEqual(events, ["2", "error first"])
        XCTAssertEqual(b.subscriberCount, 0)

        // Completion only once both completed; values still flow from the
        // one that has not.
        let c = TestPipe<Int, NoError>()
        let d = TestPipe<Int, NoError>()
        events = []
        _ = (combineLatest(c.signal(), d.signal()) |> map { $0.0 * 10 + $0.1 }).start(next: { events.append("\($0)") }, completed: { events.append("completed") })
        c.putNext(1)
        c.putCompletion()
        d.putNext(2)
        d.putNext(3)
        XCTAssertEqual(events, ["12", "13"])
        d.putCompletion()
        XCTAssertEqual(events, ["12", "13", "completed"])
    }

    func testPairDisposeFromAnotherThreadStopsValues() {
        // The inputs emit on another thread; a value put there after
        // `dispose` has returned here reaches nothing.
        let a = ValuePipe<Int>()
        let b = ValuePipe<Int>()
        let late = Atomic<Int>(value: 0)
        let released = Atomic<Int>(value: 0)
        let disposable: any Disposable
        do {
            let tracker = DeinitTracker(released)
            disposable = combineLatest(a.signal(), b.signal()).start(next: { pair in
                _ = tracker
                if pair.0 < 0 || pair.1 < 0 {
                    late.modify { $0 + 1 }
                }
            })
        }
        a.putNext(0)
        b.putNext(0)
        let started = DispatchSemaphore(value: 0)
        let stop = Atomic<Bool>(value: false)
        let emitter = DispatchGroup()
        DispatchQueue.global().async(group: emitter) {
            var i = 0
            started.signal()
            while !stop.with({ $0 }) {
                a.putNext(i)
                b.putNext(i)
                i += 1
            }
            // After the dispose returned (stop is set only then): dropped.
            a.putNext(-1)
            b.putNext(-1)
        }
        started.wait()
        disposable.dispose()
        stop.swap(true)
        XCTAssertEqual(emitter.wait(timeout: .now() + waitDeadline), .success)
        XCTAssertEqual(late.with { $0 }, 0)
        XCTAssertEqual(released.with { $0 }, 1)
    }

    func testPairReleasesTheDownstreamCallbacks() {
        // The downstream's composed callback is held by the inputs'
        // subscriptions: released when the combination is disposed, fails or
        // completes.
        let counter = Atomic<Int>(value: 0)
        let a = ValuePipe<Int>()
        let b = TestPipe<Int, NoError>()
        var disposable: (any Disposable)?
        do {
            let tracker = DeinitTracker(counter)
            disposable = (combineLatest(a.signal(), b.signal()) |> map { $0.0 + $0.1 }).start(next: { _ in _ = tracker })
        }
        a.putNext(1)
        b.putNext(1)
        XCTAssertEqual(counter.with { $0 }, 0)
        disposable?.dispose()
        XCTAssertEqual(counter.with { $0 }, 1)

        do {
            let tracker = DeinitTracker(counter)
            disposable = combineLatest(b.signal(), b.signal()).start(next: { _ in _ = tracker })
        }
        b.putNext(2)
        b.putCompletion()
        XCTAssertEqual(counter.with { $0 }, 2)
        XCTAssertNotNil(disposable)
    }

    // zip and withLatestFrom (issue 33) beyond the shared marble table
    // (Tests/SwiftSignalKitTestSupport/OperatorLifecycle.swift).

    func testOperatorsThatEndEarlyStopASynchronousEndlessUpstream() {
        assertEndsAnEndlessUpstream([
            // The first input completes after one value: the pair it makes
            // with the endless one completes the zip.
            ("zip", { zip(Signal<Int, NoError>.single(10), $0) |> map { $0.0 + $0.1 } }, [11]),
        ])
    }

    func testDisposingFromInsideAValueCallback() {
        assertDisposableFromInsideAValueCallback([
            ("zip", { signal in zip(signal, signal) |> map { $0.0 } }),
            ("withLatestFrom", { $0 |> withLatestFrom(Signal<Int, TestError>.single(5)) |> map { $0.0 } }),
        ])
    }

    /// A zip's waiting values are released when the subscription ends.
    func testZipReleasesWaitingValuesOnDisposal() {
        let a = ValuePipe<DeinitTracker>()
        let b = ValuePipe<DeinitTracker>()
        let released = Counter()
        let d = zip(a.signal(), b.signal()).start()
        a.putNext(DeinitTracker(released))
        a.putNext(DeinitTracker(released))
        XCTAssertEqual(released.count, 0, "held until paired")
        d.dispose()
        XCTAssertEqual(released.count, 2)
    }

    func testZipOfTwoWithoutAValueCallbackPairsAndCompletes() {
        // No value callback below (the input callbacks' other form): the
        // pairs are still made, and the completion waits for the partner
        // of the completed input's last value.
        let a = TestPipe<Int, NoError>()
        let b = TestPipe<Int, NoError>()
        var completed = 0
        let disposable = zip(a.signal(), b.signal()).start(completed: { completed += 1 })
        a.putNext(1)
        b.putNext(2)
        a.putNext(3)
        a.putCompletion()
        XCTAssertEqual(completed, 0, "3 waits for its partner")
        b.putNext(4)
        XCTAssertEqual(completed, 1)
        XCTAssertEqual(a.subscriberCount + b.subscriberCount, 0)
        disposable.dispose()
    }

    func testZipOfNothingCompletes() {
        var completed = 0
        zip([Signal<Int, NoError>]()).start(completed: { completed += 1 }).dispose()
        XCTAssertEqual(completed, 1)
    }

    func testAbandonedSubscriptionsAreFreedWhenTheSourceLetsGo() {
        assertFreedWhenAbandoned([
            ("zip", { zip($0, Signal<Int, TestError>.never()) |> map { $0.0 } }),
            ("withLatestFrom", { $0 |> withLatestFrom(Signal<Int, TestError>.never()) |> map { $0.0 } }),
        ])
    }
}
