// swift-tools-version:6.0
import PackageDescription

// A separate package that depends on SignalKit exactly as any other package
// would: `import SwiftSignalKit`, nothing else.
let package = Package(
    name: "SwiftSignalKitExamples",
    dependencies: [
        .package(name: "SwiftSignalKit", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "SearchDemo",
            dependencies: [.product(name: "SwiftSignalKit", package: "SwiftSignalKit")],
            path: "Sources/SearchDemo"
        ),
        .executableTarget(
            name: "ReadmeExample",
            dependencies: [.product(name: "SwiftSignalKit", package: "SwiftSignalKit")],
            path: "Sources/ReadmeExample"
        ),
    ],
    swiftLanguageModes: [.v6]
)
