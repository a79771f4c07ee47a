import XCTest
import SwiftSignalKitTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Random cases (pipelines and scripts) from a seed, the check of one case
// (model against library), and the shrinker that reduces a failing case.

/// The few draws the generator needs, over the support target's SplitMix64
/// (written out, not the standard library's `random(in:using:)`, whose
/// algorithm may change between toolchains, so that a seed replays the same
/// case everywhere).
struct ModelRandom {
    var generator: SplitMix64

    init(seed: UInt64) {
        self.generator = SplitMix64(state: seed)
    }

    mutating func next() -> UInt64 {
        return self.generator.next()
    }

    /// 0 ..< n.
    mutating func below(_ n: Int) -> Int {
        return self.generator.below(n)
    }

    /// True with probability percent / 100.
    mutating func chance(_ percent: Int) -> Bool {
        return self.below(100) < percent
    }

    /// A small value, often repeated (for `distinctUntilChanged`), sometimes negative.
    mutating func value() -> Int {
        return self.below(9) - 2
    }

    mutating func pick<T>(_ all: [T]) -> T {
        return all[self.below(all.count)]
    }
}

/// Makes random cases.
struct ModelGenerator {
    var random: ModelRandom

    init(seed: UInt64) {
        self.random = ModelRandom(seed: seed)
    }

    /// A valid case (see `ModelCheck.isValid`).
    mutating func makeCase() -> ModelCase {
        while true {
            let signal = self.signal(depth: 2 + self.random.below(4))
            let testCase = ModelCase(signal: signal, script: self.script(for: signal))
            if ModelCheck.isValid(testCase) {
                return testCase
            }
        }
    }

    mutating func values(max: Int) -> [Int] {
        return (0 ..< self.random.below(max + 1)).map { _ in self.random.value() }
    }

    mutating func source() -> ModelSignal {
        switch self.random.below(20) {
        case 0 ..< 5:
            return .just(self.values(max: 4))
        case 5 ..< 7:
            return .fail(self.values(max: 2), 1 + self.random.below(3))
        case 7:
            return .never
        case 8 ..< 16:
            return .pipe(self.random.below(modelPipeCount))
        default:
            return .subject(self.random.below(modelSubjectCount))
        }
    }

    /// A list of 0 to 3 pipelines (rarely empty).
    mutating func signals(depth: Int) -> [ModelSignal] {
        let count = self.random.chance(10) ? 0 : 1 + self.random.below(3)
        return (0 ..< count).map { _ in self.signal(depth: depth) }
    }

