import XCTest
@testable import SignalKitModel
import Dispatch
import SwiftSignalKitTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The model-based differential tester (Tests/README.md): random pipelines
/// and scripts, run through the library and through the reference model; the
/// events, the subscriptions after each step and what is left after the final
/// dispose must agree. A failing case is shrunk and printed as a regression
/// test for ModelRegressionTests.swift.
///
/// `SIGNALKIT_MODEL_SEED` sets the first case's seed (case k uses seed + k),
/// `SIGNALKIT_MODEL_CASES` the number of cases; `SIGNALKIT_MODEL_VERBOSE=1`
/// prints each case (to stderr) before running it.
final class ModelDifferentialTests: XCTestCase {
    static let defaultSeed: UInt64 = 0x5EED_0001
    static let defaultCases: UInt64 = 5000
    /// Under ThreadSanitizer (`make test-swift-tsan` sets `TSAN_OPTIONS`),
    /// several times slower, and single-threaded here: fewer cases.
    static let defaultCasesUnderTSan: UInt64 = 500
    /// Every how many cases one also runs through the C API
    /// (`CLibraryRunner`), when it can express it.
    static let cStride: UInt64 = 1

    func testLibraryAgreesWithModelOnRandomCases() {
        let seed = modelEnvironmentNumber("SIGNALKIT_MODEL_SEED") ?? Self.defaultSeed
        let cases = modelEnvironmentNumber("SIGNALKIT_MODEL_CASES") ?? (getenv("TSAN_OPTIONS") != nil ? Self.defaultCasesUnderTSan : Self.defaultCases)
        let verbose = modelEnvironmentNumber("SIGNALKIT_MODEL_VERBOSE") ?? 0 != 0
        let started = DispatchTime.now()
        var failures = 0
        var events = 0
        var nodes = 0
        var skipped: [String: Int] = [:]
        var eventsInSteps = 0
        var errors = 0
        var completions = 0
        var cCases = 0
        var cSeconds = 0.0
        var cGaps: [String: Int] = [:]
        for k in 0 ..< cases {
            let caseSeed = seed &+ k
            var generator = ModelGenerator(seed: caseSeed)
            let testCase = generator.makeCase()
            if verbose {
                // Before running it: the last one printed is the one that hangs or crashes.
                var line = "case seed \(caseSeed): \(testCase)\n"
                line.withUTF8 { bytes in
                    _ = write(2, bytes.baseAddress, bytes.count)
                }
            }
            if let bug = ModelKnownBugs.match(testCase) {
                skipped[bug, default: 0] += 1
                continue
            }
            guard let comparison = ModelCheck.compare(testCase) else {
                XCTFail("the generator made an invalid case: \(testCase)")
                continue
            }
            nodes += testCase.signal.size
            let expected = comparison.expected.events
            events += expected.count
            if expected.contains(where: { $0.step >= 0 }) {
                eventsInSteps += 1
            }
            switch expected.last?.event {
            case .error?:
                errors += 1
            case .completed?:
                completions += 1
            default:
                break
            }
            var comparisons = [comparison]
            if k % Self.cStride == 0 {
                if let gap = CLibraryRunner.gap(in: testCase.signal) {
                    cGaps[gap, default: 0] += 1
                } else {
                    let cStarted = DispatchTime.now()
                    if let cComparison = ModelCheck.compare(testCase, expected: comparison.expected, through: .c) {
                        comparisons.append(cComparison)
                        cCases += 1
                    }
                    cSeconds += seconds(from: cStarted)
                }
            }
            for comparison in comparisons where !comparison.agrees {
                if let bug = ModelKnownBugs.match(comparison) {
                    skipped[bug, default: 0] += 1
                    continue
                }
                failures += 1
                let library = comparison.library
                let shrunk = ModelCheck.shrink(testCase) { candidate in
                    // Another failure of the same case through the same
                    // runner, not one of a known bug.
                    guard let comparison = ModelCheck.compare(candidate, through: library), !comparison.agrees else {
                        return false
                    }
                    return ModelKnownBugs.match(candidate) == nil && ModelKnownBugs.match(comparison) == nil
                }
                XCTFail("""
                    The library disagrees with the model, through \(library). Case seed \(caseSeed) \
                    (replay: SIGNALKIT_MODEL_SEED=\(caseSeed) SIGNALKIT_MODEL_CASES=1).
                    Case: \(testCase)
                    \(comparison.report)
                    Shrunk: \(shrunk)
                    \(ModelCheck.failure(shrunk, through: library) ?? "(the shrunk case passes: flaky?)")
                    Regression test for ModelRegressionTests.swift:
                    \(ModelCheck.regressionTest(shrunk, seed: caseSeed))
                    """)
            }
            if failures >= 5 {
                break
            }
        }
        print("model tester: \(cases) cases from seed \(seed), \(nodes) pipeline nodes, \(events) events (\(eventsInSteps) cases with events during the script, \(completions) ending in completion, \(errors) in error), \(String(format: "%.1f", seconds(from: started))) s")
        print("model tester: \(cCases) of them also through the C API (every \(Self.cStride == 1 ? "case" : "\(Self.cStride)th case") the C API can express), \(String(format: "%.1f", cSeconds)) s")
        for (gap, count) in cGaps.sorted(by: { $0.key < $1.key }) {
            print("model tester: \(count) cases not run through the C API, which cannot express \(gap)")
        }
        for (bug, count) in skipped.sorted(by: { $0.key < $1.key }) {
            print("model tester: \(count) cases not checked or failing for a known library bug: \(bug)")
        }
    }

    /// The shrinker reduces a case to a minimal one with the same failure
    /// (here a stand-in failure: "completes during a step").
    func testShrinkerReducesAFailingCase() {
        let testCase = ModelCase(signal: .then(.take(2, .filter(.even, .subject(1))), .merge([.just([3, 4]), .take(1, .pipe(1))])),
                                 script: [.put(1, 5), .send(1, 2), .send(1, 1), .put(0, 3), .send(1, 4), .put(1, 6)])
        func completesDuringAStep(_ candidate: ModelCase) -> Bool {
            guard let outcome = ReferenceModel.run(candidate) else {
                return false
            }
            return outcome.events.contains { $0.step >= 0 && $0.event == .completed }
        }
        XCTAssertFalse(completesDuringAStep(ModelCase(signal: testCase.signal, script: [])))
        XCTAssertTrue(completesDuringAStep(testCase))
        let shrunk = ModelCheck.shrink(testCase, fails: completesDuringAStep)
        // .take(1, .pipe(0)) with [.put(0, 0)], or the same with a subject.
        XCTAssertEqual(shrunk.signal.size, 2, "\(shrunk)")
        XCTAssertEqual(shrunk.script.count, 1, "\(shrunk)")
        XCTAssertTrue(completesDuringAStep(shrunk))
    }
}
