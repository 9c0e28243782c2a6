import Benchmark
import LANCluster
import CanvasCore
import CanvasGeometry
import CanvasNode
import CanvasProtocol
import CanvasSVG
import CanvasStore
import Foundation

/// The same workloads as `canvas bench`, under package-benchmark for its statistics,
/// allocation counts and baselines.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(3)
    )

    let onePoint = OnePointBenchmark(points: 1000)
    let (add, appends) = Workloads.onePointAppends(count: 1000)

    Benchmark("1000-point: CRDT apply") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(onePoint.applyAll(add, appends))
        }
    }

    Benchmark("1000-point: encode + decode + apply") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(onePoint.codecAll(add, appends))
        }
    }

    let users = UsersBenchmark(users: 1000, batches: 20, pointsPerBatch: 15)
    let traffic = Workloads.usersTraffic(users: users.users, batches: users.batches, pointsPerBatch: users.pointsPerBatch)
    var base = Document()
    for message in traffic.setup {
        for operation in (try? MessageDecoder.decode(message))?.operations ?? [] {
            base.apply(operation)
        }
    }
    let replica = base
    Benchmark(
        "1000-user: absorb 300,000 points (decode + validate + apply)",
        configuration: .init(scalingFactor: .one)
    ) { benchmark in
        blackHole(users.absorb(replica, traffic.messages))
    }

    // The cost of an APPEND does not depend on the size of the document: the same 1000
    // single-point APPENDs, alternating between two strokes of a document that already
    // holds 10,000 strokes of 100 points (a million points).
    var large = Document()
    for stroke in 0..<10_000 {
        let id = StrokeID("big-\(stroke)")
        large.apply(.add(id, StrokeHeader(weight: 1, colour: .black, start: Workloads.point(0, stroke: stroke))))
        large.apply(.append(id, points: (1..<100).map { Workloads.point($0, stroke: stroke) }, offset: 1))
    }
    let crowded = large
    let alternating = (0..<1000).map { index in
        Operation.append(StrokeID("big-\(index % 2)"), points: [Workloads.point(100 + index / 2, stroke: index % 2)], offset: 100 + index / 2)
    }
    Benchmark(
        "1000 APPENDs into a 10,000-stroke, 1,000,000-point document",
        configuration: .init(scalingFactor: .one)
    ) { benchmark in
        var document = crowded
        document.apply(.removeStroke(StrokeID("big-9999")))  // the copy-on-write copy, untimed
        benchmark.startMeasurement()
        for operation in alternating {
            document.apply(operation)
        }
        benchmark.stopMeasurement()
        blackHole(document)
    }

    // A lost first batch: the next 1000 points wait behind the gap, then it is filled and
    // they drain into the stroke.
    let gapped = Array(appends.dropFirst()) + [appends[0]]
    Benchmark("1000-point: every APPEND behind a gap, then the gap filled") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(onePoint.applyAll(add, gapped))
        }
    }

    // Recognising a finished 200-point stroke (issue 14: under 50 µs): a circle, a
    // rectangle, a scribble, a rectangle with rounded corners, a 2.4:1 diamond, a 2.5:1
    // parallelogram, an elbow arrow, a line, a line with a small head and a double arrow as
    // a pen samples them, with a deterministic wobble.
    for (name, stroke) in recognitionStrokes(points: 200) {
        Benchmark("recognition: a 200-point \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(ShapeRecognizer.recognize(stroke))
            }
        }
    }

    // Two strokes read as one arrow, as a node reads a stroke drawn right after a line: a
    // 150-point shaft, straight or bent at right angles, then a 50-point "<" at its end
    // (`ShapeRecognizer.recognizeArrow`).
    for (name, shaft, head) in twoStrokeArrows() {
        Benchmark("recognition: two strokes, \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(ShapeRecognizer.recognizeArrow(drawnFirst: shaft, then: head))
            }
        }
    }

    // Three strokes read as one arrow, as a node reads a stroke that made none with the one
    // before it, after two lines: the 150-point shaft, then the head's barbs drawn apart,
    // 25 points each from the tip (`ShapeRecognizer.recognizeArrow(drawnFirst:then:then:)`).
    let (shaft, head) = (twoStrokeArrows()[0].1, twoStrokeArrows()[0].2)
    let barbs = (Array(head[..<25]), Array(head[25...]))
    Benchmark("recognition: three strokes, a shaft and two barbs") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(ShapeRecognizer.recognizeArrow(drawnFirst: shaft, then: barbs.0, then: barbs.1))
        }
    }

    // A fourth stroke read as a node reads one drawn right after three that made an arrow: the
    // shaft and barbs above, then a 25-point base across the barbs' ends, closing the head
    // (`ShapeRecognizer.recognizeArrow(madeOf:_:_:joining:)`: the three read again as the
    // arrow they made, then the base joined to its head).
    let closingBase = wobblyPolyline(through: [(360, -30), (360, 30)], count: 25, wobble: arrowStrokeWobble)
    precondition(
        ShapeRecognizer.recognizeArrow(madeOf: shaft, barbs.0, barbs.1, joining: closingBase).kind == .arrow,
        "the four-stroke benchmark's strokes make no arrow")
    Benchmark("recognition: four strokes, a base joining an arrow of three") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(ShapeRecognizer.recognizeArrow(madeOf: shaft, barbs.0, barbs.1, joining: closingBase))
        }
    }

    // A LAN datagram of the largest payload (1,200 bytes) with a room key (issue 16): sealed
    // and opened (ChaCha20-Poly1305), against the HMAC-SHA-256 tag and its check that
    // datagrams carried before.
    let roomKey = try! RoomKey(Array(0..<32))
    let sealer = DatagramSealer(key: roomKey, room: "board")
    let lanDatagram = Datagram(
        room: "board", sender: String(repeating: "7", count: 32), incarnation: 42, sequence: 9,
        body: .data(DataFragment(dataSequence: 5, index: 0, count: 1, chunk: (0..<1200).map { UInt8($0 % 251) })),
        format: .compact)
    let inner = try! lanDatagram.encoded(key: nil)
    Benchmark("lan: seal and open a 1200-byte datagram") { benchmark in
        for _ in benchmark.scaledIterations {
            let sealed = sealer.seal(inner, sender: lanDatagram.sender, incarnation: 42, sequence: 9)!
            blackHole(try! sealer.open(sealed))
        }
    }
    Benchmark("lan: HMAC-tag and check a 1200-byte datagram (the earlier format)") { benchmark in
        for _ in benchmark.scaledIterations {
            let tagged = try! lanDatagram.encoded(key: roomKey)
            try! Datagram.authenticate(tagged, key: roomKey)
            blackHole(try! Datagram(decoding: tagged, room: "board"))
        }
    }
    Benchmark("lan: encode and decode a 1200-byte datagram without a key") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try! Datagram(decoding: try! lanDatagram.encoded(key: nil), room: "board"))
        }
    }

    Benchmark("digest of a 1000-stroke document") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(replica.digest)
        }
    }

    // The eraser on a large board: 10,000 strokes of 100 points, one per place on a 100 × 100
    // grid 90 px across and 35 px down (each stroke is about 75 × 40 px, and the workload
    // shifts strokes by up to 975 px, so neighbours overlap as on a busy board), about
    // 10,000 × 3,500 px in all. The index is built once; one sample of radius 10 lands where
    // two strokes cross, among some 30 segments whose bounds reach it.
    func boardOffset(_ stroke: Int) -> Point {
        Point(x: Double(stroke % 100) * 90, y: Double(stroke / 100) * 35)
    }
    var boardBuilder = Document()
    for stroke in 0..<10_000 {
        let id = StrokeID("board-\(stroke)")
        let points = (0..<100).map { Workloads.point($0, stroke: stroke) + boardOffset(stroke) }
        boardBuilder.apply(.add(id, StrokeHeader(weight: 2, colour: .black, start: points[0])))
        boardBuilder.apply(.append(id, points: Array(points[1...]), offset: 1))
    }
    let board = boardBuilder
    let boardIndex = SpatialIndex(document: board)
    let eraserSample = Workloads.point(56, stroke: 5050) + boardOffset(5050)
    Benchmark("eraser: one sample on a 10,000-stroke × 100-point board") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(Eraser.deletions(along: [eraserSample], radius: 10, in: board, index: boardIndex))
        }
    }

    Benchmark(
        "eraser: index a 10,000-stroke × 100-point board",
        configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident], scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 5)
    ) { benchmark in
        blackHole(SpatialIndex(document: board))
    }

    // SVG export of the same board, a million points (every third stroke partly erased, so
    // that it also splits runs).
    var erasedBoard = board
    for stroke in stride(from: 0, to: 10_000, by: 3) {
        erasedBoard.apply(.delete(StrokeID("board-\(stroke)"), start: 20.5, end: 40.25))
    }
    let exportBoard = erasedBoard
    Benchmark(
        "SVG export of a 1,000,000-point board",
        configuration: .init(scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 10)
    ) { benchmark in
        blackHole(SVGExporter.export(exportBoard))
    }

    // Opening a stored room of the same million points (issue 4: at most 1 s) and building
    // its replica from what the store hands over, as a node does: once compacted (the
    // snapshot alone, the usual state), and once with everything still in the log (the
    // worst case, just before a compaction). The rooms are written in setup.
    let storeFolder = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-store-bench-\(UUID().uuidString)")
    let writeRoom = { (room: String, compacted: Bool) throws in
        let store = try RoomStore.open(
            directory: storeFolder, room: room, options: .init(compaction: .init(minimumLogBytes: .max))
        ).store
        try store.appendLocal(board.operations)
        if compacted { try store.compact(to: board) }
        try store.close()
    }
    let removeStore = { try FileManager.default.removeItem(at: storeFolder) }
    Benchmark(
        "store: open a 1,000,000-point room",
        configuration: .init(scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 10)
    ) { benchmark in
        let (store, operations) = try RoomStore.open(
            directory: storeFolder, room: "board", options: .init(createIfMissing: false))
        let replica = Replica(author: store.nodeID, restoring: operations)
        precondition(replica.document.digest == board.digest, "the stored room differs from the board")
        blackHole(replica)
    } setup: {
        try writeRoom("board", true)
    } teardown: {
        try removeStore()
    }
    Benchmark(
        "store: open a 1,000,000-point room from its log alone",
        configuration: .init(scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 10)
    ) { benchmark in
        let (store, operations) = try RoomStore.open(
            directory: storeFolder, room: "board-log", options: .init(createIfMissing: false))
        blackHole(Replica(author: store.nodeID, restoring: operations))
    } setup: {
        try writeRoom("board-log", false)
    } teardown: {
        try removeStore()
    }
}

