// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Canvas",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CanvasCore", targets: ["CanvasCore"]),
        .library(name: "CanvasProtocol", targets: ["CanvasProtocol"]),
        .library(name: "CanvasBench", targets: ["CanvasBench"]),
        .executable(name: "canvas", targets: ["canvas"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "CanvasCore", swiftSettings: strict),
        .target(name: "CanvasProtocol", dependencies: ["CanvasCore"], swiftSettings: strict),
        .target(name: "CanvasBench", dependencies: ["CanvasCore", "CanvasProtocol"], swiftSettings: strict),
        .executableTarget(
            name: "canvas",
            dependencies: [
                "CanvasCore", "CanvasProtocol", "CanvasBench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .target(name: "CanvasTestSupport", path: "Tests/CanvasTestSupport", swiftSettings: strict),
        .testTarget(name: "CanvasCoreTests", dependencies: ["CanvasCore", "CanvasTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "CanvasProtocolTests",
            dependencies: ["CanvasCore", "CanvasProtocol", "CanvasTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(name: "CanvasCLITests", dependencies: ["canvas"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
