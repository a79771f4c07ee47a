// swift-tools-version:6.1
// The timed benchmark suite (`make bench`): the workloads of the package
// above (Benchmarks/, which the allocation check builds alone) on
// SwiftSignalKit, the same workloads on OpenCombine, and both under ordo-one's
// package-benchmark harness. A package of its own so that neither the main
// package nor the allocation check gains a dependency. See ../README.md.
import PackageDescription

let package = Package(
    name: "SignalKitBenchmarkSuite",
    dependencies: [
        .package(name: "SignalKitWorkloads", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        .target(name: "OCWorkloads", dependencies: [
            .product(name: "BenchKit", package: "SignalKitWorkloads"),
            .product(name: "OpenCombine", package: "OpenCombine"),
            .product(name: "OpenCombineDispatch", package: "OpenCombine"),
        ]),
        // `make bench`: every workload, medians, allocation counts, JSON lines.
        .executableTarget(name: "SwiftBench", dependencies: [
            "OCWorkloads",
            .product(name: "SKWorkloads", package: "SignalKitWorkloads"),
            .product(name: "MallocCounter", package: "SignalKitWorkloads"),
            .product(name: "BenchKit", package: "SignalKitWorkloads"),
        ]),
        // The same workloads under ordo-one's harness:
        // `swift package --allow-writing-to-package-directory benchmark`.
        .executableTarget(
            name: "SignalKitBenchmarks",
            dependencies: [
                .product(name: "SKWorkloads", package: "SignalKitWorkloads"),
                .product(name: "BenchKit", package: "SignalKitWorkloads"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/SignalKitBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "OpenCombineBenchmarks",
            dependencies: [
                "OCWorkloads",
                .product(name: "BenchKit", package: "SignalKitWorkloads"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/OpenCombineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
