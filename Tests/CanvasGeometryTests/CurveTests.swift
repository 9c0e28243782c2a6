import CanvasCore
import CanvasGeometry
import CanvasTestSupport
import Testing

@Suite("Curves")
struct CurveTests {
    /// Largest coordinate magnitude of the points, for relative tolerances.
    static func scale(_ points: [Point]) -> Double {
        points.reduce(1) { max($0, abs($1.x), abs($1.y)) }
    }

    static func isFinite(_ point: Point) -> Bool {
        point.x.isFinite && point.y.isFinite
    }

    static func allControlPointsFinite(_ curve: CubicBezier) -> Bool {
        [curve.p0, curve.p1, curve.p2, curve.p3].allSatisfy(isFinite)
    }

    static func randomCurve(using rng: inout SplitMix64) -> CubicBezier {
        CubicBezier(
            CurveFixtures.randomPoint(in: -100...100, using: &rng), CurveFixtures.randomPoint(in: -100...100, using: &rng),
            CurveFixtures.randomPoint(in: -100...100, using: &rng), CurveFixtures.randomPoint(in: -100...100, using: &rng))
    }

    // MARK: Stroke segments

    @Test func segmentsPassThroughEverySampledPoint() {
        let seeds: Range<UInt64> = 10_000..<10_300
        print("CurveTests.segmentsPassThroughEverySampledPoint seeds", seeds)
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let points = CurveFixtures.randomStroke(count: Int.random(in: 2...30, using: &rng), using: &rng)
            let segments = StrokeCurves.segments(of: points, isShape: false)
            #expect(segments.count == points.count - 1, "seed \(seed)")
            let tolerance = 1e-12 * Self.scale(points)
            for (k, segment) in segments.enumerated() {
                #expect(segment.p0 == points[k] && segment.p3 == points[k + 1], "seed \(seed), segment \(k)")
                #expect(segment.point(at: 0) == points[k], "seed \(seed), segment \(k)")
                #expect(segment.point(at: 1).distance(to: points[k + 1]) <= tolerance, "seed \(seed), segment \(k)")
                #expect(segment == StrokeCurves.segment(k, of: points, isShape: false), "seed \(seed), segment \(k)")
            }
        }
    }

    @Test func tangentDirectionsMatchAtInteriorPoints() {
        let seeds: Range<UInt64> = 11_000..<11_300
        print("CurveTests.tangentDirectionsMatchAtInteriorPoints seeds", seeds)
        var joints = 0
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let points = CurveFixtures.randomStroke(count: Int.random(in: 3...30, using: &rng), using: &rng)
            let segments = StrokeCurves.segments(of: points, isShape: false)
            for k in 1..<(points.count - 1) {
                let (before, here, after) = (points[k - 1], points[k], points[k + 1])
                guard before != here, here != after else { continue }
                let incoming = segments[k - 1].derivative(at: 1)
                let outgoing = segments[k].derivative(at: 0)
                // Where the stroke turns straight back the tangent vanishes on both sides.
                let size = min(before.distance(to: here), here.distance(to: after))
                guard incoming.length > 1e-6 * size, outgoing.length > 1e-6 * size else {
                    #expect(incoming.length <= 1e-6 * size && outgoing.length <= 1e-6 * size, "seed \(seed), point \(k)")
                    continue
                }
                let turn = incoming.cross(outgoing) / (incoming.length * outgoing.length)
                #expect(abs(turn) <= 1e-9 && incoming.dot(outgoing) > 0, "seed \(seed), point \(k): directions differ")
                joints += 1
            }
        }
        #expect(joints > 2000)
    }

    @Test func tangentsStayContinuousAcrossRepeatedPoints() {
        // A, B, B, B, C: the curve into B and the curve out of it meet with one tangent;
        // the segments between the copies of B are points.
        let points = [Point(x: 0, y: 0), Point(x: 10, y: 5), Point(x: 10, y: 5), Point(x: 10, y: 5), Point(x: 20, y: 0)]
        let segments = StrokeCurves.segments(of: points, isShape: false)
        let incoming = segments[0].derivative(at: 1)
        let outgoing = segments[3].derivative(at: 0)
        #expect(abs(incoming.cross(outgoing)) <= 1e-9 * incoming.length * outgoing.length)
        #expect(incoming.dot(outgoing) > 0)
        for k in 1...2 {
            #expect(segments[k].hullBounds == Rect(minX: 10, minY: 5, maxX: 10, maxY: 5))
        }
    }

    @Test(arguments: [
        [Point(x: 3, y: 4), Point(x: 3, y: 4)],
        [Point(x: 3, y: 4), Point(x: 8, y: -1)],
        Array(repeating: Point(x: -7, y: 2), count: 10),
        [Point(x: 0, y: 0), Point(x: 0, y: 0), Point(x: 0, y: 0), Point(x: 5, y: 0), Point(x: 5, y: 0), Point(x: 5, y: 5)],
        [Point(x: 1, y: 1), Point(x: 1.0.nextUp, y: 1), Point(x: 1.0.nextUp, y: 1.0.nextUp), Point(x: 2, y: 2)],
        [Point(x: 0, y: 0), Point(x: 1e-300, y: 0), Point(x: 1, y: 1e-300), Point(x: 1, y: 1)],
        [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 0, y: 0), Point(x: 10, y: 0)],
        [Point(x: 1e12, y: -1e12), Point(x: 1e12 + 1, y: -1e12), Point(x: 1e12 + 1, y: -1e12 + 1)],
    ] as [[Point]])
    func degenerateInputNeverGivesNaN(points: [Point]) {
        for segment in StrokeCurves.segments(of: points, isShape: false) {
            #expect(Self.allControlPointsFinite(segment))
            for step in 0...64 {
                let t = Double(step) / 64
                #expect(Self.isFinite(segment.point(at: t)) && Self.isFinite(segment.derivative(at: t)))
            }
            #expect(segment.chordDeviation.isFinite)
            #expect(segment.bounds.minX.isFinite && segment.bounds.maxY.isFinite)
            #expect(segment.flattened(tolerance: 0.1).allSatisfy { Self.isFinite($0.point) })
        }
    }

    @Test func twoPointStrokeIsTheStraightSegment() {
        let a = Point(x: 3, y: 4)
        let b = Point(x: 9, y: -4)
        let segment = StrokeCurves.segment(0, of: [a, b], isShape: false)
        for step in 0...16 {
            let t = Double(step) / 16
            #expect(segment.point(at: t).distance(to: a.interpolated(to: b, at: t)) <= 1e-12)
        }
    }

    @Test func noCuspWithinASegment() {
        let seeds: Range<UInt64> = 12_000..<12_300
        print("CurveTests.noCuspWithinASegment seeds", seeds)
        var checked = 0
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let points = CurveFixtures.randomStroke(count: Int.random(in: 2...30, using: &rng), using: &rng)
            for (k, segment) in StrokeCurves.segments(of: points, isShape: false).enumerated() where segment.p0 != segment.p3 {
                let chord = segment.p0.distance(to: segment.p3)
                var previous = segment.derivative(at: 0.001)
                for step in 1...999 {
                    let derivative = segment.derivative(at: Double(step) / 1000)
                    // A cusp: the speed drops to nothing, and the direction flips across it.
                    #expect(derivative.length > 1e-6 * chord, "seed \(seed), segment \(k), t \(step)/1000: speed vanishes")
                    #expect(derivative.dot(previous) > 0, "seed \(seed), segment \(k), t \(step)/1000: direction flips")
                    previous = derivative
                }
                checked += 1
            }
        }
        #expect(checked > 3000)
    }

    @Test func shapesArePolylines() {
        let seeds: Range<UInt64> = 13_000..<13_100
        print("CurveTests.shapesArePolylines seeds", seeds)
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let points = CurveFixtures.randomStroke(count: Int.random(in: 2...12, using: &rng), using: &rng)
            let segments = StrokeCurves.segments(of: points, isShape: true)
            #expect(segments.count == points.count - 1)
            let tolerance = 1e-12 * Self.scale(points)
            for (k, segment) in segments.enumerated() {
                #expect(segment.p0 == points[k] && segment.p3 == points[k + 1])
                #expect(segment.chordDeviation <= tolerance, "seed \(seed), segment \(k)")
                for step in 0...8 {
                    let t = Double(step) / 8
                    let expected = points[k].interpolated(to: points[k + 1], at: t)
                    #expect(segment.point(at: t).distance(to: expected) <= tolerance, "seed \(seed), segment \(k)")
                }
            }
        }
    }

    // MARK: Subdivision, bounds, flattening

    @Test func splitAndTrimReproduceTheCurveAtMappedParameters() {
        let seeds: Range<UInt64> = 14_000..<14_500
        print("CurveTests.splitAndTrimReproduceTheCurveAtMappedParameters seeds", seeds)
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let curve = Self.randomCurve(using: &rng)
            let t = Double.random(in: 0...1, using: &rng)
            var (t0, t1) = (Double.random(in: 0...1, using: &rng), Double.random(in: 0...1, using: &rng))
            if t0 > t1 { swap(&t0, &t1) }
            let (left, right) = curve.split(at: t)
            let trimmed = curve.trimmed(from: t0, to: t1)
            #expect(left.p0 == curve.p0 && right.p3 == curve.p3 && left.p3 == right.p0, "seed \(seed)")
            for step in 0...20 {
                let s = Double(step) / 20
                #expect(left.point(at: s).distance(to: curve.point(at: s * t)) <= 1e-10, "seed \(seed), s \(s)")
                #expect(right.point(at: s).distance(to: curve.point(at: t + s * (1 - t))) <= 1e-10, "seed \(seed), s \(s)")
                #expect(trimmed.point(at: s).distance(to: curve.point(at: t0 + s * (t1 - t0))) <= 1e-9, "seed \(seed), s \(s)")
            }
        }
    }

    @Test func trimmedHandlesTheWholeRangeAndItsEnds() {
        var rng = SplitMix64(seed: 15_000)
        let curve = Self.randomCurve(using: &rng)
        #expect(curve.trimmed(from: 0, to: 1) == curve)
        #expect(curve.trimmed(from: 0, to: 0.25) == curve.split(at: 0.25).0)
        #expect(curve.trimmed(from: 0.25, to: 1) == curve.split(at: 0.25).1)
        let point = curve.trimmed(from: 0.5, to: 0.5)
        #expect(point.hullBounds.width <= 1e-12 && point.hullBounds.height <= 1e-12)
    }

    @Test func boundsContainTheCurveAndAreTight() {
        let seeds: Range<UInt64> = 16_000..<16_300
        print("CurveTests.boundsContainTheCurveAndAreTight seeds", seeds)
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let curve: CubicBezier
            if seed % 3 == 0 {
                let points = CurveFixtures.randomStroke(count: 8, using: &rng)
                curve = StrokeCurves.segment(Int.random(in: 0..<7, using: &rng), of: points, isShape: false)
            } else {
                curve = Self.randomCurve(using: &rng)
            }
            let bounds = curve.bounds
            let samples = 2000
            var best: [(t: Double, value: Double)] = Array(repeating: (0, .infinity), count: 4)
            // Per side, the distance of the curve's point at t to that side (0 when on it).
            func gaps(_ t: Double) -> [Double] {
                let p = curve.point(at: t)
                return [p.x - bounds.minX, p.y - bounds.minY, bounds.maxX - p.x, bounds.maxY - p.y]
            }
            for step in 0...samples {
                let t = Double(step) / Double(samples)
                for (side, gap) in gaps(t).enumerated() {
                    #expect(gap >= -1e-9, "seed \(seed), t \(t): the curve leaves its bounds")
                    if gap < best[side].value {
                        best[side] = (t, gap)
                    }
                }
            }
            for side in 0..<4 {
                // Refine the closest sample by ternary search: the gap is smooth near its minimum.
                var low = max(0, best[side].t - 1.0 / Double(samples))
                var high = min(1, best[side].t + 1.0 / Double(samples))
                for _ in 0..<100 {
                    let a = low + (high - low) / 3
                    let b = high - (high - low) / 3
                    if gaps(a)[side] < gaps(b)[side] { high = b } else { low = a }
                }
                let touch = min(best[side].value, gaps((low + high) / 2)[side])
                #expect(touch <= 1e-9, "seed \(seed), side \(side): the bounds are not tight (gap \(touch))")
            }
        }
    }

    @Test func flattenedPiecesStayWithinToleranceAtTheSameParameter() {
        let seeds: Range<UInt64> = 17_000..<17_200
        print("CurveTests.flattenedPiecesStayWithinToleranceAtTheSameParameter seeds", seeds)
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let curve = Self.randomCurve(using: &rng)
            let tolerance = [0.01, 0.1, 0.5, 2][Int(seed % 4)]
            let pieces = curve.flattened(tolerance: tolerance)
            #expect(pieces.first?.t == 0 && pieces.last?.t == 1, "seed \(seed)")
            #expect(pieces.first?.point == curve.p0 && pieces.last?.point == curve.p3, "seed \(seed)")
            for (start, end) in zip(pieces, pieces.dropFirst()) {
                #expect(start.t < end.t, "seed \(seed)")
                #expect(end.point.distance(to: curve.point(at: end.t)) <= 1e-9, "seed \(seed)")
                for step in 0...32 {
                    let s = Double(step) / 32
                    let onCurve = curve.point(at: start.t + s * (end.t - start.t))
                    let onChord = start.point.interpolated(to: end.point, at: s)
                    #expect(onCurve.distance(to: onChord) <= tolerance + 1e-9, "seed \(seed), t \(start.t)…\(end.t)")
                }
            }
        }
    }

    @Test func flatteningAStraightLineGivesOnePiece() {
        let line = CubicBezier(line: Point(x: 0, y: 0), Point(x: 100, y: 50))
        #expect(line.flattened(tolerance: 0.01).map(\.t) == [0, 1])
    }

    // MARK: Visible runs

    @Test func visibleRunsSpanExactlyTheVisibleParameters() {
        let seeds: Range<UInt64> = 18_000..<18_200
        print("CurveTests.visibleRunsSpanExactlyTheVisibleParameters seeds", seeds)
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let isShape = rng.chance(0.3)
            let points = CurveFixtures.randomStroke(count: Int.random(in: 2...15, using: &rng), using: &rng)
            let id = StrokeID("s")
            var document = Document()
            CurveFixtures.add(points, id: id, isShape: isShape, to: &document)
            let last = Double(points.count - 1)
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                // Whole-number bounds sometimes, so that runs start and end on segment joints.
                var a = Double.random(in: -0.5...(last + 0.5), using: &rng)
                var b = a + Double.random(in: 0...2, using: &rng)
                if rng.chance(0.3) { (a, b) = (a.rounded(), b.rounded()) }
                document.apply(.delete(id, start: a, end: b))
            }
            let stroke = document[id]!
            let runs = StrokeCurves.visibleRuns(of: stroke)
            let visible = stroke.visible.intervals
            #expect(runs.count == visible.count, "seed \(seed): \(runs.count) runs for \(stroke.visible)")
            let tolerance = 1e-9 * CurveTests.scale(points)
            for (run, interval) in zip(runs, visible) {
                let start = CurveFixtures.point(at: interval.lowerBound, of: points, isShape: isShape)
                let end = CurveFixtures.point(at: interval.upperBound, of: points, isShape: isShape)
                #expect(run.first!.p0.distance(to: start) <= tolerance, "seed \(seed), run \(interval)")
                #expect(run.last!.p3.distance(to: end) <= tolerance, "seed \(seed), run \(interval)")
                for (a, b) in zip(run, run.dropFirst()) {
                    #expect(a.p3.distance(to: b.p0) <= tolerance, "seed \(seed): a run has a gap")
                }
                // Each piece is its segment between the mapped parameters.
                let first = Int(interval.lowerBound.rounded(.down))
                #expect(run.count == Int(interval.upperBound.rounded(.up)) - first, "seed \(seed), run \(interval)")
                for (offset, piece) in run.enumerated() {
                    let k = first + offset
                    let t0 = max(0, interval.lowerBound - Double(k))
                    let t1 = min(1, interval.upperBound - Double(k))
                    let segment = StrokeCurves.segment(k, of: points, isShape: isShape)
                    for step in 0...8 {
                        let s = Double(step) / 8
                        let expected = segment.point(at: t0 + s * (t1 - t0))
                        #expect(piece.point(at: s).distance(to: expected) <= tolerance, "seed \(seed), segment \(k)")
                    }
                }
            }
        }
    }

    @Test func erasedStrokeAndPlaceholderHaveNoRuns() {
        var document = Document()
        let id = StrokeID("s")
        CurveFixtures.add([Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 20, y: 5)], id: id, to: &document)
        document.apply(.removeStroke(id))
        #expect(StrokeCurves.visibleRuns(of: document[id]!).isEmpty)
        document.apply(.append(StrokeID("early"), points: [Point(x: 1, y: 1)], offset: 1))
        #expect(StrokeCurves.visibleRuns(of: document[StrokeID("early")]!).isEmpty)
        #expect(!StrokeCurves.isVisibleDot(document[StrokeID("early")]!))
    }

    @Test func aDotIsVisibleUntilErased() {
        var document = Document()
        let id = StrokeID("dot")
        CurveFixtures.add([Point(x: 4, y: 4)], id: id, to: &document)
        #expect(StrokeCurves.visibleRuns(of: document[id]!).isEmpty)
        #expect(StrokeCurves.isVisibleDot(document[id]!))
        document.apply(.delete(id, start: 0, end: 1))
        #expect(!StrokeCurves.isVisibleDot(document[id]!))
    }
}
