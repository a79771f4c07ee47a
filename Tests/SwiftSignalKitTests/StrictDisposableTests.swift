import XCTest
import Dispatch
@testable import SwiftSignalKit
import SwiftSignalKitTestSupport

final class StrictDisposableTests: XCTestCase {
    private let reports = Atomic<[String]>(value: [])
    private var previousHandler: ((String, Int) -> Void)?

    override func setUp() {
        super.setUp()
        self.previousHandler = StrictDisposable.leakHandler
        let reports = self.reports
        StrictDisposable.leakHandler = { file, line in
            reports.modify { $0 + ["\(file):\(line)"] }
        }
    }

    override func tearDown() {
        StrictDisposable.leakHandler = self.previousHandler
        self.previousHandler = nil
        super.tearDown()
    }

    private var recordedReports: [String] {
        return self.reports.with { $0 }
    }

    func testDisposeIsForwarded() {
        let inner = CountingDisposable()
        let strict = StrictDisposable(inner, file: "File.swift", line: 1)
        XCTAssertEqual(inner.count, 0)
        strict.dispose()
        XCTAssertEqual(inner.count, 1)
    }

    func testDisposedStrictDisposableReportsNothing() {
        let inner = CountingDisposable()
        do {
            let strict = StrictDisposable(inner, file: "File.swift", line: 1)
            strict.dispose()
        }
        XCTAssertEqual(self.recordedReports, [])
        XCTAssertEqual(inner.count, 1)
    }

    func testLeakedStrictDisposableReportsItsLocationInDebugBuilds() {
        let inner = CountingDisposable()
        do {
            let strict = StrictDisposable(inner, file: "Leaky.swift", line: 42)
            withExtendedLifetime(strict) {}
        }
        #if DEBUG
        XCTAssertEqual(self.recordedReports, ["Leaky.swift:42"])
        #else
        XCTAssertEqual(self.recordedReports, [])
        #endif
        // A leak is reported, never disposed behind the owner's back.
        XCTAssertEqual(inner.count, 0)
    }

    func testStrictExtensionCapturesTheCallersLocation() {
        let inner = CountingDisposable()
        var line = 0
        do {
            line = #line + 1
            let strict = inner.strict()
            XCTAssertTrue(strict is StrictDisposable)
        }
        #if DEBUG
        XCTAssertEqual(self.recordedReports, ["\(#file):\(line)"])
        #endif
        do {
            let strict = inner.strict(file: "Explicit.swift", line: 7)
            strict.dispose()
        }
        XCTAssertEqual(inner.count, 1)
        #if DEBUG
        XCTAssertEqual(self.recordedReports.count, 1)
        #endif
    }

    func testEachLeakIsReportedOnce() {
        do {
            let first = StrictDisposable(EmptyDisposable, file: "A.swift", line: 1)
            let second = StrictDisposable(EmptyDisposable, file: "B.swift", line: 2)
            withExtendedLifetime((first, second)) {}
        }
        #if DEBUG
        XCTAssertEqual(self.recordedReports.sorted(), ["A.swift:1", "B.swift:2"])
        #endif
    }

    func testConcurrentDisposeThenReleaseReportsNothing() {
        let inner = CountingDisposable()
        do {
            let strict = StrictDisposable(inner, file: "File.swift", line: 1)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                strict.dispose()
            }
        }
        XCTAssertEqual(self.recordedReports, [])
        // Every call is forwarded; the wrapped disposable's own idempotence decides.
        XCTAssertEqual(inner.count, 8)
    }
}
