import CanvasCore
import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasGeometry

/// Closed shapes drawn in several strokes (`JoinedStrokes`,
/// `ShapeRecognizer.recognize(_:after:madeAnArrow:)`):
/// boxes, diamonds and ellipses cut into two to four strokes, drawn in any order and either
/// way round, the pen landing a little off where the last stroke stopped; and what must not
/// be joined: a D's stem and bowl, an arrow's closed head, strokes apart.
@Suite("Closed shapes drawn in several strokes")
struct JoinedStrokesTests {
    /// The ways a box is cut into strokes, as the corners (0-3, counted round it) each stroke
    /// starts and ends at: two L's, a U and its lid, an L and two sides, four sides.
    static let boxCuts: [[(Int, Int)]] = [[(0, 2), (2, 4)], [(1, 4), (0, 1)], [(0, 2), (2, 3), (3, 4)], [
        (0, 1), (2, 3), (1, 2), (3, 4),
    ]]

    /// The strokes of a closed outline through `corners` (the first not repeated), cut as
    /// `cuts` says, each drawn in random direction, in the order listed, landing up to 3 %
    /// of the size off the corner where it should start.
    static func strokes(
        of corners: [Point], cuts: [(Int, Int)], size: Double, pen: inout SyntheticPen
    ) -> [[Point]] {
        cuts.map { first, last in
            var waypoints = (first...last).map { corners[$0 % corners.count] }
            waypoints[0] = waypoints[0] + Point(x: pen.random(in: -0.03...0.03), y: pen.random(in: -0.03...0.03)) * size
            if pen.random(in: 0...1) < 0.5 { waypoints.reverse() }
            return pen.stroke(through: waypoints, samples: 30 * (last - first))
        }
    }

