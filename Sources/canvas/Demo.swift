import ArgumentParser
import CanvasCore
import CanvasSVG
import CanvasStore
import Foundation
import Synchronization

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Three LAN nodes on this machine draw, erase and recognise a shape together, then converge.",
        discussion: """
            Starts three LAN-only nodes (canvas join) in a fresh room, has them draw at the same \
            time (strokes made up on the spot to look hand-drawn), erase across each other's \
            strokes and recognise a rectangle and a box drawn as two L's, \
            checks that all three replicas end equal (same \
            digest), and writes the room as an SVG. The first node serves the room's page: open \
            the URL it prints to watch the room and draw in it (with --keep the nodes keep \
            running until Ctrl-C). Needs no server and no network beyond this machine's \
            multicast (or broadcast).
            """
    )

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the SVG.", valueName: "FILE.svg"))
    var output = "canvas-demo.svg"

    @Option(help: ArgumentHelp("The LAN interface for the nodes (default: the first with multicast).", valueName: "IF"))
    var lanInterface: String?

    @Option(help: ArgumentHelp("Where the first node serves the room's page (port 0: any free port).", valueName: "ADDRESS:PORT"))
    var http = "127.0.0.1:0"

    @Flag(help: "Keep the nodes running after the demo, so that you can draw with them in the page (Ctrl-C stops them).")
    var keep = false

    @Option(help: .private)  // The seed of the drawing (random by default).
    var seed: UInt64?

    func run() throws {
        var generator = DemoRandom(seed: seed ?? UInt64.random(in: 0...UInt64.max))
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-demo-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let room = "demo-\(String(generator.next() & 0xFFFFFF, radix: 16))"
        let port = 40000 + Int(generator.next() % 20000)
        print("canvas demo: room \(room), three nodes clustering over UDP port \(port)")
        var extra = ["--lan-port", "\(port)", "--lan-beacon-interval", "0.25"]
        if let lanInterface { extra += ["--lan-interface", lanInterface] }
        let names = ["ada", "ben", "cy"]
        let nodes = try names.map { name in
            try DemoNode(
                name: name, room: room, store: work.appendingPathComponent(name),
                extra: extra + (name == names[0] ? ["--http", http] : []))
        }
        defer { for node in nodes { node.terminate() } }

        try waitFor("the nodes to find each other", seconds: 15, nodes) { nodes.allSatisfy { $0.members >= 2 } }
        print("  ✓ the three nodes found each other on the LAN")
        let page = try nodes[0].pageURL(seconds: 10)
        print("  ✓ the room's page, live: \(page)")

        // Everyone draws at once, a stroke at a time, so that the strokes interleave.
        let plans = names.indices.map { DemoDrawing.strokes(for: $0, using: &generator) }
        for round in 0..<plans.map(\.count).max()! {
            for (index, node) in nodes.enumerated() where round < plans[index].count {
                try node.send(plans[index][round])
            }
            usleep(60_000)
        }
        print(
            "  ✓ drew \(plans.map(\.count).reduce(0, +)) strokes at the same time (a rough rectangle among them, "
                + "and a box as two L's)")
        // Each node erases a band across the whole board: everybody's strokes.
        for (index, node) in nodes.enumerated() {
            try node.send(DemoDrawing.eraser(index))
        }
        print("  ✓ erased across each other's strokes")

        // Converged: the three digests are equal and have not moved for a second.
        var agreed: (digest: String, since: Date)?
        try waitFor("the replicas to converge", seconds: 30, nodes) {
            let digests = Set(nodes.map(\.digest))
            guard digests.count == 1, let digest = digests.first!, nodes.allSatisfy({ $0.strokes > 0 }) else {
                agreed = nil
                return false
            }
            if agreed?.digest != digest { agreed = (digest, Date()) }
            return Date().timeIntervalSince(agreed!.since) >= 1
        }
        let digest = agreed!.digest
        print("  ✓ all three replicas are equal: digest \(digest), \(nodes[0].strokes) strokes, \(nodes[0].points) points")

        if keep {
            print("The nodes keep running: open \(page) to watch and draw (Ctrl-C stops them).")
            waitForInterrupt()
            print("\nstopping the nodes")
        }
        for node in nodes { node.terminate() }
        for node in nodes {
            guard node.waitForExit() == 0 else {
                throw DemoFailure("node \(node.name) did not stop cleanly; its log: \(node.logPath)")
            }
        }
        let document = try loadStoredDocument(directory: work.appendingPathComponent("ada"), room: room)
        // With --keep, people may have drawn since: the store holds more than the digest said.
        guard keep || document.digest.rootHex == digest else {
            throw DemoFailure("the stored room differs from what the node reported (\(document.digest.rootHex) ≠ \(digest))")
        }
        // The rough rectangle, and the box of two L's as one rectangle (the L's erased).
        let shapes = document.strokes.filter { $0.header?.isShape == true && !$0.visible.isEmpty }.count
        guard keep || shapes == 2 else {
            throw DemoFailure(
                "\(shapes) recognised shapes in the room, not 2 (the rough rectangle, the box of two L's)")
        }
        try Data(SVGExporter.export(document)).write(to: URL(fileURLWithPath: output))
        print("  ✓ \(shapes) recognised shapes in the room (a rectangle, and one of a box drawn as two L's)")
        print("The room is in \(URL(fileURLWithPath: output).path) — open it in a browser.")
        try? FileManager.default.removeItem(at: work)
    }

    /// Returns after SIGINT or SIGTERM.
    private func waitForInterrupt() {
        fflush(nil)  // every output stream: what was printed shows before the wait
        signal(SIGINT) { _ in demoInterrupted.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in demoInterrupted.store(true, ordering: .relaxed) }
        while !demoInterrupted.load(ordering: .relaxed) { usleep(100_000) }
    }

    private func waitFor(_ what: String, seconds: Double, _ nodes: [DemoNode], until done: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !done() {
            if let dead = nodes.first(where: { !$0.isRunning }) {
                throw DemoFailure("node \(dead.name) stopped while waiting for \(what); its log: \(dead.logPath)")
            }
            guard Date() < deadline else {
                throw DemoFailure(
                    "gave up waiting for \(what) after \(Int(seconds)) s; logs: \(nodes.map(\.logPath).joined(separator: ", "))")
            }
            usleep(50_000)
        }
    }
}