/// Hand-drawn-like strokes of `points` samples for the recognition benchmarks: a wobble of
/// about 1 % of the size from a fixed sine mix (no random generator, so every run recognises
/// the same strokes).
func recognitionStrokes(points count: Int) -> [(String, [Point])] {
    func wobble(_ k: Int) -> Double { 3 * sin(Double(k) * 0.7) + 2 * sin(Double(k) * 1.9 + 1) }
    let circle = (0..<count).map { k -> Point in
        let angle = 2 * Double.pi * Double(k) / Double(count - 1)
        let radius = 200 + wobble(k)
        return Point(x: 300 + radius * cos(angle), y: 300 + radius * sin(angle))
    }
    /// Round the closed quadrilateral through `corners` (x, y), at an even pace.
    func quadrilateral(_ corners: [(Double, Double)]) -> [Point] {
        let corners = (corners + [corners[0]]).map { Point(x: $0.0, y: $0.1) }
        return (0..<count).map { k -> Point in
            let t = 4 * Double(k) / Double(count - 1)
            let side = min(3, Int(t))
            let p = corners[side].interpolated(to: corners[side + 1], at: t - Double(side))
            return Point(x: p.x + wobble(k), y: p.y + wobble(k + 50))
        }
    }
    let rectangle = quadrilateral([(0, 0), (400, 0), (400, 250), (0, 250)])
    // Corners 45° from square: a diamond (`ShapeRecognizer.obliqueSkew`).
    let diamond = quadrilateral([(0, 100), (240, 0), (480, 100), (240, 200)])
    // Short sides leaning 45°, 0.57 of the long ones: a parallelogram, tried as a rectangle
    // of its dominant direction too (`ShapeRecognizer.Candidate.givesWay(to:)`).
    let parallelogram = quadrilateral([(0, 0), (400, 0), (560, 160), (160, 160)])
    // A connector bent once, its head drawn out and back: an elbow arrow, tried last, after
    // every other shape is refused (`ElbowArrowFit`).
    let elbowArrow = wobblyPolyline(
        through: [(0, 0), (0, 300), (400, 300), (350, 270), (400, 300), (350, 330)], count: count, wobble: wobble)
    // A 600 px line, and the same line with the small head a long connector has (barbs of
    // 40 px, 0.067 of the shaft): a line that passes is read as an arrow too, and this
    // one is (a head at a line's end, docs/recognition.md).
    let line = wobblyPolyline(through: [(0, 0), (600, 0)], count: count, wobble: wobble)
    let lineWithASmallHead = wobblyPolyline(
        through: [(0, 0), (600, 0), (565, 20), (600, 0), (565, -20)], count: count, wobble: wobble)
    // A 600 px shaft with a head at each end (barbs of 47 px), the first drawn from a barb's
    // end: a double arrow (docs/recognition.md).
    let doubleArrow = wobblyPolyline(
        through: [(40, 25), (0, 0), (40, -25), (0, 0), (600, 0), (560, 25), (600, 0), (560, -25)], count: count,
        wobble: wobble)
    let scribble = (0..<count).map { k -> Point in
        let t = Double(k) / Double(count - 1)
        return Point(x: 400 * t + 60 * sin(t * 31), y: 150 * sin(t * 11) + 40 * cos(t * 23))
    }
    return [
        ("circle", circle), ("rectangle", rectangle), ("scribble", scribble),
        ("rectangle with rounded corners", roundedRectangle(points: count, wobble: wobble)),
        ("diamond", diamond), ("parallelogram", parallelogram), ("elbow arrow", elbowArrow), ("line", line),
        ("line with a small head", lineWithASmallHead), ("double arrow", doubleArrow),
    ]
}

