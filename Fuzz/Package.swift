// swift-tools-version:6.1
// Coverage-guided fuzz targets (libFuzzer) for every parser of Canvas and its shape
// recogniser, kept in their own package so that building and testing Canvas does not build
// them. Each target is an executable whose `main` hands its test function to libFuzzer's
// driver (FuzzDriver); `scripts/fuzz` builds them with `-sanitize=fuzzer,address` and runs
// them (docs/testing.md). `FuzzSeeds` writes the seed corpora from the library's own
// encoders and the repository's vectors.
import PackageDescription

/// Each fuzz target, and the Canvas modules it reads.
let fuzzTargets: [(name: String, modules: [String])] = [
    ("FuzzMessageDecoder", ["CanvasCore", "CanvasProtocol"]),
    ("FuzzPageRequest", ["CanvasCore", "CanvasProtocol", "CanvasWeb"]),
    ("FuzzDatagram", ["LANCluster"]),
    ("FuzzXMLStream", ["XMPP"]),
    ("FuzzSCRAM", ["XMPP"]),
    ("FuzzXMPPMachines", ["XMPP"]),
    ("FuzzStoreReaders", ["CanvasCore", "CanvasProtocol", "CanvasStore"]),
    ("FuzzRecognizer", ["CanvasCore", "CanvasGeometry"]),
    ("FuzzReplica", ["CanvasCore", "CanvasProtocol", "CanvasGeometry", "CanvasSVG"]),
    ("FuzzLocalActions", ["CanvasCore", "CanvasProtocol", "CanvasNode"]),
]

let package = Package(
    name: "CanvasFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Canvas", path: "..")],
    targets: fuzzTargets.map { target in
        .executableTarget(
            name: target.name, dependencies: ["FuzzDriver"] + target.modules.map { .product(name: $0, package: "Canvas") })
    } + [
        .target(name: "CFuzzer"),
        .target(name: "FuzzDriver", dependencies: ["CFuzzer"]),
        .executableTarget(
            name: "FuzzSeeds",
            dependencies: ["CanvasCore", "CanvasProtocol", "LANCluster", "CanvasStore"].map { .product(name: $0, package: "Canvas") })
    ],
    swiftLanguageModes: [.v6]
)