/// Set by the demo's SIGINT and SIGTERM handlers (with --keep).
private let demoInterrupted = Atomic<Bool>(false)

/// Why the demo failed, printed without the usage text.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One `canvas join` child of the demo: its standard input, and what its events said.
final class DemoNode: @unchecked Sendable {
    let name: String
    let logPath: String
    private let process = Process()
    private let input = Pipe()
    private let lock = NSLock()
    private var state: (digest: String?, strokes: Int, points: Int, members: Int) = (nil, 0, 0, 0)

    init(name: String, room: String, store: URL, extra: [String]) throws {
        self.name = name
        logPath = store.path + ".log"
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        process.arguments = ["join", "--room", room, "--store", store.path, "--events", "--log-level", "info"] + extra
        process.standardInput = input
        let output = Pipe()
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try process.run()
        Thread { [self] in readEvents(output.fileHandleForReading) }.start()
    }

    var digest: String? { lock.withLock { state.digest } }
    var strokes: Int { lock.withLock { state.strokes } }
    var points: Int { lock.withLock { state.points } }
    var members: Int { lock.withLock { state.members } }
    var isRunning: Bool { process.isRunning }

    func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    func terminate() {
        if process.isRunning { process.terminate() }
    }

    /// The URL of the page this node serves (`--http`), from its log.
    func pageURL(seconds: Double) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            if let line = log.split(separator: "\n").first(where: { $0.contains("the page is at ") }),
                let url = line.split(separator: " ").last
            {
                return String(url)
            }
            usleep(50_000)
        }
        throw DemoFailure("node \(name) printed no page URL; its log: \(logPath)")
    }

    func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    private func readEvents(_ handle: FileHandle) {
        var buffer = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { return }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = buffer[(newline + 1)...]
                guard let event = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else { continue }
                lock.withLock {
                    switch event["event"] as? String {
                    case "state":
                        state.digest = event["digest"] as? String
                        state.strokes = event["strokes"] as? Int ?? 0
                        state.points = event["points"] as? Int ?? 0
                    case "member_joined": state.members += 1
                    case "member_left": state.members -= 1
                    default: break
                    }
                }
            }
        }
    }
}