    mutating func signal(depth: Int) -> ModelSignal {
        if depth <= 0 || self.random.chance(15) {
            return self.source()
        }
        let d = depth - 1
        switch self.random.below(44) {
        case 0:
            return .map(self.random.pick(ModelMap.allCases), self.signal(depth: d))
        case 1:
            return .filter(self.random.pick(ModelPredicate.allCases), self.signal(depth: d))
        case 2, 3:
            return .take(self.random.below(4), self.signal(depth: d))
        case 4:
            return .takeUntil(self.random.pick(ModelUntil.allCases), self.signal(depth: d))
        case 5:
            return .distinctUntilChanged(self.signal(depth: d))
        case 6:
            return .reduceLeft(self.random.value(), self.signal(depth: d))
        case 7:
            return .reduceLeftEmitting(self.random.value(), self.signal(depth: d))
        case 8:
            return .last(self.signal(depth: d))
        case 9:
            return .ignoreValues(self.signal(depth: d))
        case 10, 11:
            return .then(self.signal(depth: d), self.signal(depth: d))
        case 12, 13:
            // A restart that completes (or fails) synchronously needs a take
            // directly above it (maybe through map or filter) to stop.
            let loop: ModelSignal = self.random.chance(60) ? .restart(self.signal(depth: d - 1)) : .restartIfError(self.signal(depth: d - 1))
            let body: ModelSignal
            switch self.random.below(4) {
            case 0:
                body = .map(self.random.pick(ModelMap.allCases), loop)
            case 1:
                body = .filter(self.random.pick(ModelPredicate.allCases), loop)
            default:
                body = loop
            }
            return self.random.chance(85) ? .take(1 + self.random.below(4), body) : body
        case 14:
            return .catch(self.signal(depth: d), self.signal(depth: d))
        case 15:
            return .mapError(self.signal(depth: d))
        case 16, 17, 18:
            return .meta(self.random.pick(ModelMeta.allCases), self.signal(depth: d), self.signal(depth: d))
        case 19:
            return .combineLatest(self.signal(depth: d), self.signal(depth: d))
        case 20:
            return .combineLatestWithInitial(self.signal(depth: d), self.random.value(), self.signal(depth: d), self.random.value())
        case 21:
            return .combineLatest3(self.signal(depth: d), self.signal(depth: d), self.signal(depth: d))
        case 22:
            return .combineLatestArray(self.signals(depth: d))
        case 23, 24:
            return .merge(self.signals(depth: d))
        case 25:
            return self.random.chance(50) ? .deferred(self.signal(depth: d)) : .roundTrip(self.signal(depth: d))
        case 26:
            return .dematerialize(self.signal(depth: d))
        // The operators of issue 33.
        case 27:
            return .scan(self.random.value(), self.signal(depth: d))
        case 28:
            return .skip(self.random.below(4), self.signal(depth: d))
        case 29:
            return .skipWhile(self.random.pick(ModelPredicate.allCases), self.signal(depth: d))
        case 30:
            return .takeWhile(self.random.pick(ModelPredicate.allCases), self.random.chance(50), self.signal(depth: d))
        case 31:
            return .startWith(self.random.value(), self.signal(depth: d))
        case 32:
            return .pairwise(self.signal(depth: d))
        case 33:
            return self.random.chance(50) ? .first(self.signal(depth: d)) : .elementAt(self.random.below(4) - 1, self.signal(depth: d))
        case 34:
            return .defaultIfEmpty(self.random.value(), self.signal(depth: d))
        case 35:
            return .zip(self.signal(depth: d), self.signal(depth: d))
        case 36:
            return .withLatestFrom(self.signal(depth: d), self.signal(depth: d))
        case 37:
            return .concat(self.signals(depth: d))
        case 38:
            return .takeUntilSignal(self.signal(depth: d), self.signal(depth: d))
        case 39, 40:
            return .mergeMap(self.random.pick([Int.max, Int.max, 1, 2, 3, 0]), self.signal(depth: d), self.signal(depth: d))
        case 41, 42:
            return self.sharedTwice(depth: d)
        default:
            return .retry(self.random.below(5) - 1, self.signal(depth: d))
        }
    }

    /// A `share` or `replay` node used at two places of one operator (equal
    /// nodes of a case are one shared signal): a node of the tree is
    /// subscribed once, so only a second place gives the shared signal a
    /// second subscriber, which joins the running connection (merge,
    /// combineLatest, zip, withLatestFrom: both subscribe at start), connects
    /// anew after the first ended (then), joins and leaves over and over (a
    /// meta operator's inner signals), or joins from inside the connection's
    /// own delivery (the inner signal of a meta operator over it).
    mutating func sharedTwice(depth: Int) -> ModelSignal {
        let source = self.signal(depth: depth - 1)
        let shared: ModelSignal = self.random.chance(50) ? .share(source) : .replay(self.random.below(4), source)
        // The second place sometimes through a map, to tell the two apart.
        let second: ModelSignal = self.random.chance(50) ? .map(self.random.pick(ModelMap.allCases), shared) : shared
        switch self.random.below(8) {
        case 0:
            return .merge([shared, second])
        case 1:
            return .combineLatest(shared, second)
        case 2:
            return .zip(shared, second)
        case 3:
            return .withLatestFrom(shared, second)
        case 4:
            return .then(shared, second)
        case 5:
            return .takeUntilSignal(shared, .skip(1 + self.random.below(2), second))
        case 6:
            return .meta(self.random.pick(ModelMeta.allCases), self.signal(depth: depth - 1), second)
        default:
            return .meta(self.random.pick(ModelMeta.allCases), shared, second)
        }
    }

    /// A script that mostly drives the pipes and subjects `signal` uses.
    mutating func script(for signal: ModelSignal) -> [ModelStep] {
        var pipes: [Int] = []
        var subjects: [Int] = []
        func collect(_ signal: ModelSignal) {
            switch signal {
            case let .pipe(i):
                pipes.append(i)
            case let .subject(i):
                subjects.append(i)
            default:
                signal.children.forEach(collect)
            }
        }
        collect(signal)
        if pipes.isEmpty || self.random.chance(10) {
            pipes = Array(0 ..< modelPipeCount)
        }
        if subjects.isEmpty || self.random.chance(10) {
            subjects = Array(0 ..< modelSubjectCount)
        }
        let subjectShare = subjects.count * 100 / (pipes.count + subjects.count)
        return (0 ..< 2 + self.random.below(15)).map { _ in
            switch self.random.below(100) {
            case 0 ..< 78:
                if self.random.chance(subjectShare) {
                    return .send(self.random.pick(subjects), self.random.value())
                }
                return .put(self.random.pick(pipes), self.random.value())
            case 78 ..< 84:
                return .complete(self.random.pick(subjects))
            case 84 ..< 88:
                return .fail(self.random.pick(subjects), 4 + self.random.below(3))
            case 88 ..< 90:
                return .dispose
            case 90 ..< 92:
                return .disposeOnNextEvent
            default:
                if self.random.chance(subjectShare) {
                    return .sendOnNextEvent(self.random.pick(subjects), self.random.value())
                }
                return .putOnNextEvent(self.random.pick(pipes), self.random.value())
            }
        }
    }
}

