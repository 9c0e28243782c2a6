// swift-tools-version:6.1
// The package-benchmark suites, kept in their own package so that building and testing
// Canvas does not build the benchmark harness. The workloads they share with `canvas bench`
// are compiled in from Canvas's Sources/CanvasBench (the link CanvasBenchmarks/CanvasBench),
// which is no product of Canvas. Run from this folder:
//   swift package --disable-sandbox benchmark
//   swift package --disable-sandbox benchmark --format jsonSmallerIsBetter --path results
import PackageDescription

let package = Package(
    name: "CanvasBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Canvas", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "CanvasBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CanvasCore", package: "Canvas"),
                .product(name: "CanvasProtocol", package: "Canvas"),
                .product(name: "CanvasGeometry", package: "Canvas"),
                .product(name: "CanvasSVG", package: "Canvas"),
                .product(name: "CanvasStore", package: "Canvas"),
                .product(name: "CanvasNode", package: "Canvas"),
                .product(name: "LANCluster", package: "Canvas"),
            ],
            path: "Benchmarks/CanvasBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
