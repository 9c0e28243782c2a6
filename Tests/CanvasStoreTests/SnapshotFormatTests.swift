import CanvasCore
@testable import CanvasStore
import CanvasTestSupport
import Testing

@Suite("Snapshot format")
struct SnapshotFormatTests {
    @Test(arguments: 0..<8)
    func snapshotsRestoreTheSameDocument(round: Int) throws {
        let seed = announcedSeed() &+ UInt64(round)
        var generator = SplitMix64(seed: seed)
        var operations = Histories.random(strokes: 40, pointsPerStroke: 1...60, using: &generator)
        // Points ahead of a gap (pending) and placeholders survive too.
        operations.append(.append(StrokeID("gap"), points: [Point(x: 1, y: 1)], offset: 5))
        operations.append(.delete(StrokeID("ghost"), start: 0, end: 3))
        operations.append(.removeStroke(StrokeID("gone")))
        operations.shuffle(using: &generator)
        let document = Histories.document(operations)
        let bytes = SnapshotFormat.encode(document.operations)
        // Written stroke by stroke (what compaction does), the same bytes.
        #expect(SnapshotFormat.encode(document) == bytes, "seed \(seed)")
        let restored = Histories.document(try SnapshotFormat.decode(bytes, path: "snapshot"))
        #expect(restored == document, "seed \(seed)")
        #expect(restored.digest == document.digest, "seed \(seed)")
    }

    @Test func theSmallestExactScaleIsChosen() {
        #expect(SnapshotFormat.fixedPointScale(of: [Point(x: 3, y: -7)]) == 0)
        #expect(SnapshotFormat.fixedPointScale(of: [Point(x: 3.5, y: 1)]) == 1)
        #expect(SnapshotFormat.fixedPointScale(of: [Point(x: 3.5, y: 0.25)]) == 2)
        #expect(SnapshotFormat.fixedPointScale(of: [Point(x: 1.0 / 256, y: 0)]) == 8)
        #expect(SnapshotFormat.fixedPointScale(of: [Point(x: 1.0 / 512, y: 0)]) == nil)
        #expect(SnapshotFormat.fixedPointScale(of: [Point(x: 0.1, y: 0)]) == nil)
        #expect(SnapshotFormat.fixedPointScale(of: [Point(x: 1e300, y: 0)]) == nil)
    }

    @Test func extremeValuesRoundTripExactly() throws {
        let points = [
            Point(x: 0.1, y: -1e-300), Point(x: .greatestFiniteMagnitude, y: -.leastNonzeroMagnitude),
            Point(x: 9_007_199_254_740_992, y: -9_007_199_254_740_992),
        ]
        let operations: [Operation] = [
            .add(StrokeID("é"), StrokeHeader(weight: 0.3, colour: Colour(red: 1, green: 2, blue: 3), start: points[0], isShape: true)),
            .append(StrokeID("é"), points: points, offset: 1),
            .append(StrokeID("fixed"), points: [Point(x: 9_007_199_254_740_992, y: -9_007_199_254_740_992), Point(x: 0, y: 0)], offset: 3),
            .delete(StrokeID("é"), start: 0.5, end: 1.75),
            .removeStroke(StrokeID("x")),
        ]
        #expect(try SnapshotFormat.decode(SnapshotFormat.encode(operations), path: "s") == operations)
    }

    @Test func typicalBoardsTakeFewBytesPerPoint() throws {
        var generator = SplitMix64(seed: 4)
        let operations = Histories.random(strokes: 2000, pointsPerStroke: 20...200, using: &generator)
            .filter { if case .removeStroke = $0 { false } else { true } }
        let document = Histories.document(operations)
        let points = document.statistics.points
        let bytes = SnapshotFormat.encode(document.operations).count
        let perPoint = Double(bytes) / Double(points)
        print("snapshot of \(points) points (grids 1/4, 1/2, 1 px and 1/4 of strokes raw): \(bytes) bytes, \(perPoint) bytes per point")
        #expect(perPoint <= 12)
        let gridOnly = Histories.document(operations.filter { operation in
            guard case .append(_, let points, _) = operation else { return true }
            return SnapshotFormat.fixedPointScale(of: points) != nil
        })
        let gridPerPoint = Double(SnapshotFormat.encode(gridOnly.operations).count) / Double(gridOnly.statistics.points)
        print("grid-aligned strokes only: \(gridPerPoint) bytes per point")
        #expect(gridPerPoint <= 6)
    }

    @Test func damageIsAnErrorNamingTheOffset() {
        let bytes = SnapshotFormat.encode([.removeStroke(StrokeID("s"))])
        var flipped = bytes
        flipped[10] ^= 0x40
        #expect(throws: StoreError.self) { try SnapshotFormat.decode(flipped, path: "room/snapshot") }
        do {
            _ = try SnapshotFormat.decode(flipped, path: "room/snapshot")
        } catch {
            #expect(error.kind == .corruptSnapshot)
            #expect(error.offset == bytes.count - 4)
            #expect(error.description.hasPrefix("room/snapshot: byte \(bytes.count - 4): corrupt snapshot: checksum mismatch"))
        }
        for length in 0..<bytes.count {
            #expect(throws: StoreError.self) { try SnapshotFormat.decode(Array(bytes[..<length]), path: "s") }
        }
        var version = bytes
        version[7] = 9
        #expect(throws: StoreError.self) { try SnapshotFormat.decode(version, path: "s") }
    }
}
