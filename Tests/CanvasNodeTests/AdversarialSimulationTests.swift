import CanvasCore
import CanvasNode
import CanvasProtocol
import CanvasTestSupport
import Testing

/// Peers that misbehave or predate the sync messages.
@Suite struct AdversarialSimulationTests {
    static let header = StrokeHeader(weight: 2, colour: .black, start: Point(x: 1, y: 2))

    @Test(arguments: 0..<5 as Range<UInt64>)
    func invalidMessagesChangeNothing(seed: UInt64) {
        var net = SimulatedNetwork(nodeCount: 4, seed: seed)
        for index in 0..<4 { net.start(index) }
        for step in 1...20 {
            net.run(until: .milliseconds(250 * step))
            net.randomEdit(at: step % 3)
        }
        net.run(until: .seconds(15))
        let converged = net.converged()
        #expect(converged, "seed \(seed)")
        let before = (0..<3).map { net.nodes[$0].document }
        let invalid = [
            #"{"type":"ADD","identifier":"bad","weight":-1,"colour":[0,0,0],"start":[0,0]}"#,
            #"{"type":"APPEND","identifier":"n0_e1_1","points":[[1,"x"]],"offset":1}"#,
            #"{"type":"DELETE","identifier":"n0_e1_1","start_offset":0}"#,
            #"{"type":"SYNC_SUMMARY","data":{"version":1,"node":"n3","root":"xyz"}}"#,
            #"{"type":"SYNC_STROKES","data":{"version":1,"node":"n3","root":"0000000000000000","to":"n0","cover":[[999,null,null]],"strokes":[]}}"#,
            #"{"type":"SYNC_WANT","data":{"version":1,"node":"n3","root":"0000000000000000","to":"n0","strokes":[[1]]}}"#,
            "not json",
            #"{"type":"APPEND","identifier":"n0_e1_1","points":[[1e999,0]],"offset":1}"#,
        ]
        for text in invalid {
            net.send(Array(text.utf8), from: 3, to: .room)
        }
        // Unknown versions and types are ignored, not rejected.
        net.send(Array(#"{"type":"SYNC_SUMMARY","data":{"version":9}}"#.utf8), from: 3, to: .room)
        net.send(Array(#"{"type":"CURSOR","x":1}"#.utf8), from: 3, to: .room)
        net.run(until: .seconds(16))
        for index in 0..<3 {
            #expect(net.nodes[index].document == before[index], "seed \(seed)")
            // With loss some invalid messages never arrive; those that do are all rejected.
            // (Duplicated deliveries are rejected twice.)
            #expect(net.nodes[index].rejected > 0 && net.nodes[index].rejected <= 2 * invalid.count, "seed \(seed)")
        }
    }

    /// A peer of the original app: APPEND without offset (over its in-order links), MEGA on
    /// join, no sync messages. Sessions send it their state, as MEGA, when it stays silent.
    @Test(arguments: 0..<10 as Range<UInt64>)
    func legacyPeerConverges(seed: UInt64) {
        var net = SimulatedNetwork(nodeCount: 4, kinds: [3: .legacy], seed: seed)
        for index in 0..<3 { net.start(index) }
        // The legacy peer draws alone before joining: its MEGA brings that in.
        for _ in 0..<5 { net.randomEdit(at: 3) }
        for step in 1...40 {
            net.run(until: .milliseconds(250 * step))
            if step == 12 { net.start(3) }
            for index in 0..<4 where net.nodes[index].isUp && net.rng.chance(0.3) {
                net.randomEdit(at: index)
            }
        }
        net.run(until: .seconds(30))
        // The Canvas nodes converge exactly; the legacy peer holds what the original protocol
        // can express of the same room (a MEGA carries no erasure past the last point).
        #expect(net.converged(among: [0, 1, 2]), "seed \(seed)")
        let missing = (0..<3).map { net.missing(at: $0) }
        #expect(missing.allSatisfy { $0.isEmpty }, "seed \(seed): missing \(missing.map(\.count))")
        #expect(Self.legacyView(net.nodes[3].document) == Self.legacyView(net.nodes[0].document), "seed \(seed)")
        // The legacy peer's own MEGA on joining; the sessions catch it up with MEGAs too
        // (never APPENDs, which it would append again), and nothing else is a MEGA.
        let catchUps = net.sentKinds[.legacyState, default: 0]
        #expect(catchUps >= 1, "seed \(seed)")
        #expect(net.sentMessages["MEGA"] == 1 + catchUps, "seed \(seed)")
    }

    /// Shapes in a room with a peer of the original app (in the room from the start, so that
    /// what a MEGA catch-up cannot carry, erasure past the last point, does not come into
    /// it): a third of the new strokes are shapes, half of those an ADD alone with their
    /// points in a later edit. The sessions send each shape's ADD with its first APPEND as
    /// one MEGA (`ShapeBodies`), and everyone converges on the same drawing.
    @Test(arguments: 0..<10 as Range<UInt64>)
    func shapesReachALegacyPeerAsMegas(seed: UInt64) {
        var net = SimulatedNetwork(nodeCount: 4, kinds: [3: .legacy], seed: seed)
        net.shapes = true
        for index in 0..<4 { net.start(index) }
        for step in 1...40 {
            net.run(until: .milliseconds(250 * step))
            for index in 0..<3 where net.rng.chance(0.4) { net.randomEdit(at: index) }
        }
        net.run(until: .seconds(30))
        #expect(net.converged(among: [0, 1, 2]), "seed \(seed)")
        let missing = (0..<3).map { net.missing(at: $0) }
        #expect(missing.allSatisfy { $0.isEmpty }, "seed \(seed): missing \(missing.map(\.count))")
        #expect(Self.legacyView(net.nodes[3].document) == Self.legacyView(net.nodes[0].document), "seed \(seed)")
        let shapes = net.nodes[0].document.strokes.filter { $0.header?.isShape == true && $0.points.count > 1 }
        #expect(
            !shapes.isEmpty && net.shapeMegas >= shapes.count, "seed \(seed): \(net.shapeMegas) for \(shapes.count)")
        // The MEGAs are the catch-ups and the shapes (the peer drew nothing before joining,
        // so it sent no MEGA of its own).
        let catchUps = net.sentKinds[.legacyState, default: 0]
        #expect(net.sentMessages["MEGA"] == catchUps + net.shapeMegas, "seed \(seed)")
    }

    /// What a peer of the original protocol can hold of a stroke: its header, its drawable
    /// points, and its visible segments within them.
    struct LegacyStroke: Equatable {
        var header: StrokeHeader
        var points: [Point]
        var visible: [ClosedRange<Double>]
    }

    static func legacyView(_ document: Document) -> [StrokeID: LegacyStroke] {
        var view: [StrokeID: LegacyStroke] = [:]
        for stroke in document.strokes {
            let visible = stroke.visible.intervals.filter { $0.lowerBound < $0.upperBound }
            // What shows: a stroke with nothing visible is left out of a MEGA (as the app's own).
            guard let header = stroke.header, !visible.isEmpty else { continue }
            view[stroke.id] = LegacyStroke(header: header, points: stroke.points, visible: visible)
        }
        return view
    }

    /// A faulty peer sends different ADDs for one stroke (and different points at the same
    /// indices) to different members: everyone still converges, on the canonical winner.
    @Test(arguments: 0..<10 as Range<UInt64>)
    func conflictingAddsConverge(seed: UInt64) {
        var parameters = SimulatedNetwork.Parameters()
        parameters.loss = 0  // every member must receive its version of the stroke
        var net = SimulatedNetwork(nodeCount: 5, parameters: parameters, seed: seed)
        for index in 0..<5 { net.start(index) }
        net.run(until: .seconds(1))
        let id = StrokeID("faulty_1")
        for target in 0..<4 {
            let header = StrokeHeader(weight: Double(target + 1), colour: .black, start: Point(x: Double(target), y: 0))
            let points = (0..<5).map { Point(x: Double($0 * 10 + target), y: 1) }
            net.send(MessageEncoder.encode(.add(id, header)), from: 4, to: .peer(SimulatedNetwork.peer(target)))
            net.send(MessageEncoder.encode(.append(id, points: points, offset: 1)), from: 4, to: .peer(SimulatedNetwork.peer(target)))
        }
        for step in 1...20 {
            net.run(until: .seconds(1) + .milliseconds(250 * step))
            net.randomEdit(at: step % 4)
        }
        net.run(until: .seconds(30))
        let converged = net.converged()
        #expect(converged, "seed \(seed)")
        let missing = net.nodes.indices.map { net.missing(at: $0) }
        #expect(missing.allSatisfy { $0.isEmpty }, "seed \(seed): missing \(missing.map(\.count))")
        #expect(net.nodes[0].document[id]?.header?.weight == 1, "seed \(seed)")
        #expect(net.nodes[0].document[id]?.points.map(\.x) == [0, 0, 10, 20, 30, 40], "seed \(seed)")
    }
}

/// Large documents under a small message limit: bucket hashes, stroke summaries (buckets
/// split into identifier ranges) and long APPENDs all travel in messages under the limit.
@Test(arguments: 0..<2 as Range<UInt64>)
func largeDocumentsSyncUnderASmallMessageLimit(seed: UInt64) {
    var parameters = SimulatedNetwork.Parameters()
    parameters.maxMessageBytes = 600
    var net = SimulatedNetwork(nodeCount: 3, parameters: parameters, seed: seed)
    var rng = SplitMix64(seed: seed)
    let header = StrokeHeader(weight: 1, colour: .black, start: Point(x: 0, y: 0))
    // Node 0 and 1 share 2000 strokes (about 8 per bucket); each also holds strokes and
    // points the other lacks; node 2 joins empty.
    for k in 0..<2000 {
        let id = StrokeID("shared_\(k)")
        let operations: [Operation] = [.add(id, header), .append(id, points: [Point(x: Double(k), y: 1)], offset: 1)]
        net.nodes[0].persisted += operations
        net.nodes[1].persisted += operations
    }
    for node in 0..<2 {
        for k in 0..<20 {
            let id = StrokeID("only\(node)_\(k)")
            let points = (0..<Int.random(in: 1...200, using: &rng)).map { Point(x: Double($0), y: Double(k)) }
            net.nodes[node].persisted += [.add(id, header), .append(id, points: points, offset: 1)]
        }
        net.nodes[node].persisted += [.delete(StrokeID("shared_\(node)"), start: 0, end: 0.5)]
    }
    for index in 0..<3 { net.start(index) }
    net.run(until: .seconds(40))
    let converged = net.converged()
    #expect(converged, "seed \(seed)")
    #expect(net.nodes[2].document.strokeCount == 2040, "seed \(seed)")
    #expect(net.largestMessage <= 600, "seed \(seed)")
}
