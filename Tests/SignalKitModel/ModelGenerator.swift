#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
import SwiftSignalKitTestSupport

// Cases (pipelines and scripts) made from a seed or from a fuzzer's bytes,
// the check of one case (model against library), and the shrinker that
// reduces a failing case.

/// Where the generator's choices come from: every choice it makes is a
/// number below a bound. `ModelSeededChooser` draws them from a seed (the
/// random tests), `ModelByteChooser` reads them from bytes (the fuzzer,
/// Tests/fuzz/SignalKitModelFuzz).
protocol ModelChooser {
    /// A number in 0 ..< n (n > 0).
    mutating func below(_ n: Int) -> Int
}

/// Choices from a seed, over the support target's SplitMix64 (written out,
/// not the standard library's `random(in:using:)`, whose algorithm may
/// change between toolchains, so that a seed replays the same case
/// everywhere).
struct ModelSeededChooser: ModelChooser {
    var generator: SplitMix64

    mutating func below(_ n: Int) -> Int {
        return self.generator.below(n)
    }
}

/// Choices read from bytes, for libFuzzer (whose mutations of the bytes
/// then change the case a little: a byte is a choice). A choice below n
/// takes as few bytes as hold n numbers (one for n up to 256), big-endian,
/// modulo n; a choice below 1 takes none. Once the bytes are used up every
/// choice is 0, the first: no more operators, the smallest lists, so a
/// short input still makes a (small) case.
struct ModelByteChooser: ModelChooser {
    let bytes: [UInt8]
    private var offset = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func below(_ n: Int) -> Int {
        var value = 0
        var span = 1
        while span < n && span <= Int.max >> 8 && self.offset < self.bytes.count {
            value = value << 8 | Int(self.bytes[self.offset])
            self.offset += 1
            span <<= 8
        }
        return value % n
    }
}

/// The few draws the generator needs, over a chooser.
struct ModelRandom {
    var chooser: any ModelChooser

    init(seed: UInt64) {
        self.chooser = ModelSeededChooser(generator: SplitMix64(state: seed))
    }

    init(chooser: any ModelChooser) {
        self.chooser = chooser
    }

    /// 0 ..< n.
    mutating func below(_ n: Int) -> Int {
        return self.chooser.below(n)
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

    init(chooser: any ModelChooser) {
        self.random = ModelRandom(chooser: chooser)
    }

    /// A valid case (see `ModelCheck.isValid`): the first candidate that is.
    mutating func makeCase() -> ModelCase {
        while true {
            let testCase = self.makeCandidate()
            if ModelCheck.isValid(testCase) {
                return testCase
            }
        }
    }

    /// A case, valid or not (the fuzzer takes one per input: choices from
    /// bytes that ran out would make the same invalid case forever).
    mutating func makeCandidate() -> ModelCase {
        let signal = self.signal(depth: 2 + self.random.below(4))
        return ModelCase(signal: signal, script: self.script(for: signal))
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

    /// The entries of every operator (`ModelOperator.generation`), in
    /// their order, and the sum of their weights.
    static let table: (entries: [ModelGeneration], draws: Int) = {
        var entries: [ModelGeneration] = []
        for family in modelOperatorFamilies {
            for operation in family.operators {
                entries.append(contentsOf: operation.generation)
            }
        }
        entries.sort { $0.order < $1.order }
        for (previous, entry) in zip(entries, entries.dropFirst()) {
            precondition(previous.order != entry.order, "two generation entries have the order \(entry.order)")
        }
        return (entries, entries.reduce(0) { $0 + $1.weight })
    }()

    /// A pipeline at most `depth` operators deep: a source, or an operator
    /// drawn from the table over pipelines at most `depth - 1` deep.
    mutating func signal(depth: Int) -> ModelSignal {
        if depth <= 0 || self.random.chance(15) {
            return self.source()
        }
        var draw = self.random.below(Self.table.draws)
        for entry in Self.table.entries {
            if draw < entry.weight {
                return entry.make(&self, depth - 1)
            }
            draw -= entry.weight
        }
        preconditionFailure("a draw beyond the table")
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

    /// Whether every synchronous loop in `signal` stops (its operator's
    /// `loopsAreStopped`); `underTake`: it is right under a `take(n)`, n > 0.
    static func loopsAreStopped(_ signal: ModelSignal, underTake: Bool) -> Bool {
        return signal.modelOperator?.loopsAreStopped(underTake: underTake) ?? true
    }

    /// The model's outcome and `library`'s for a case; nil if the case is
    /// not valid for the model (its budget ran out), or if `library` cannot
    /// run it (the C API, `CLibraryRunner.gap(in:)`).
    static func compare(_ testCase: ModelCase, through library: ModelLibrary = .swift) -> ModelComparison? {
        guard let expected = ReferenceModel.run(testCase) else {
            return nil
        }
        return self.compare(testCase, expected: expected, through: library)
    }

    /// The same, the model's outcome given.
    static func compare(_ testCase: ModelCase, expected: ModelOutcome, through library: ModelLibrary) -> ModelComparison? {
        let result: LibraryResult?
        switch library {
        case .swift:
            result = LibraryRunner.run(testCase)
        case .c:
            result = CLibraryRunner.run(testCase)
        }
        guard let result else {
            return nil
        }
        return ModelComparison(library: library, expected: expected, actual: result.outcome, leaks: result.leaks)
    }

    /// Why `library` disagrees with the model on a valid case, or nil.
    static func failure(_ testCase: ModelCase, through library: ModelLibrary) -> String? {
        guard let comparison = self.compare(testCase, through: library), !comparison.agrees else {
            return nil
        }
        return comparison.report
    }

    /// Why either library (the Swift one, and the C API when it can run the
    /// case) disagrees with the model on a valid case, or nil.
    static func failure(_ testCase: ModelCase) -> String? {
        let failures = ModelLibrary.allCases.compactMap { self.failure(testCase, through: $0) }
        return failures.isEmpty ? nil : failures.joined(separator: "\n")
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
        case let .operation(operation):
            own = operation.base.weight
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
        case .never:
            break
        case let .operation(operation):
            result.append(contentsOf: operation.base.simplerForms)
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

/// The runners of a case: the Swift library, and the C API over it.
enum ModelLibrary: CaseIterable, CustomStringConvertible {
    /// LibraryRunner.swift.
    case swift
    /// CLibraryRunner.swift.
    case c

    var description: String {
        switch self {
        case .swift:
            return "the Swift library (LibraryRunner)"
        case .c:
            return "the C API (CLibraryRunner)"
        }
    }
}

/// The two outcomes of a case: the model's, and one runner's.
struct ModelComparison {
    var library: ModelLibrary
    var expected: ModelOutcome
    var actual: ModelOutcome
    /// What the library left after the final dispose.
    var leaks: [String]

    var agrees: Bool {
        return self.expected == self.actual && self.leaks.isEmpty
    }

    var report: String {
        var problems: [String] = ["Through \(self.library):"]
        if self.expected != self.actual {
            problems.append("model:   \(self.expected)\nlibrary: \(self.actual)")
        }
        problems.append(contentsOf: self.leaks)
        return problems.joined(separator: "\n")
    }
}
#endif
