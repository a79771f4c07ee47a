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
        // Not for users: the model-based tester as libFuzzer's oracle,
        // libsignalkit-model-fuzz.so, which Tests/fuzz/fuzz_model.c links
        // (make fuzz-build builds it in the ASan build, debug only).
        .library(name: "signalkit-model-fuzz", type: .dynamic, targets: ["SignalKitModelFuzz"]),
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
        // The model-based tester (Tests/README.md): cases, the reference
        // model, the runners over the Swift library and over the C API
        // (CLibraryRunner.swift), the generator and the shrinker. A target
        // and not test code so that the fuzzer runs the same model; its
        // XCTest assertions are in the test target. It reaches the library's
        // internals, and its users its own, through `@testable import`,
        // which debug builds allow: its files are inside `#if DEBUG`, so
        // that a release build of every target (`swift build -c release`)
        // builds it empty (the Makefile's release builds name their
        // product and never build it). Of the support
        // target it uses SplitMix64 and TestPipe, which import no XCTest;
        // the support target's other files do, so the fuzz library links
        // libXCTest, unused.
        .target(
            name: "SignalKitModel",
            dependencies: ["SwiftSignalKit", "SwiftSignalKitTestSupport", "SignalKitCAPI", "SignalKitHeader"],
            path: "Tests/SignalKitModel"
        ),
        // fuzz_model's oracle: one libFuzzer input, decoded as a case and
        // checked through the C API against the model (mk/fuzz.mk).
        .target(
            name: "SignalKitModelFuzz",
            dependencies: ["SignalKitModel"],
            path: "Tests/fuzz/SignalKitModelFuzz"
        ),
        .testTarget(
            name: "SwiftSignalKitTests",
            // SignalKitModel: the model tester, whose tests are in Model/;
            // SignalKitCAPI, SignalKitHeader: the concurrent model tester's C
            // runner (Model/Concurrent/ConcurrentCRunner.swift) drives the C API.
            dependencies: ["SwiftSignalKit", "SwiftSignalKitTestSupport", "SignalKitModel", "SignalKitCAPI", "SignalKitHeader"],
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
