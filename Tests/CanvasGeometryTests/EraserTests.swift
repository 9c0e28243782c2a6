import CanvasCore
import CanvasGeometry
import CanvasTestSupport
import Testing

@Suite("Eraser")
struct EraserTests {
    /// Points 0, 10, …, 100 on the x axis: a straight stroke whose parameter u is x / 10
    /// (centripetal Catmull-Rom through evenly spaced collinear points moves evenly).
    static let ruler = (0...10).map { Point(x: Double($0) * 10, y: 0) }

    static func erase(_ document: Document, along path: [Point], radius: Double) -> [Operation] {
        Eraser.deletions(along: path, radius: radius, in: document, index: SpatialIndex(document: document))
    }

    static func expectDeletions(
        _ operations: [Operation], _ expected: [(String, Double, Double)], tolerance: Double = 1e-9,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(operations.count == expected.count, "\(operations)", sourceLocation: sourceLocation)
        for (operation, (id, start, end)) in zip(operations, expected) {
            guard case .delete(let actualID, let actualStart, let actualEnd) = operation else {
                Issue.record("not a DELETE: \(operation)", sourceLocation: sourceLocation)
                continue
            }
            #expect(actualID == StrokeID(id), sourceLocation: sourceLocation)
            #expect(
                abs(actualStart - start) <= tolerance && abs(actualEnd - end) <= tolerance, "\(operation)",
                sourceLocation: sourceLocation)
        }
    }

    // MARK: Single cases

    @Test func aCircleAcrossTheMiddleErasesOneInterval() {
        let document = CurveFixtures.document([Self.ruler])
        Self.expectDeletions(Self.erase(document, along: [Point(x: 50, y: 0)], radius: 5), [("s0", 4.5, 5.5)])
        // Off the line by 3: the circle meets it 4 either side.
        Self.expectDeletions(Self.erase(document, along: [Point(x: 43, y: 3)], radius: 5), [("s0", 3.9, 4.7)])
    }

    @Test func aPathAcrossTheStrokeErasesOneInterval() {
        let document = CurveFixtures.document([Self.ruler])
        let path = [Point(x: 50, y: -40), Point(x: 50, y: -10), Point(x: 52, y: 20)]
        let operations = Self.erase(document, along: path, radius: 5)
        // The second step crosses the axis at x = 50 + 2·10/30.
        let crossing = 50 + 2.0 * 10 / 30
        let halfWidth = 5 * (30.0 * 30 + 2 * 2).squareRoot() / 30
        Self.expectDeletions(operations, [("s0", (crossing - halfWidth) / 10, (crossing + halfWidth) / 10)])
    }

    @Test func aPathAlongTheStrokeErasesItsLength() {
        let document = CurveFixtures.document([Self.ruler])
        let operations = Self.erase(document, along: [Point(x: 20, y: 1), Point(x: 40, y: -1), Point(x: 60, y: 1)], radius: 5)
        let reach = (25.0 - 1).squareRoot()
        Self.expectDeletions(operations, [("s0", (20 - reach) / 10, (60 + reach) / 10)])
    }

    /// A peer may send a point 10¹⁹ px away, where a rounding error is thousands of pixels
    /// and no piece of the segment towards it can be told inside or outside a 12 px circle.
    /// Erasing along that stroke returns (at most `Eraser.maximumPieces` pieces a segment and
    /// capsule: it once split all 2⁴⁰, found by FuzzReplica) and still erases the part near
    /// the origin, where the coordinates resolve.
    @Test func aPointFarAwayCannotHoldTheEraserUp() {
        let points = [Point(x: 0, y: 0), Point(x: 2.5e19, y: 45), Point(x: 17, y: 8)]
        let document = CurveFixtures.document([points])
        let operations = Self.erase(document, along: points, radius: 12)
        #expect(!operations.isEmpty)
        for case .delete(_, let start, let end) in operations {
            #expect(start.isFinite && end.isFinite && start < end && start >= 0 && end <= 2)
        }
        let nearOrigin = Self.erase(document, along: [Point(x: 17, y: 8)], radius: 12)
        #expect(!nearOrigin.isEmpty, "the end near the origin is within reach of a circle there")
    }

    @Test func aStrokeOutOfReachYieldsNothing() {
        let document = CurveFixtures.document([Self.ruler])
        #expect(Self.erase(document, along: [Point(x: 50, y: 5.001)], radius: 5).isEmpty)
        #expect(Self.erase(document, along: [Point(x: 50, y: 30), Point(x: 90, y: 30)], radius: 5).isEmpty)
        #expect(Self.erase(document, along: [Point(x: -8, y: 0)], radius: 5).isEmpty)
    }

    @Test func touchingAtOnePointErasesNothing() {
        let document = CurveFixtures.document([Self.ruler])
        #expect(Self.erase(document, along: [Point(x: 50, y: 5)], radius: 5).isEmpty)
        #expect(Self.erase(document, along: [Point(x: 105, y: 0)], radius: 5).isEmpty)
    }

    @Test func erasingTwiceYieldsNothingTheSecondTime() {
        let seeds: Range<UInt64> = 20_000..<20_100
        print("EraserTests.erasingTwiceYieldsNothingTheSecondTime seeds", seeds)
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            var document = CurveFixtures.document((0..<3).map { _ in CurveFixtures.randomStroke(count: 20, using: &rng) })
            let index = SpatialIndex(document: document)
            let centre = document.strokes[0].points[Int.random(in: 0..<20, using: &rng)]
            let path = [centre, centre + Point(x: 30, y: 10)]
            let first = Eraser.deletions(along: path, radius: 12, in: document, index: index)
            #expect(!first.isEmpty, "seed \(seed)")
            for operation in first {
                #expect(document.apply(operation).isNovel, "seed \(seed): \(operation) erases nothing new")
            }
            #expect(Eraser.deletions(along: path, radius: 12, in: document, index: index).isEmpty, "seed \(seed)")
        }
    }

    @Test func alreadyErasedPartsAreNotErasedAgain() {
        var document = CurveFixtures.document([Self.ruler])
        document.apply(.delete(StrokeID("s0"), start: 4.8, end: 5.2))
        let operations = Self.erase(document, along: [Point(x: 50, y: 0)], radius: 5)
        Self.expectDeletions(operations, [("s0", 4.5, 4.8), ("s0", 5.2, 5.5)])
        document.apply(.delete(StrokeID("s0"), start: 4, end: 6))
        #expect(Self.erase(document, along: [Point(x: 50, y: 0)], radius: 5).isEmpty)
    }

    @Test func operationsAreSortedByStrokeThenStart() {
        // Three parallel rulers, added out of order; the path crosses each twice.
        var document = Document()
        for (id, y) in [("c", 20.0), ("a", 0.0), ("b", 10.0)] {
            CurveFixtures.add(Self.ruler.map { Point(x: $0.x, y: y) }, id: StrokeID(id), to: &document)
        }
        let path = [Point(x: 80, y: 30), Point(x: 80, y: -10), Point(x: 20, y: -10), Point(x: 20, y: 30)]
        let operations = Self.erase(document, along: path, radius: 2)
        Self.expectDeletions(
            operations, [("a", 1.8, 2.2), ("a", 7.8, 8.2), ("b", 1.8, 2.2), ("b", 7.8, 8.2), ("c", 1.8, 2.2), ("c", 7.8, 8.2)])
    }

    @Test func placeholdersAndStrokesWithoutPointsAreIgnored() {
        var document = Document()
        document.apply(.append(StrokeID("early"), points: [Point(x: 50, y: 0), Point(x: 60, y: 0)], offset: 1))
        document.apply(.delete(StrokeID("erased-first"), start: 0, end: 3))
        let index = SpatialIndex(document: document)
        #expect(index.segments(intersecting: Rect(minX: -1000, minY: -1000, maxX: 1000, maxY: 1000)).isEmpty)
        #expect(Eraser.deletions(along: [Point(x: 50, y: 0)], radius: 50, in: document, index: index).isEmpty)
    }

    @Test func aDotIsErasedAsZeroToOne() {
        var document = Document()
        CurveFixtures.add([Point(x: 5, y: 5)], id: StrokeID("dot"), to: &document)
        #expect(Self.erase(document, along: [Point(x: 9, y: 5)], radius: 3.9).isEmpty)
        let operations = Self.erase(document, along: [Point(x: 0, y: 0), Point(x: 9, y: 9)], radius: 1)
        #expect(operations == [.delete(StrokeID("dot"), start: 0, end: 1)])
        document.apply(operations[0])
        #expect(Self.erase(document, along: [Point(x: 5, y: 5)], radius: 1).isEmpty)
    }

    @Test func aHugeRadiusErasesEachStrokeWhole() {
        var rng = SplitMix64(seed: 21_000)
        let strokes = (0..<5).map { CurveFixtures.randomStroke(count: 10 + $0, using: &rng) }
        let document = CurveFixtures.document(strokes)
        let operations = Self.erase(document, along: [Point(x: 0, y: 0)], radius: 1e6)
        #expect(operations == strokes.indices.map { .delete(StrokeID("s\($0)"), start: 0, end: Double(strokes[$0].count - 1)) })
    }

    @Test func shapesAreErasedAsPolylines() {
        let square = [Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 100, y: 100), Point(x: 0, y: 100), Point(x: 0, y: 0)]
        let document = CurveFixtures.document([square], isShape: true)
        Self.expectDeletions(Self.erase(document, along: [Point(x: 100, y: 0)], radius: 10), [("s0", 0.9, 1.1)])
        // The first and last points coincide: one circle erases both ends.
        Self.expectDeletions(Self.erase(document, along: [Point(x: 0, y: 0)], radius: 10), [("s0", 0, 0.1), ("s0", 3.9, 4)])
        // Inside the square, out of reach of its sides: nothing.
        #expect(Self.erase(document, along: [Point(x: 50, y: 50)], radius: 40).isEmpty)
    }

    @Test(arguments: [0, -1, Double.nan, Double.infinity])
    func anInvalidRadiusErasesNothing(radius: Double) {
        let document = CurveFixtures.document([Self.ruler])
        #expect(Self.erase(document, along: [Point(x: 50, y: 0)], radius: radius).isEmpty)
    }

    @Test func anEmptyOrNonFinitePathErasesNothing() {
        let document = CurveFixtures.document([Self.ruler])
        #expect(Self.erase(document, along: [], radius: 5).isEmpty)
        #expect(Self.erase(document, along: [Point(x: 50, y: 0), Point(x: .nan, y: 0)], radius: 5).isEmpty)
    }

    // MARK: Accuracy

    /// Random strokes and eraser paths against the brute-force reference: every place
    /// where the eraser's answer differs from the truth must lie within 0.05 px of arc of a
    /// true boundary, unless the stroke runs within 1e-5 px of the circle there (a grazing
    /// touch, where no finite-precision method can place the boundary).
    @Test func boundariesAreWithinFiveHundredthsOfAPixelOfTheTrueIntersections() {
        let seeds: Range<UInt64> = 22_000..<23_000
        print("EraserTests.boundariesAreWithinFiveHundredthsOfAPixelOfTheTrueIntersections seeds", seeds)
        var boundaries = 0
        for seed in seeds {
            boundaries += checkAccuracy(seed: seed)
        }
        #expect(boundaries > 1000)
    }

    /// Checks one random case; returns the number of interval boundaries checked.
    func checkAccuracy(seed: UInt64) -> Int {
        var rng = SplitMix64(seed: seed)
        let isShape = rng.chance(0.2)
        let points = CurveFixtures.randomStroke(count: Int.random(in: 2...25, using: &rng), using: &rng)
        let radius = 0.5 * CurveFixtures.expRandom(in: 0...4.8, using: &rng)
        var path = [points.randomElement(using: &rng)! + radius * CurveFixtures.randomPoint(in: -1.5...1.5, using: &rng)]
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            let step = rng.chance(0.1) ? Point(x: 0, y: 0) : radius * CurveFixtures.randomPoint(in: -3...3, using: &rng)
            path.append(path.last! + step)
        }
        let document = CurveFixtures.document([points], isShape: isShape)
        let operations = Eraser.deletions(along: path, radius: radius, in: document, index: SpatialIndex(document: document))
        let erased = CurveFixtures.intervals(of: operations)[StrokeID("s0")] ?? IntervalSet()
        let truth = CurveFixtures.referenceErased(points, isShape: isShape, path: path, radius: radius)
        let context = "seed \(seed), radius \(radius), path \(path)"
        func excess(_ u: Double) -> Double {
            CurveFixtures.distance(from: CurveFixtures.point(at: u, of: points, isShape: isShape), toPath: path) - radius
        }
        let last = Double(points.count - 1)
        for interval in erased.intervals {
            for bound in [interval.lowerBound, interval.upperBound] where bound > 0 && bound < last {
                #expect(abs(excess(bound)) <= 1e-5, "\(context): boundary \(bound) is off the circle")
            }
        }
        let trueBounds = truth.intervals.flatMap { [$0.lowerBound, $0.upperBound] }
        let difference = erased.subtracting(truth).union(truth.subtracting(erased))
        for piece in difference.intervals {
            let nextToTrueBoundary = trueBounds.contains { abs($0 - piece.lowerBound) <= 1e-12 || abs($0 - piece.upperBound) <= 1e-12 }
            let length = CurveFixtures.arcLength(from: piece.lowerBound, to: piece.upperBound, of: points, isShape: isShape)
            if nextToTrueBoundary && length <= 0.05 {
                continue
            }
            let grazing = (0...64).allSatisfy { step in
                abs(excess(piece.lowerBound + (piece.upperBound - piece.lowerBound) * Double(step) / 64)) <= 1e-5
            }
            #expect(grazing, "\(context): erased \(erased), truth \(truth), differ on \(piece)")
        }
        return 2 * erased.intervals.count
    }

    @Test func boundariesStayAccurateForAPathThroughManyStrokes() {
        let seeds: Range<UInt64> = 25_000..<25_050
        print("EraserTests.boundariesStayAccurateForAPathThroughManyStrokes seeds", seeds)
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let strokes = (0..<15).map { _ in CurveFixtures.randomStroke(count: 20, using: &rng) }
            let document = CurveFixtures.document(strokes)
            let path = (0..<6).map { _ in CurveFixtures.randomPoint(in: -300...300, using: &rng) }
            let erased = CurveFixtures.intervals(of: Self.erase(document, along: path, radius: 15))
            for (number, points) in strokes.enumerated() {
                let truth = CurveFixtures.referenceErased(points, isShape: false, path: path, radius: 15)
                let result = erased[StrokeID("s\(number)")] ?? IntervalSet()
                #expect(result.intervals.count == truth.intervals.count, "seed \(seed), stroke \(number)")
                for (a, b) in zip(result.intervals, truth.intervals) {
                    for (x, y) in [(a.lowerBound, b.lowerBound), (a.upperBound, b.upperBound)] {
                        let gap = CurveFixtures.arcLength(from: min(x, y), to: max(x, y), of: points)
                        #expect(gap <= 0.05, "seed \(seed), stroke \(number): \(result) against \(truth)")
                    }
                }
            }
        }
    }

    @Test func theAnswerIsDeterministic() {
        var rng = SplitMix64(seed: 24_000)
        let document = CurveFixtures.document((0..<20).map { _ in CurveFixtures.randomStroke(count: 30, using: &rng) })
        let path = (0..<8).map { _ in CurveFixtures.randomPoint(in: -300...300, using: &rng) }
        let first = Self.erase(document, along: path, radius: 20)
        #expect(!first.isEmpty)
        #expect(Self.erase(document, along: path, radius: 20) == first)
    }
}
