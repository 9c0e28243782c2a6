import CanvasCore
@testable import CanvasGeometry
import Foundation
import Testing

/// An arrow drawn in two strokes, a shaft and a head of its own (`TwoStrokeArrow`): made
/// whatever the order, size, direction and head; refused for two strokes that are no arrow.
@Suite struct TwoStrokeArrowTests {
    /// A shaft from `tail` to `end` and a head whose point is `tip`, its barbs `spread`
    /// radians either side of the shaft and `barb` long, drawn as one stroke ("<", or a
    /// closed triangle when `closed`), by `pen`.
    static func strokes(
        _ pen: inout SyntheticPen, tail: Point, end: Point, tip: Point, barb: Double, spread: Double, closed: Bool
    ) -> (shaft: [Point], head: [Point]) {
        let back = (tail - tip) / tail.distance(to: tip) * barb
        let barbs = (tip + rotated(back, by: spread), tip + rotated(back, by: -spread))
        let shaft = pen.stroke(through: [tail, end], samples: 60)
        let head = pen.stroke(through: closed ? [tip, barbs.0, barbs.1, tip] : [barbs.0, tip, barbs.1], samples: 40)
        return (shaft, head)
    }

    /// A seeded pen (jitter for the size), a shaft's length (30 to 3,000 px), direction,
    /// tail and tip.
    static func shaftFrame(seed: UInt64) -> (SyntheticPen, Double, Double, Point, Point) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let length = RecognitionTests.size(&pen)
        pen.jitter = RecognitionTests.jitter(for: length)
        let direction = pen.random(in: 0...(2 * .pi))
        let tail = Point(x: pen.random(in: -500...500), y: pen.random(in: -500...500))
        return (pen, length, direction, tail, tail + rotated(Point(x: length, y: 0), by: direction))
    }

    /// Shafts of 30 to 3,000 px in any direction, the head "<" or closed, 0.15–0.5 of the
    /// shaft, its barbs 20–50° off it, the shaft stopping short of the head's point by up to
    /// a third of a barb (inside the "<") or running up to it, drawn from the tail or from
    /// the head's end, before or after the head: one arrow, from the shaft's tail to the
    /// head's point.
    @Test(arguments: RecognitionTests.seeds) func aShaftAndAHeadDrawnApartAreOneArrow(seed: UInt64) {
        var (pen, length, direction, tail, tip) = Self.shaftFrame(seed: seed)
        let barb = length * pen.random(in: 0.15...0.5)
        let end = tail + rotated(Point(x: length - barb * pen.random(in: 0...0.33), y: 0), by: direction)
        let spread = pen.random(in: 0.35...0.87)
        let closed = seed % 3 == 0
        var (shaft, head) = Self.strokes(
            &pen, tail: tail, end: end, tip: tip, barb: barb, spread: spread, closed: closed)
        if seed % 4 >= 2 { shaft.reverse() }
        let headFirst = seed % 2 == 0
        let shape = headFirst
            ? ShapeRecognizer.recognizeArrow(drawnFirst: head, then: shaft)
            : ShapeRecognizer.recognizeArrow(drawnFirst: shaft, then: head)
        #expect(shape.kind == .arrow, "seed \(seed)")
        guard shape.kind == .arrow, shape.points.count == 5 else { return }
        #expect(shape.points[0].distance(to: tail) < 0.04 * length, "seed \(seed): tail \(shape.points[0])")
        #expect(shape.points[1].distance(to: tip) < 0.04 * length, "seed \(seed): tip \(shape.points[1])")
        // A closed head stays closed.
        let drawnHead = RecognitionTests.head(of: shape.points)
        #expect(drawnHead?.tip == shape.points[1] && drawnHead?.closed == closed, "seed \(seed): \(shape.points)")
        let explanation = headFirst
            ? ShapeRecognizer.explainArrow(drawnFirst: head, then: shaft)
            : ShapeRecognizer.explainArrow(drawnFirst: shaft, then: head)
        #expect(explanation.shape == shape, "seed \(seed)")
        let chosen = explanation.hypotheses.filter { $0.verdict == "chosen" }
        #expect(chosen.count == 1, "seed \(seed): \(explanation.hypotheses.map(\.verdict))")
        let reading = headFirst ? "the second stroke as the shaft" : "the first stroke as the shaft"
        #expect(chosen.first?.fittedTo?.hasPrefix(reading) == true, "seed \(seed): \(chosen.first?.fittedTo ?? "")")
    }

    /// A shaft drawn with one barb in one stroke (turning back at the tip) and the other barb
    /// as a stroke of its own from the tip, or towards it, either stroke first, any size and
    /// direction: one arrow (no single stroke of the two is a head, nor the barb a shaft).
    /// The other barb drawn 0.6 of a barb back from the tip is no arrow, and `explain`
    /// says how far it starts.
    @Test(arguments: RecognitionTests.seeds) func aShaftWithOneBarbAndTheOtherApartAreOneArrow(seed: UInt64) {
        var (pen, length, _, tail, tip) = Self.shaftFrame(seed: seed)
        let back = (tail - tip) * pen.random(in: 0.12...0.3)
        let spread = pen.random(in: 0.4...0.8)
        let shaftAndBarb = pen.stroke(through: [tail, tip, tip + rotated(back, by: spread)], samples: 80)
        var barb = pen.stroke(through: [tip, tip + rotated(back, by: -spread)], samples: 20)
        if seed % 3 == 0 { barb.reverse() }
        let (first, second) = seed % 2 == 0 ? (barb, shaftAndBarb) : (shaftAndBarb, barb)
        let shape = ShapeRecognizer.recognizeArrow(drawnFirst: first, then: second)
        #expect(shape.kind == .arrow, "seed \(seed)")
        guard shape.kind == .arrow else { return }
        #expect(shape.points[0].distance(to: tail) < 0.04 * length, "seed \(seed): tail \(shape.points[0])")
        #expect(shape.points[1].distance(to: tip) < 0.04 * length, "seed \(seed): tip \(shape.points[1])")
        let chosen = ShapeRecognizer.explainArrow(drawnFirst: first, then: second).hypotheses.first {
            $0.verdict == "chosen"
        }
        #expect(chosen?.fittedTo?.contains("as the shaft and a barb") == true, "seed \(seed)")
        let away = pen.stroke(
            through: [tip + back * 0.6, tip + back * 0.6 + rotated(back, by: -spread)], samples: 20)
        let refused = ShapeRecognizer.explainArrow(drawnFirst: shaftAndBarb, then: away)
        #expect(refused.shape == .none, "seed \(seed)")
        let verdicts = refused.hypotheses.map(\.verdict).joined(separator: "; ")
        #expect(verdicts.contains("the other barb starts"), "seed \(seed): \(verdicts)")
    }

    /// A connector routed round boxes, its shaft bent at right angles once or twice (an L,
    /// a U or a Z of 30 to 3,000 px, any rotation, its bends up to 10° off square), and its
    /// head drawn apart, before or after: one elbow arrow, its bends made right angles,
    /// from the shaft's tail to the head's point.
    @Test(arguments: RecognitionTests.seeds) func aBentShaftAndAHeadDrawnApartAreOneElbowArrow(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let length = RecognitionTests.size(&pen)
        pen.jitter = RecognitionTests.jitter(for: length)
        let rotation = pen.random(in: 0...(2 * .pi))
        func turned(_ point: Point) -> Point { rotated(point, by: rotation) }
        // The runs: down, across, then (a U or a Z) up or down again, each bend a little off square.
        let twice = seed % 2 == 0
        let skew = pen.random(in: -0.17...0.17)
        var corners = [Point(x: 0, y: 0), Point(x: length * skew * 0.5, y: length * 0.5)]
        corners.append(corners[1] + Point(x: length, y: length * skew))
        if twice {
            let turn = seed % 4 == 0 ? -0.5 * length : 0.5 * length
            corners.append(corners[2] + Point(x: length * skew * 0.5, y: turn))
        }
        let waypoints = corners.map(turned)
        let (tail, tip) = (waypoints[0], waypoints[waypoints.count - 1])
        let back = (waypoints[waypoints.count - 2] - tip) / waypoints[waypoints.count - 2].distance(to: tip)
        let barb = length * 0.12
        let shaft = pen.stroke(through: Array(waypoints.dropLast()) + [tip + back * barb * 0.2], samples: 120)
        let head = pen.stroke(
            through: [tip + rotated(back * barb, by: 0.5), tip, tip + rotated(back * barb, by: -0.5)], samples: 30)
        let shape = seed % 3 == 0
            ? ShapeRecognizer.recognizeArrow(drawnFirst: head, then: shaft)
            : ShapeRecognizer.recognizeArrow(drawnFirst: shaft, then: head)
        #expect(shape.kind == .elbowArrow, "seed \(seed)")
        guard shape.kind == .elbowArrow else { return }
        #expect(shape.points.count == waypoints.count + 3, "seed \(seed): \(shape.points)")
        #expect(shape.points[0].distance(to: tail) < 0.08 * length, "seed \(seed): tail \(shape.points[0])")
        let drawnTip = shape.points[shape.points.count - 4]
        #expect(drawnTip.distance(to: tip) < 0.08 * length, "seed \(seed): tip \(drawnTip)")
        // Each bend a right angle.
        let runs = zip(shape.points, shape.points.dropFirst()).prefix(waypoints.count - 1).map { $1 - $0 }
        for (a, b) in zip(runs, runs.dropFirst()) {
            #expect(abs(a.dot(b)) <= 1e-6 * a.length * b.length, "seed \(seed): \(shape.points)")
        }
    }

    /// An elbow arrow's squared last run goes through the middle of the run as drawn, not of
    /// the stretch from the last bend to the head's point: a head whose point is 8 px beside
    /// a 300 px run (well within the tip's tolerance) leaves the run where it was drawn.
    @Test func anElbowArrowsLastRunStaysWhereItWasDrawn() {
        var pen = SyntheticPen(seed: 5, jitter: 0.3)
        let shaft = pen.stroke(through: [Point(x: 0, y: 0), Point(x: 0, y: 300), Point(x: 290, y: 300)], samples: 120)
        let head = pen.stroke(
            through: [Point(x: 265, y: 338), Point(x: 300, y: 308), Point(x: 265, y: 278)], samples: 30)
        let shape = ShapeRecognizer.recognizeArrow(drawnFirst: shaft, then: head)
        #expect(shape.kind == .elbowArrow)
        guard shape.kind == .elbowArrow, shape.points.count == 6 else { return }
        #expect(abs(shape.points[1].y - 300) < 2, "the bend: \(shape.points[1])")
        #expect(abs(shape.points[2].y - 300) < 2, "the tip: \(shape.points[2])")
    }

    /// A shaft bent back by 140° (no right angle), or bent square but wavy along a run, with a
    /// head at its end is no arrow, and `explain` says of the reading with it for the shaft
    /// that its stroke is neither a line nor bent at right angles, and why.
    @Test func aShaftBentOffSquareOrWavyIsNone() {
        var pen = SyntheticPen(seed: 3, jitter: 0.4)
        let bent = pen.stroke(
            through: [Point(x: 0, y: 0), Point(x: 200, y: 0), Point(x: 200 - 153.2, y: 128.6)], samples: 100)
        // Down a wave 50 px deep (no sharp turn in it), then square across.
        let wavy = (0...60).map { Point(x: -50 * sin(2 * .pi * Double($0) / 60), y: 5 * Double($0)) }
            + (1...60).map { Point(x: 5 * Double($0), y: 300) }
        for (shaft, why) in [(bent, "bend 1 turns 139°"), (wavy, "its runs: RMS distance")] {
            let end = shaft[shaft.count - 1]
            let back = (shaft[shaft.count - 8] - end) / shaft[shaft.count - 8].distance(to: end) * 40
            let head = pen.stroke(
                through: [end + rotated(back, by: 0.5), end, end + rotated(back, by: -0.5)], samples: 30)
            let explanation = ShapeRecognizer.explainArrow(drawnFirst: shaft, then: head)
            #expect(explanation.shape == .none)
            let reading = explanation.hypotheses.first {
                $0.verdict.hasPrefix("not fitted: the first stroke as the shaft")
            }?.verdict ?? ""
            #expect(reading.contains("nor bent at right angles (" + why), "\(reading)")
        }
    }

    /// Two strokes that are no arrow, each refused for what it is, in `explain`'s words: a
    /// bar across a line's end (a T: no turn at the head's point), a line crossing another
    /// (an X: its "head" follows no barbs), a "<" beyond the line's end, a "<" whose point
    /// lies off the line, a small loop at a line's end (a half note's head), a ">" at a
    /// line's end, a line going on from another's end, and a "<" at the end of a curve.
    @Test func twoStrokesThatAreNoArrowAreRefusedAndSayWhy() {
        var pen = SyntheticPen(seed: 7, jitter: 0.3)
        let shaft = pen.stroke(through: [Point(x: 0, y: 0), Point(x: 300, y: 0)], samples: 60)
        func head(_ waypoints: [Point]) -> [Point] { pen.stroke(through: waypoints, samples: 40) }
        let cases: [(String, [Point], [Point], String)] = [
            ("a T", shaft, head([Point(x: 300, y: -60), Point(x: 300, y: 60)]), "the head's barbs open"),
            ("an X", shaft, head([Point(x: 100, y: -100), Point(x: 200, y: 100)]), "refused: RMS distance"),
            ("a < beyond the end", shaft,
             head([Point(x: 400, y: 40), Point(x: 460, y: 0), Point(x: 400, y: -40)]), "behind the head's point"),
            ("a < off the line", shaft,
             head([Point(x: 260, y: 20), Point(x: 320, y: 60), Point(x: 260, y: 100)]), "ends nearer a barb's end"),
            ("a loop at the end", shaft,
             pen.arc(center: Point(x: 300, y: 25), radii: (22, 16), rotation: 0.4, start: 0, sweep: 2 * .pi),
             "ends nearer a barb's end"),
            ("a > at the end", shaft,
             head([Point(x: 340, y: -50), Point(x: 300, y: 0), Point(x: 340, y: 50)]), "the head lies on one side"),
            ("a line going on", shaft, head([Point(x: 300, y: 0), Point(x: 450, y: 80)]), "the head lies on one side"),
            ("a curve and a <", pen.arc(center: Point(x: 150, y: 0), radii: (150, 80), rotation: 0, start: .pi,
                                        sweep: -.pi),
             head([Point(x: 270, y: -30), Point(x: 300, y: 0), Point(x: 330, y: -30)]), "no line"),
        ]
        for (name, first, second, words) in cases {
            let explanation = ShapeRecognizer.explainArrow(drawnFirst: first, then: second)
            #expect(ShapeRecognizer.recognizeArrow(drawnFirst: first, then: second) == .none, "\(name)")
            #expect(explanation.shape == .none, "\(name)")
            let verdicts = explanation.hypotheses.map(\.verdict).joined(separator: "; ")
            #expect(verdicts.contains(words), "\(name): \(verdicts)")
        }
    }

    /// Where the head meets the shaft is judged at the head's size: a head whose point lies
    /// 0.1 of its size beside the shaft's line is an arrow along the shaft. One whose point
    /// lies 0.35 of its size beside it is drawn askew, and is an arrow only when the shaft
    /// stops within the head nearer its point than its barbs' ends: then it is aimed from
    /// the tail at the point; a shaft that ends at a barb's end is refused, and so is a head
    /// so far beside the shaft (0.4 of the shaft) that the arrow aimed at its point would
    /// leave the shaft's end farther off than a shaft may bow. At any scale.
    @Test(arguments: [60.0, 600.0, 6000.0]) func theHeadsPointMustLieOnTheShaftsLineOrTheShaftEndNearIt(
        length: Double
    ) {
        var pen = SyntheticPen(seed: 11, jitter: length / 3000)
        func shaft(to end: Point) -> [Point] { pen.stroke(through: [Point(x: 0, y: 0), end], samples: 80) }
        // A head a fifth of the shaft across (its barbs 0.1 of it up and down), its point at x = length.
        let (back, half) = (length * 0.14, length * 0.1)
        func head(beside offset: Double) -> [Point] {
            pen.stroke(
                through: [Point(x: length - back, y: offset + half), Point(x: length, y: offset),
                          Point(x: length - back, y: offset - half)], samples: 40)
        }
        let onTheLine = ShapeRecognizer.recognizeArrow(
            drawnFirst: shaft(to: Point(x: length * 0.97, y: 0)), then: head(beside: 0.1 * 2 * half))
        #expect(onTheLine.kind == .arrow)
        #expect(onTheLine.points.count == 5 && onTheLine.points[1].distance(to: Point(x: length, y: 0.02 * length))
            < 0.01 * length, "tip \(onTheLine.points)")
        // 0.35 of the head's size beside: the shaft stops 0.04 of its length short, below the point.
        let askew = ShapeRecognizer.recognizeArrow(
            drawnFirst: shaft(to: Point(x: length * 0.96, y: 0)), then: head(beside: 0.35 * 2 * half))
        #expect(askew.kind == .arrow)
        if askew.kind == .arrow {
            #expect(askew.points[0].distance(to: Point(x: 0, y: 0)) < 0.02 * length, "tail \(askew.points)")
            #expect(askew.points[1].distance(to: Point(x: length, y: 0.07 * length)) < 0.02 * length, "tip")
        }
        let atABarb = ShapeRecognizer.explainArrow(
            drawnFirst: shaft(to: Point(x: length * 0.87, y: -0.025 * length)), then: head(beside: 0.35 * 2 * half))
        #expect(atABarb.shape == .none)
        #expect(atABarb.hypotheses.contains { $0.verdict.contains("which ends nearer a barb's end") })
        let farOff = ShapeRecognizer.explainArrow(
            drawnFirst: shaft(to: Point(x: length * 0.9, y: 0)), then: head(beside: 0.4 * length))
        #expect(farOff.shape == .none)
        #expect(farOff.hypotheses.contains { $0.verdict.contains("from the line from its tail to the point") })
    }

    /// The shaft's stroke is read by the one-stroke recogniser: it must be a line there, so
    /// a stroke of a single point, or none, makes no arrow and no error.
    @Test func strokesWithoutLengthMakeNoArrow() {
        let head = [Point(x: 0, y: 30), Point(x: 40, y: 0), Point(x: 0, y: -30)]
        #expect(ShapeRecognizer.recognizeArrow(drawnFirst: [], then: head) == .none)
        #expect(ShapeRecognizer.recognizeArrow(drawnFirst: head, then: [Point(x: 1, y: 1)]) == .none)
        #expect(ShapeRecognizer.recognizeArrow(drawnFirst: [Point(x: 1, y: 1)], then: []) == .none)
        let explanation = ShapeRecognizer.explainArrow(drawnFirst: [], then: [])
        // Each stroke the shaft, with the head apart and split: four readings, none fitted.
        #expect(explanation.hypotheses.count == 4)
        #expect(explanation.hypotheses.map(\.verdict).allSatisfy { $0.hasPrefix("not fitted: ") })
    }
}
