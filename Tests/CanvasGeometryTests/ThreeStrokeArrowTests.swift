import CanvasCore
@testable import CanvasGeometry
import Foundation
import Testing

/// An arrow drawn in three strokes, a shaft and a head drawn in two (its barbs apart, or a
/// closed head's sides: `ShapeRecognizer.recognizeArrow(drawnFirst:then:then:)`), or a
/// shaft drawn in two pieces and its head: made whatever the order, size and direction;
/// refused for three strokes that are no arrow.
@Suite struct ThreeStrokeArrowTests {
    /// Shafts of 30 to 3,000 px in any direction, and each barb (0.15–0.4 of the shaft,
    /// 20–45° off it) drawn as a stroke of its own, from the tip or towards it, the shaft
    /// stopping short of the tip by up to a fifth of a barb: in any of the six orders, one
    /// arrow from the shaft's tail to the head's point; `explain` names the shaft's stroke.
    @Test(arguments: RecognitionTests.seeds) func aShaftAndTwoBarbsDrawnApartAreOneArrow(seed: UInt64) {
        var (pen, length, direction, tail, tip) = TwoStrokeArrowTests.shaftFrame(seed: seed)
        let barb = length * pen.random(in: 0.15...0.4)
        let end = tail + rotated(Point(x: length - barb * pen.random(in: 0...0.2), y: 0), by: direction)
        let back = (tail - tip) / length * barb
        var barbs = [pen.random(in: 0.35...0.8), -pen.random(in: 0.35...0.8)].map { spread in
            pen.stroke(through: [tip, tip + rotated(back, by: spread)], samples: 20)
        }
        if seed % 2 == 0 { barbs[0].reverse() }
        if seed % 3 == 0 { barbs[1].reverse() }
        let shaft = pen.stroke(through: [tail, end], samples: 60)
        let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        let order = orders[Int(seed) % orders.count]
        let strokes = order.map { [shaft, barbs[0], barbs[1]][$0] }
        let shape = ShapeRecognizer.recognizeArrow(drawnFirst: strokes[0], then: strokes[1], then: strokes[2])
        #expect(shape.kind == .arrow, "seed \(seed)")
        #expect(shape.points.count == 5, "seed \(seed): \(shape.points)")
        guard shape.kind == .arrow, shape.points.count == 5 else { return }
        #expect(shape.points[0].distance(to: tail) < 0.04 * length, "seed \(seed): tail \(shape.points[0])")
        #expect(shape.points[1].distance(to: tip) < 0.04 * length, "seed \(seed): tip \(shape.points[1])")
        let place = ["first", "second", "third"][order.firstIndex(of: 0)!]
        Self.expectChosen(
            ShapeRecognizer.explainArrow(drawnFirst: strokes[0], then: strokes[1], then: strokes[2]), shape,
            readAs: "the \(place) stroke as the shaft, the other two joined as the head", seed: seed)
    }