/// The check of one case, and the shrinker.
enum ModelCheck {
    /// A case the library can run without looping forever: the model stays
    /// within its budget, and every `restart` (`restartIfError`) whose
    /// signal completes (fails) synchronously emits a value first and sits
    /// right under a `take(n)` with n > 0 (through `map` and `filter` only),
    /// which is what stops the library's synchronous loop.
    static func isValid(_ testCase: ModelCase) -> Bool {
        guard ReferenceModel.run(testCase) != nil else {
            return false
        }
        return self.loopsAreStopped(testCase.signal, underTake: false)
    }

    private static func loopsAreStopped(_ signal: ModelSignal, underTake: Bool) -> Bool {
        switch signal {
        case let .take(count, source):
            // A restart this take stops must stop on its own (the library may
            // start it where the model does not: see ModelKnownBugs).
            var chain = source
            while true {
                if case let .map(_, inner) = chain {
                    chain = inner
                } else if case let .filter(_, inner) = chain {
                    chain = inner
                } else {
                    break
                }
            }
            switch chain {
            case .restart, .restartIfError:
                if ReferenceModel.run(ModelCase(signal: signal, script: []), primed: true) == nil {
                    return false
                }
            default:
                break
            }
            return self.loopsAreStopped(source, underTake: count > 0)
        case let .map(_, source), let .filter(_, source):
            return self.loopsAreStopped(source, underTake: underTake)
        case let .restart(source), let .restartIfError(source):
            let isRestart: Bool
            if case .restart = signal {
                isRestart = true
            } else {
                isRestart = false
            }
            // What one round does while it is being started (the same for
            // every round, once a replaying pipe has a value).
            guard let round = ReferenceModel.run(ModelCase(signal: source, script: []), primed: true) else {
                return false
            }
            let loops = round.events.contains { observation in
                switch observation.event {
                case .completed:
                    return isRestart
                case .error:
                    return !isRestart
                case .next:
                    return false
                }
            }
            if loops {
                let emits = round.events.contains { observation in
                    if case .next = observation.event {
                        return true
                    }
                    return false
                }
                if !emits || !underTake {
                    return false
                }
            }
            return self.loopsAreStopped(source, underTake: false)
        default:
            return signal.children.allSatisfy { self.loopsAreStopped($0, underTake: false) }
        }
    }

    /// The model's outcome and the library's for a case; nil if the case is
    /// not valid for the model (its budget ran out).
    static func compare(_ testCase: ModelCase) -> ModelComparison? {
        guard let expected = ReferenceModel.run(testCase) else {
            return nil
        }
        let result = LibraryRunner.run(testCase)
        return ModelComparison(expected: expected, actual: result.outcome, leaks: result.leaks)
    }

    /// Why the library disagrees with the model on a valid case, or nil.
    static func failure(_ testCase: ModelCase) -> String? {
        guard let comparison = self.compare(testCase), !comparison.agrees else {
            return nil
        }
        return comparison.report
    }

    // MARK: - Shrinking

    /// A measure that every shrinking step decreases.
    static func weight(_ testCase: ModelCase) -> Int {
        return self.weight(testCase.signal) + testCase.script.reduce(0) { sum, step in
            switch step {
            case let .put(i, v), let .send(i, v), let .fail(i, v):
                return sum + 4 + i + abs(v)
            case let .putOnNextEvent(i, v), let .sendOnNextEvent(i, v):
                return sum + 5 + i + abs(v)
            case let .complete(i):
                return sum + 4 + i
            case .dispose, .disposeOnNextEvent:
                return sum + 4
            }
        }
    }

