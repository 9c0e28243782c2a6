import CanvasCore
import CanvasGeometry
import CanvasTestSupport
import Testing

@Suite("SpatialIndex")
struct SpatialIndexTests {
    struct Hit: Hashable, CustomStringConvertible {
        var id: StrokeID
        var segment: Int
        var description: String { "\(id)#\(segment)" }
    }

    /// The index's answer; fails the test if a segment is reported twice.
    static func answer(_ index: SpatialIndex, _ rect: Rect, sourceLocation: SourceLocation = #_sourceLocation) -> Set<Hit> {
        let hits = index.segments(intersecting: rect).map { Hit(id: $0.id, segment: $0.segment) }
        let unique = Set(hits)
        #expect(unique.count == hits.count, "a segment reported twice", sourceLocation: sourceLocation)
        return unique
    }

    /// Every segment whose bounds meet `rect`, by looking at all of them.
    static func bruteForce(_ document: Document, _ rect: Rect) -> Set<Hit> {
        var result: Set<Hit> = []
        for stroke in document.strokes {
            guard let header = stroke.header else { continue }
            let points = stroke.points
            if points.count == 1 {
                if Rect(enclosing: points)!.intersects(rect) {
                    result.insert(Hit(id: stroke.id, segment: 0))
                }
                continue
            }
            for k in 0..<(points.count - 1) where StrokeCurves.segment(k, of: points, isShape: header.isShape).bounds.intersects(rect) {
                result.insert(Hit(id: stroke.id, segment: k))
            }
        }
        return result
    }

    static func randomRect(using rng: inout SplitMix64) -> Rect {
        let size = [0, 1, 20, 100, 2000, 1e13][Int.random(in: 0..<6, using: &rng)] * Double.random(in: 0...1, using: &rng)
        let x = Double.random(in: -2500...2500, using: &rng)
        let y = Double.random(in: -2500...2500, using: &rng)
        let extent = size * CurveFixtures.randomPoint(in: 0...1, using: &rng)
        return Rect(minX: x, minY: y, maxX: x + extent.x, maxY: y + extent.y)
    }

    /// A board of hand-drawn strokes, dots, shapes with long diagonal sides (filed on the
    /// list of large segments), and a stroke far away.
    static func randomBoard(using rng: inout SplitMix64) -> Document {
        var document = Document()
        for number in 0..<40 {
            let points: [Point]
            var isShape = false
            switch number % 8 {
            case 0:
                points = [CurveFixtures.randomPoint(in: -300...300, using: &rng)]
            case 1:
                isShape = true
                points = (0..<4).map { _ in CurveFixtures.randomPoint(in: -2000...2000, using: &rng) }
            default:
                points = CurveFixtures.randomStroke(count: Int.random(in: 2...40, using: &rng), using: &rng)
            }
            CurveFixtures.add(points, id: StrokeID("s\(number)"), isShape: isShape, to: &document)
        }
        CurveFixtures.add([Point(x: 1e9, y: -1e9), Point(x: 1e9 + 5, y: -1e9)], id: StrokeID("far"), to: &document)
        document.apply(.append(StrokeID("placeholder"), points: [Point(x: 0, y: 0)], offset: 1))
        return document
    }