    /// Expects `explanation` to give `shape`, read as `reading` says (the start of the chosen
    /// reading's `fittedTo`).
    static func expectChosen(
        _ explanation: RecognitionExplanation, _ shape: RecognizedShape, readAs reading: String, seed: UInt64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(explanation.shape == shape, "seed \(seed)", sourceLocation: sourceLocation)
        let chosen = explanation.hypotheses.first { $0.verdict == "chosen" }
        #expect(
            chosen?.fittedTo?.hasPrefix(reading) == true, "seed \(seed): \(chosen?.fittedTo ?? "")",
            sourceLocation: sourceLocation)
    }

    /// A closed head drawn in two strokes (a "V" and the base across its ends, or one side
    /// and then the other two), after the shaft: one arrow, its head closed.
    @Test func aClosedHeadDrawnInTwoStrokesMakesAnArrow() {
        var pen = SyntheticPen(seed: 17, jitter: 0.5)
        let shaft = pen.stroke(through: [Point(x: 0, y: 0), Point(x: 290, y: 0)], samples: 60)
        let (tip, upper, lower) = (Point(x: 300, y: 0), Point(x: 250, y: 30), Point(x: 250, y: -30))
        let heads: [(String, [Point], [Point])] = [
            ("a V, then its base", pen.stroke(through: [upper, tip, lower], samples: 30),
             pen.stroke(through: [lower, upper], samples: 20)),
            ("a side, then the other two", pen.stroke(through: [upper, tip], samples: 20),
             pen.stroke(through: [tip, lower, upper], samples: 30)),
        ]
        for (name, first, second) in heads {
            let shape = ShapeRecognizer.recognizeArrow(drawnFirst: shaft, then: first, then: second)
            #expect(shape.kind == .arrow, "\(name)")
            #expect(shape.points.dropFirst().first.map { $0.distance(to: tip) < 6 } == true, "\(name): \(shape.points)")
            #expect(RecognitionTests.head(of: shape.points)?.closed == true, "\(name): the head stays closed")
        }
    }

    /// A connector whose shaft is drawn in two pieces, then its head: a run, the pen lifted
    /// at the bend (set down again up to 0.03 of the shaft's size away) and the second run at
    /// right angles (0.3–1.5 times the first's length), or a line lifted midway; each piece
    /// drawn either way, shafts of 30 to 3,000 px in any direction. Read in a row as a node
    /// reads them, the head makes one arrow with both pieces (the last piece and the head
    /// alone already make one, which would leave the first piece as drawn): an elbow arrow
    /// from the first piece's far end, bent where the pieces meet, or a straight arrow.
    @Test(arguments: RecognitionTests.seeds) func aShaftDrawnInTwoPiecesAndItsHeadAreOneArrow(seed: UInt64) {
        var (pen, length, direction, tail, _) = TwoStrokeArrowTests.shaftFrame(seed: seed)
        let bent = seed % 3 != 0
        let first = length * (bent ? pen.random(in: 0.4...1) : pen.random(in: 0.3...0.7))
        let second = bent ? first * pen.random(in: 0.3...1.5) : length - first
        let turn = bent ? (seed % 2 == 0 ? Double.pi / 2 : -Double.pi / 2) : 0
        let bend = tail + rotated(Point(x: first, y: 0), by: direction)
        let lastDirection = direction + turn
        let tip = bend + rotated(Point(x: second, y: 0), by: lastDirection)
        let size = tail.distance(to: tip)
        let lifted = Point(x: pen.random(in: -0.02...0.02), y: pen.random(in: -0.02...0.02)) * size
        var pieces = [
            pen.stroke(through: [tail, bend], samples: 40),
            pen.stroke(through: [bend + lifted, tip], samples: 40),
        ]
        if seed % 4 == 1 { pieces[0].reverse() }
        if seed % 5 == 2 { pieces[1].reverse() }
        let barb = min(first, second) * pen.random(in: 0.2...0.4)
        let back = rotated(Point(x: -barb, y: 0), by: lastDirection)
        let head = pen.stroke(
            through: [tip + rotated(back, by: 0.5), tip, tip + rotated(back, by: -0.5)], samples: 30)
        let read = ShapeRecognizer.recognizeInARow(pieces + [head])
        #expect(read[2].joins == 2, "seed \(seed): \(read.map(\.joins))")
        #expect(read[2].shape.kind == (bent ? .elbowArrow : .arrow), "seed \(seed): \(read[2].shape.kind)")
        #expect(ShapeRecognizer.recognizeArrow(drawnFirst: pieces[1], then: head) != .none, "seed \(seed)")
        guard read[2].joins == 2, read[2].shape.kind != .none else { return }
        let points = read[2].shape.points
        #expect(points[0].distance(to: tail) < 0.05 * size, "seed \(seed): tail \(points[0]), drawn \(tail)")
        if bent {
            #expect(points.count == 6, "seed \(seed): \(points)")
            #expect(points[1].distance(to: bend) < 0.05 * size, "seed \(seed): bend \(points[1]), drawn \(bend)")
        }
        Self.expectChosen(
            ShapeRecognizer.explainArrow(drawnFirst: pieces[0], then: pieces[1], then: head), read[2].shape,
            readAs: "the first two strokes joined as the shaft, the third as the head", seed: seed)
    }

    /// A stroke before a shaft and its head that is no piece of the shaft: a tick at its
    /// tail (0.05 of the shaft, a box's last stroke ending there), a run that stops 0.1 of
    /// the size short of it, and a diamond's side meeting it at 45°. The shaft and head make
    /// their arrow alone, the stroke before left as drawn, and `explain` says why.
    @Test func aStrokeBeforeAShaftThatIsNoPieceOfItIsLeftAlone() {
        var pen = SyntheticPen(seed: 23, jitter: 0.4)
        let shaft = pen.stroke(through: [Point(x: 0, y: 0), Point(x: 0, y: 300)], samples: 50)
        let head = pen.stroke(through: [Point(x: -20, y: 270), Point(x: 0, y: 300), Point(x: 20, y: 270)], samples: 30)
        let befores: [(String, [Point], String?)] = [
            ("a tick", pen.stroke(through: [Point(x: -15, y: -3), Point(x: 0, y: 0)], samples: 8),
             "no piece of a shaft"),
            ("a run short of the shaft",
             pen.stroke(through: [Point(x: -250, y: -30), Point(x: -30, y: -30)], samples: 40),
             "the shaft's two pieces do not meet"),
            ("a diamond's side", pen.stroke(through: [Point(x: -200, y: -200), Point(x: 0, y: 0)], samples: 40), nil),
        ]
        for (name, before, words) in befores {
            let read = ShapeRecognizer.recognizeInARow([before, shaft, head])
            #expect(read[2].joins == 1 && read[2].shape.kind == .arrow, "\(name): \(read[2])")
            let explanation = ShapeRecognizer.explainArrow(drawnFirst: before, then: shaft, then: head)
            #expect(explanation.shape == .none, "\(name)")
            if let words {
                #expect(explanation.hypotheses.contains { $0.verdict.contains(words) }, "\(name)")
            }
        }
    }

    /// An arrow made of two strokes (a shaft and a "<" at its end, either first), then a third
    /// stroke that completes it, read in a row as a node reads them: the base across the
    /// head's ends (a closed head drawn as a "<" and then its base), or a run at right angles
    /// from the shaft's tail (an elbow connector's first run, drawn after the rest), each
    /// drawn either way, shafts of 30 to 3,000 px in any direction. The third stroke makes one
    /// arrow with both, in the arrow's place: a straight arrow from the shaft's tail to the
    /// head's point, its head closed, or an elbow arrow from the run's far end, bent at the
    /// shaft's tail; `explain` names the reading and the strokes it took for what.
    @Test(arguments: RecognitionTests.seeds) func aStrokeCompletingAnArrowMadeOfTwoJoinsIt(seed: UInt64) throws {
        var (pen, length, direction, tail, tip) = TwoStrokeArrowTests.shaftFrame(seed: seed)
        let shaft = pen.stroke(through: [tail, tip], samples: 50)
        let back = rotated(Point(x: -length * pen.random(in: 0.15...0.3), y: 0), by: direction)
        let ends = (tip + rotated(back, by: 0.5), tip + rotated(back, by: -0.5))
        let head = pen.stroke(through: [ends.0, tip, ends.1], samples: 30)
        let isElbow = seed % 2 == 0
        let side: Double = seed % 4 < 2 ? 1 : -1
        let runStart = tail + rotated(Point(x: 0, y: side * length * pen.random(in: 0.5...1)), by: direction)
        var third =
            isElbow
            ? pen.stroke(through: [runStart, tail], samples: 40) : pen.stroke(through: [ends.1, ends.0], samples: 20)
        if seed % 3 == 0 { third.reverse() }
        // On a third of the seeds, of either kind, the head drawn before the shaft.
        let headFirst = (seed / 2) % 3 == 1
        let arrowOfTwo = headFirst ? [head, shaft] : [shaft, head]
        let read = ShapeRecognizer.recognizeInARow(arrowOfTwo + [third])
        #expect(read[1].joins == 1 && read[1].shape.kind == .arrow, "seed \(seed): \(read[1])")
        #expect(read[2].joins == 2, "seed \(seed): \(read.map(\.joins))")
        #expect(read[2].shape.kind == (isElbow ? .elbowArrow : .arrow), "seed \(seed): \(read[2].shape.kind)")
        let points = read[2].shape.points
        try #require(read[2].joins == 2 && points.count == (isElbow ? 6 : 5), "seed \(seed): \(points)")
        let size = isElbow ? runStart.distance(to: tip) : length
        let drawn = isElbow ? [runStart, tail, tip] : [tail, tip]
        for (index, point) in drawn.enumerated() {
            #expect(points[index].distance(to: point) < 0.05 * size, "seed \(seed): point \(index) \(points)")
        }
        let reading =
            switch (isElbow, headFirst) {
            case (true, false): "the first and third strokes joined as the shaft, the second as the head"
            case (true, true): "the second and third strokes joined as the shaft, the first as the head"
            case (false, false): "the first stroke as the shaft, the other two joined as the head, a closed head"
            case (false, true): "the second stroke as the shaft, the other two joined as the head, a closed head"
            }
        Self.expectChosen(
            ShapeRecognizer.explainArrow(madeOf: arrowOfTwo[0], arrowOfTwo[1], joining: third), read[2].shape,
            readAs: reading, seed: seed)
    }

    /// A stroke drawn after an arrow made of two that is no part of it: the side of the box
    /// the arrow points to, across its tip; another connector's shaft ending at the same
    /// tip, 11° off the first (with the head alone it would make an arrow of two); a circle
    /// beside it. The arrow stays as made, the stroke is read alone, taking neither of its
    /// strokes; and the stroke after that one may join it (a head at the side's end), not the
    /// arrow's strokes.
    @Test func aStrokeAfterAnArrowMadeOfTwoThatIsNoPartOfItIsReadAlone() {
        var pen = SyntheticPen(seed: 31, jitter: 0.4)
        let shaft = pen.stroke(through: [Point(x: 0, y: 0), Point(x: 300, y: 0)], samples: 50)
        let head = pen.stroke(through: [Point(x: 260, y: 30), Point(x: 300, y: 0), Point(x: 260, y: -30)], samples: 30)
        let boxSide = pen.stroke(through: [Point(x: 305, y: -200), Point(x: 305, y: 200)], samples: 60)
        let otherShaft = pen.stroke(through: [Point(x: 0, y: 60), Point(x: 298, y: 2)], samples: 50)
        let circle = (0...60).map { step -> Point in
            let angle = Double(step) / 60 * 2 * .pi
            return Point(x: 600 + 80 * cos(angle), y: 80 * sin(angle))
        }
        #expect(ShapeRecognizer.recognizeArrow(drawnFirst: head, then: otherShaft) != .none, "a pair with the head")
        let thirds: [(String, [Point], ShapeKind)] = [
            ("a box's side", boxSide, .line), ("another shaft", otherShaft, .line), ("a circle", circle, .ellipse),
        ]
        for (name, third, kind) in thirds {
            let read = ShapeRecognizer.recognizeInARow([shaft, head, third])
            #expect(read[1].joins == 1 && read[1].shape.kind == .arrow, "\(name): \(read[1])")
            #expect(read[2].joins == 0 && read[2].shape.kind == kind, "\(name): \(read[2])")
            #expect(ShapeRecognizer.explainArrow(madeOf: shaft, head, joining: third).shape == .none, "\(name)")
        }
        let sideHead = pen.stroke(
            through: [Point(x: 275, y: 170), Point(x: 305, y: 200), Point(x: 335, y: 170)], samples: 30)
        let read = ShapeRecognizer.recognizeInARow([shaft, head, boxSide, sideHead])
        #expect(read.map(\.joins) == [0, 1, 0, 1], "\(read)")
        #expect(read[3].shape.kind == .arrow, "\(read[3])")
    }

    /// A first run at right angles to the shaft, near each limit of a piece: its end 0.043 of
    /// the shaft's size from the shaft's tail (within `lineDistanceTolerance`) or 0.08 (not);
    /// 45 px long on a 300 px shaft (over a tenth of the shaft's length, no hook) or 25 px
    /// (a hook). Within both, one elbow arrow of the three; past either, the shaft and head's
    /// arrow alone, the run left as drawn.
    @Test func piecesOfAShaftNearTheirLimits() {
        var pen = SyntheticPen(seed: 29, jitter: 0.3)
        let shaft = pen.stroke(through: [Point(x: 0, y: 0), Point(x: 0, y: 300)], samples: 50)
        let head = pen.stroke(through: [Point(x: -20, y: 270), Point(x: 0, y: 300), Point(x: 20, y: 270)], samples: 30)
        let runs: [(String, from: Double, to: Double, joined: Bool)] = [
            ("ending 0.043 of the size away", -200, -16, true), ("ending 0.08 of the size away", -200, -30, false),
            ("45 px long", -45, 0, true), ("25 px long", -25, 0, false),
        ]
        for (name, from, to, joined) in runs {
            let run = pen.stroke(through: [Point(x: from, y: 0), Point(x: to, y: 0)], samples: 30)
            let read = ShapeRecognizer.recognizeInARow([run, shaft, head])
            #expect(read[2].joins == (joined ? 2 : 1), "\(name): \(read[2])")
            #expect(read[2].shape.kind == (joined ? .elbowArrow : .arrow), "\(name): \(read[2].shape.kind)")
        }
    }

    /// Three strokes that are no arrow, each refused, in `explain`'s words where it matters:
    /// barbs that do not meet (each 0.4 of the head apart at the tip), a "K" (a stem and two
    /// strokes that meet at its middle), an "A" (two legs and a bar), an "F", an "H", an
    /// asterisk of three crossing strokes, a triangle drawn side by side, a "Z", and three
    /// strokes side by side.
    @Test func threeStrokesThatAreNoArrowAreRefused() {
        var pen = SyntheticPen(seed: 19, jitter: 0.4)
        func line(_ from: Point, _ to: Point) -> [Point] { pen.stroke(through: [from, to], samples: 30) }
        let shaft = line(Point(x: 0, y: 0), Point(x: 300, y: 0))
        let apart = ShapeRecognizer.explainArrow(
            drawnFirst: shaft, then: line(Point(x: 300, y: 12), Point(x: 250, y: 40)),
            then: line(Point(x: 300, y: -12), Point(x: 250, y: -40)))
        #expect(apart.shape == .none)
        #expect(
            apart.hypotheses.contains { $0.verdict.contains("the head's two strokes do not meet") },
            "\(apart.hypotheses.map(\.verdict))")
        // A "<" at the shaft's end, and a tap by one of its ends: no half of a head (the "<"
        // alone makes the arrow with the shaft as two strokes).
        let head = pen.stroke(through: [Point(x: 260, y: 30), Point(x: 300, y: 0), Point(x: 260, y: -30)], samples: 30)
        let tap = ShapeRecognizer.explainArrow(drawnFirst: head, then: [Point(x: 258, y: 32)], then: shaft)
        #expect(tap.shape == .none)
        #expect(
            tap.hypotheses.contains { $0.verdict.contains("no half of a head") }, "\(tap.hypotheses.map(\.verdict))")
        let cases: [(String, [[Point]])] = [
            ("a K", [line(Point(x: 0, y: 0), Point(x: 0, y: 200)), line(Point(x: 100, y: 0), Point(x: 0, y: 100)),
                     line(Point(x: 0, y: 100), Point(x: 100, y: 200))]),
            ("an A", [line(Point(x: 0, y: 200), Point(x: 60, y: 0)), line(Point(x: 60, y: 0), Point(x: 120, y: 200)),
                      line(Point(x: 25, y: 120), Point(x: 95, y: 120))]),
            ("an F", [line(Point(x: 0, y: 0), Point(x: 0, y: 200)), line(Point(x: 0, y: 0), Point(x: 100, y: 0)),
                      line(Point(x: 0, y: 90), Point(x: 70, y: 90))]),
            ("an H", [line(Point(x: 0, y: 0), Point(x: 0, y: 200)), line(Point(x: 100, y: 0), Point(x: 100, y: 200)),
                      line(Point(x: 0, y: 100), Point(x: 100, y: 100))]),
            ("an asterisk", [line(Point(x: 0, y: -100), Point(x: 0, y: 100)),
                             line(Point(x: -87, y: -50), Point(x: 87, y: 50)),
                             line(Point(x: -87, y: 50), Point(x: 87, y: -50))]),
            ("a triangle of three lines", [line(Point(x: 0, y: 0), Point(x: 200, y: 0)),
                                           line(Point(x: 200, y: 0), Point(x: 100, y: 170)),
                                           line(Point(x: 100, y: 170), Point(x: 0, y: 0))]),
            ("a Z", [line(Point(x: 0, y: 0), Point(x: 100, y: 0)), line(Point(x: 100, y: 0), Point(x: 0, y: 100)),
                     line(Point(x: 0, y: 100), Point(x: 100, y: 100))]),
            ("three lines side by side", [line(Point(x: 0, y: 0), Point(x: 200, y: 0)),
                                          line(Point(x: 0, y: 40), Point(x: 200, y: 40)),
                                          line(Point(x: 0, y: 80), Point(x: 200, y: 80))]),
        ]
        for (name, strokes) in cases {
            #expect(
                ShapeRecognizer.recognizeArrow(drawnFirst: strokes[0], then: strokes[1], then: strokes[2]) == .none,
                "\(name)")
        }
    }
}