    static func weight(_ signal: ModelSignal) -> Int {
        let own: Int
        switch signal {
        case let .just(values):
            own = values.count + values.reduce(0) { $0 + abs($1) }
        case let .fail(values, error):
            own = 1 + values.count + values.reduce(0) { $0 + abs($1) } + abs(error)
        case .never:
            own = 1
        case let .pipe(i):
            own = 2 + i
        case let .subject(i):
            own = 3 + i
        case let .map(f, _):
            own = f.rawValue
        case let .filter(p, _):
            own = p.rawValue
        case let .take(n, _):
            own = abs(n)
        case let .takeUntil(u, _):
            own = u.rawValue
        case let .reduceLeft(v, _), let .reduceLeftEmitting(v, _):
            own = abs(v)
        case let .meta(kind, _, _):
            own = kind.rawValue
        case let .combineLatestWithInitial(_, v1, _, v2):
            own = abs(v1) + abs(v2)
        case let .mergeMap(n, _, _):
            own = min(abs(n), 20)
        case let .replay(n, _):
            own = 1 + abs(n)
        case let .retry(n, _):
            own = abs(n)
        default:
            own = 0
        }
        return 10 + own + signal.children.reduce(0) { $0 + self.weight($1) }
    }

    /// Simpler values for an integer: 0, 1, and one step toward 0.
    static func smaller(_ value: Int) -> [Int] {
        var result: [Int] = []
        for candidate in [0, 1, value > 0 ? value - 1 : value + 1] where abs(candidate) < abs(value) || (candidate == 0 && value != 0) {
            if !result.contains(candidate) {
                result.append(candidate)
            }
        }
        return result
    }

    static func smaller(_ values: [Int]) -> [[Int]] {
        var result: [[Int]] = []
        for index in values.indices {
            var removed = values
            removed.remove(at: index)
            result.append(removed)
        }
        for index in values.indices {
            for candidate in self.smaller(values[index]) {
                var changed = values
                changed[index] = candidate
                result.append(changed)
            }
        }
        return result
    }

    /// Pipelines simpler than `signal`: each child in its place, simple
    /// sources, the node with simpler parameters, or a simpler child.
    static func simpler(_ signal: ModelSignal) -> [ModelSignal] {
        var result: [ModelSignal] = signal.children
        result.append(contentsOf: [.never, .just([]), .just([0]), .pipe(0)])
        switch signal {
        case let .just(values):
            result.append(contentsOf: self.smaller(values).map { .just($0) })
        case let .fail(values, error):
            result.append(.just(values))
            result.append(contentsOf: self.smaller(values).map { .fail($0, error) })
            result.append(contentsOf: self.smaller(error).map { .fail(values, $0) })
        case let .pipe(i):
            result.append(contentsOf: self.smaller(i).map { .pipe($0) })
        case let .subject(i):
            result.append(.pipe(i))
            result.append(contentsOf: self.smaller(i).map { .subject($0) })
        case let .map(f, s):
            result.append(contentsOf: ModelMap.allCases.filter { $0.rawValue < f.rawValue }.map { .map($0, s) })
        case let .filter(p, s):
            result.append(contentsOf: ModelPredicate.allCases.filter { $0.rawValue < p.rawValue }.map { .filter($0, s) })
        case let .take(n, s):
            result.append(contentsOf: self.smaller(n).map { .take($0, s) })
        case let .takeUntil(u, s):
            result.append(contentsOf: ModelUntil.allCases.filter { $0.rawValue < u.rawValue }.map { .takeUntil($0, s) })
        case let .reduceLeft(v, s):
            result.append(contentsOf: self.smaller(v).map { .reduceLeft($0, s) })
        case let .reduceLeftEmitting(v, s):
            result.append(.reduceLeft(v, s))
            result.append(contentsOf: self.smaller(v).map { .reduceLeftEmitting($0, s) })
        case let .meta(kind, a, b):
            result.append(contentsOf: ModelMeta.allCases.filter { $0.rawValue < kind.rawValue }.map { .meta($0, a, b) })
        case let .combineLatestWithInitial(a, v1, b, v2):
            result.append(.combineLatest(a, b))
            result.append(contentsOf: self.smaller(v1).map { .combineLatestWithInitial(a, $0, b, v2) })
            result.append(contentsOf: self.smaller(v2).map { .combineLatestWithInitial(a, v1, b, $0) })
        case let .combineLatest3(a, b, c):
            result.append(contentsOf: [.combineLatest(a, b), .combineLatest(a, c), .combineLatest(b, c)])
        case let .combineLatestArray(list):
            for index in list.indices {
                var removed = list
                removed.remove(at: index)
                result.append(.combineLatestArray(removed))
            }
        case let .merge(list):
            for index in list.indices {
                var removed = list
                removed.remove(at: index)
                result.append(.merge(removed))
            }
        case let .mergeMap(n, a, b):
            result.append(.meta(.mapToQueue, a, b))
            result.append(contentsOf: self.smaller(n).map { .mergeMap($0, a, b) })
        case let .replay(n, s):
            result.append(.share(s))
            result.append(contentsOf: self.smaller(n).map { .replay($0, s) })
        case let .retry(n, s):
            result.append(contentsOf: self.smaller(n).map { .retry($0, s) })
        default:
            break
        }
        // A simpler child in place.
        let children = signal.children
        for index in children.indices {
            for child in self.simpler(children[index]) {
                var changed = children
                changed[index] = child
                result.append(signal.withChildren(changed))
            }
        }
        return result
    }