    @Test func queriesFindExactlyTheSegmentsWhoseBoundsMeetTheRectangle() {
        let seeds: Range<UInt64> = 30_000..<30_030
        print("SpatialIndexTests.queriesFindExactlyTheSegmentsWhoseBoundsMeetTheRectangle seeds", seeds)
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let document = Self.randomBoard(using: &rng)
            let index = SpatialIndex(document: document)
            for _ in 0..<100 {
                let rect = Self.randomRect(using: &rng)
                #expect(Self.answer(index, rect) == Self.bruteForce(document, rect), "seed \(seed), \(rect)")
            }
            let everything = Rect(minX: -.infinity, minY: -.infinity, maxX: .infinity, maxY: .infinity)
            #expect(Self.answer(index, everything) == Self.bruteForce(document, everything), "seed \(seed)")
        }
    }

    @Test func anInvertedRectangleMeetsNothing() {
        var rng = SplitMix64(seed: 31_000)
        let index = SpatialIndex(document: Self.randomBoard(using: &rng))
        #expect(index.segments(intersecting: Rect(minX: 10, minY: -1e6, maxX: 9, maxY: 1e6)).isEmpty)
        #expect(index.segments(intersecting: Rect(minX: .nan, minY: 0, maxX: 10, maxY: 10)).isEmpty)
    }

    @Test func aDotIsReportedAsSegmentZero() {
        var document = Document()
        CurveFixtures.add([Point(x: 5, y: 5)], id: StrokeID("dot"), to: &document)
        let index = SpatialIndex(document: document)
        #expect(Self.answer(index, Rect(minX: 0, minY: 0, maxX: 5, maxY: 5)) == [Hit(id: StrokeID("dot"), segment: 0)])
        #expect(Self.answer(index, Rect(minX: 0, minY: 0, maxX: 4.9, maxY: 10)).isEmpty)
    }

    /// Strokes grow by APPENDs (with repeated points, as a pen held still sends), and now
    /// and then a conflicting ADD or a faulty peer's overlapping APPEND changes a header or
    /// a point; after each operation the updated index must answer like a fresh one.
    @Test func updatesAnswerLikeAFreshIndex() {
        let seeds: Range<UInt64> = 32_000..<32_040
        print("SpatialIndexTests.updatesAnswerLikeAFreshIndex seeds", seeds)
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            var document = Document()
            var index = SpatialIndex()
            var plans = (0..<4).map { _ in CurveFixtures.randomStroke(count: 60, using: &rng) }
            var sent = [Int](repeating: 0, count: plans.count)
            for step in 0..<120 {
                let number = Int.random(in: 0..<plans.count, using: &rng)
                let id = StrokeID("s\(number)")
                let operation: Operation
                if sent[number] == 0 {
                    operation = .add(id, StrokeHeader(weight: 1, colour: .black, start: plans[number][0], isShape: rng.chance(0.3)))
                    sent[number] = 1
                } else if rng.chance(0.1) {
                    // A conflicting ADD: the header with the smaller encoding wins on every replica.
                    let header = document[id]!.header!
                    let start = Point(x: header.start.x - 1, y: header.start.y)
                    operation = .add(id, StrokeHeader(weight: header.weight, colour: .black, start: start, isShape: !header.isShape))
                } else if rng.chance(0.1), sent[number] > 2 {
                    // A faulty peer's overlap: smaller values win, changing a point inside the stroke.
                    let offset = Int.random(in: 1..<sent[number], using: &rng)
                    let moved = Point(x: document[id]!.points[offset].x - 3, y: 0)
                    plans[number][offset] = moved
                    operation = .append(id, points: [moved], offset: offset)
                } else if rng.chance(0.2), sent[number] < plans[number].count {
                    // The pen held still: the last point again, a few times.
                    let repeats = Int.random(in: 1...3, using: &rng)
                    let last = document[id]!.points.last!
                    operation = .append(id, points: Array(repeating: last, count: repeats), offset: sent[number])
                    plans[number].insert(contentsOf: Array(repeating: last, count: repeats), at: sent[number])
                    sent[number] += repeats
                } else {
                    let end = min(plans[number].count, sent[number] + Int.random(in: 1...5, using: &rng))
                    guard end > sent[number] else { continue }
                    operation = .append(id, points: Array(plans[number][sent[number]..<end]), offset: sent[number])
                    sent[number] = end
                }
                let effect = document.apply(operation)
                if effect.isNovel {
                    index.update(document[id]!)
                }
                let fresh = SpatialIndex(document: document)
                for _ in 0..<5 {
                    let rect = Self.randomRect(using: &rng)
                    #expect(Self.answer(index, rect) == Self.answer(fresh, rect), "seed \(seed), step \(step), \(rect)")
                }
                let everything = Rect(minX: -1e300, minY: -1e300, maxX: 1e300, maxY: 1e300)
                #expect(Self.answer(index, everything) == Self.bruteForce(document, everything), "seed \(seed), step \(step)")
            }
        }
    }

    @Test func updatingWithTheSameStrokeChangesNothing() {
        var rng = SplitMix64(seed: 33_000)
        let document = Self.randomBoard(using: &rng)
        var index = SpatialIndex(document: document)
        for stroke in document.strokes {
            index.update(stroke)
        }
        let everything = Rect(minX: -1e300, minY: -1e300, maxX: 1e300, maxY: 1e300)
        #expect(Self.answer(index, everything) == Self.bruteForce(document, everything))
    }

    @Test func farAndNonFiniteCoordinatesDoNotTrap() {
        var document = Document()
        let points = [Point(x: 0, y: 0), Point(x: 1e300, y: -1e300), Point(x: .nan, y: 0), Point(x: 3, y: .infinity)]
        CurveFixtures.add(points, id: StrokeID("odd"), to: &document)
        var index = SpatialIndex(document: document)
        document.apply(.append(StrokeID("odd"), points: [Point(x: 1, y: 1)], offset: 4))
        index.update(document[StrokeID("odd")]!)
        _ = index.segments(intersecting: Rect(minX: -1e308, minY: -1e308, maxX: 1e308, maxY: 1e308))
        _ = index.segments(intersecting: Rect(minX: 0, minY: 0, maxX: 1, maxY: 1))
        _ = Eraser.deletions(along: [Point(x: 0, y: 0)], radius: 5, in: document, index: index)
    }
}
