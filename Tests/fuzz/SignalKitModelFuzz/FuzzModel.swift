#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
@testable import SignalKitModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The model-based tester (Tests/SignalKitModel, Tests/README.md) with
// libFuzzer choosing the cases: Tests/fuzz/fuzz_model.c hands each input
// here. The input's bytes are the generator's choices (`ModelByteChooser`);
// the case runs through the C API (`CLibraryRunner`) and through the
// reference model, whose outcome is the oracle: the same events at the same
// steps, the same subscriptions per pipe and subject after each step, and
// after the final dispose every callback context and the observer released
// exactly once and no library object left. A case the C API cannot express
// (`CLibraryRunner.gap`) runs through the Swift library instead.
//
// A disagreement is shrunk and printed, the case in the model's text (Swift
// that rebuilds it) with both outcomes, as a regression test to paste into
// Tests/SwiftSignalKitTests/Model/ModelRegressionTests.swift; then the
// process aborts, and libFuzzer keeps the input. Cases that hit an open
// library bug (`ModelKnownBugs`) are not failures.
//
// With SIGNALKIT_MODEL_VERBOSE=1, each input's case is printed (to stderr)
// before it runs, or "no valid case": what a corpus file or a crash input
// decodes to (`.build-c/fuzz/fuzz_model -runs=0 FILE...`).

/// SIGNALKIT_MODEL_VERBOSE is set to something other than 0.
let modelFuzzVerbose: Bool = {
    guard let raw = getenv("SIGNALKIT_MODEL_VERBOSE") else {
        return false
    }
    return String(cString: raw) != "0"
}()

/// Checks the case that `size` bytes at `data` make: 0 when the library
/// agrees with the model, -1 (libFuzzer keeps the input out of its corpus)
/// when the bytes make no valid case; aborts on a disagreement.
@_cdecl("sk__model_fuzz_one")
public func modelFuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    var generator = ModelGenerator(chooser: ModelByteChooser(bytes: bytes))
    let testCase = generator.makeCandidate()
    guard ModelCheck.isValid(testCase) else {
        if modelFuzzVerbose {
            modelFuzzPrint("fuzz_model: no valid case: \(testCase)\n")
        }
        return -1
    }
    if modelFuzzVerbose {
        modelFuzzPrint("fuzz_model: \(testCase)\n")
    }
    if ModelKnownBugs.match(testCase) != nil {
        return 0
    }
    let library: ModelLibrary = CLibraryRunner.gap(in: testCase.signal) == nil ? .c : .swift
    guard let comparison = ModelCheck.compare(testCase, through: library), !comparison.agrees,
          ModelKnownBugs.match(comparison) == nil else {
        return 0
    }
    let shrunk = ModelCheck.shrink(testCase) { candidate in
        // Another failure through the same runner, not one of a known bug.
        guard let comparison = ModelCheck.compare(candidate, through: library), !comparison.agrees else {
            return false
        }
        return ModelKnownBugs.match(candidate) == nil && ModelKnownBugs.match(comparison) == nil
    }
    modelFuzzPrint("""
        fuzz_model: the library disagrees with the model.
        Case: \(testCase)
        \(comparison.report)
        Shrunk: \(shrunk)
        \(ModelCheck.failure(shrunk, through: library) ?? "(the shrunk case passes: flaky?)")
        Regression test for Tests/SwiftSignalKitTests/Model/ModelRegressionTests.swift:
            func testShrunkFromFuzzing() {
                assertModelAgrees(\(shrunk))
            }

        """)
    abort()
}

/// Writes `text` to stderr at once.
func modelFuzzPrint(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        _ = write(2, bytes.baseAddress, bytes.count)
    }
}
#endif
