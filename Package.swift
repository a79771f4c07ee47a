// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SwiftSignalKit",
    products: [
        // The Swift library: `import SwiftSignalKit`.
        .library(name: "SwiftSignalKit", targets: ["SwiftSignalKit"]),
        // The C library, libsignalkit.so (include/signalkit.h). `make` builds
        // the release form: Swift runtime linked in, soname, sk_* exports only.
        .library(name: "signalkit", type: .dynamic, targets: ["SignalKitCAPI"]),
        // Marble diagrams for a user's tests: `import SwiftSignalKitTesting`
        // in a test target (apart, as RxTest is from RxSwift).
        .library(name: "SwiftSignalKitTesting", targets: ["SwiftSignalKitTesting"]),
    ],
    targets: [
        .target(
            name: "_SwiftSignalKitShims",
            path: "Sources/_SwiftSignalKitShims"
        ),
        .target(
            name: "SwiftSignalKit",
            dependencies: ["_SwiftSignalKitShims"],
            path: "Sources/SwiftSignalKit",
            // Writes Operators/Signal_Combine+Arity.swift (run it by hand
            // after changing it; its output is committed).
            exclude: ["INTERNALS.md"]
        ),
        // include/signalkit.h as a Clang module, plus the C parts of the C layer.
        .target(
            name: "SignalKitHeader",
            path: "Sources/SignalKitHeader"
        ),
        // The C layer: @c exports checked against include/signalkit.h.
        .target(
            name: "SignalKitCAPI",
            // SwiftSignalKitTesting: the marble functions of signalkit_test.h.
            dependencies: ["SignalKitHeader", "SwiftSignalKit", "SwiftSignalKitTesting"],
            path: "Sources/SignalKitCAPI",
            exclude: ["signalkit.map"]
        ),
        // Marble diagrams: parse, print, show a mismatch. No XCTest: a user's
        // test target brings its own test framework.
        .target(
            name: "SwiftSignalKitTesting",
            dependencies: ["SwiftSignalKit"],
            path: "Sources/SwiftSignalKitTesting"
        ),
        // What the Swift tests share: recorders, hand-driven sources, threads,
        // waits with deadlines (imports XCTest). A target, not a product: only
        // the tests link it, and users never see it.
        .target(
            name: "SwiftSignalKitTestSupport",
            dependencies: ["SwiftSignalKit"],
            path: "Tests/SwiftSignalKitTestSupport"
        ),
        .testTarget(
            name: "SwiftSignalKitTests",
            // SignalKitCAPI, SignalKitHeader: the model tester's second runner
            // (Model/CLibraryRunner.swift) drives the C API.
            dependencies: ["SwiftSignalKit", "SwiftSignalKitTestSupport", "SignalKitCAPI", "SignalKitHeader"],
            path: "Tests/SwiftSignalKitTests"
        ),
        .testTarget(
            name: "SwiftSignalKitTestingTests",
            dependencies: ["SwiftSignalKitTesting", "SwiftSignalKitTestSupport"],
            path: "Tests/SwiftSignalKitTestingTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