/// Strokes that look drawn by hand: smooth paths with a tremor, as `draw` actions.
enum DemoDrawing {
    static func strokes(for node: Int, using generator: inout DemoRandom) -> [String] {
        let colours = [[30, 80, 200], [200, 50, 40], [20, 140, 60]]
        var strokes: [String] = []
        let originX = 60.0 + Double(node) * 320
        for index in 0..<6 {
            var points: [[Double]] = []
            let y0 = 80.0 + Double(index) * 70
            let amplitude = 10 + generator.unit() * 25
            let wavelength = 60 + generator.unit() * 80
            let phase = generator.unit() * 6.28
            for step in 0...40 {
                let x = originX + Double(step) * 6.5
                let y = y0 + amplitude * sin(Double(step) * 6.5 / wavelength * 6.28 + phase)
                points.append([round((x + generator.tremor()) * 100) / 100, round((y + generator.tremor()) * 100) / 100])
            }
            strokes.append(draw(points, weight: 2 + Double(index % 3), colour: colours[node], recognize: false))
        }
        if node == 0 {
            // A rectangle drawn by hand, recognised and replaced by a perfect one.
            let corners = [(700.0, 520.0), (980.0, 520.0), (980.0, 640.0), (700.0, 640.0), (700.0, 520.0)]
            let points = roughPolyline(through: corners, using: &generator) + [[700, 521]]
            strokes.append(draw(points, weight: 3, colour: [120, 40, 160], recognize: true))
        }
        if node == 1 {
            // A box drawn as two L's, one after the other: the second closes it, and the two
            // become one rectangle (docs/recognition.md, "Closed shapes drawn in several strokes").
            let halves = [
                [(380.0, 640.0), (380.0, 520.0), (620.0, 520.0)], [(620.0, 520.0), (620.0, 640.0), (380.0, 640.0)],
            ]
            for corners in halves {
                let points = roughPolyline(through: corners, using: &generator) + [[corners[2].0, corners[2].1]]
                strokes.append(draw(points, weight: 3, colour: [20, 140, 60], recognize: true))
            }
        }
        return strokes
    }

    /// A hand's stroke through `corners`: twelve points a side, each with a tremor, the last
    /// corner left for the caller to end on.
    static func roughPolyline(through corners: [(Double, Double)], using generator: inout DemoRandom) -> [[Double]] {
        zip(corners, corners.dropFirst()).flatMap { a, b in
            (0..<12).map { step -> [Double] in
                let t = Double(step) / 12
                return [
                    round((a.0 + (b.0 - a.0) * t + generator.tremor()) * 100) / 100,
                    round((a.1 + (b.1 - a.1) * t + generator.tremor()) * 100) / 100,
                ]
            }
        }
    }

    /// A wavy vertical cut through the strokes of the next node.
    static func eraser(_ node: Int) -> String {
        let x = 190.0 + Double((node + 1) % 3) * 320
        let points = stride(from: 40.0, through: 500, by: 20).map { "[\(x + sin($0 / 40) * 12),\($0)]" }
        return #"{"action":"erase","points":[\#(points.joined(separator: ","))],"radius":9}"#
    }

    private static func draw(_ points: [[Double]], weight: Double, colour: [Int], recognize: Bool) -> String {
        let list = points.map { "[\($0[0]),\($0[1])]" }.joined(separator: ",")
        return #"{"action":"draw","points":[\#(list)],"weight":\#(weight),"colour":[\#(colour.map(String.init).joined(separator: ","))],"recognize":\#(recognize)}"#
    }
}

/// The demo's randomness: a seed gives the same drawing.
typealias DemoRandom = SplitMix64

extension SplitMix64 {
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// A hand's tremor: ±1.2 px.
    mutating func tremor() -> Double { (unit() - 0.5) * 2.4 }
}
