import XCTest
import Foundation

/// Throw-away check for the model's redesign (removed once it is done): with
/// `SIGNALKIT_MODEL_DUMP=<directory>`, writes what the generator, the
/// shrinker, the model and the library give for fixed seeds, so that the
/// files written before and after a change can be compared with `diff`.
final class ModelDumpTests: XCTestCase {
    func testDump() throws {
        guard let directory = ProcessInfo.processInfo.environment["SIGNALKIT_MODEL_DUMP"] else {
            return
        }
        func write(_ name: String, _ lines: [String]) throws {
            let text = lines.joined(separator: "\n") + "\n"
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        // The cases of the random run (case k from seed + k).
        for seed: UInt64 in [1, 1_000_000, 7_000_000] {
            var lines: [String] = []
            for k: UInt64 in 0 ..< 20_000 {
                var generator = ModelGenerator(seed: seed &+ k)
                lines.append(generator.makeCase().description)
            }
            try write("cases-\(seed).txt", lines)
        }
        // One generator making many cases in a row.
        do {
            var generator = ModelGenerator(seed: 42)
            var lines: [String] = []
            for _ in 0 ..< 5_000 {
                lines.append(generator.makeCase().description)
            }
            try write("cases-sequential-42.txt", lines)
        }
        // The shrinker's candidates, in order, with their weights.
        do {
            var lines: [String] = []
            for k: UInt64 in 0 ..< 300 {
                var generator = ModelGenerator(seed: 1_000_000 &+ k)
                let testCase = generator.makeCase()
                lines.append("case \(k) weight \(ModelCheck.weight(testCase)) signal weight \(ModelCheck.weight(testCase.signal)) size \(testCase.signal.size): \(testCase)")
                for candidate in ModelCheck.simpler(testCase.signal) {
                    lines.append("  signal \(ModelCheck.weight(candidate)) \(candidate)")
                }
                for candidate in ModelCheck.simpler(testCase.script) {
                    lines.append("  script \(ModelCheck.weight(ModelCase(signal: testCase.signal, script: candidate))) \(candidate)")
                }
            }
            try write("shrink.txt", lines)
        }
        // The outcomes of the model and of the library.
        do {
            var lines: [String] = []
            for k: UInt64 in 0 ..< 5_000 {
                var generator = ModelGenerator(seed: 1_000_000 &+ k)
                let testCase = generator.makeCase()
                lines.append("case \(k): \(testCase) valid \(ModelCheck.isValid(testCase))")
                lines.append("  model \(ReferenceModel.run(testCase).map { $0.description } ?? "nil")")
                lines.append("  primed \(ReferenceModel.run(testCase, primed: true).map { $0.description } ?? "nil")")
                let result = LibraryRunner.run(testCase)
                lines.append("  library \(result.outcome) leaks \(result.leaks)")
            }
            try write("outcomes.txt", lines)
        }
    }
}
