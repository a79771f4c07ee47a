import XCTest
import Dispatch
import SwiftSignalKitTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The model's threaded cases (ConcurrentCase.swift): random cases, each run
/// through the Swift API and through the C API, checked against what the
/// contract promises whatever the interleaving.
///
/// `SIGNALKIT_MODEL_THREADED_SEED` sets the first case's seed (case k uses
/// seed + k), `SIGNALKIT_MODEL_THREADED_CASES` the number of cases (a long
/// run: Tests/README.md), `SIGNALKIT_MODEL_THREADED_API=swift|c` runs one
/// runner only.
final class ModelConcurrencyTests: XCTestCase {
    static let defaultSeed: UInt64 = 0x7EAD_0001
    static let defaultCases: UInt64 = 600
    /// Under ThreadSanitizer (`make test-swift-tsan` sets `TSAN_OPTIONS`),
    /// several times slower: fewer cases, with fewer values each.
    static let defaultCasesUnderTSan: UInt64 = 40

    func testThreadedCasesKeepTheContractInBothAPIs() {
        let underTSan = getenv("TSAN_OPTIONS") != nil
        let seed = modelEnvironmentNumber("SIGNALKIT_MODEL_THREADED_SEED") ?? Self.defaultSeed
        let cases = modelEnvironmentNumber("SIGNALKIT_MODEL_THREADED_CASES") ?? (underTSan ? Self.defaultCasesUnderTSan : Self.defaultCases)
        let api = ProcessInfo.processInfo.environment["SIGNALKIT_MODEL_THREADED_API"]
        let started = DispatchTime.now()
        var failures = 0
        var values = 0
        var byShape: [String: Int] = [:]
        for k in 0 ..< cases {
            let caseSeed = seed &+ k
            let testCase = ConcurrentCase.make(seed: caseSeed, maxPuts: underTSan ? 60 : 300)
            values += testCase.puts.reduce(0) { $0 + $1.count }
            byShape["\(testCase.shape)".prefix { $0 != "(" }.description, default: 0] += 1
            var runs: [(String, () -> ConcurrentObservation)] = []
            if api != "c" {
                runs.append(("Swift API", { ConcurrentSwiftRunner.run(testCase) }))
            }
            if api != "swift" {
                runs.append(("C API", { ConcurrentCRunner.run(testCase) }))
            }
            for (name, run) in runs {
                let problems = testCase.check(run())
                if !problems.isEmpty {
                    failures += 1
                    XCTFail("""
                        Threaded case seed \(caseSeed) through the \(name) breaks the contract \
                        (replay: SIGNALKIT_MODEL_THREADED_SEED=\(caseSeed) SIGNALKIT_MODEL_THREADED_CASES=1).
                        Case: \(testCase)
                        \(problems.prefix(8).joined(separator: "\n"))
                        """)
                }
            }
            if failures >= 5 {
                break
            }
        }
        let shapes = byShape.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("model tester, threaded: \(cases) cases from seed \(seed) (\(shapes)), \(values) values put, through \(api ?? "both APIs"), \(String(format: "%.1f", seconds(from: started))) s")
    }

    /// The checker catches what it is there to catch: a lost value, a value
    /// out of its thread's order, a second terminal event.
    func testTheCheckerFindsABrokenPromise() {
        let testCase = ConcurrentCase(shape: .merge(pipes: 1), puts: [
            [.init(pipe: 0, value: ConcurrentValue.make(thread: 0, index: 0)), .init(pipe: 0, value: ConcurrentValue.make(thread: 0, index: 1))],
            [.init(pipe: 0, value: ConcurrentValue.make(thread: 1, index: 0))],
        ])
        func observation(_ values: [Int], completions: Int) -> ConcurrentObservation {
            let observed = ConcurrentObservation(subscribers: 1)
            for value in values {
                observed.logs[0].next(value)
            }
            for _ in 0 ..< completions {
                observed.logs[0].completed()
            }
            return observed
        }
        let a0 = ConcurrentValue.make(thread: 0, index: 0), a1 = ConcurrentValue.make(thread: 0, index: 1)
        let b0 = ConcurrentValue.make(thread: 1, index: 0)
        XCTAssertEqual(testCase.check(observation([a0, b0, a1], completions: 1)), [])
        XCTAssertEqual(testCase.check(observation([b0, a0, a1], completions: 1)), [])
        XCTAssertFalse(testCase.check(observation([a0, a1], completions: 1)).isEmpty, "a lost value")
        XCTAssertFalse(testCase.check(observation([a1, b0, a0], completions: 1)).isEmpty, "a thread's order")
        XCTAssertFalse(testCase.check(observation([a0, b0, a1], completions: 2)).isEmpty, "two completions")
        XCTAssertFalse(testCase.check(observation([a0, b0, a1], completions: 0)).isEmpty, "no completion")

        let scan = ConcurrentCase(shape: .scan, puts: testCase.puts)
        XCTAssertEqual(scan.check(observation([a0, a0 + b0, a0 + b0 + a1], completions: 1)), [])
        XCTAssertFalse(scan.check(observation([a0, b0, a0 + b0 + a1], completions: 1)).isEmpty, "a lost fold")
    }
}
