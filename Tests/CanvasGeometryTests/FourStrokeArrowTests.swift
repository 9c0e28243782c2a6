import CanvasCore
@testable import CanvasGeometry
import Foundation
import Testing

/// A stroke joining an arrow already made of three (`ShapeRecognizer.recognizeArrow(madeOf:_:_:joining:)`,
/// as a node reads strokes in a row): a closed head's base after a shaft and the head's two
/// sides drawn apart, an elbow connector's first run after the rest; and a stroke that is no
/// part of the arrow, read alone.
@Suite struct FourStrokeArrowTests {
    /// Shafts of 30 to 3,000 px in any direction. On odd seeds, a shaft and two barbs drawn
    /// apart (the shaft first, between them or last), then the base across the barbs' ends:
    /// one arrow of the four, its head closed. On even seeds, an elbow connector of three runs
    /// and a head drawn one at a time, the first run last: after its middle run, last run and
    /// head (an arrow of three, the shaft in two pieces), or after its last run and head (an
    /// arrow of two) and then its middle run (joining them): one elbow arrow of the four, its
    /// bends where drawn.
    @Test(arguments: RecognitionTests.seeds) func aStrokeCompletingAnArrowMadeOfThreeJoinsIt(seed: UInt64) throws {
        var (pen, length, direction, tail, tip) = TwoStrokeArrowTests.shaftFrame(seed: seed)
        let back = rotated(Point(x: -length * pen.random(in: 0.15...0.3), y: 0), by: direction)
        let ends = (tip + rotated(back, by: 0.5), tip + rotated(back, by: -0.5))
        let isElbow = seed % 2 == 0
        var strokes: [[Point]]
        var drawn: [Point]
        if isElbow {
            let side: Double = seed % 4 < 2 ? 1 : -1
            let across = rotated(Point(x: 0, y: side * length * pen.random(in: 0.5...1)), by: direction)
            let along = rotated(Point(x: -length * pen.random(in: 0.5...1), y: 0), by: direction)
            let (bend, start) = (tail + across, tail + across + along)
            let head = pen.stroke(through: [ends.0, tip, ends.1], samples: 30)
            let lastRun = pen.stroke(through: [tail, tip], samples: 50)
            let middleRun = pen.stroke(through: [bend, tail], samples: 40)
            var firstRun = pen.stroke(through: [start, bend], samples: 40)
            if seed % 3 == 0 { firstRun.reverse() }
            strokes = (seed / 2) % 2 == 0 ? [middleRun, lastRun, head, firstRun] : [lastRun, head, middleRun, firstRun]
            drawn = [start, bend, tail, tip]
        } else {
            let shaft = pen.stroke(through: [tail, tip], samples: 50)
            let barbs = [
                pen.stroke(through: [tip, ends.0], samples: 20), pen.stroke(through: [ends.1, tip], samples: 20),
            ]
            var base = pen.stroke(through: [ends.0, ends.1], samples: 20)
            if seed % 3 == 0 { base.reverse() }
            let orders = [[0, 1, 2], [1, 0, 2], [1, 2, 0]]
            strokes = orders[Int(seed / 2) % orders.count].map { [shaft, barbs[0], barbs[1]][$0] } + [base]
            drawn = [tail, tip]
        }
        let read = ShapeRecognizer.recognizeInARow(strokes)
        #expect(read[2].shape.kind == (isElbow ? .elbowArrow : .arrow), "seed \(seed): \(read.map(\.joins))")
        // An elbow's last run and head drawn first make an arrow of two, which its middle run
        // joins; any other three strokes make their arrow as the third is drawn.
        let arrowOfTwoFirst = isElbow && (seed / 2) % 2 == 1
        #expect(read.map(\.joins) == (arrowOfTwoFirst ? [0, 1, 2, 3] : [0, 0, 2, 3]), "seed \(seed): \(read)")
        #expect(read[3].shape.kind == (isElbow ? .elbowArrow : .arrow), "seed \(seed): \(read[3].shape.kind)")
        let points = read[3].shape.points
        try #require(read[3].joins == 3 && points.count == (isElbow ? 7 : 5), "seed \(seed): \(points)")
        let size = isElbow ? drawn[0].distance(to: tip) : length
        for (index, point) in drawn.enumerated() {
            #expect(points[index].distance(to: point) < 0.05 * size, "seed \(seed): point \(index) \(points)")
        }
        // The base closes the head, which stays closed.
        #expect(RecognitionTests.head(of: points)?.closed == !isElbow, "seed \(seed): \(points)")
        ThreeStrokeArrowTests.expectChosen(
            ShapeRecognizer.explainArrow(madeOf: strokes[0], strokes[1], strokes[2], joining: strokes[3]),
            read[3].shape,
            readAs: "the arrow the first three strokes make, the fourth joined to its "
                + (isElbow ? "shaft" : "head, a closed head"), seed: seed)
    }

