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
        .library(name: "CanvasGeometry", targets: ["CanvasGeometry"]),
        .library(name: "CanvasSVG", targets: ["CanvasSVG"]),
        .library(name: "CanvasStore", targets: ["CanvasStore"]),
        .library(name: "CanvasNode", targets: ["CanvasNode"]),
        .library(name: "XMPP", targets: ["XMPP"]),
        .library(name: "CanvasRuntime", targets: ["CanvasRuntime"]),
        .library(name: "LANCluster", targets: ["LANCluster"]),
        .library(name: "CanvasWeb", targets: ["CanvasWeb"]),
        .executable(name: "canvas", targets: ["canvas"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .target(name: "CanvasCore", swiftSettings: strict),
        .target(name: "CanvasProtocol", dependencies: ["CanvasCore"], swiftSettings: strict),
        .target(name: "CanvasGeometry", dependencies: ["CanvasCore"], swiftSettings: strict),
        .target(name: "CanvasSVG", dependencies: ["CanvasCore", "CanvasGeometry"], swiftSettings: strict),
        .systemLibrary(name: "CExpat", pkgConfig: "expat", providers: [.apt(["libexpat1-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CResolv"),
        .target(
            name: "XMPP",
            dependencies: [
                "CExpat", "COpenSSL", "CResolv", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .target(
            name: "LANCluster",
            dependencies: [
                "COpenSSL", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .target(name: "CanvasStore", dependencies: ["CanvasCore", "CanvasProtocol"], swiftSettings: strict),
        .target(
            name: "CanvasNode", dependencies: ["CanvasCore", "CanvasProtocol", "CanvasGeometry", "CanvasStore"],
            swiftSettings: strict),
        .target(
            name: "CanvasRuntime",
            dependencies: [
                "CanvasCore", "CanvasProtocol", "CanvasSVG", "CanvasStore", "CanvasNode", "XMPP", "LANCluster",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict),
        .target(
            name: "CanvasWeb",
            dependencies: [
                "CanvasCore", "CanvasProtocol", "CanvasGeometry", "CanvasSVG", "CanvasNode", "CanvasRuntime",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"), .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            exclude: ["Page"],
            swiftSettings: strict,
            plugins: ["EmbedPage"]),
        .executableTarget(name: "EmbedFiles"),
        .plugin(name: "EmbedPage", capability: .buildTool(), dependencies: ["EmbedFiles"]),
        .target(
            name: "CanvasBench",
            dependencies: ["CanvasCore", "CanvasGeometry", "CanvasProtocol", "CanvasNode", "CanvasStore", "LANCluster"],
            swiftSettings: strict),
        .executableTarget(
            name: "canvas",
            dependencies: [
                "CanvasCore", "CanvasProtocol", "CanvasGeometry", "CanvasSVG", "CanvasStore", "CanvasNode", "CanvasBench",
                "CanvasRuntime", "CanvasWeb", "LANCluster", "COpenSSL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "EmbeddedNode",
            dependencies: [
                "CanvasRuntime", "CanvasCore", "CanvasProtocol", .product(name: "Logging", package: "swift-log"),
            ],
            path: "examples/EmbeddedNode", swiftSettings: strict),
        .target(
            name: "CanvasTestSupport", dependencies: ["CanvasCore"], path: "Tests/CanvasTestSupport",
            swiftSettings: strict),
        .testTarget(name: "CanvasCoreTests", dependencies: ["CanvasCore", "CanvasTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "CanvasProtocolTests",
            dependencies: ["CanvasCore", "CanvasProtocol", "CanvasTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CanvasGeometryTests", dependencies: ["CanvasCore", "CanvasGeometry", "CanvasTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "CanvasSVGTests", dependencies: ["CanvasCore", "CanvasGeometry", "CanvasSVG"], swiftSettings: strict),
        .testTarget(
            name: "CanvasStoreTests", dependencies: ["CanvasCore", "CanvasProtocol", "CanvasStore", "CanvasTestSupport", "canvas"],
            swiftSettings: strict),
        .testTarget(
            name: "CanvasNodeTests",
            dependencies: ["CanvasCore", "CanvasProtocol", "CanvasStore", "CanvasNode", "CanvasTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "XMPPTests",
            dependencies: [
                "XMPP", "CanvasTestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CanvasWebTests", dependencies: ["CanvasWeb", "CanvasCore", "CanvasProtocol", "CanvasNode", "CanvasRuntime"],
            swiftSettings: strict),
        .testTarget(
            name: "CanvasCLITests", dependencies: ["canvas", "EmbeddedNode", "CanvasTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "CanvasBenchTests", dependencies: ["CanvasBench", "CanvasCore", "CanvasProtocol", "LANCluster"],
            swiftSettings: strict),
        .testTarget(
            name: "LANClusterTests",
            dependencies: [
                "LANCluster", "CanvasTestSupport", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CanvasRuntimeTests",
            dependencies: [
                "CanvasRuntime", "CanvasCore", "CanvasNode", "CanvasProtocol", "LANCluster", "XMPP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
