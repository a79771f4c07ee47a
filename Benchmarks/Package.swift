// swift-tools-version:6.1
// The allocation check (`make bench-check`, part of `make test`) and the
// workloads W1-W9 (README.md here defines them) on SwiftSignalKit, which the
// timed suite in Suite/ (`make bench`) shares. It depends on the main package
// only, so that the check resolves and builds nothing else; OpenCombine and
// package-benchmark are Suite/'s. See README.md.
import PackageDescription

let package = Package(
    name: "SignalKitWorkloads",
    products: [
        .library(name: "MallocCounter", targets: ["MallocCounter"]),
        .library(name: "BenchKit", targets: ["BenchKit"]),
        .library(name: "SKWorkloads", targets: ["SKWorkloads"]),
    ],
    dependencies: [
        .package(name: "SwiftSignalKit", path: ".."),
    ],
    targets: [
        // Counts malloc/free by defining them in the executable (no LD_PRELOAD).
        .target(name: "MallocCounter"),
        // What every workload reports to: a probe around the timed section.
        .target(name: "BenchKit"),
        .target(name: "SKWorkloads", dependencies: [
            "BenchKit",
            .product(name: "SwiftSignalKit", package: "SwiftSignalKit"),
        ]),
        // The cost table's rows: what each operator is given (shared with the
        // C programs), and callgrind's requests for Swift.
        .target(name: "CostRows"),
        // `make bench-check`: the cost table's Swift rows, under callgrind.
        .executableTarget(name: "OperatorCost", dependencies: [
            "CostRows", "MallocCounter", "SKWorkloads", "BenchKit",
            .product(name: "SwiftSignalKit", package: "SwiftSignalKit"),
        ]),
        // `make bench-check`: allocation counts only, quick to build.
        .executableTarget(name: "AllocCheck", dependencies: [
            "SKWorkloads", "MallocCounter", "BenchKit",
            .product(name: "SwiftSignalKit", package: "SwiftSignalKit"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