    /// Shafts of 30 to 3,000 px in any direction drawn in two pieces, an elbow connector's
    /// first run (on even seeds) or a straight shaft lifted midway (on odd seeds), drawn
    /// either way, then the head's two barbs drawn apart: the last piece and the barbs make an
    /// arrow of three as the second barb is drawn, and the first piece, drawn before them,
    /// joins it as its shaft's other piece: one arrow of the four, tail, bend and tip where
    /// drawn, `explain` naming the reading.
    @Test(arguments: RecognitionTests.seeds) func aPieceDrawnBeforeAnArrowOfThreeJoinsIt(seed: UInt64) throws {
        var (pen, length, direction, tail, tip) = TwoStrokeArrowTests.shaftFrame(seed: seed)
        let back = rotated(Point(x: -length * pen.random(in: 0.15...0.3), y: 0), by: direction)
        let ends = (tip + rotated(back, by: 0.5), tip + rotated(back, by: -0.5))
        let isElbow = seed % 2 == 0
        let side: Double = seed % 4 < 2 ? 1 : -1
        let across = rotated(Point(x: 0, y: side * length * pen.random(in: 0.5...1)), by: direction)
        let start = isElbow ? tail + across : tail
        let joint = isElbow ? tail : tail + (tip - tail) * pen.random(in: 0.3...0.6)
        var first = pen.stroke(through: [start, joint], samples: 40)
        if seed % 3 == 0 { first.reverse() }
        let last = pen.stroke(through: [joint, tip], samples: 40)
        let barbs = [pen.stroke(through: [tip, ends.0], samples: 20), pen.stroke(through: [ends.1, tip], samples: 20)]
        let read = ShapeRecognizer.recognizeInARow([first, last] + barbs)
        #expect(read.map(\.joins) == [0, 0, 0, 3], "seed \(seed): \(read)")
        #expect(read[3].shape.kind == (isElbow ? .elbowArrow : .arrow), "seed \(seed): \(read[3].shape.kind)")
        let points = read[3].shape.points
        try #require(read[3].joins == 3 && points.count == (isElbow ? 6 : 5), "seed \(seed): \(points)")
        let drawn = isElbow ? [start, tail, tip] : [tail, tip]
        let size = start.distance(to: tip)
        for (index, point) in drawn.enumerated() {
            #expect(points[index].distance(to: point) < 0.05 * size, "seed \(seed): point \(index) \(points)")
        }
        ThreeStrokeArrowTests.expectChosen(
            ShapeRecognizer.explainArrow(madeOf: last, barbs[0], barbs[1], joining: first), read[3].shape,
            readAs: "the arrow the first three strokes make, the fourth joined to its shaft", seed: seed)
    }

