import CanvasCore
import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasGeometry

/// Closed shapes drawn in several strokes (`JoinedStrokes`, `ShapeRecognizer.recognize(_:after:)`):
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