    @Test(arguments: RecognitionTests.seeds) func boxesAndDiamondsDrawnInSeveralStrokes(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let size = RecognitionTests.size(&pen)
        pen.jitter = RecognitionTests.jitter(for: size)
        // A rectangle of any proportion and rotation, or a diamond (a 2:1 rhombus, a
        // flowchart's decision).
        let isDiamond = seed % 3 == 0
        let height = pen.random(in: 0.4...1)
        let unit =
            isDiamond
            ? [Point(x: 0, y: 0), Point(x: 0.5, y: -0.25), Point(x: 1, y: 0), Point(x: 0.5, y: 0.25)]
            : [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: height), Point(x: 0, y: height)]
        let corners = placed(
            unit, size: size, rotation: pen.random(in: 0...(2 * .pi)), origin: Point(x: 300, y: 300))
        let cuts = Self.boxCuts[Int(seed % 4)]
        let strokes = Self.strokes(of: corners, cuts: cuts, size: size, pen: &pen)
        let expected: Set<ShapeKind> = isDiamond ? [.diamond] : [.rectangle]
        let shape = ShapeRecognizer.recognizeClosedShape(joining: strokes)
        #expect(expected.contains(shape.kind), "seed \(seed): \(shape.kind), cut \(cuts)")
        #expect(
            RecognitionTests.match(Array(shape.points.dropLast()), corners, within: 0.06 * size),
            "seed \(seed): the corners drawn")
        // As a node reads them one by one: the last stroke takes all the others with it.
        let readings = ShapeRecognizer.recognizeInARow(strokes)
        #expect(readings.last?.joins == strokes.count - 1, "seed \(seed): \(readings.map(\.joins))")
        #expect(readings.last.map { expected.contains($0.shape.kind) } == true, "seed \(seed)")
        #expect(readings.dropLast().allSatisfy { $0.joins == 0 }, "seed \(seed): \(readings.map(\.shape.kind))")
        // Drawn in another order, the strokes make the same shape.
        let shuffled = ShapeRecognizer.recognizeClosedShape(joining: strokes.reversed())
        #expect(shuffled.kind == shape.kind, "seed \(seed): drawn in the other order")
    }

    @Test(arguments: RecognitionTests.seeds) func ellipsesDrawnInArcs(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let size = RecognitionTests.size(&pen)
        pen.jitter = RecognitionTests.jitter(for: size)
        let radii = (size / 2, size / 2 * pen.random(in: 0.25...1))
        let rotation = pen.random(in: 0...(2 * .pi))
        let count = 2 + Int(seed % 2)
        let start = pen.random(in: 0...(2 * .pi))
        // Arcs of about equal shares (a third to two thirds of a turn for two), so that no
        // stroke, nor the first two of three, closes enough of the ellipse to be one.
        let inner = (1..<count).map { Double($0) / Double(count) + pen.random(in: -0.04...0.04) * Double(4 - count) }
        let cuts = [0] + inner + [1]
        let arcs = zip(cuts, cuts.dropFirst()).map { from, to in
            let arc = pen.arc(
                center: Point(x: 400, y: 400), radii: radii, rotation: rotation, start: start + 2 * .pi * from,
                sweep: 2 * .pi * (to - from), samples: 40)
            return pen.random(in: 0...1) < 0.5 ? arc.reversed() : arc
        }
        #expect(ShapeRecognizer.recognizeClosedShape(joining: arcs).kind == .ellipse, "seed \(seed)")
        #expect(ShapeRecognizer.recognizeInARow(arcs).last?.joins == count - 1, "seed \(seed)")
    }

    /// A flowchart's terminator, a stadium (2:1 to 4:1, any rotation), drawn as its two long
    /// sides and its two ends, in any order and either way round, each landing a little
    /// off, each end an arc of a third of a turn (flatter than a half circle, as the
    /// flowchart writers draw them). The ends are curves of many straight runs, which a
    /// box's sides are not, but each rounds one end off (`JoinedStrokes.isRoundedEnd`): when
    /// the sides run on past the ends (by a tenth or a fifth of the height, as a hand
    /// overshoots), the joined stroke turns sharply there, its ellipse does not pass, and the
    /// strokes make a rectangle; when they do not, the ellipse passes and is kept (rounded
    /// ends are taken only when the strokes make no other closed shape). As first run: of 8
    /// stadiums each, 7 ellipses when the sides stop at the ends, 2 and 6 rectangles when
    /// they run on; no rectangle without rounded ends, and the others left alone (4 whose
    /// ellipse is refused as a polygon of six or eight sides, which the rectangle does not
    /// follow twice as closely, as a stadium drawn in one stroke, docs/recognition.md; 2
    /// whose sides run on so far that a junction is wider than a tenth of the size).
    @Test func stadiumsDrawnAsSidesAndArcs() {
        var made: [ShapeKind: [Int]] = [:]
        for seed in RecognitionTests.seeds {
            var pen = SyntheticPen(seed: seed, jitter: 0)
            let size = RecognitionTests.size(&pen)
            pen.jitter = RecognitionTests.jitter(for: size)
            let (length, height) = (size, size / pen.random(in: 2...4))
            let (rotation, origin) = (pen.random(in: 0...(2 * .pi)), Point(x: 500, y: 400))
            let half = (length - height) / 2
            let overshoot = Int(seed % 3)
            func off() -> Point { Point(x: pen.random(in: -0.03...0.03), y: pen.random(in: -0.03...0.03)) * height }
            func side(_ y: Double) -> [Point] {
                let past = Double(overshoot) * 0.1 * height
                let ends = [Point(x: -half - past, y: y) + off(), Point(x: half + past, y: y)]
                return pen.stroke(through: placed(ends, size: 1, rotation: rotation, origin: origin), samples: 40)
            }
            // An arc of a third of a turn from the end of one side to the end of the other,
            // bulging out by 0.29 of the height.
            func end(_ x: Double, from start: Double) -> [Point] {
                let radius = height / 2 / sin(Double.pi / 3)
                let center = Point(x: x - (x > 0 ? 1 : -1) * radius * cos(Double.pi / 3), y: 0) + off()
                return pen.arc(
                    center: origin + rotated(center, by: rotation), radii: (radius, radius), rotation: rotation,
                    start: start, sweep: 2 * Double.pi / 3, samples: 30)
            }
            var strokes = [
                side(-height / 2), end(half, from: -Double.pi / 3), side(height / 2),
                end(-half, from: 2 * Double.pi / 3),
            ]
            for k in strokes.indices where pen.random(in: 0...1) < 0.5 { strokes[k].reverse() }
            let order = [[0, 1, 2, 3], [0, 2, 1, 3], [1, 3, 0, 2], [3, 2, 1, 0]][Int(seed % 4)]
            let drawn = order.map { strokes[$0] }
            let shape = ShapeRecognizer.recognizeClosedShape(joining: drawn)
            made[shape.kind, default: [0, 0, 0]][overshoot] += 1
            #expect([.rectangle, .ellipse, .none].contains(shape.kind), "seed \(seed): \(shape.kind)")
            guard shape.kind != .none else { continue }
            #expect(ShapeRecognizer.recognizeInARow(drawn).last?.joins == 3, "seed \(seed)")
            guard shape.kind == .rectangle else { continue }
            let verdicts = ShapeRecognizer.explainClosedShape(joining: drawn).hypotheses.map(\.verdict)
            #expect(verdicts.contains { $0.hasPrefix("chosen (strokes") && $0.contains("taken for rounded ends") })
            // Its corners, in the stadium's frame: its long sides along the drawn ones, its
            // short sides between where the ends begin and where they bulge out to.
            for corner in shape.points.dropLast().map({ rotated($0 - origin, by: -rotation) }) {
                #expect(abs(abs(corner.y) - height / 2) <= 0.1 * height, "seed \(seed): \(corner)")
                #expect(
                    (half - 0.1 * height...half + 0.4 * height).contains(abs(corner.x)), "seed \(seed): \(corner)")
            }
        }
        #expect(made[.ellipse, default: [0, 0, 0]][0] >= 7, "ended where the sides end: \(made)")
        #expect(made[.rectangle, default: [0, 0, 0]][0] == 0, "ended where the sides end: \(made)")
        #expect(made[.rectangle, default: [0, 0, 0]][1] + made[.rectangle, default: [0, 0, 0]][2] >= 8, "\(made)")
    }

    /// A circle or ellipse (up to 2:1, any rotation) drawn as two arcs whose ends run on past
    /// each other (7° to 20° each, as flowchart writers draw a connection circle), the second
    /// arc's ellipse a little off the first's so that they cross near both junctions: the
    /// ends lie up to a third of the size apart, mostly too far for a junction, and the
    /// strokes are joined where they cross (`JoinedStrokes.Junctions.whereTheyCross`), in
    /// whichever order and direction they are drawn. As first run: all 24 ellipses; joined end
    /// to end, 1 (of 1.8:1, its ends running on 8°: 0.07 of the size apart).
    @Test func ellipsesDrawnAsArcsRunningOnPastEachOther() throws {
        var (made, endToEnd) = (0, 0)
        for seed in RecognitionTests.seeds {
            var pen = SyntheticPen(seed: seed, jitter: 0)
            let size = RecognitionTests.size(&pen)
            pen.jitter = RecognitionTests.jitter(for: size)
            let radii = (size / 2, size / 2 * pen.random(in: 0.5...1))
            let (rotation, origin) = (pen.random(in: 0...(2 * .pi)), Point(x: 400, y: 400))
            let runOn = pen.random(in: 7...20) * .pi / 180
            // The second arc's ellipse moved along the minor axis, by 2 to 5 % of its radius
            // either way: the two cross near the ends of the major axis.
            let offset = pen.random(in: 0.02...0.05) * radii.1 * (seed % 2 == 0 ? 1 : -1)
            let shift = rotated(Point(x: 0, y: offset), by: rotation)
            var arcs = [
                pen.arc(
                    center: origin, radii: radii, rotation: rotation, start: -runOn, sweep: .pi + 2 * runOn,
                    samples: 50),
                pen.arc(
                    center: origin + shift, radii: radii, rotation: rotation, start: .pi - runOn,
                    sweep: .pi + 2 * runOn, samples: 50),
            ]
            if seed % 3 == 0 { arcs.reverse() }
            if seed % 4 < 2 { arcs[1].reverse() }
            let shape = ShapeRecognizer.recognizeClosedShape(joining: arcs)
            if shape.kind == .ellipse { made += 1 }
            let joinedEndToEnd = ShapeRecognizer.explainClosedShape(joining: arcs, at: .endToEnd).shape.kind == .ellipse
            if joinedEndToEnd { endToEnd += 1 }
            guard shape.kind == .ellipse else { continue }
            #expect(ShapeRecognizer.recognizeInARow(arcs).last?.joins == 1, "seed \(seed)")
            guard !joinedEndToEnd else { continue }
            let explained = ShapeRecognizer.explainClosedShape(joining: arcs)
            let chosen = explained.hypotheses.first { $0.verdict.hasPrefix("chosen") }
            let crossed = "(joined where the strokes cross, each running on past the other (stroke"
            #expect(chosen?.verdict.contains(crossed) == true, "seed \(seed): \(chosen as Any)")
            let reason = "): joined end to end, they make no closed shape)"
            #expect(chosen?.verdict.hasSuffix(reason) == true, "seed \(seed)")
        }
        #expect(made == RecognitionTests.seeds.count, "ellipses: \(made)")
        #expect(endToEnd <= 2, "joined end to end: \(endToEnd)")
    }

    /// Where strokes cross but make no junction: arcs running on past each other by more
    /// than a fifth of the size (`JoinedStrokes.mostRunOn`), a D's stem crossed at right
    /// angles by its bowl's ends (a D of MMG's set joined so became a rectangle when the
    /// crossing's directions were not compared), a D whose stem bends a little (two straight
    /// runs, but within `stemBend` of its chord).
    @Test func crossingsThatAreNoJunction() throws {
        var pen = SyntheticPen(seed: 5, jitter: 0.5)
        let center = Point(x: 300, y: 300)
        let far = [
            pen.arc(center: center, radii: (100, 100), rotation: 0, start: -0.4, sweep: .pi + 0.8, samples: 60),
            pen.arc(
                center: center + Point(x: 0, y: 4), radii: (100, 100), rotation: 0, start: .pi - 0.4,
                sweep: .pi + 0.8, samples: 60),
        ]
        #expect(ShapeRecognizer.recognizeClosedShape(joining: far).kind == .none, "arcs running on 0.2 of the size")
        #expect(JoinedStrokes.crossings(of: far).isEmpty)
        let near = [far[0], pen.arc(
            center: center + Point(x: 0, y: 4), radii: (100, 100), rotation: 0, start: .pi - 0.3,
            sweep: .pi + 0.6, samples: 60)]
        #expect(ShapeRecognizer.recognizeClosedShape(joining: near).kind == .ellipse, "one running on 0.15 of it")

        let stem = pen.stroke(through: [Point(x: 0, y: 0), Point(x: 0, y: 200)])
        let bowl = pen.stroke(through: [
            Point(x: -25, y: 20), Point(x: 160, y: 20), Point(x: 200, y: 100), Point(x: 160, y: 180),
            Point(x: -25, y: 180),
        ])
        #expect(ShapeRecognizer.recognizeClosedShape(joining: [stem, bowl]).kind == .none, "a D crossed square")
        #expect(JoinedStrokes.crossings(of: [stem, bowl]).isEmpty)

        let bentStem = pen.stroke(through: [Point(x: -50, y: 13), Point(x: -41, y: 95), Point(x: -50, y: 177)])
        let round = pen.arc(
            center: Point(x: 0, y: 100), radii: (100, 100), rotation: 0, start: -2 * .pi / 3, sweep: 4 * .pi / 3,
            samples: 60)
        let d = try JoinedStrokes.join([bentStem, round]).get()
        #expect(d.runs[0] == 2 && d.isStem(0) && !d.isStem(1), "\(d.runs)")
        #expect(ShapeRecognizer.recognizeClosedShape(joining: [bentStem, round]).kind == .none, "a D, its stem bent")

        // Segments so long that their cross products overflow do not cross: t and u came out
        // 0 and -0 from a denominator of infinity, a crossing where there is none.
        let overflowing = JoinedStrokes.intersection(
            from: Point(x: 0, y: 0), to: Point(x: 1e160, y: 0), withSegmentFrom: Point(x: 1, y: 1),
            to: Point(x: 1e160, y: 1e160))
        #expect(overflowing == nil, "\(overflowing as Any)")
        #expect(
            JoinedStrokes.intersection(
                from: Point(x: 0, y: 0), to: Point(x: 2, y: 2), withSegmentFrom: Point(x: 0, y: 2),
                to: Point(x: 2, y: 0)).map { [$0.0, $0.1] } == [0.5, 0.5])
    }

    /// Which curved strokes round a box's end off (`JoinedStrokes.isRoundedEnd`): an arc from
    /// one long side's end to the other's; not a curl spanning half the end, a long side
    /// drawn wavy, nor a D's bowl (three sides of its box).
    @Test func roundedEndsSpanAnEndAndNoMore() throws {
        var pen = SyntheticPen(seed: 11, jitter: 0.5)
        let rectangle = RecognizedShape(
            kind: .rectangle,
            points: [
                Point(x: 0, y: 0), Point(x: 300, y: 0), Point(x: 300, y: 100), Point(x: 0, y: 100), Point(x: 0, y: 0),
            ])
        let top = pen.stroke(through: [Point(x: 0, y: 0), Point(x: 300, y: 0)])
        let bottom = pen.stroke(through: [Point(x: 300, y: 100), Point(x: 0, y: 100)])
        let left = pen.stroke(through: [Point(x: 0, y: 100), Point(x: 0, y: 0)])
        func arc(from start: Double, sweep: Double, radius: Double, center: Point) -> [Point] {
            pen.arc(center: center, radii: (radius, radius), rotation: 0, start: start, sweep: sweep, samples: 40)
        }
        let end = arc(from: -.pi / 2, sweep: .pi, radius: 50, center: Point(x: 300, y: 50))
        let curl = arc(from: -.pi / 2, sweep: .pi, radius: 25, center: Point(x: 300, y: 25))
        func refusal(_ strokes: [[Point]], roundedEnds: Bool) throws -> JoinedStrokes.Refusal? {
            try JoinedStrokes.join(strokes).get().refusal(of: rectangle, roundedEnds: roundedEnds)
        }
        #expect(try refusal([top, end, bottom, left], roundedEnds: true) == nil, "the end")
        let strict = try refusal([top, end, bottom, left], roundedEnds: false)
        let runs = JoinedStrokes.straightRuns(in: end)
        #expect(strict == .curvedStroke(kind: .rectangle, stroke: 1, runs: runs, most: 3, roundedEnds: false))
        #expect(
            strict?.description.hasSuffix("(a curve is taken for a rounded end only when the strokes make no other "
                + "closed shape)") == true)
        let lower = pen.stroke(through: [Point(x: 300, y: 50), Point(x: 300, y: 100), Point(x: 0, y: 100)])
        #expect(try refusal([top, curl, lower, left], roundedEnds: true) != nil, "a curl spanning half the end")
        // explain says why the curl is none: the second choice's refusals, though it makes no shape.
        let curlVerdicts = ShapeRecognizer.explainClosedShape(joining: [top, curl, lower, left]).hypotheses.map {
            $0.verdict
        }
        #expect(curlVerdicts.contains { $0.contains("; nor is it a rounded end: at most 0.333") }, "\(curlVerdicts)")
        // A box 1.4 times as long as tall, its top drawn wavy: a third of the strokes' length
        // at most, as an end may be, but spanning a long side.
        let wavy = (0...35).map { Point(x: 4 * Double($0), y: 10 * sin(Double($0) / 2)) }
        let narrowSide = pen.stroke(through: [wavy[35], Point(x: 140, y: 100)])
        let narrowBottom = pen.stroke(through: [Point(x: 140, y: 100), Point(x: 0, y: 100)])
        let strokes = [wavy, narrowSide, narrowBottom, left]
        let lengths = strokes.map(StrokeResampling.length(of:))
        #expect(JoinedStrokes.straightRuns(in: wavy) > 3 && lengths[0] <= lengths.reduce(0, +) / 3)
        let narrow = RecognizedShape(
            kind: .rectangle,
            points: [
                Point(x: 0, y: 0), Point(x: 140, y: 0), Point(x: 140, y: 100), Point(x: 0, y: 100), Point(x: 0, y: 0),
            ])
        let wavySide = try JoinedStrokes.join(strokes).get().refusal(of: narrow, roundedEnds: true)
        #expect(wavySide.map { "\($0)".contains("stroke: 0") } == true, "a long side drawn wavy: \(wavySide as Any)")
        #expect(wavySide?.description.contains("nor is it a rounded end") == true)
        let bowl = arc(from: -.pi / 2, sweep: .pi, radius: 50, center: Point(x: 0, y: 50)).map {
            Point(x: 300 * max(0, $0.x) / 50, y: $0.y)
        }
        let stem = pen.stroke(through: [Point(x: 0, y: 100), Point(x: 0, y: 0)])
        #expect(try refusal([bowl, stem], roundedEnds: true) != nil, "a D's bowl")
    }

    /// What is not joined: a D (a stem, and a bowl closing on it: its ellipse refused, two
    /// strokes one of them straight; its rectangle, the bowl a curve of many runs); an
    /// arrow's closed head drawn as a "V" and its base (a triangle is never joined); a box's
    /// two halves drawn apart; a box's sides when one of them is a stroke of its own shape.
    @Test func lettersHeadsAndStrokesApartAreNotJoined() {
        var pen = SyntheticPen(seed: 7, jitter: 0.5)
        // The stem a chord of the bowl's ellipse, the bowl two thirds of it (as the MMG set's
        // D's that made ellipses are drawn), the stem stopping short of the bowl's end.
        let stem = pen.stroke(through: [Point(x: -50, y: 13), Point(x: -50, y: 177)])
        let bowl = pen.arc(
            center: Point(x: 0, y: 100), radii: (100, 100), rotation: 0, start: -2 * .pi / 3, sweep: 4 * .pi / 3,
            samples: 60)
        #expect(ShapeRecognizer.recognizeClosedShape(joining: [stem, bowl]).kind == .none, "a D")
        let explained = ShapeRecognizer.explainClosedShape(joining: [stem, bowl])
        #expect(explained.shape.kind == .none)
        // The refusals name the strokes as drawn, the stem first or the bowl first.
        for (strokes, stem, bowl) in [([stem, bowl], 1, 2), ([bowl, stem], 2, 1)] {
            let verdicts = ShapeRecognizer.explainClosedShape(joining: strokes).hypotheses.map(\.verdict)
            let ellipse = "refused: the strokes joined make an ellipse, but of two strokes, and stroke \(stem) is"
            #expect(verdicts.contains { $0.hasPrefix(ellipse) }, "\(verdicts)")
            let rectangle = "refused: the strokes joined make a rectangle, but stroke \(bowl) bends"
            #expect(verdicts.contains { $0.hasPrefix(rectangle) }, "\(verdicts)")
        }

        let vee = pen.stroke(through: [Point(x: 0, y: 0), Point(x: 60, y: 30), Point(x: 0, y: 60)])
        let base = pen.stroke(through: [Point(x: 0, y: 60), Point(x: 0, y: 0)])
        #expect(ShapeRecognizer.recognize(vee + base).kind == .triangle, "drawn in one stroke, a triangle")
        #expect(ShapeRecognizer.recognizeClosedShape(joining: [vee, base]).kind == .none, "a closed head in two")

        let left = pen.stroke(through: [
            Point(x: 100, y: 0), Point(x: 0, y: 0), Point(x: 0, y: 80), Point(x: 100, y: 80),
        ])
        let right = pen.stroke(through: [
            Point(x: 100, y: 80), Point(x: 200, y: 80), Point(x: 200, y: 0), Point(x: 100, y: 0),
        ])
        #expect(ShapeRecognizer.recognizeClosedShape(joining: [left, right]).kind == .rectangle, "the box")
        let apart = right.map { $0 + Point(x: 40, y: 0) }
        #expect(ShapeRecognizer.recognizeClosedShape(joining: [left, apart]).kind == .none, "its halves apart")
        #expect(
            ShapeRecognizer.explainClosedShape(joining: [left, apart]).hypotheses.first?.verdict.hasPrefix(
                "not joined: the strokes meet end to end in no loop") == true)
        // A stroke that is a shape on its own joins nothing: the rectangle stays, the next
        // stroke is read alone.
        let box = pen.stroke(through: [
            Point(x: 0, y: 0), Point(x: 200, y: 0), Point(x: 200, y: 80), Point(x: 0, y: 80), Point(x: 0, y: 0),
        ])
        #expect(ShapeRecognizer.recognizeInARow([left, box]).map(\.joins) == [0, 0])
        #expect(ShapeRecognizer.recognizeInARow([box, left, right]).map(\.joins) == [0, 0, 1])
    }

    /// Douglas–Peucker's straight runs, hooks and rounded corners not counted.
    @Test func straightRunsOfSidesCornersAndCurves() {
        let side = (0...20).map { Point(x: Double($0) * 10, y: 0) }
        #expect(JoinedStrokes.straightRuns(in: side) == 1)
        let ell = side + (1...10).map { Point(x: 200, y: Double($0) * 10) }
        #expect(JoinedStrokes.straightRuns(in: ell) == 2)
        let hooked = [Point(x: -4, y: 6)] + ell
        #expect(JoinedStrokes.straightRuns(in: hooked) == 2, "a hook as the pen lands is no run")
        let semicircle = (0...60).map { k in
            Point(x: 100 * sin(Double(k) * .pi / 60), y: -100 * cos(Double(k) * .pi / 60))
        }
        #expect(JoinedStrokes.straightRuns(in: semicircle) > JoinedStrokes.mostStraightRuns, "a bowl")
    }
}