    /// Strokes drawn before an arrow of three (a shaft, then two barbs) that are no piece of
    /// it: the side of the box the connector starts from, at right angles through its tail;
    /// a letter's stem written 30 px before its tail, along it; a tap at the tail, too short
    /// to be a piece (a tenth of the shaft at most, as for an arrow of three). The arrow of
    /// three is made, the stroke left as it was.
    @Test func aStrokeBeforeAnArrowOfThreeThatIsNoPieceOfItIsLeftAlone() {
        var pen = SyntheticPen(seed: 41, jitter: 0.4)
        let shaft = pen.stroke(through: [Point(x: 0, y: 0), Point(x: 300, y: 0)], samples: 50)
        let barbs = [
            pen.stroke(through: [Point(x: 300, y: 0), Point(x: 260, y: 30)], samples: 20),
            pen.stroke(through: [Point(x: 260, y: -30), Point(x: 300, y: 0)], samples: 20),
        ]
        let befores: [(String, [Point])] = [
            ("a box's side", pen.stroke(through: [Point(x: -2, y: -100), Point(x: -2, y: 100)], samples: 40)),
            ("a letter's stem", pen.stroke(through: [Point(x: -120, y: 0), Point(x: -30, y: 0)], samples: 30)),
            ("a tap", pen.stroke(through: [Point(x: -12, y: 1), Point(x: 0, y: 0)], samples: 5)),
        ]
        for (name, before) in befores {
            let read = ShapeRecognizer.recognizeInARow([before, shaft] + barbs)
            #expect(read[3].joins == 2 && read[3].shape.kind == .arrow, "\(name): \(read.map(\.joins))")
            #expect(
                ShapeRecognizer.recognizeArrow(madeOf: shaft, barbs[0], barbs[1], joining: before) == .none, "\(name)")
        }
    }

    /// A stroke drawn after an arrow made of three (a shaft and two barbs) that is no part of
    /// it: the side of the box the arrow points to, across its tip; a circle beside it; a
    /// retouch of a barb too short to be half a head. The arrow stays as made, the stroke is
    /// read alone and `explain` refuses it, naming the test. And no arrow takes a fifth
    /// stroke: after the base that closes its head, another base is read alone.
    @Test func aStrokeAfterAnArrowMadeOfThreeThatIsNoPartOfItIsReadAlone() {
        var pen = SyntheticPen(seed: 37, jitter: 0.4)
        let shaft = pen.stroke(through: [Point(x: 0, y: 0), Point(x: 300, y: 0)], samples: 50)
        let barbs = [
            pen.stroke(through: [Point(x: 300, y: 0), Point(x: 260, y: 30)], samples: 20),
            pen.stroke(through: [Point(x: 300, y: 0), Point(x: 260, y: -30)], samples: 20),
        ]
        let boxSide = pen.stroke(through: [Point(x: 305, y: -200), Point(x: 305, y: 200)], samples: 60)
        let circle = (0...60).map { step -> Point in
            let angle = Double(step) / 60 * 2 * .pi
            return Point(x: 600 + 80 * cos(angle), y: 80 * sin(angle))
        }
        let retouch = pen.stroke(through: [Point(x: 262, y: 29), Point(x: 270, y: 22)], samples: 5)
        let fourths: [(String, [Point], ShapeKind, String)] = [
            ("a box's side", boxSide, .line, "the head's two strokes do not meet"),
            ("a circle", circle, .ellipse, "the head's two strokes do not meet"),
            ("a retouch", retouch, .none, "no half of a head"),
        ]
        for (name, fourth, kind, refusal) in fourths {
            let read = ShapeRecognizer.recognizeInARow([shaft] + barbs + [fourth])
            #expect(read[2].joins == 2 && read[2].shape.kind == .arrow, "\(name): \(read[2])")
            #expect(read[3].joins == 0 && read[3].shape.kind == kind, "\(name): \(read[3])")
            let explanation = ShapeRecognizer.explainArrow(madeOf: shaft, barbs[0], barbs[1], joining: fourth)
            #expect(explanation.shape == .none, "\(name)")
            #expect(
                explanation.hypotheses.contains { $0.verdict.contains(refusal) },
                "\(name): \(explanation.hypotheses.map(\.verdict))")
        }
        let base = pen.stroke(through: [Point(x: 260, y: 30), Point(x: 260, y: -30)], samples: 20)
        let read = ShapeRecognizer.recognizeInARow([shaft] + barbs + [base, base.reversed()])
        #expect(read.map(\.joins) == [0, 0, 2, 3, 0], "\(read.map(\.joins))")
        #expect(read[3].shape.kind == .arrow, "\(read[3])")
        let strokesMakingNone = [shaft, boxSide, circle]
        let explanation = ShapeRecognizer.explainArrow(
            madeOf: strokesMakingNone[0], strokesMakingNone[1], strokesMakingNone[2], joining: base)
        #expect(
            explanation.shape == .none
                && explanation.hypotheses.map(\.verdict) == ["not fitted: the first three strokes: they make no arrow"],
            "\(explanation.hypotheses.map(\.verdict))")
    }

    /// What a node keeps of the strokes before the next (`StrokesBefore`): after an arrow of
    /// three, its three strokes, which the next may join; after an arrow of four, none.
    @Test func theStrokesOfAnArrowOfThreeAreKeptForAFourth() {
        var before = StrokesBefore<String>()
        for (part, joins) in [("shaft", 0), ("barb", 0)] {
            before.note(part, readAs: .init(shape: .none, joins: joins))
        }
        let arrow = RecognizedShape(kind: .arrow, points: [Point(x: 0, y: 0), Point(x: 1, y: 0)])
        before.note("other barb", readAs: .init(shape: arrow, joins: 2), joined: { $0 + " (arrow)" })
        #expect(before.parts == ["shaft (arrow)", "barb (arrow)", "other barb (arrow)"] && before.madeAnArrow)
        before.note("base", readAs: .init(shape: arrow, joins: 3))
        #expect(before.parts.isEmpty && !before.madeAnArrow, "\(before.parts)")
        // After a loose stroke, an arrow of two: its two strokes kept; a third joining it: the
        // three.
        for part in ["text", "shaft"] { before.note(part, readAs: .init(shape: .none, joins: 0)) }
        before.note("head", readAs: .init(shape: arrow, joins: 1))
        #expect(before.parts == ["shaft", "head"] && before.madeAnArrow, "\(before.parts)")
        before.note("base", readAs: .init(shape: arrow, joins: 2))
        #expect(before.parts == ["shaft", "head", "base"] && before.madeAnArrow, "\(before.parts)")
        // Three loose strokes, then an arrow of the last two and a new one: the first is left.
        before.removeAll()
        for part in ["text", "shaft", "barb"] { before.note(part, readAs: .init(shape: .none, joins: 0)) }
        before.note("other barb", readAs: .init(shape: arrow, joins: 2))
        #expect(before.parts == ["shaft", "barb", "other barb"] && before.madeAnArrow, "\(before.parts)")
    }
}