    static func simpler(_ script: [ModelStep]) -> [[ModelStep]] {
        var result: [[ModelStep]] = []
        if script.count > 1 {
            result.append(Array(script.prefix(script.count / 2)))
            result.append(Array(script.suffix(script.count - script.count / 2)))
        }
        for index in script.indices {
            var removed = script
            removed.remove(at: index)
            result.append(removed)
        }
        for index in script.indices {
            var steps: [ModelStep] = []
            switch script[index] {
            case let .put(i, v):
                steps = self.smaller(i).map { .put($0, v) } + self.smaller(v).map { .put(i, $0) }
            case let .send(i, v):
                steps = [.put(i, v)] + self.smaller(i).map { .send($0, v) } + self.smaller(v).map { .send(i, $0) }
            case let .complete(i):
                steps = self.smaller(i).map { .complete($0) }
            case let .fail(i, e):
                steps = [.complete(i)] + self.smaller(i).map { .fail($0, e) } + self.smaller(e).map { .fail(i, $0) }
            case .disposeOnNextEvent:
                steps = [.dispose]
            case let .putOnNextEvent(i, v):
                steps = [.put(i, v)] + self.smaller(i).map { .putOnNextEvent($0, v) } + self.smaller(v).map { .putOnNextEvent(i, $0) }
            case let .sendOnNextEvent(i, v):
                steps = [.send(i, v), .putOnNextEvent(i, v)] + self.smaller(i).map { .sendOnNextEvent($0, v) } + self.smaller(v).map { .sendOnNextEvent(i, $0) }
            case .dispose:
                break
            }
            for step in steps {
                var changed = script
                changed[index] = step
                result.append(changed)
            }
        }
        return result
    }

    /// Reduces a failing case to one where no simpler candidate fails.
    /// `fails` is called on valid candidates only.
    static func shrink(_ testCase: ModelCase, fails: (ModelCase) -> Bool) -> ModelCase {
        var best = testCase
        var bestWeight = self.weight(best)
        var improved = true
        while improved {
            improved = false
            let candidates = self.simpler(best.script).map { ModelCase(signal: best.signal, script: $0) }
                + self.simpler(best.signal).map { ModelCase(signal: $0, script: best.script) }
            for candidate in candidates {
                let weight = self.weight(candidate)
                if weight < bestWeight && self.isValid(candidate) && fails(candidate) {
                    best = candidate
                    bestWeight = weight
                    improved = true
                    break
                }
            }
        }
        return best
    }

    /// The source of a regression test for a case.
    static func regressionTest(_ testCase: ModelCase, seed: UInt64) -> String {
        return """
            func testShrunkFromSeed\(seed)() {
                assertModelAgrees(\(testCase))
            }
            """
    }
}

/// The two outcomes of a case.
struct ModelComparison {
    var expected: ModelOutcome
    var actual: ModelOutcome
    /// What the library left after the final dispose.
    var leaks: [String]

    var agrees: Bool {
        return self.expected == self.actual && self.leaks.isEmpty
    }

    var report: String {
        var problems: [String] = []
        if self.expected != self.actual {
            problems.append("model:   \(self.expected)\nlibrary: \(self.actual)")
        }
        problems.append(contentsOf: self.leaks)
        return problems.joined(separator: "\n")
    }
}

/// Asserts that the library agrees with the model on `testCase` (events,
/// subscriptions after each step, nothing left after the final dispose).
func assertModelAgrees(_ testCase: ModelCase, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(ModelCheck.isValid(testCase), "not a valid case: \(testCase)", file: file, line: line)
    if let failure = ModelCheck.failure(testCase) {
        XCTFail("\(testCase)\n\(failure)", file: file, line: line)
    }
}

/// An environment variable as an unsigned integer (decimal or 0x hex).
func modelEnvironmentNumber(_ name: String) -> UInt64? {
    guard let raw = getenv(name) else {
        return nil
    }
    let text = String(cString: raw)
    if text.hasPrefix("0x") {
        return UInt64(text.dropFirst(2), radix: 16)
    }
    return UInt64(text)
}