/// `count` points along the polyline through `waypoints` (x, y), at an even pace, each moved
/// by `wobble` of its index in x and of its index + 50 in y.
func wobblyPolyline(through waypoints: [(Double, Double)], count: Int, wobble: (Int) -> Double) -> [Point] {
    let corners = waypoints.map { Point(x: $0.0, y: $0.1) }
    let legs = zip(corners, corners.dropFirst()).map { $0.distance(to: $1) }
    return (0..<count).map { k -> Point in
        var along = legs.reduce(0, +) * Double(k) / Double(count - 1)
        var leg = 0
        while leg < legs.count - 1 && along > legs[leg] {
            along -= legs[leg]
            leg += 1
        }
        let p = corners[leg].interpolated(to: corners[leg + 1], at: min(1, along / legs[leg]))
        return Point(x: p.x + wobble(k), y: p.y + wobble(k + 50))
    }
}

/// The wobble of the strokes of arrows drawn in several strokes: the recognition strokes'
/// kind, half as deep.
func arrowStrokeWobble(_ k: Int) -> Double { 1.5 * sin(Double(k) * 0.7) + sin(Double(k) * 1.9 + 1) }

/// The strokes of the two-stroke arrow benchmarks: a shaft of 150 points and a head of 50
/// points at its end, each with a deterministic wobble of the recognition strokes' kind,
/// half as deep.
func twoStrokeArrows() -> [(String, [Point], [Point])] {
    func stroke(_ waypoints: [(Double, Double)], count: Int) -> [Point] {
        wobblyPolyline(through: waypoints, count: count, wobble: arrowStrokeWobble)
    }
    return [
        ("a shaft and a head", stroke([(0, 0), (400, 0)], count: 150),
         stroke([(360, 30), (402, 0), (360, -30)], count: 50)),
        ("a shaft bent once and a head", stroke([(0, 0), (0, 300), (400, 300)], count: 150),
         stroke([(360, 330), (402, 300), (360, 270)], count: 50)),
    ]
}

