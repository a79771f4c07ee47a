// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SwiftSignalKit",
    products: [
        .library(name: "SwiftSignalKit", targets: ["SwiftSignalKit"]),
    ],
    targets: [
        .target(
            name: "_SwiftSignalKitShims",
            path: "Sources/_SwiftSignalKitShims"
        ),
        .target(
            name: "SwiftSignalKit",
            dependencies: ["_SwiftSignalKitShims"],
            path: "Sources/SwiftSignalKit"
        ),
        .testTarget(
            name: "SwiftSignalKitTests",
            dependencies: ["SwiftSignalKit"],
            path: "Tests/SwiftSignalKitTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
