// swift-tools-version:6.1
// The benchmark suite (tracker issue 5): workloads W1-W7 of
// /work/shared/BENCHMARKS.md on SwiftSignalKit and on OpenCombine. A package
// of its own so that the main package gains no dependency. See README.md.
import PackageDescription

let package = Package(
    name: "SignalKitBenchmarks",
    dependencies: [
        .package(name: "SwiftSignalKit", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
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
        .target(name: "OCWorkloads", dependencies: [
            "BenchKit",
            .product(name: "OpenCombine", package: "OpenCombine"),
            .product(name: "OpenCombineDispatch", package: "OpenCombine"),
        ]),
        // `make bench`: every workload, medians, allocation counts, JSON lines.
        .executableTarget(name: "SwiftBench", dependencies: ["SKWorkloads", "OCWorkloads", "MallocCounter", "BenchKit"]),
        // `make bench-check`: allocation counts only, no OpenCombine, quick to build.
        .executableTarget(name: "AllocCheck", dependencies: ["SKWorkloads", "MallocCounter", "BenchKit"]),
        // The same workloads under ordo-one's harness:
        // `swift package --allow-writing-to-package-directory benchmark`.
        .executableTarget(
            name: "SignalKitBenchmarks",
            dependencies: ["SKWorkloads", "BenchKit", .product(name: "Benchmark", package: "package-benchmark")],
            path: "Benchmarks/SignalKitBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "OpenCombineBenchmarks",
            dependencies: ["OCWorkloads", "BenchKit", .product(name: "Benchmark", package: "package-benchmark")],
            path: "Benchmarks/OpenCombineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