/// A rectangle started along its top side, its corners rounded off by a Gaussian of 4 % of
/// the stroke: the slowest path, a rectangle matched again with rounded corners and
/// compared with its ellipse (`ShapeRecognizer.polygonCloseness`).
func roundedRectangle(points count: Int, wobble: (Int) -> Double) -> [Point] {
    let corners = [(200, 0), (400, 0), (400, 250), (0, 250), (0, 0), (200, 0)].map {
        Point(x: Double($0.0), y: Double($0.1))
    }
    var lengths = [0.0]
    for (a, b) in zip(corners, corners.dropFirst()) { lengths.append(lengths.last! + a.distance(to: b)) }
    let sharp = (0..<count).map { k -> Point in
        let along = lengths.last! * Double(k) / Double(count - 1)
        let side = min(corners.count - 2, lengths.lastIndex { $0 <= along }!)
        let t = (along - lengths[side]) / (lengths[side + 1] - lengths[side])
        let p = corners[side].interpolated(to: corners[side + 1], at: t)
        return Point(x: p.x + wobble(k), y: p.y + wobble(k + 50))
    }
    let sigma = 0.04 * Double(count)
    let reach = Int(3 * sigma)
    return sharp.indices.map { k in
        var (sum, weights) = (Point(x: 0, y: 0), 0.0)
        for j in max(0, k - reach)...min(count - 1, k + reach) {
            let weight = exp(-Double((j - k) * (j - k)) / (2 * sigma * sigma))
            (sum, weights) = (sum + sharp[j] * weight, weights + weight)
        }
        return sum / weights
    }
}
