import XCTest
@testable import SignalKitModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The model tester's XCTest side: the assertion the regression cases use,
// and the random run's settings. The tester itself (cases, reference model,
// runners, generator, shrinker) is the SignalKitModel target
// (Tests/SignalKitModel), which the fuzzer shares.

/// Asserts that the library agrees with the model on `testCase` (events,
/// subscriptions after each step, nothing left after the final dispose):
/// the Swift library, and the C API when it can express the case.
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
