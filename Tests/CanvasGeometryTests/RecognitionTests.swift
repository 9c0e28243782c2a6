import CanvasCore
import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasGeometry

/// Shape recognition on synthetic strokes: each shape drawn at sizes from a small gesture to
/// a wall-sized whiteboard shape, at any rotation, with jitter; every random test takes its
/// seed as its argument (shown when it fails), so a failure replays exactly.
@Suite("Shape recognition")
struct RecognitionTests {
    static let seeds = Array(UInt64(1)...24)

    /// A size from 30 to 3,000 px, evenly spread over the orders of magnitude.
    static func size(_ pen: inout SyntheticPen) -> Double {
        exp(pen.random(in: log(30)...log(3000)))
    }

    /// Pen jitter (standard deviation, px) for a shape of `size` px: 0.3% of its size, about
    /// what the human-drawn lines of the evaluation data deviate from straight.
    static func jitter(for size: Double) -> Double {
        0.003 * size
    }

    /// The head an arrow's polyline ends in: open (tip, barb, tip, barb) or closed (tip,
    /// barb, barb, tip); nil when it ends in neither.
    static func head(of points: [Point]) -> (tip: Point, barbs: [Point], closed: Bool)? {
        let n = points.count
        guard n >= 4 else { return nil }
        if points[n - 4] == points[n - 2] { return (points[n - 4], [points[n - 3], points[n - 1]], false) }
        if points[n - 4] == points[n - 1] { return (points[n - 4], [points[n - 3], points[n - 2]], true) }
        return nil
    }

    /// True when every point of `expected` has a point of `actual` within `tolerance`, and
    /// the other way round.
    static func match(_ actual: [Point], _ expected: [Point], within tolerance: Double) -> Bool {
        let near = { (a: [Point], b: [Point]) in a.allSatisfy { p in b.contains { $0.distance(to: p) <= tolerance } } }
        return near(actual, expected) && near(expected, actual)
    }

    // MARK: Lines

    @Test func twoPointsAreALineBetweenThem() {
        let shape = ShapeRecognizer.recognize([Point(x: 10, y: 20), Point(x: 110, y: 70)])
        #expect(shape.kind == .line)
        #expect(Self.match(shape.points, [Point(x: 10, y: 20), Point(x: 110, y: 70)], within: 1e-9))
        #expect(shape.points[0].distance(to: Point(x: 10, y: 20)) < 1e-9)
    }

    @Test(arguments: seeds) func noisyLinesKeepTheirEnds(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let length = Self.size(&pen)
        pen.jitter = Self.jitter(for: length)
        let start = Point(x: pen.random(in: -500...500), y: pen.random(in: -500...500))
        let end = start + rotated(Point(x: length, y: 0), by: pen.random(in: 0...(2 * .pi)))
        let shape = ShapeRecognizer.recognize(pen.stroke(through: [start, end]))
        #expect(shape.kind == .line, "seed \(seed)")
        guard shape.kind == .line else { return }
        #expect(shape.points.count == 2)
        #expect(shape.points[0].distance(to: start) < 0.03 * length, "seed \(seed)")
        #expect(shape.points[1].distance(to: end) < 0.03 * length, "seed \(seed)")
    }

    @Test func hooksAtALinesEndsAreCutOff() {
        var pen = SyntheticPen(seed: 7, jitter: 0.5)
        // A 400 px line with the pen hooking 15 px sideways as it lands and lifts.
        let stroke = pen.stroke(through: [
            Point(x: 0, y: -15), Point(x: 5, y: 0), Point(x: 400, y: 0), Point(x: 395, y: 15),
        ])
        let shape = ShapeRecognizer.recognize(stroke)
        #expect(shape.kind == .line)
        #expect(Self.match(shape.points, [Point(x: 5, y: 0), Point(x: 400, y: 0)], within: 6))
    }

    @Test func aCurveIsNotALine() {
        var pen = SyntheticPen(seed: 3, jitter: 0.5)
        // An arc whose middle bows out by 15% of its chord (a bow of 8% would still be
        // straightened: see docs/recognition.md).
        let stroke = pen.arc(center: Point(x: 0, y: 0), radii: (400, 400), rotation: 0, start: 0.97, sweep: 1.2)
        #expect(ShapeRecognizer.recognize(stroke).kind == .none)
    }

    // MARK: Rectangles

    @Test(arguments: seeds) func rotatedRectanglesAndSquares(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let width = Self.size(&pen)
        let height = seed % 3 == 0 ? width : width * pen.random(in: 0.3...0.9)
        pen.jitter = Self.jitter(for: width)
        let rotation = pen.random(in: 0...(.pi / 2))
        let unit = [
            Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: height / width), Point(x: 0, y: height / width),
        ]
        var corners = placed(unit, size: width, rotation: rotation, origin: Point(x: 100, y: 100))
        // Any starting corner, either way round.
        corners = Array(corners[Int(seed % 4)...] + corners[..<Int(seed % 4)])
        if seed % 2 == 1 { corners.reverse() }
        let stroke = pen.stroke(through: corners + [corners[0]], samples: 120)
        let shape = ShapeRecognizer.recognize(stroke)
        #expect(shape.kind == .rectangle, "seed \(seed)")
        guard shape.kind == .rectangle else { return }
        #expect(shape.points.count == 5 && shape.points[0] == shape.points[4])
        #expect(Self.match(Array(shape.points.dropLast()), corners, within: 0.03 * width), "seed \(seed)")
        #expect(shape.points[0].distance(to: corners[0]) < 0.03 * width, "starts at the first corner drawn")
        for k in 0..<4 {
            let (a, b) = (shape.points[k + 1] - shape.points[k], shape.points[(k + 2) % 4] - shape.points[k + 1])
            #expect(abs(a.dot(b)) < 1e-9 * a.length * b.length, "right angles")
        }
    }

    @Test func aSloppyRectangleWithAGapAndAnOvershootIsARectangle() {
        var pen = SyntheticPen(seed: 11, jitter: 1.5)
        // Started mid-side, corners slightly off square, the last side stopping short,
        // the pen running on past the start.
        let stroke =
            pen.stroke(
                through: [
                    Point(x: 100, y: 2), Point(x: 300, y: 0), Point(x: 306, y: 150), Point(x: -4, y: 156),
                    Point(x: 0, y: 0),
                    Point(x: 70, y: 1),
                ], samples: 150)
        let shape = ShapeRecognizer.recognize(stroke)
        #expect(shape.kind == .rectangle)
        #expect(
            Self.match(
                Array(shape.points.dropLast()),
                [Point(x: 0, y: 0), Point(x: 300, y: 0), Point(x: 300, y: 153), Point(x: 0, y: 153)], within: 8))
    }

    /// Corners of 45° and 135° make no rectangle, and sides of 300 and 212 no diamond (the
    /// rhombus of its diagonals misses them): a parallelogram, its corners where they were
    /// drawn (left alone before parallelograms were recognised).
    @Test func aParallelogramTooSkewedForARectangleIsAParallelogram() {
        var pen = SyntheticPen(seed: 5, jitter: 1)
        let corners = [Point(x: 0, y: 0), Point(x: 300, y: 0), Point(x: 450, y: 150), Point(x: 150, y: 150)]
        let shape = ShapeRecognizer.recognize(pen.stroke(through: corners + [corners[0]]))
        #expect(shape.kind == .parallelogram)
        #expect(Self.match(Array(shape.points.dropLast()), corners, within: 6), "\(shape.points)")
    }

    /// The corners, in drawing order from `start`, of a parallelogram with sides of 1 and
    /// `1 / ratio` (the longer along x before turning) whose short sides lean `lean` radians
    /// from square, placed at `size`, `rotation`.
    static func parallelogram(
        ratio: Double, lean: Double, size: Double, rotation: Double, start: Int, reversed: Bool
    ) -> [Point] {
        let side = Point(x: sin(lean), y: cos(lean)) / ratio
        let unit = [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 0) + side, side]
        return inDrawingOrder(unit, size: size, rotation: rotation, start: start, reversed: reversed)
    }

    /// The quadrilateral through `corners` drawn round by `pen` (of a shape `size` across):
    /// expects it recognised as `kind`, closed, through the corners drawn (within 3 % of
    /// its size) and starting at the first; nil (the failure recorded) when it is not
    /// `kind`.
    static func expectKept(
        _ kind: ShapeKind, _ corners: [Point], drawnBy pen: inout SyntheticPen, size: Double, _ note: String
    ) -> RecognizedShape? {
        let shape = ShapeRecognizer.recognize(pen.stroke(through: corners + [corners[0]], samples: 120))
        #expect(shape.kind == kind, "\(note)")
        guard shape.kind == kind else { return nil }
        #expect(shape.points.count == 5 && shape.points[0] == shape.points[4])
        #expect(match(Array(shape.points.dropLast()), corners, within: 0.03 * size), "\(note)")
        #expect(shape.points[0].distance(to: corners[0]) < 0.03 * size, "starts at the first corner drawn")
        return shape
    }

    /// The corners `unit` (about 1 across) placed at `size`, `rotation`, in the order a pen
    /// starting at corner `start` draws them, the other way round when `reversed`.
    static func inDrawingOrder(
        _ unit: [Point], size: Double, rotation: Double, start: Int, reversed: Bool
    ) -> [Point] {
        let corners = placed(unit, size: size, rotation: rotation, origin: Point(x: 100, y: 100))
        let ordered = Array(corners[start...] + corners[..<start])
        return reversed ? ordered.reversed() : ordered
    }

    /// A parallelogram leaning further than a rectangle may (42-58° from square; a
    /// flowchart's input or output), with sides 1.8:1 to 2.5:1 (of about one length, it is
    /// a diamond), at any size and rotation, started at any corner either way round, is a
    /// parallelogram through the corners drawn, starting at the first, its opposite sides
    /// equal and parallel (left alone before, or a rectangle: the right-angled rectangle of
    /// a long one's dominant direction also passes, less than half as close).
    @Test(arguments: seeds) func parallelogramsKeepTheirShape(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let size = Self.size(&pen)
        let (ratio, lean) = (pen.random(in: 1.8...2.5), pen.random(in: 42...58) * .pi / 180)
        pen.jitter = Self.jitter(for: size)
        let corners = Self.parallelogram(
            ratio: ratio, lean: lean, size: size, rotation: pen.random(in: 0...(2 * .pi)), start: Int(seed % 4),
            reversed: seed % 2 == 1)
        guard
            let shape = Self.expectKept(
                .parallelogram, corners, drawnBy: &pen, size: size,
                "seed \(seed), \(ratio):1 leaning \(lean * 180 / .pi)°")
        else { return }
        for k in 0..<2 {
            let (side, opposite) = (shape.points[k + 1] - shape.points[k], shape.points[k + 2] - shape.points[k + 3])
            #expect((side - opposite).distance(to: Point(x: 0, y: 0)) < 1e-9 * size, "opposite sides \(k)")
        }
    }

    /// Leaning less than a rectangle's corners may (25° from square), a parallelogram is a
    /// rectangle, as people's slanted rectangles are; a rhombus of sides of one length
    /// leaning 45° is a diamond, not a parallelogram.
    @Test func aSlightlyLeaningParallelogramIsARectangleAndAnEquilateralOneADiamond() {
        var pen = SyntheticPen(seed: 3, jitter: 0.9)
        let slanted = Self.parallelogram(
            ratio: 1.6, lean: 25 * .pi / 180, size: 300, rotation: 0.4, start: 0, reversed: false)
        #expect(ShapeRecognizer.recognize(pen.stroke(through: slanted + [slanted[0]], samples: 120)).kind == .rectangle)
        let rhombus = Self.parallelogram(
            ratio: 1, lean: 45 * .pi / 180, size: 300, rotation: 0.4, start: 0, reversed: false)
        #expect(ShapeRecognizer.recognize(pen.stroke(through: rhombus + [rhombus[0]], samples: 120)).kind == .diamond)
    }

    /// A parallelogram is the closed shapes' last resort: drawn shakily (jitter 5 px on a
    /// 2.7:1 parallelogram leaning 46°, 300 px across), this one passes as a parallelogram
    /// and as an ellipse, and is an ellipse, `explain` saying why the parallelogram gave way.
    @Test func aParallelogramGivesWayToAnEllipseThatPassesToo() {
        var pen = SyntheticPen(seed: 72, jitter: 0)
        let (lean, ratio) = (pen.random(in: 40...50) * .pi / 180, pen.random(in: 1.7...3))
        pen.jitter = pen.random(in: 1...6)
        let corners = Self.parallelogram(ratio: ratio, lean: lean, size: 300, rotation: 0.3, start: 0, reversed: false)
        let stroke = pen.stroke(through: corners + [corners[0]], samples: 120)
        let explanation = ShapeRecognizer.explain(stroke)
        #expect(explanation.shape.kind == .ellipse && ShapeRecognizer.recognize(stroke).kind == .ellipse)
        let verdict = explanation.hypotheses.first { $0.kind == .parallelogram }?.verdict ?? "no parallelogram"
        #expect(verdict.hasPrefix("passes, but ellipse passes too, and a parallelogram gives way"), "\(verdict)")
    }

    /// The parallelogram fitted to a parallelogram is that parallelogram, corner for corner
    /// in its order.
    @Test func theParallelogramOfAParallelogramIsItself() {
        let corners = Self.parallelogram(ratio: 1.8, lean: 0.8, size: 240, rotation: 2.2, start: 2, reversed: true)
        let fitted = PolygonFit.parallelogram(matching: corners)
        for (a, b) in zip(fitted, corners) { #expect(a.distance(to: b) < 1e-9, "\(fitted) \(corners)") }
    }

    /// The corners, in drawing order from `start`, of a rhombus whose diagonals are `ratio`:1
    /// (the longer 1 across, along x), placed at `size`, `rotation`.
    static func rhombus(ratio: Double, size: Double, rotation: Double, start: Int, reversed: Bool) -> [Point] {
        let unit = [
            Point(x: -0.5, y: 0), Point(x: 0, y: -0.5 / ratio), Point(x: 0.5, y: 0), Point(x: 0, y: 0.5 / ratio),
        ]
        return inDrawingOrder(unit, size: size, rotation: rotation, start: start, reversed: reversed)
    }

    /// A diamond skewed as a rhombus is (diagonals 2.1:1 to 3.4:1, corners 36-54° from
    /// square), at any size and rotation, started at any corner either way round, stays a
    /// diamond of its proportions: four equal sides through the corners drawn, starting at
    /// the first (squared, the 2:1 diamond of a flowchart became a tilted 1.1:1 rectangle
    /// or nothing; issue 14's Apple Pencil diamonds).
    @Test(arguments: seeds) func diamondsKeepTheirProportions(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let size = Self.size(&pen)
        let ratio = pen.random(in: 2.1...3.4)
        pen.jitter = Self.jitter(for: size)
        let corners = Self.rhombus(
            ratio: ratio, size: size, rotation: pen.random(in: 0...(2 * .pi)), start: Int(seed % 4),
            reversed: seed % 2 == 1)
        guard let shape = Self.expectKept(.diamond, corners, drawnBy: &pen, size: size, "seed \(seed), \(ratio):1")
        else { return }
        let sides = (0..<4).map { shape.points[$0].distance(to: shape.points[$0 + 1]) }
        #expect(sides.max()! - sides.min()! < 1e-9 * size, "four equal sides: \(sides)")
        let diagonals = (shape.points[0].distance(to: shape.points[2]), shape.points[1].distance(to: shape.points[3]))
        let kept = max(diagonals.0, diagonals.1) / min(diagonals.0, diagonals.1)
        #expect(abs(kept - ratio) < 0.08 * ratio, "proportions kept: \(kept):1 drawn \(ratio):1")
    }

    /// A diamond drawn fast, started in the middle of a side and closed there, its corners
    /// rounded off over 1 or 2 % of the stroke, is still a diamond. (Rounded over 3 %, the
    /// acute tips of these 2.1:1 to 3.4:1 diamonds read as an ellipse's ends: 17 of 24
    /// became ellipses; docs/recognition.md, Known limitations.)
    @Test(arguments: seeds, [0.01, 0.02]) func diamondsDrawnFastAreDiamonds(seed: UInt64, rounding: Double) {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let corners = Self.rhombus(
            ratio: pen.random(in: 2.1...3.4), size: 300, rotation: pen.random(in: 0...(2 * .pi)), start: 0,
            reversed: false)
        let start = (corners[0] + corners[1]) / 2
        let stroke = pen.stroke(through: [start] + corners[1...] + [corners[0], start], samples: 120)
        #expect(ShapeRecognizer.recognize(roundedOff(stroke, over: rounding)).kind == .diamond)
    }

    /// Where a diamond is a rectangle and where nothing: a rhombus of 1.5:1 (corners 23°
    /// from square) is a skewed square, as people skew theirs, and becomes a rectangle; one
    /// of 5:1 (corners 67° from square) is too thin for a diamond or a rectangle, and
    /// `explain` says so, with its corners' angles within 3° (its ellipse, as thin, may pass).
    @Test func aSkewedSquareIsARectangleAndATooThinDiamondIsNothing() throws {
        var pen = SyntheticPen(seed: 9, jitter: 0.9)
        let square = Self.rhombus(ratio: 1.5, size: 300, rotation: 0.3, start: 0, reversed: false)
        #expect(ShapeRecognizer.recognize(pen.stroke(through: square + [square[0]], samples: 120)).kind == .rectangle)
        let thin = Self.rhombus(ratio: 5, size: 300, rotation: 0.3, start: 0, reversed: false)
        let stroke = pen.stroke(through: thin + [thin[0]], samples: 120)
        let kind = ShapeRecognizer.recognize(stroke).kind
        #expect(kind != .diamond && kind != .rectangle, "\(kind)")
        let verdicts = ShapeRecognizer.explain(stroke).hypotheses.filter { $0.kind == .rectangle }.map(\.verdict)
        let refusal = try #require(verdicts.first { $0.contains("and make no diamond or parallelogram: their") })
        let largest = try #require(
            refusal.firstMatch(of: /a corner (\d+)° from square \(at most 40°\)/), "\(refusal)")
        let mean = try #require(
            refusal.firstMatch(of: /their corners are (\d+)° from square on average \(35-60°\)/), "\(refusal)")
        #expect(abs(Double(largest.1)! - 67) <= 3 && abs(Double(mean.1)! - 67) <= 3, "\(refusal)")
    }

    /// The rhombus fitted to a rhombus is that rhombus, corner for corner in its order.
    @Test func theRhombusOfARhombusIsItself() {
        let corners = Self.rhombus(ratio: 2.5, size: 240, rotation: 1.1, start: 1, reversed: true)
        let fitted = PolygonFit.rhombus(matching: corners)
        for (a, b) in zip(fitted, corners) { #expect(a.distance(to: b) < 1e-9, "\(fitted) \(corners)") }
    }

    /// A triangle whose rounded corner the four-run split reads as a short fourth side is a
    /// trapezoid: its opposite sides differ far more than any hand-drawn rectangle's, so it
    /// is no rectangle (found in a held-out subject's fast triangles), and `explain` says so,
    /// with the sides' ratio (drawn 1:6, measured on the runs 0.12–0.22).
    @Test func aTriangleWithACornerCutOffIsNotARectangle() throws {
        var pen = SyntheticPen(seed: 7, jitter: 1)
        // Base 300, the apex cut off by a side of 50: opposite sides 1:6.
        let stroke = pen.stroke(
            through: [
                Point(x: 0, y: 0), Point(x: 300, y: 0), Point(x: 175, y: 210), Point(x: 125, y: 210), Point(x: 0, y: 0),
            ], samples: 120)
        #expect(ShapeRecognizer.recognize(stroke).kind != .rectangle)
        let verdicts = ShapeRecognizer.explain(stroke).hypotheses.filter { $0.kind == .rectangle }.map(\.verdict)
        let refusal = try #require(verdicts.first { $0.contains("differ in length by more than 2:1 (a trapezoid)") })
        let ratio = try #require(
            refusal.firstMatch(of: /\(a trapezoid\): the shorter is ([\d.]+) of the longer/), "\(refusal)")
        #expect((0.12...0.22).contains(Double(ratio.1)!), "\(refusal)")
    }

    /// Rectangles drawn sheared or tapered, as fast hands draw them, stay rectangles: the
    /// opposite-sides test only refuses sides differing by more than 2:1.
    @Test(arguments: [(shear: 0.0, taper: 0.7), (shear: 0.5, taper: 1.0), (shear: 0.4, taper: 0.8)])
    func shearedAndTaperedRectanglesAreRectangles(shear: Double, taper: Double) {
        var pen = SyntheticPen(seed: 3, jitter: 1)
        // Bottom side 300, top side `taper` of it, the top shifted by `shear` of the height.
        let (width, height) = (300.0, 180.0)
        let top = width * taper
        let offset = shear * height + (width - top) / 2
        let stroke = pen.stroke(
            through: [
                Point(x: 0, y: 0), Point(x: width, y: 0), Point(x: offset + top, y: height), Point(x: offset, y: height),
                Point(x: 0, y: 0),
            ], samples: 120)
        #expect(ShapeRecognizer.recognize(stroke).kind == .rectangle)
    }

    /// A long parallelogram (400 × 60, short sides leaning 35°) started at a corner and
    /// drawn down a short side first, left open by 20 px at the end: hook trimming cuts off
    /// that short side (it ends within the first tenth of the stroke), and the right-angled
    /// rectangle of the stroke's direction misses the leaning sides; the split of the whole
    /// stroke follows them (issue 14: long rectangles stretched from people's; 8 of these
    /// 12 were refused before).
    @Test(arguments: seeds.prefix(12)) func aLongLeaningRectangleStartedAlongAShortSide(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.8)
        let lean = 60 * tan(35 * Double.pi / 180)
        let corners = [
            Point(x: lean, y: 60), Point(x: 0, y: 0), Point(x: 400, y: 0), Point(x: 400 + lean, y: 60),
            Point(x: lean + 20, y: 60),
        ]
        let turn = pen.random(in: 0...(2 * .pi))
        let stroke = pen.stroke(through: corners.map { rotated($0, by: turn) }, samples: 150)
        #expect(ShapeRecognizer.recognize(stroke).kind == .rectangle, "seed \(seed)")
    }

    // MARK: Ellipses

    @Test(arguments: seeds) func circlesAndEllipses(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let major = Self.size(&pen) / 2
        let minor = seed % 3 == 0 ? major : major * pen.random(in: 0.35...0.9)
        pen.jitter = Self.jitter(for: major)
        let center = Point(x: pen.random(in: -500...500), y: pen.random(in: -500...500))
        let rotation = pen.random(in: 0...(.pi))
        // Left open by up to 8% or run on past the start by up to 6%, either way round.
        let sweep = 2 * .pi * pen.random(in: 0.92...1.06) * (seed % 2 == 0 ? 1 : -1)
        let stroke = pen.arc(
            center: center, radii: (major, minor), rotation: rotation, start: pen.random(in: 0...(2 * .pi)),
            sweep: sweep,
            samples: 150)
        let shape = ShapeRecognizer.recognize(stroke)
        #expect(shape.kind == .ellipse, "seed \(seed)")
        guard shape.kind == .ellipse else { return }
        #expect(shape.points.count > 32 && shape.points.first == shape.points.last)
        let outline = shape.points.dropLast()
        let fittedCenter = outline.reduce(Point(x: 0, y: 0), +) / Double(outline.count)
        let radii = outline.map { $0.distance(to: fittedCenter) }
        #expect(fittedCenter.distance(to: center) < 0.03 * major, "seed \(seed)")
        #expect(abs(radii.max()! - major) < 0.03 * major, "seed \(seed)")
        #expect(abs(radii.min()! - minor) < 0.03 * major, "seed \(seed)")
    }

    /// Hand-drawn polygons of six to eight sides (corners up to 6° off even, 1:1 to 1.3:1,
    /// any size and rotation, corners rounded off over 0.3-1 % of the stroke) are left
    /// alone: their sides are straight where an ellipse has arcs (`straightSides`). An
    /// octagon's corners turn 45°, a hexagon's 60°: too gently for the corner test, which
    /// refuses a pentagon's 72° and a hexagon's sharpest now and then. Every one of these 24
    /// was an ellipse before the test of straight sides; every one is refused by it.
    @Test func polygonsOfSixToEightSidesAreNoEllipses() {
        var straightSided = 0
        for seed in UInt64(1)...24 {
            var pen = SyntheticPen(seed: seed, jitter: 0.8)
            let sides = 6 + Int(seed % 3)
            let turn = pen.random(in: 0...(2 * .pi))
            let (radius, aspect) = (pen.random(in: 75...250), pen.random(in: 1...1.3))
            var corners = (0..<sides).map { k in
                let angle = 2 * Double.pi * Double(k) / Double(sides) + pen.random(in: -0.1...0.1)
                let corner = Point(x: radius * aspect * cos(angle), y: radius * sin(angle))
                return Point(x: 400, y: 400) + rotated(corner, by: turn)
            }
            corners.append(corners[0])
            let rounding = pen.random(in: 0.003...0.01)
            let stroke = roundedOff(pen.stroke(through: corners, samples: 30 * sides), over: rounding)
            let explanation = ShapeRecognizer.explain(stroke)
            #expect(explanation.shape.kind == .none, "seed \(seed), \(sides) sides")
            #expect(ShapeRecognizer.recognize(stroke).kind == .none, "seed \(seed)")
            let ellipse = explanation.hypotheses.first { $0.kind == .ellipse }
            if ellipse?.verdict.contains("straight sides") == true { straightSided += 1 }
        }
        #expect(straightSided == 24)
    }

    @Test func ellipsePolygonsAreFineEnoughAtAnySize() {
        for radius in [20.0, 200, 2000] {
            let ellipse = FittedEllipse(
                fitting: (0..<64).map { Point(x: radius * cos(Double($0) / 10), y: radius / 2 * sin(Double($0) / 10)) })!
            let outline = ellipse.outline(tolerance: 0.25, segments: 32...4096)
            #expect(outline.count - 1 >= 32 && (outline.count - 1) % 4 == 0)
            // The middle of each chord is within the tolerance of the true curve.
            for (a, b) in zip(outline, outline.dropFirst()) {
                let middle = a.interpolated(to: b, at: 0.5)
                let onCurve =
                    (middle.x / radius) * (middle.x / radius) + (middle.y * 2 / radius) * (middle.y * 2 / radius)
                #expect(abs(onCurve.squareRoot() - 1) * radius < 0.3, "radius \(radius)")
            }
        }
    }

    /// A 5:1 ellipse left open along a flat side by a sixth of a turn of eccentric angle:
    /// as a circle it would be open by a sixth, well within the fifth people leave, but
    /// the opening takes 0.22 of the long ellipse's perimeter. An opening of a third of a
    /// turn in the same place is an arc and stays one (issue 14).
    @Test(arguments: seeds.prefix(12)) func aLongEllipseLeftOpenAlongAFlatSide(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.8)
        let rotation = pen.random(in: 0...(2 * .pi))
        func drawn(leftOpen opening: Double) -> [Point] {
            pen.arc(
                center: Point(x: 0, y: 0), radii: (250, 50), rotation: rotation, start: .pi / 2 + opening / 2,
                sweep: 2 * .pi - opening, samples: 150)
        }
        let open = drawn(leftOpen: 2 * .pi / 6)
        let ellipse = FittedEllipse(fitting: open)!
        #expect(ellipse.perimeterShare(ofArcAround: .pi / 2, sweep: 2 * .pi / 6) > 0.2)
        #expect(ShapeRecognizer.recognize(open).kind == .ellipse, "seed \(seed)")
        #expect(ShapeRecognizer.recognize(drawn(leftOpen: 2 * .pi / 3)).kind == .none, "seed \(seed)")
    }

    /// A 5:1 ellipse started on a flat side and run round past the far end of its major
    /// axis by 25° before the pen lifts: hook trimming takes that last turn round the
    /// pointed end for a hook, which leaves the rest tracing less than four fifths of the
    /// outline; the whole stroke traces enough (issue 14: stretched circles of the $1 set).
    @Test(arguments: seeds.prefix(12)) func aLongEllipseEndingJustPastAPointedEnd(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.8)
        let degree = Double.pi / 180
        let stroke = pen.arc(
            center: Point(x: 0, y: 0), radii: (250, 50), rotation: pen.random(in: 0...(2 * .pi)), start: 83 * degree,
            sweep: (360 + 25 - 83) * degree, samples: 150)
        #expect(ShapeRecognizer.recognize(stroke).kind == .ellipse, "seed \(seed)")
    }

    /// A circle (or a 2:1 ellipse) through eight pen points, the last back near the first,
    /// as a pen or screen sampling a fast stroke records it: the canvas draws the smooth
    /// curve through them, and the ellipse follows that curve, where the straight chords
    /// between the points meet in corners of about 50° that the corner test refused (issue
    /// 14: circles sampled six times less often; 6 of these 12 were refused before).
    @Test(arguments: seeds.prefix(12)) func anEllipseThroughEightPenPoints(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 1)
        let start = pen.random(in: 0...(2 * .pi))
        let stretch = seed % 2 == 0 ? 1.0 : 0.5
        let points = (0...7).map { k in
            let angle = start + 2 * .pi * (Double(k) + pen.random(in: -0.2...0.2)) / 7
            return rotated(Point(x: 200 * cos(angle), y: 200 * stretch * sin(angle)), by: start)
        }
        #expect(ShapeRecognizer.recognize(points).kind == .ellipse, "seed \(seed)")
    }

    /// The polygons keep the chords between the pen's points: a square through a dozen
    /// points, three a side, stays a rectangle however smooth the curve through them is.
    @Test(arguments: seeds.prefix(12)) func aSquareThroughADozenPenPointsStaysARectangle(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 1)
        let turn = pen.random(in: 0...(2 * .pi))
        let corners = [Point(x: 0, y: 0), Point(x: 300, y: 0), Point(x: 300, y: 300), Point(x: 0, y: 300)]
        var points: [Point] = []
        for k in 0..<4 {
            for step in 0..<3 {
                points.append(corners[k].interpolated(to: corners[(k + 1) % 4], at: Double(step) / 3))
            }
        }
        points.append(corners[0])
        let drawn = points.map { rotated($0, by: turn) + Point(x: pen.random(in: -2...2), y: pen.random(in: -2...2)) }
        #expect(ShapeRecognizer.recognize(drawn).kind == .rectangle, "seed \(seed)")
    }

    // MARK: Triangles

    @Test(arguments: seeds) func triangles(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let size = Self.size(&pen)
        pen.jitter = Self.jitter(for: size)
        let turn = pen.random(in: 0...(2 * .pi))
        // Corners a third of a turn apart, give or take 25°: no angle below about 30°.
        let unit = (0..<3).map { k -> Point in
            let angle = turn + Double(k) * 2 * .pi / 3 + pen.random(in: -0.44...0.44)
            return Point(x: cos(angle), y: sin(angle)) * pen.random(in: 0.8...1)
        }
        var corners = placed(unit, size: size / 2, rotation: 0, origin: Point(x: 0, y: 0))
        if seed % 2 == 1 { corners.reverse() }
        let shape = ShapeRecognizer.recognize(pen.stroke(through: corners + [corners[0]], samples: 100))
        #expect(shape.kind == .triangle, "seed \(seed)")
        guard shape.kind == .triangle else { return }
        #expect(shape.points.count == 4 && shape.points[0] == shape.points[3])
        #expect(Self.match(Array(shape.points.dropLast()), corners, within: 0.04 * size), "seed \(seed)")
    }

    /// Triangles drawn fast, their corners rounded off over 5 % of the stroke (`roundedOff`):
    /// no stroke point lies near a corner's tip, and the stretches the rounding skips beside
    /// the three corners made the stroke trace less than four fifths of the triangle (11 of
    /// these 12 were refused before a triangle's corners could be drawn rounded).
    @Test(arguments: seeds.prefix(12)) func trianglesWithRoundedCorners(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let turn = pen.random(in: 0...(2 * .pi))
        let corners = (0..<3).map { k in
            rotated(Point(x: 200, y: 0), by: turn + Double(k) * 2 * .pi / 3 + pen.random(in: -0.3...0.3))
        }
        let stroke = roundedOff(pen.stroke(through: corners + [corners[0]], samples: 120), over: 0.05)
        #expect(ShapeRecognizer.recognize(stroke).kind == .triangle, "seed \(seed)")
    }

    /// The corners of a rectangle 300 px high and `aspect` times as wide, about the origin,
    /// turned by `turn` radians.
    static func rectangleCorners(aspect: Double, turn: Double) -> [Point] {
        [Point(x: -1, y: -1), Point(x: 1, y: -1), Point(x: 1, y: 1), Point(x: -1, y: 1)].map {
            rotated(Point(x: $0.x * 150 * aspect, y: $0.y * 150), by: turn)
        }
    }

    /// A rectangle (up to 2:1, any rotation) started along a side and drawn with its
    /// corners rounded off over `fraction` of the stroke (`roundedOff`).
    static func roundedRectangle(seed: UInt64, over fraction: Double) -> [Point] {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let (turn, aspect) = (pen.random(in: 0...(2 * .pi)), pen.random(in: 1...2))
        let corners = Self.rectangleCorners(aspect: aspect, turn: turn)
        let start = (corners[0] + corners[1]) / 2
        let stroke = pen.stroke(through: [start] + corners[1...] + [corners[0], start], samples: 120)
        return roundedOff(stroke, over: fraction)
    }

    /// Rectangles whose corners are rounded off over 4 % of the stroke trace less than four
    /// fifths of their rectangle, as little as a circle traces of its square; but their
    /// sides are straight: the stroke follows the rectangle more than twice as closely as
    /// its ellipse, and its rounded corners count as drawn (all 12 were taken for ellipses
    /// before).
    @Test(arguments: seeds.prefix(12)) func rectanglesWithRoundedCorners(seed: UInt64) {
        #expect(ShapeRecognizer.recognize(Self.roundedRectangle(seed: seed, over: 0.04)).kind == .rectangle)
    }

    /// Rounded off over 5 % of the stroke, the corners take most of it, and the stroke
    /// follows its rectangle less than twice as closely as its ellipse (0.016 and 0.023 of
    /// its size): an ellipse, as before (all 12 became rectangles without that comparison).
    @Test(arguments: seeds.prefix(12)) func rectanglesRoundedIntoOvalsAreEllipses(seed: UInt64) {
        #expect(ShapeRecognizer.recognize(Self.roundedRectangle(seed: seed, over: 0.05)).kind == .ellipse)
    }

    /// A rectangle of 1:1 to 2.5:1 whose sides wave as a hurried hand makes them: each side
    /// swings out and back in by `amplitude` of the rectangle's diagonal, one full wave a
    /// side, drawn from the middle of the top side round.
    static func wavyRectangle(seed: UInt64, amplitude: Double) -> [Point] {
        var pen = SyntheticPen(seed: seed, jitter: 0.6)
        let (width, turn) = (300.0, pen.random(in: 0...(2 * .pi)))
        let height = width / pen.random(in: 1...2.5)
        let wave = amplitude * (width * width + height * height).squareRoot()
        let corners = [(1.0, -1.0), (1, 1), (-1, 1), (-1, -1)].map { Point(x: $0 * width / 2, y: $1 * height / 2) }
        let start = Point(x: 0, y: -height / 2)
        let sides = [(start, corners[0])] + (0..<4).map { (corners[$0], corners[($0 + 1) % 4]) } + [(corners[3], start)]
        var waypoints = [start]
        for (index, (from, to)) in sides.enumerated() {
            let along = to - from
            var outward = Point(x: along.y, y: -along.x) / along.distance(to: Point(x: 0, y: 0))
            if outward.x * (from.x + to.x) + outward.y * (from.y + to.y) < 0 { outward = outward * -1 }
            for step in 1...12 {
                let t = Double(step) / 12
                // The first and last pieces are halves of the top side: the wave runs on.
                let phase = index == 0 ? 0.5 + t / 2 : index == sides.count - 1 ? t / 2 : t
                waypoints.append(from.interpolated(to: to, at: t) + outward * (wave * sin(2 * .pi * phase)))
            }
        }
        return pen.stroke(through: waypoints.map { Point(x: 300, y: 300) + rotated($0, by: turn) }, samples: 120)
    }

    /// A closed shape may stray further on average than an arrow (`closedShapeRMSTolerance`,
    /// 0.055 of its size, where an arrow's is 0.05): rectangles whose sides wave by 0.13 of
    /// their diagonal follow their rectangle at 0.049-0.061, and each within the closed
    /// shapes' tolerance is a rectangle, those beyond it left alone. At least eight of the
    /// 24 stray further than an arrow may (all of those were left alone before).
    @Test func wavyRectanglesWithinTheClosedShapesTolerance() {
        var beyondTheArrowsTolerance = 0
        for seed in UInt64(1)...24 {
            let stroke = Self.wavyRectangle(seed: seed, amplitude: 0.13)
            let explanation = ShapeRecognizer.explain(stroke)
            // The closest of the rectangles tried (the four straight runs', the dominant direction's).
            guard let rms = explanation.hypotheses.filter({ $0.kind == .rectangle }).compactMap(\.rmsDistance).min()
            else {
                Issue.record("seed \(seed): no rectangle was fitted")
                continue
            }
            let expected: ShapeKind = rms <= ShapeRecognizer.closedShapeRMSTolerance ? .rectangle : .none
            #expect(ShapeRecognizer.recognize(stroke).kind == expected, "seed \(seed): RMS distance \(rms)")
            if rms > ShapeRecognizer.rmsTolerance && expected == .rectangle { beyondTheArrowsTolerance += 1 }
        }
        #expect(beyondTheArrowsTolerance >= 8)
    }

    /// A lumpy loop: five strokes of the hand round an oval (a pentagon whose corners lie on
    /// an ellipse of 1:1 to 1.4:1, each up to 17° from evenly spaced), rounded off over
    /// 1.2-2 % of the stroke, as people draw small ovals, note heads and the circle of a null
    /// sign in a few movements. Some loops keep corners, some are round enough for their
    /// ellipse, and many also follow a quadrilateral closely.
    static func lumpyLoop(seed: UInt64, bulge: Double = 0) -> [Point] {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let (turn, aspect) = (pen.random(in: 0...(2 * .pi)), pen.random(in: 0.7...1))
        let rounding = pen.random(in: 0.012...0.02)
        let corners = (0..<5).map { k in
            let angle = 2 * Double.pi * Double(k) / 5 + pen.random(in: -0.3...0.3)
            return Point(x: 300, y: 300) + rotated(Point(x: 150 * cos(angle), y: 150 * aspect * sin(angle)), by: turn)
        }
        let start = (corners[0] + corners[1]) / 2
        var waypoints = [start] + corners[1...] + [corners[0], start]
        if bulge > 0 {
            // Each movement bowed outwards: its middle pushed away from the loop's middle by
            // `bulge` of its distance from it.
            let middle = Point(x: 300, y: 300)
            waypoints = [start] + (1...5).flatMap { k -> [Point] in
                let halfway = (corners[k % 5] + corners[(k + 1) % 5]) / 2
                return [corners[k % 5], halfway + (halfway - middle) * bulge]
            }
            waypoints[waypoints.count - 1] = start + (start - middle) * bulge
            waypoints[0] = waypoints[waypoints.count - 1]
        }
        let stroke = pen.stroke(through: waypoints, samples: 120)
        return roundedOff(stroke, over: rounding)
    }

    /// Where a polygon and the ellipse both pass, the polygon is chosen only when the
    /// stroke follows it more than twice as closely (`ShapeRecognizer.polygonCloseness`),
    /// and `explain` says so of a closer polygon passed over; `recognize` decides as
    /// `explain` says. Over 240 lumpy loops (`lumpyLoop`, straight and bowed movements), at
    /// least 10 are held back so, though a polygon follows them more closely (the closest
    /// shape was chosen before: none were). The ellipse holding a polygon back is chosen,
    /// or, refused for five straight sides (`straightSides`: the straight loops are
    /// pentagons, drawn side by side), leaves the stroke alone; there are some of each.
    @Test func aPolygonIsTakenOverAnEllipseOnlyWhenTwiceAsClose() {
        var (ellipses, straightSided) = (0, 0)
        for bulge in [0, 0.1] {
            for seed in UInt64(1)...120 {
                let stroke = Self.lumpyLoop(seed: seed, bulge: bulge)
                let explanation = ShapeRecognizer.explain(stroke)
                #expect(ShapeRecognizer.recognize(stroke).kind == explanation.shape.kind, "seed \(seed)")
                let passing = explanation.hypotheses.filter {
                    $0.verdict.hasPrefix("chosen") || $0.verdict.hasPrefix("passes")
                }
                let polygons = passing.filter { $0.kind == .rectangle || $0.kind == .triangle }
                let ellipse = explanation.hypotheses.first {
                    $0.kind == .ellipse && ($0.verdict.hasPrefix("chosen") || $0.verdict.contains("straight sides"))
                }
                guard let ellipse, let polygon = polygons.min(by: { $0.rmsDistance! < $1.rmsDistance! }),
                    polygon.rmsDistance! < ellipse.rmsDistance!
                else { continue }
                if polygon.rmsDistance! < ShapeRecognizer.polygonCloseness * ellipse.rmsDistance! {
                    #expect(explanation.shape.kind == polygon.kind, "seed \(seed)")
                } else {
                    let isChosen = ellipse.verdict.hasPrefix("chosen")
                    #expect(explanation.shape.kind == (isChosen ? .ellipse : .none), "seed \(seed)")
                    #expect(polygon.verdict.contains("ellipse passes too"), "seed \(seed): \(polygon.verdict)")
                    if isChosen { ellipses += 1 } else { straightSided += 1 }
                }
            }
        }
        #expect(ellipses + straightSided >= 10 && ellipses >= 2 && straightSided >= 5, "\(ellipses), \(straightSided)")
    }

    /// How a fast hand overshoots a corner: past it and straight back (a spike), past it
    /// and round into the next side (a loop), or past it and into the next side beside the
    /// corner, crossing itself.
    enum Overshoot: CaseIterable { case spike, loop, crossing }

    /// The waypoints of a closed polygon through `corners` whose every corner is overshot
    /// by `reach` pixels in the way `overshoot` says.
    static func overshooting(_ corners: [Point], by reach: Double, _ overshoot: Overshoot) -> [Point] {
        var waypoints = [corners[0]]
        for k in 1...corners.count {
            let (previous, corner) = (corners[k - 1], corners[k % corners.count])
            let next = corners[(k + 1) % corners.count]
            let incoming = (corner - previous) / corner.distance(to: previous)
            let outgoing = (next - corner) / next.distance(to: corner)
            let past = corner + incoming * reach
            switch overshoot {
            case .spike: waypoints += [past, corner]
            case .loop: waypoints += [past, past + outgoing * reach, corner + outgoing * 0.3 * reach]
            case .crossing: waypoints += [past, corner + incoming * 0.7 * reach + outgoing * 0.2 * reach]
            }
        }
        return waypoints
    }

    /// Rectangles (up to 2:1) and triangles drawn fast, every corner overshot by 30-50 px
    /// (a tenth to a sixth of a 300-350 px side), in each way a hand overshoots: the straight
    /// runs' fit and the distance tolerances absorb them (at 90-120 px, about a third of a
    /// side, 31 of these 72 are refused).
    @Test(arguments: seeds.prefix(12)) func polygonsWithOvershotCorners(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let (turn, aspect) = (pen.random(in: 0...(2 * .pi)), pen.random(in: 1...2))
        let rectangle = Self.rectangleCorners(aspect: aspect, turn: turn)
        let triangle = (0..<3).map { rotated(Point(x: 200, y: 0), by: turn + Double($0) * 2 * .pi / 3) }
        for overshoot in Overshoot.allCases {
            let reach = pen.random(in: 30...50)
            let rectangleStroke = pen.stroke(through: Self.overshooting(rectangle, by: reach, overshoot), samples: 150)
            #expect(ShapeRecognizer.recognize(rectangleStroke).kind == .rectangle, "seed \(seed), \(overshoot)")
            let triangleStroke = pen.stroke(through: Self.overshooting(triangle, by: reach, overshoot), samples: 150)
            #expect(ShapeRecognizer.recognize(triangleStroke).kind == .triangle, "seed \(seed), \(overshoot)")
        }
    }

    /// Triangles and rectangles (up to 2:1) whose pen runs on past one corner and comes back
    /// along the side it drew, by 28-29 % of the size (triangles) or 25-26 % (rectangles):
    /// the stroke strays about 0.2 of its size from the shape there while keeping within the
    /// RMS tolerance, as fast subjects' strokes do. `distanceTolerance` 0.2 refused 17 of
    /// these 48, 0.225 none; a little farther and the spike's RMS distance refuses them.
    @Test(arguments: seeds) func polygonsWithOneCornerOvershotFar(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let (turn, aspect) = (pen.random(in: 0...(2 * .pi)), pen.random(in: 1...2))
        let triangle = (0..<3).map { rotated(Point(x: 200, y: 0), by: turn + Double($0) * 2 * .pi / 3) }
        let rectangle = Self.rectangleCorners(aspect: aspect, turn: turn)
        for (corners, kind) in [(triangle, ShapeKind.triangle), (rectangle, .rectangle)] {
            let share = kind == .triangle ? pen.random(in: 0.28...0.29) : pen.random(in: 0.25...0.26)
            let size = kind == .triangle ? corners[1].distance(to: corners[0]) : corners[2].distance(to: corners[0])
            let direction = (corners[1] - corners[0]) / corners[1].distance(to: corners[0])
            let spike = corners[1] + direction * share * size
            let waypoints = [corners[0], corners[1], spike] + corners[1...] + [corners[0]]
            let stroke = pen.stroke(through: waypoints, samples: 150)
            #expect(ShapeRecognizer.recognize(stroke).kind == kind, "seed \(seed), \(kind), overshot \(share)")
        }
    }

    /// Rectangles (up to 2:1) whose stroke begins with a small loop, the pen circling once
    /// as it lands (a loop 6-16 % of the size across, at a corner or along a side, either
    /// way round): trimming and the straight runs' fit leave the loop out (loops 40-60 % of
    /// the size across are mostly refused: 22 of 24).
    @Test(arguments: seeds.prefix(12)) func rectanglesStartedWithALoop(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let (turn, aspect) = (pen.random(in: 0...(2 * .pi)), pen.random(in: 1...2))
        let corners = Self.rectangleCorners(aspect: aspect, turn: turn)
        let along = (corners[1] - corners[0]) / corners[1].distance(to: corners[0])
        let side: Double = seed % 2 == 0 ? 1 : -1
        for atCorner in [true, false] {
            let start = atCorner ? corners[0] : (corners[0] + corners[1]) / 2
            let radius = pen.random(in: 0.03...0.08) * 300 * aspect
            let center = start + rotated(along, by: side * .pi / 2) * radius
            let loop = (0..<12).map { k in
                center + rotated((start - center), by: side * 2 * .pi * Double(k) / 12)
            }
            let waypoints = loop + corners[1...] + (atCorner ? [corners[0]] : [corners[0], start])
            let stroke = pen.stroke(through: waypoints, samples: 150)
            #expect(ShapeRecognizer.recognize(stroke).kind == .rectangle, "seed \(seed), at a corner: \(atCorner)")
        }
    }

    /// `explain` says whether a rectangle's corners were taken as rounded, with the two
    /// distances that decided it.
    /// `recognize` decides as `explain` when it gave the ellipse's match up early: stopped
    /// at a point beyond the largest distance, the RMS distance so far was small, so the
    /// rectangle's corners (rounded only when its ellipse is over twice as far) were not
    /// taken as rounded, while `explain`, with the whole distance (0.094 against the
    /// rectangle's 0.019), chose the rectangle. Found by FuzzRecognizer (its regression
    /// `recognize-and-explain-disagree-on-an-ellipse-given-up-far`).
    @Test func recognizeDecidesAsExplainWhenTheEllipseMatchStoppedEarly() {
        let coordinates: [(Double, Double)] = [
            (0, 300), (85, 280), (120, 4), (365, 25), (400, 100), (393, 101), (386, 101), (379, 372), (102, 1), (0, 0),
            (3072, 891), (102, 386), (101, 393), (101, 400), (100, 911), (2155, 398), (-142, -1),
        ]
        let tail: [(Double, Double)] = [
            (0, 0), (0, 0), (-29895, -30975), (-30208, -29183), (-30464, -27391), (-30720, -25599), (5376, 0), (0, 0),
        ]
        let points =
            coordinates.map { Point(x: $0.0, y: $0.1) } + Array(repeating: Point(x: -1, y: -1), count: 16)
            + tail.map { Point(x: $0.0, y: $0.1) }
        let explained = ShapeRecognizer.explain(points)
        #expect(explained.shape.kind == .rectangle)
        #expect(ShapeRecognizer.recognize(points) == explained.shape)
    }

    /// `explain` says what each shape was fitted to, so that two tries of one shape are told
    /// apart: a circle begun at its centre (a lead-in) is fitted as drawn and, refused for
    /// the corner where the lead-in meets it, again on its closed loop, which is chosen; an
    /// arrow's readings name their heads; a shape that could not be fitted names nothing.
    @Test func explainSaysWhatEachShapeWasFittedTo() {
        let leadIn = (0..<10).map { Point(x: Double($0) * 10, y: 0) }
        let circle = (0...60).map { k -> Point in
            let angle = Double(k) / 60 * 2 * .pi * 1.08
            return Point(x: 100 * cos(angle), y: 100 * sin(angle))
        }
        let explained = ShapeRecognizer.explain(leadIn + circle)
        #expect(explained.shape.kind == .ellipse)
        let chosen = explained.hypotheses.first { $0.verdict.hasPrefix("chosen") }
        #expect(chosen?.kind == .ellipse)
        #expect(
            chosen?.fittedTo == "the stroke's closed loop (its lead-in or run-out cut off)",
            "\(String(describing: chosen))")
        let triangles = explained.hypotheses.filter { $0.kind == .triangle }.compactMap(\.fittedTo)
        #expect(triangles == ["the whole stroke", "the stroke's closed loop (its lead-in or run-out cut off)"])
        #expect(explained.hypotheses.allSatisfy { ($0.fittedTo == nil) == ($0.rmsDistance == nil) })

        let arrow = [Point(x: 0, y: 0), Point(x: 200, y: 0), Point(x: 170, y: 25), Point(x: 200, y: 0),
            Point(x: 170, y: -25)]
        let readings = ShapeRecognizer.explain(arrow).hypotheses.filter { $0.kind == .arrow }.compactMap(\.fittedTo)
        #expect(readings == ["the whole stroke, an open head", "the whole stroke, a closed head"], "\(readings)")
    }

    /// `explain` says why an ellipse chosen is no polygon of more sides: a round circle
    /// strays from its ellipse too little for any polygon's sides to be straighter than its
    /// arcs; a hexagon whose pen recorded only its corners is drawn as the curve through
    /// them, whose straightest polygon is not straight enough.
    @Test func explainSaysWhyAnEllipseIsNoPolygon() {
        func ellipseVerdict(_ stroke: [Point]) -> String? {
            let explained = ShapeRecognizer.explain(stroke)
            #expect(explained.shape == ShapeRecognizer.recognize(stroke))
            #expect(explained.shape.kind == .ellipse)
            return explained.hypotheses.first { $0.kind == .ellipse && $0.verdict.hasPrefix("chosen") }?.verdict
        }
        let circle = (0...100).map { k -> Point in
            Point(x: 200 * cos(Double(k) / 100 * 2 * .pi), y: 200 * sin(Double(k) / 100 * 2 * .pi))
        }
        let round = ellipseVerdict(circle) ?? "no ellipse chosen"
        #expect(round.contains("compared with polygons of 5–8 sides: none could have straighter sides"), "\(round)")
        let hexagon = (0...6).map { k -> Point in
            Point(x: 200 * cos(Double(k) / 6 * 2 * .pi + 0.3), y: 200 * sin(Double(k) / 6 * 2 * .pi + 0.3))
        }
        let corners = ellipseVerdict(hexagon) ?? "no ellipse chosen"
        #expect(corners.contains("compared with polygons of 5–8 sides: the straightest, of "), "\(corners)")
        #expect(corners.hasSuffix("not under 0.45×)"), "\(corners)")
    }

    /// When a lead-in keeps a stroke's closed loop from being tried alone (it lies outside
    /// the loop, farther than the RMS tolerance), `explain` says so for each closed shape:
    /// a circle begun well outside itself is no shape, and why its loop was not tried is told.
    @Test func explainSaysWhyTheClosedLoopWasNotTried() {
        let leadIn = (0..<20).map { Point(x: 300 - Double($0) * 10, y: 0) }
        let circle = (0...60).map { k -> Point in
            let angle = Double(k) / 60 * 2 * .pi * 1.08
            return Point(x: 100 * cos(angle), y: 100 * sin(angle))
        }
        let explained = ShapeRecognizer.explain(leadIn + circle)
        #expect(explained.shape.kind == .none)
        #expect(ShapeRecognizer.recognize(leadIn + circle) == explained.shape)
        let notTried = explained.hypotheses.filter {
            $0.verdict.hasPrefix("not fitted: the stroke's closed loop alone was not tried: a point of its lead-in, ")
        }
        #expect(notTried.map(\.kind) == [.triangle, .rectangle, .ellipse], "\(explained.hypotheses.map(\.verdict))")
        #expect(notTried.allSatisfy { $0.verdict.hasSuffix("of the size outside the loop (at most 0.05)") })
        #expect(!explained.hypotheses.contains { $0.fittedTo?.contains("closed loop") == true })
    }

    /// A match `recognize` gave up never passes: a stroke about 10⁻¹⁵⁹ across (31 points,
    /// most at the origin) was given up as a line, its sum of squares beyond the limit,
    /// while the RMS distance computed from that sum rounded to within it (the squares are
    /// subnormal numbers), and `recognize` alone took it for a line; `explain`, with the
    /// whole distance (0.058 of the size against a line's 0.025), left it alone. Found by
    /// FuzzRecognizer (its regression `recognize-takes-a-given-up-line-at-the-smallest-scale`).
    @Test func aMatchGivenUpNeverPassesHoweverSmallTheStroke() {
        var points = [Point](repeating: Point(x: 0, y: 0), count: 31)
        (points[0], points[12]) = (Point(x: 0, y: 18e-160), Point(x: 4e-160, y: 0))
        (points[28], points[30]) = (Point(x: 0, y: 1e-160), Point(x: 0, y: 1e-160))
        #expect(ShapeRecognizer.explain(points).shape.kind == .none)
        #expect(ShapeRecognizer.recognize(points).kind == .none)
    }

    /// A match is given up only when it would be refused in full, however small the stroke:
    /// five points 10⁻¹⁶⁰ apart, on a grid of that step and smoothed (`PenGrid`), follow an
    /// arrow at an RMS distance of 0.05 of their size, just within the limit; the squares
    /// are subnormal, and their sum passed the limit's (its square, a subnormal of a digit
    /// or two) while the RMS distance did not. `recognize` gave the match up and left the
    /// stroke alone; `explain`, matching it in full, chose the arrow. Found by
    /// FuzzRecognizer (its regression
    /// `recognize-gives-up-an-arrow-within-the-limit-at-the-smallest-scale`).
    @Test func aMatchIsGivenUpOnlyWhenRefusedHoweverSmallTheStroke() {
        let points = [(0, -1), (-1, 1), (0, 0), (1, 0), (-1, 0)].map {
            Point(x: Double($0.0) * 1e-160, y: Double($0.1) * 1e-160)
        }
        #expect(ShapeRecognizer.explain(points).shape.kind == .arrow)
        #expect(ShapeRecognizer.recognize(points) == ShapeRecognizer.explain(points).shape)
    }

    /// An arrow whose shaft is over 10¹⁵⁴ long has finite barbs: its lengths' squares
    /// overflow, and the replacement's barbs were not numbers (so `recognize` and `explain`
    /// gave shapes that compare unequal). Found by FuzzRecognizer (its regression
    /// `an-arrow-over-1e154-long-has-finite-barbs`: these 22 points times 10¹⁵⁰).
    @Test func anArrowOver1e154LongHasFiniteBarbs() {
        let grid = [
            (19200, 1), (7680, 0), (3847, 2093), (67, -3298), (255, 4), (245, 11520), (0, 0), (0, 11520), (0, 16),
            (-2816, 45), (100, 300), (113, 9216), (0, 0), (0, -256), (0, 4), (245, 11520), (0, 0), (0, 11520),
            (0, 16), (-2816, -2260), (100, 300), (113, 11520),
        ]
        let points = grid.map { Point(x: Double($0.0) * 1e150, y: Double($0.1) * 1e150) }
        let shape = ShapeRecognizer.recognize(points)
        #expect(shape.points.allSatisfy { $0.x.isFinite && $0.y.isFinite }, "\(shape.kind): \(shape.points)")
        #expect(ShapeRecognizer.explain(points).shape == shape)
    }

    @Test func explainSaysWhyARectanglesCornersWereOrWereNotTakenAsRounded() {
        func verdicts(over fraction: Double) -> [String] {
            ShapeRecognizer.explain(Self.roundedRectangle(seed: 1, over: fraction)).hypotheses
                .filter { $0.kind == .rectangle }.map(\.verdict)
        }
        let rounded = verdicts(over: 0.04)
        #expect(rounded.contains { $0.hasPrefix("chosen (corners taken as rounded: RMS distance 0.0") }, "\(rounded)")
        #expect(rounded.contains { $0.contains("from the ellipse; rounded when the ellipse is over 2× as far") })
        let oval = verdicts(over: 0.05)
        let notRounded = "(corners not taken as rounded: RMS distance"
        #expect(oval.contains { $0.hasPrefix("refused: traces") && $0.contains(notRounded) }, "\(oval)")
    }

    // MARK: Arrows

    @Test(arguments: seeds) func arrows(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let length = Self.size(&pen)
        pen.jitter = Self.jitter(for: length)
        let tail = Point(x: pen.random(in: -500...500), y: pen.random(in: -500...500))
        let direction = pen.random(in: 0...(2 * .pi))
        let tip = tail + rotated(Point(x: length, y: 0), by: direction)
        let barb = length * pen.random(in: 0.2...0.4)
        let spread = pen.random(in: 0.45...0.8)
        let back = rotated(Point(x: -barb, y: 0), by: direction)
        let (left, right) = (tip + rotated(back, by: spread), tip + rotated(back, by: -spread))
        // Head drawn out and back (the $1 gesture) or closed; last or first. A closed head stays
        // closed (tail, tip, barb, barb, tip).
        let closed = seed % 2 == 1
        var waypoints = closed ? [tail, tip, left, right, tip] : [tail, tip, left, tip, right]
        if seed % 4 >= 2 { waypoints.reverse() }
        let shape = ShapeRecognizer.recognize(pen.stroke(through: waypoints, samples: 120))
        #expect(shape.kind == .arrow, "seed \(seed)")
        guard shape.kind == .arrow, let head = Self.head(of: shape.points) else { return }
        #expect(shape.points.count == 5 && head.tip == shape.points[1] && head.closed == closed, "seed \(seed)")
        #expect(shape.points[0].distance(to: tail) < 0.04 * length, "seed \(seed)")
        #expect(shape.points[1].distance(to: tip) < 0.04 * length, "seed \(seed)")
        #expect(Self.match(head.barbs, [left, right], within: 0.06 * length), "seed \(seed)")
        // The replacement head is symmetric about the shaft.
        let shaft = shape.points[0] - shape.points[1]
        let arms = head.barbs.map { $0 - shape.points[1] }
        #expect(abs(arms[0].length - arms[1].length) < 1e-9 * length)
        #expect(abs(arms[0].dot(shaft) - arms[1].dot(shaft)) < 1e-9 * length * length)
    }

    /// An arrow drawn as one of the strangers drew theirs (tj-schultz S03, 8 of 10 left
    /// alone before): the pen starts on the shaft near the tip, runs down it to the tail,
    /// comes back up to the tip and draws the head; or the other way round, the shaft drawn
    /// there and back after the head. The stroke is read from where it turns at the tail
    /// (`ArrowFit.readingsAfterLeadIn`), and the shaft drawn first, a little beside the
    /// second, is compared with the shaft: the arrow runs from the tail to the tip.
    @Test(arguments: seeds) func anArrowWhoseShaftIsDrawnThereAndBack(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let length = Self.size(&pen)
        pen.jitter = Self.jitter(for: length)
        let direction = pen.random(in: 0...(2 * .pi))
        let tail = Point(x: pen.random(in: -500...500), y: pen.random(in: -500...500))
        let tip = tail + rotated(Point(x: length, y: 0), by: direction)
        let back = rotated(Point(x: -length * pen.random(in: 0.2...0.4), y: 0), by: direction)
        let spread = pen.random(in: 0.45...0.8)
        // The first pass starts 0.7-1 of the way up and strays up to 3 % of the shaft beside it.
        let start = tail + rotated(
            Point(x: length * pen.random(in: 0.7...1), y: length * pen.random(in: -0.03...0.03)), by: direction)
        var waypoints = [start, tail, tip, tip + rotated(back, by: spread), tip, tip + rotated(back, by: -spread)]
        if seed % 2 == 0 { waypoints.reverse() }
        let stroke = pen.stroke(through: waypoints, samples: 160)
        let shape = ShapeRecognizer.recognize(stroke)
        #expect(shape.kind == .arrow, "seed \(seed)")
        guard shape.kind == .arrow else { return }
        #expect(shape.points[0].distance(to: tail) < 0.04 * length, "seed \(seed)")
        #expect(shape.points[1].distance(to: tip) < 0.04 * length, "seed \(seed)")
        let chosen = ShapeRecognizer.explain(stroke).hypotheses.first { $0.verdict.hasPrefix("chosen") }
        #expect(chosen?.fittedTo?.contains("the shaft drawn there and back") == true, "seed \(seed)")
    }

    /// What a stroke draws before it turns at the tail must lie along the shaft, within a
    /// line's largest distance (`lineDistanceTolerance`): an arrow whose stroke starts with
    /// a flag off the tail (a quarter of the shaft long, 45° from it, as a handwritten "1"
    /// read as an arrow whose base is the head), which the whole stroke's match would
    /// pass, is left alone, and `explain` says how far the flag strays.
    @Test(arguments: seeds.prefix(12)) func aLeadInOffTheShaftIsNoShaftDrawnTwice(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let direction = pen.random(in: 0...(2 * .pi))
        let tip = rotated(Point(x: 400, y: 0), by: direction)
        let back = rotated(Point(x: -120, y: 0), by: direction)
        let flag = rotated(Point(x: 71, y: 71), by: direction)
        var waypoints = [flag, Point(x: 0, y: 0), tip, tip + rotated(back, by: 0.6), tip, tip + rotated(back, by: -0.6)]
        if seed % 2 == 0 { waypoints.reverse() }
        let stroke = pen.stroke(through: waypoints, samples: 160)
        let explanation = ShapeRecognizer.explain(stroke)
        #expect(explanation.shape.kind == .none, "seed \(seed)")
        let arrow = explanation.hypotheses.first { $0.kind == .arrow }?.verdict ?? ""
        #expect(arrow.contains("before turning at the tail the stroke strays"), "seed \(seed): \(arrow)")
    }

    /// Of an arrow's open and closed readings only one passes: `explain` calls that one
    /// chosen and says why the other was refused (both were "chosen" when the verdict
    /// compared shapes and the two readings gave one shape, before a closed head stayed
    /// closed).
    @Test(arguments: seeds.prefix(12)) func explainChoosesOneArrowReading(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let direction = pen.random(in: 0...(2 * .pi))
        let tip = rotated(Point(x: 300, y: 0), by: direction)
        let back = rotated(Point(x: -90, y: 0), by: direction)
        let stroke = pen.stroke(
            through: [Point(x: 0, y: 0), tip, tip + rotated(back, by: 0.5), tip, tip + rotated(back, by: -0.5)],
            samples: 120)
        let explanation = ShapeRecognizer.explain(stroke)
        #expect(explanation.shape.kind == .arrow, "seed \(seed)")
        let arrows = explanation.hypotheses.filter { $0.kind == .arrow && $0.rmsDistance != nil }
        #expect(arrows.filter { $0.verdict.hasPrefix("chosen") }.count == 1, "seed \(seed): \(arrows.map(\.verdict))")
        #expect(arrows.contains { $0.verdict.hasPrefix("refused: ") }, "seed \(seed): \(arrows.map(\.verdict))")
    }

    /// `recognize` refuses a closed arrow head without matching it in full when the head's
    /// points alone trace too little of it (`ArrowFit.mayBeTraced`). That bound never
    /// refuses what the full match would pass: over every reading of arrows drawn with open
    /// and closed heads, last and first, and of every non-shape, with the tip at the first
    /// sharp turn or the forwardmost point, at the recogniser's thresholds and others around
    /// them, each reading it refuses traces less of its sides, or of one side, than asked
    /// when matched in full. And it refuses some: the closed head read on the arrow drawn
    /// with an open one, which leaves the stroke across the barbs undrawn. (Where the length
    /// overflows it refuses nothing.)
    @Test(arguments: seeds) func arrowTracingBoundRefusesOnlyWhatTheMatchRefuses(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let size = Self.size(&pen)
        pen.jitter = Self.jitter(for: size)
        let rotation = pen.random(in: 0...(2 * .pi))
        let origin = Point(x: 500, y: 400)
        let heads = [
            [(0, 0), (1, 0), (0.75, 0.2), (1, 0), (0.75, -0.2)], [(0, 0), (1, 0), (0.75, 0.2), (0.75, -0.2), (1, 0)],
        ].map { waypoints in
            pen.stroke(
                through: placed(
                    waypoints.map { Point(x: $0.0, y: $0.1) }, size: size, rotation: rotation, origin: origin))
        }
        let nonShapes = NonShape.allCases.map { $0.drawn(with: &pen, size: size, rotation: rotation) }
        let strokes = heads + heads.map { $0.reversed() } + nonShapes
        let thresholds = [(0.8, 0.5), (0.6, 0.3), (0.9, 0.7), (0.95, 0.05), (0.3, 0.9)]
        var (refused, refusedOnTheOpenArrow) = (0, 0)
        for (index, stroke) in strokes.enumerated() {
            let whole = StrokeResampling.resampled(stroke, count: ShapeRecognizer.sampleCount)
            let (size, length) = (StrokeResampling.diameter(of: whole), StrokeResampling.length(of: whole))
            for forwardmostTip in [false, true] {
                let readings = ArrowFit.readings(
                    whole, hookLength: ShapeRecognizer.hookLength, sharpTurn: ShapeRecognizer.sharpTurn,
                    maximumBow: ShapeRecognizer.distanceTolerance * size, forwardmostTip: forwardmostTip)
                for fit in readings.fits {
                    let match = OutlineMatch(stroke: whole, length: length, sides: .each(fit.drawnSides))
                    // A stroke whose length overflows may trace anything, even more than all.
                    #expect(fit.mayBeTraced(by: whole, length: .infinity, minimumDrawn: 2, minimumDrawnSide: 2))
                    for (drawn, side) in thresholds
                    where !fit.mayBeTraced(by: whole, length: length, minimumDrawn: drawn, minimumDrawnSide: side) {
                        refused += 1
                        if index == 0, fit.hasClosedHead, drawn == 0.8 { refusedOnTheOpenArrow += 1 }
                        #expect(
                            match.drawnFraction < drawn || match.leastDrawnSide < side,
                            """
                            seed \(seed), stroke \(index): traces \(match.drawnFraction), a side \
                            \(match.leastDrawnSide), refused at \(drawn), \(side)
                            """)
                    }
                }
            }
        }
        #expect(refused > 0, "seed \(seed)")
        #expect(refusedOnTheOpenArrow > 0, "seed \(seed)")
    }

    /// A five-point star drawn fast and lopsided (after one of MMG subject 61's): its first
    /// edge reads as a shaft and the next two as a wide head, and its last two edges, run
    /// back down the shaft, stay within the distance tolerances of that arrow. An arrow's
    /// head reaches back no farther than its barbs (22 of these 24 were arrows before).
    @Test(arguments: seeds.prefix(24)) func aLopsidedStarIsNoArrow(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let turn = pen.random(in: 0...(2 * .pi))
        let star = [(-45, 68), (44, -23), (-71, -30), (49, 72), (3, -55), (-37, 59)].map {
            rotated(Point(x: Double($0.0), y: Double($0.1)) * 3, by: turn)
        }
        #expect(ShapeRecognizer.recognize(pen.stroke(through: star, samples: 120)).kind == .none, "seed \(seed)")
    }

    /// A random arrow's pen and head, as the arrow tests draw them: the shaft from the
    /// origin to `tip`, `length` 200–600 in any direction, the pen's jitter `jitter` of it;
    /// `back`, a barb pointing straight back from the tip, `barb` long (`barbs` of the
    /// shaft); and the barbs' `spread` from it (radians).
    static func arrowHead(
        seed: UInt64, jitter: Double, barbs: ClosedRange<Double>, spread: ClosedRange<Double>
    ) -> (pen: SyntheticPen, head: (length: Double, tip: Point, barb: Double, back: Point, spread: Double)) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let length = pen.random(in: 200...600)
        pen.jitter = jitter * length
        let direction = pen.random(in: 0...(2 * .pi))
        let tip = rotated(Point(x: length, y: 0), by: direction)
        let barb = length * pen.random(in: barbs)
        let back = rotated(Point(x: -barb, y: 0), by: direction)
        return (pen, (length, tip, barb, back, pen.random(in: spread)))
    }

    /// An arrow's barbs are drawn to about one length (`ArrowFit.barbBalance`): drawn
    /// alike but for the second barb's length, a head whose shorter barb is 0.4 of the
    /// longer or more is an arrow, and one 0.22–0.28 of it is not (a brace's curl and
    /// lower half, read as barbs, are as unlike; the shorter still over the least barb,
    /// a tenth of the shaft), and `explain` says so, with the shorter barb's share. Any
    /// direction and size, barbs 0.5–0.7 of the shaft, spread 25°–45°.
    @Test(arguments: seeds.prefix(24)) func anArrowsBarbsAreDrawnToAboutOneLength(seed: UInt64) {
        var (pen, head) = Self.arrowHead(seed: seed, jitter: 0.002, barbs: 0.5...0.7, spread: 0.45...0.8)
        func arrow(secondBarb share: Double) -> [Point] {
            let second = head.tip + rotated(head.back, by: -head.spread) * share
            let first = head.tip + rotated(head.back, by: head.spread)
            return pen.stroke(through: [Point(x: 0, y: 0), head.tip, first, head.tip, second], samples: 120)
        }
        let balanced = arrow(secondBarb: pen.random(in: 0.4...1))
        #expect(ShapeRecognizer.recognize(balanced).kind == .arrow, "seed \(seed)")
        let lopsided = arrow(secondBarb: pen.random(in: 0.22...0.28))
        let explained = ShapeRecognizer.explain(lopsided)
        #expect(explained.shape.kind != .arrow, "seed \(seed)")
        #expect(ShapeRecognizer.recognize(lopsided) == explained.shape, "seed \(seed)")
        let arrowVerdicts = explained.hypotheses.filter { $0.kind == .arrow }.map(\.verdict)
        #expect(
            arrowVerdicts.contains {
                $0.contains("with the head at the stroke's end (the whole stroke), the shorter barb is 0.2")
                    && $0.contains("of the longer (at least 0.333)")
            }, "\(arrowVerdicts)")
    }

    /// Angles print in whole degrees, and one that is not a finite number (a stroke whose
    /// coordinates' products overflow) prints as it is rather than stopping the program.
    @Test func explainPrintsAnyAngle() {
        #expect(ShapeRecognizer.degrees(.pi / 2) == "90")
        #expect(ShapeRecognizer.degrees(-0.4 * .pi / 180) == "0")
        #expect(ShapeRecognizer.degrees(.nan) == "nan")
        #expect(ShapeRecognizer.degrees(-.infinity) == "-inf")
    }

    /// `explain` names the test that kept a stroke from being read as an arrow, with its
    /// figures, for each end the head was looked for at (issue 14: a user who disagrees can
    /// see why): barbs drawn 85°–95° from the shaft (a "T", not a head) are refused for the
    /// first barb's angle, told within 5° of the angle drawn; barbs
    /// 1.2–1.4 times the shaft for the first barb's length; and an arc, which turns nowhere
    /// sharply, has no tip at either end. `recognize` decides as `explain` does.
    @Test(arguments: seeds.prefix(24)) func explainNamesTheTestThatRefusedAnArrow(seed: UInt64) throws {
        func arrowNote(_ stroke: [Point]) -> String {
            let explained = ShapeRecognizer.explain(stroke)
            #expect(ShapeRecognizer.recognize(stroke) == explained.shape, "seed \(seed)")
            #expect(explained.shape.kind != .arrow, "seed \(seed)")
            return explained.hypotheses.first { $0.kind == .arrow }?.verdict ?? ""
        }
        let atEnd = "not fitted: no arrow reading: with the head at the stroke's end (the whole stroke), "
        var (pen, head) = Self.arrowHead(seed: seed, jitter: 0.002, barbs: 0.3...0.5, spread: 1.48...1.66)
        func arrow(barbs share: Double) -> [Point] {
            let (left, right) = (rotated(head.back, by: head.spread), rotated(head.back, by: -head.spread))
            return pen.stroke(
                through: [Point(x: 0, y: 0), head.tip, head.tip + left * share, head.tip, head.tip + right * share],
                samples: 120)
        }
        let forward = arrowNote(arrow(barbs: 1))
        let angle = try #require(
            forward.firstMatch(of: /the first barb points (\d+)° away from the shaft \(10–80° back along it\)/),
            "seed \(seed): \(forward)")
        #expect(forward.hasPrefix(atEnd), "seed \(seed): \(forward)")
        #expect(abs(Double(angle.1)! - head.spread * 180 / .pi) <= 5, "seed \(seed): \(forward)")
        // As long as the shaft and more, pointing back.
        head.spread = pen.random(in: 0.45...0.8)
        let long = arrowNote(arrow(barbs: pen.random(in: 1.2...1.4) / (head.barb / head.length)))
        #expect(long.hasPrefix(atEnd + "the first barb is 1."), "seed \(seed): \(long)")
        #expect(long.contains("of the shaft's length (0.100–1.000)"), "seed \(seed): \(long)")
        // A third of a circle of radius 200–600, turning evenly.
        let radius = head.length
        let arc = (0...60).map { k in
            rotated(Point(x: radius, y: 0), by: head.spread + 2 * Double.pi / 3 * Double(k) / 60)
        }
        let noTip = "no tip: no turn sharper than 60° past the first 10 % of the stroke"
        #expect(
            arrowNote(pen.stroke(through: arc, samples: 120))
                == "not fitted: no arrow reading: with the head at the stroke's end (the whole stroke), \(noTip); "
                + "with the head at its start (the whole stroke), \(noTip)", "seed \(seed)")
    }

    /// The last barb ends in a "J": the pen curls away by 120° over a run of a tenth of the
    /// stroke as it lifts, too gently at any one sample for a hook (9 of these 24 were
    /// refused before the rounded hook was cut, issue 14).
    @Test(arguments: seeds.prefix(40)) func anArrowWhoseLastBarbCurlsAsThePenLifts(seed: UInt64) {
        var (pen, head) = Self.arrowHead(seed: seed, jitter: 0.003, barbs: 0.25...0.4, spread: 0.5...0.75)
        let (length, tip, barb, back, spread) = head
        let (left, right) = (tip + rotated(back, by: spread), tip + rotated(back, by: -spread))
        // The curl: an arc of radius 0.4 barbs turning away from the shaft, in 12 steps.
        let heading = atan2((right - tip).y, (right - tip).x)
        let turn = 120 * Double.pi / 180
        let step = 0.4 * barb * turn / 12
        var curl: [Point] = []
        var end = right
        for k in 1...12 {
            let angle = heading - turn * Double(k) / 12
            end = end + Point(x: step * cos(angle), y: step * sin(angle))
            curl.append(end)
        }
        let stroke = pen.stroke(through: [Point(x: 0, y: 0), tip, left, tip, right] + curl, samples: 140)
        let shape = ShapeRecognizer.recognize(stroke)
        #expect(shape.kind == .arrow, "seed \(seed): \(shape.kind)")
        guard shape.kind == .arrow else { return }
        #expect(shape.points[1].distance(to: tip) < 0.04 * length, "seed \(seed)")
    }

    /// Elbow arrows: a connector bent once (an L) or twice (a Z or a U), its bends drawn
    /// 75-105° (by hand, not square), any size and rotation, with an open or closed head,
    /// last or first. Each is an elbow arrow with right-angled bends, its tail and tip near
    /// where they were drawn (none was recognised before elbow arrows).
    @Test(arguments: seeds) func elbowArrows(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let size = Self.size(&pen)
        pen.jitter = Self.jitter(for: size)
        var heading = pen.random(in: 0...(2 * .pi))
        let bends = seed % 3 == 0 ? 2 : 1
        let side: Double = seed % 5 < 2 ? 1 : -1
        var shaft = [Point(x: pen.random(in: -500...500), y: pen.random(in: -500...500))]
        for run in 0...bends {
            if run > 0 {
                // A U turns the same way twice, a Z back.
                let turnSide = run == 2 && seed % 2 == 0 ? -side : side
                heading += turnSide * pen.random(in: 75...105) * .pi / 180
            }
            let length = size * pen.random(in: 0.4...1)
            shaft.append(shaft[run] + rotated(Point(x: length, y: 0), by: heading))
        }
        let tip = shaft[shaft.count - 1]
        let barb = size * pen.random(in: 0.1...0.2)
        let spread = pen.random(in: 0.45...0.8)
        let back = rotated(Point(x: -barb, y: 0), by: heading)
        let (left, right) = (tip + rotated(back, by: spread), tip + rotated(back, by: -spread))
        var waypoints = shaft + (seed % 2 == 0 ? [left, tip, right] : [left, right, tip])
        if seed % 4 >= 2 { waypoints.reverse() }
        let shape = ShapeRecognizer.recognize(pen.stroke(through: waypoints, samples: 200))
        #expect(shape.kind == .elbowArrow, "seed \(seed): \(shape.kind)")
        guard shape.kind == .elbowArrow else { return }
        let points = shape.points
        #expect(points.count == 5 + bends, "seed \(seed): \(points.count) points")
        guard points.count == 5 + bends, let head = Self.head(of: points) else { return }
        // Squaring a bend drawn up to 15° off moves the ends by up to a quarter of a run.
        let extent = shaft.map { a in shaft.map { a.distance(to: $0) }.max()! }.max()!
        #expect(points[0].distance(to: shaft[0]) < 0.15 * extent, "seed \(seed): tail")
        #expect(points[bends + 1].distance(to: tip) < 0.15 * extent, "seed \(seed): tip")
        // An open head stays open (a closed one mostly closed: its closed reading is the closer
        // on 11 of the 12 seeds drawing it, the open one on the other, as it may be).
        #expect(head.tip == points[bends + 1] && (seed % 2 == 1 || !head.closed), "seed \(seed): \(points)")
        for k in 0..<bends {
            let (a, b) = (points[k + 1] - points[k], points[k + 2] - points[k + 1])
            #expect(abs(a.dot(b)) < 1e-9 * a.length * b.length, "seed \(seed): bend \(k) not square")
        }
    }

    /// Elbow arrows with the small heads connectors have: barbs 5-9.5 % of the last run, on
    /// runs of 300-600 px, a head a sample or two of the whole stroke's 64 (all 12 refused
    /// with a straight arrow's least barb, a tenth of the shaft; with the stretch after the
    /// bend read and compared at the whole stroke's resolution, 8 of 12 with barbs of 4-8 %).
    @Test(arguments: seeds.prefix(12)) func elbowArrowsWithSmallHeads(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let turn = pen.random(in: 0...(2 * .pi))
        let (first, last) = (pen.random(in: 300...600), pen.random(in: 300...600))
        let barb = last * pen.random(in: 0.05...0.095)
        let spread = pen.random(in: 0.5...0.7)
        let side: Double = seed % 2 == 0 ? 1 : -1
        let (bend, tip) = (Point(x: 0, y: first), Point(x: side * last, y: first))
        let back = Point(x: -side * barb, y: 0)
        let (left, right) = (tip + rotated(back, by: spread), tip + rotated(back, by: -spread))
        let waypoints = [Point(x: 0, y: 0), bend, tip, left, tip, right]
        let stroke = pen.stroke(through: waypoints.map { rotated($0, by: turn) }, samples: 200)
        let shape = ShapeRecognizer.recognize(stroke)
        #expect(shape.kind == .elbowArrow, "seed \(seed): \(shape.kind), barbs \(barb / last) of the last run")
    }

    /// A connector bent without a head (an L or a U), a bent line with a hook at its end,
    /// and an L whose "head" is a single barb are no elbow arrows.
    @Test(arguments: seeds.prefix(12)) func bentStrokesWithoutAHeadAreNoElbowArrows(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0.5)
        let turn = pen.random(in: 0...(2 * .pi))
        let shapes: [[Point]] = [
            [(0, 0), (0, 300), (400, 300)], [(0, 0), (0, 300), (400, 300), (400, 0)],
            [(0, 0), (0, 300), (400, 300), (340, 340)], [(0, 0), (0, 300), (400, 300), (340, 260)],
        ].map { $0.map { rotated(Point(x: Double($0.0), y: Double($0.1)), by: turn) } }
        for waypoints in shapes {
            let kind = ShapeRecognizer.recognize(pen.stroke(through: waypoints, samples: 150)).kind
            #expect(kind != .elbowArrow && kind != .arrow, "seed \(seed): \(waypoints.count) waypoints as \(kind)")
        }
    }

    /// `explain` says an elbow arrow was chosen, with its scores; why none was tried when
    /// another shape passes; and when no reading makes one, the test the reading that came
    /// furthest failed, with its figures: a connector bent 135° before its head (told
    /// within 5°), and an L whose "head" is one barb.
    @Test func explainNamesTheElbowArrow() throws {
        var pen = SyntheticPen(seed: 5, jitter: 0.5)
        let connector = pen.stroke(
            through: [(0, 0), (0, 300), (400, 300), (350, 270), (400, 300), (350, 330)].map {
                Point(x: Double($0.0), y: Double($0.1))
            }, samples: 150)
        let elbows = ShapeRecognizer.explain(connector).hypotheses.filter { $0.kind == .elbowArrow }
        #expect(elbows.contains { $0.verdict.hasPrefix("chosen") && $0.rmsDistance != nil }, "\(elbows.map(\.verdict))")
        let corners = Self.rectangleCorners(aspect: 1.5, turn: 0.3)
        let box = pen.stroke(through: corners + [corners[0]])
        let refused = ShapeRecognizer.explain(box).hypotheses.filter { $0.kind == .elbowArrow }.map(\.verdict)
        #expect(refused == ["not fitted: another shape passes (an elbow arrow is tried only when none does)"])
        func elbowNote(_ waypoints: [(Double, Double)]) -> String {
            let stroke = pen.stroke(through: waypoints.map { Point(x: $0.0, y: $0.1) }, samples: 150)
            let explained = ShapeRecognizer.explain(stroke)
            #expect(explained.shape == ShapeRecognizer.recognize(stroke))
            return explained.hypotheses.first { $0.kind == .elbowArrow }?.verdict ?? ""
        }
        let oblique = elbowNote([(0, 0), (0, 300), (300, 0), (290, 50), (300, 0), (250, 10)])
        let atEnd = "not fitted: no elbow arrow reading: with the head at the stroke's end (bent once), "
        #expect(oblique.hasPrefix(atEnd), "\(oblique)")
        let bend = try #require(
            oblique.firstMatch(of: /\(bent once\), bend 1 turns (\d+)° \(90° ± 40°\)/), "\(oblique)")
        #expect(abs(Double(bend.1)! - 135) <= 5, "\(oblique)")
        let oneBarb = elbowNote([(0, 0), (0, 300), (400, 300), (340, 340)])
        #expect(
            oneBarb.hasPrefix(atEnd + "from the last bend, the head lies on one side of the shaft"), "\(oneBarb)")
    }

    /// A long connector with the small head flowcharts give it: barbs 4–9 % of a 400–900 px
    /// shaft, 25–40° off it, drawn out and back or closed, head last or first. The stroke passes as a
    /// line, its head cut off as a hook, and is an arrow: a line that passes is read as an
    /// arrow too, with barbs as short as an elbow arrow's, and the arrow is taken over the
    /// line (without either, every stroke is a line), the head compared again with the
    /// stroke sampled more finely when it traces too little of a barb (without it, 3 of the
    /// 24 are lines). The same shaft with a hook on one side at its end, or a head whose
    /// barbs are 1.5 % of it, stays a line.
    @Test(arguments: seeds) func aSmallHeadAtALongLinesEndMakesAnArrow(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let length = pen.random(in: 400...900)
        pen.jitter = Self.jitter(for: length)
        let direction = pen.random(in: 0...(2 * .pi))
        let tail = Point(x: pen.random(in: -500...500), y: pen.random(in: -500...500))
        let tip = tail + rotated(Point(x: length, y: 0), by: direction)
        func head(barbs share: Double) -> (left: Point, right: Point) {
            let back = rotated(Point(x: -share * length, y: 0), by: direction)
            let spread = pen.random(in: 0.44...0.7)
            return (tip + rotated(back, by: spread), tip + rotated(back, by: -spread))
        }
        func drawn(_ waypoints: [Point]) -> [Point] {
            pen.stroke(through: seed % 2 == 0 ? waypoints : waypoints.reversed(), samples: 160)
        }
        let (left, right) = head(barbs: pen.random(in: 0.04...0.09))
        // Open (out and back) or closed (the stroke across the barbs' ends), which stays closed.
        let closed = seed % 4 >= 2
        let firstStroke = drawn(closed ? [tail, tip, left, right, tip] : [tail, tip, left, tip, right])
        let shape = ShapeRecognizer.recognize(firstStroke)
        #expect(shape.kind == .arrow, "seed \(seed): \(shape.kind)")
        if shape.kind == .arrow, let head = Self.head(of: shape.points) {
            #expect(shape.points[0].distance(to: tail) < 0.04 * length, "seed \(seed)")
            #expect(shape.points[1].distance(to: tip) < 0.02 * length, "seed \(seed)")
            // An open head stays open (a closed one as small may read as either).
            #expect(closed || !head.closed, "seed \(seed): \(shape.points)")
            #expect(Self.match(head.barbs, [left, right], within: 0.02 * length))
        }
        let hook = tip + rotated(Point(x: -0.06 * length, y: 0.04 * length), by: direction)
        #expect(ShapeRecognizer.recognize(drawn([tail, tip, hook])).kind == .line, "seed \(seed): a hook")
        let (tinyLeft, tinyRight) = head(barbs: 0.015)
        let tiny = drawn([tail, tip, tinyLeft, tip, tinyRight])
        #expect(ShapeRecognizer.recognize(tiny).kind == .line, "seed \(seed): barbs 1.5 % of the shaft")
        let explained = ShapeRecognizer.explain(firstStroke)
        #expect(explained.shape.kind == .arrow, "seed \(seed)")
        #expect(
            explained.hypotheses.contains {
                $0.kind == .line && $0.verdict.hasPrefix("passes, but an arrow passes too: a head at the line's end")
            }, "seed \(seed): \(explained.hypotheses.map(\.verdict))")
    }

    /// The replacement of an arrow whose head reads closed (`ArrowFit.hasClosedHead`: the
    /// stroke across the barbs' ends among its sides) keeps it closed: tail, tip, barb, barb,
    /// tip, where an open one is tail, tip, barb, tip, barb; a double arrow's either head
    /// likewise (tip, barb, barb, tip at the start or the end), the barbs made symmetric all
    /// the same.
    @Test func aClosedHeadStaysClosedInTheReplacement() {
        /// An arrow from `tail` to `tip` with barbs 20 back and 12 to either side, closed or not.
        func fit(from tail: Point, to tip: Point, closed: Bool) -> ArrowFit {
            let axis = (tail - tip) / tail.distance(to: tip)
            let side = Point(x: -axis.y, y: axis.x)
            let barbs = (tip + axis * 20 + side * 12, tip + axis * 20 - side * 12)
            let sides = [[tail, tip], [tip, barbs.0], [tip, barbs.1]] + (closed ? [[barbs.0, barbs.1]] : [])
            return ArrowFit(tail: tail, tip: tip, barbs: barbs, axis: axis, drawnSides: sides, headPoints: 0..<1)
        }
        let (start, end) = (Point(x: 0, y: 0), Point(x: 100, y: 0))
        let (open, closed) = (fit(from: start, to: end, closed: false), fit(from: start, to: end, closed: true))
        let o = open.symmetricPolyline
        #expect(o.count == 5 && o[1] == end && o[3] == end, "\(o)")
        #expect(closed.symmetricPolyline == [o[0], o[1], o[2], o[4], o[1]], "\(closed.symmetricPolyline)")
        // A head closed already is left as it is.
        #expect(RecognizedShape.closingHead(of: closed.symmetricPolyline) == closed.symmetricPolyline)
        for (firstClosed, lastClosed) in [(false, false), (true, false), (false, true), (true, true)] {
            let double = DoubleArrowFit(
                first: fit(from: end, to: start, closed: firstClosed),
                last: fit(from: start, to: end, closed: lastClosed), shaft: [start, end])
            let points = double.symmetricPolyline
            let heads = (Self.head(of: Array(points.prefix(4).reversed())), Self.head(of: points))
            #expect(points.count == 8 && heads.0?.closed == firstClosed && heads.1?.closed == lastClosed, "\(points)")
            #expect(heads.0?.tip == start && heads.1?.tip == end, "\(points)")
            let expected = (fit(from: end, to: start, closed: false).symmetricPolyline, o)
            #expect(Self.match(heads.0?.barbs ?? [], [expected.0[2], expected.0[4]], within: 1e-9), "\(points)")
            #expect(Self.match(heads.1?.barbs ?? [], [expected.1[2], expected.1[4]], within: 1e-9), "\(points)")
        }
    }

    /// An arrow with a head at each end drawn in one stroke (the first head from a barb's
    /// end or from its tip, the shaft, the last head out and back from its tip, or closed on a
    /// third of the large heads' seeds), heads of 7–10 % of the shaft (the first 12 seeds) or
    /// 13–25 %, is a double arrow
    /// (`DoubleArrowFit`), its tips and barbs where they were drawn, each head open or closed
    /// as drawn. Before, with small heads it was a line (both heads erased), with
    /// large ones nothing (without the double arrow, every seed fails).
    @Test(arguments: seeds) func anArrowWithAHeadAtEachEndIsADoubleArrow(seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let length = pen.random(in: 300...900)
        pen.jitter = Self.jitter(for: length)
        let direction = pen.random(in: 0...(2 * .pi))
        let start = Point(x: pen.random(in: -500...500), y: pen.random(in: -500...500))
        let end = start + rotated(Point(x: length, y: 0), by: direction)
        // Small heads, as a long connector's (a sample or two of the stroke's 64), then large ones.
        let share = seed <= 12 ? pen.random(in: 0.07...0.1) : pen.random(in: 0.13...0.25)
        /// A head at `tip` pointing `angle`: its barbs' ends.
        func head(at tip: Point, pointing angle: Double) -> (Point, Point) {
            let back = rotated(Point(x: -share * length, y: 0), by: angle)
            let spread = pen.random(in: 0.44...0.7)
            return (tip + rotated(back, by: spread), tip + rotated(back, by: -spread))
        }
        let (a1, a2) = head(at: start, pointing: direction + .pi)
        let (b1, b2) = head(at: end, pointing: direction)
        // On a third of the large heads' seeds the last head is drawn closed, and stays closed.
        let lastClosed = seed > 12 && seed % 3 == 0
        let firstHead = seed % 2 == 0 ? [a1, start, a2, start] : [start, a1, start, a2, start]
        let lastHead = lastClosed ? [end, b1, b2, end] : [end, b1, end, b2]
        let stroke = pen.stroke(through: firstHead + lastHead, samples: 200)
        let shape = ShapeRecognizer.recognize(stroke)
        #expect(shape.kind == .doubleArrow, "seed \(seed), heads \(share) of the shaft: \(shape.kind)")
        if shape.kind == .doubleArrow {
            #expect(shape.points.count == 8, "seed \(seed)")
        }
        if shape.kind == .doubleArrow, shape.points.count == 8 {
            let (first, last) = (Self.head(of: Array(shape.points[..<4].reversed())), Self.head(of: shape.points))
            #expect(first?.closed == false && last?.closed == lastClosed, "seed \(seed): \(shape.points)")
            #expect(first?.tip.distance(to: start) ?? .infinity < 0.03 * length, "seed \(seed)")
            #expect(last?.tip.distance(to: end) ?? .infinity < 0.03 * length, "seed \(seed)")
            #expect(Self.match(first?.barbs ?? [], [a1, a2], within: 0.04 * length), "seed \(seed)")
            #expect(Self.match(last?.barbs ?? [], [b1, b2], within: 0.04 * length), "seed \(seed)")
        }
        let explained = ShapeRecognizer.explain(stroke)
        #expect(explained.shape == shape, "seed \(seed)")
        #expect(
            explained.hypotheses.contains {
                $0.kind == .doubleArrow && $0.verdict == "chosen"
                    && $0.fittedTo?.contains("a head at each end") == true
            }, "seed \(seed): \(explained.hypotheses.map(\.verdict))")
        // A line that passes too says why it gave way.
        for line in explained.hypotheses where line.kind == .line && line.verdict.hasPrefix("passes") {
            #expect(line.verdict.hasPrefix("passes, but a double arrow passes too: a head at each of the line's ends"))
        }
    }

    /// What is no double arrow: a five-point star, whose edges read as a shaft with heads
    /// at both ends that meet (its other edges reach most of the way back along it: fails
    /// without that test); a shaft with a hook on one side at each end (a long bracket); a
    /// shaft with one head (an arrow).
    @Test func aDoubleArrowsHeadsLieAtTheirOwnEnds() {
        var pen = SyntheticPen(seed: 5, jitter: 0.5)
        let star = (0...5).map { k -> Point in
            let angle = Double(k) * 4 * .pi / 5 - .pi / 2
            return Point(x: 300 + 200 * cos(angle), y: 300 + 200 * sin(angle))
        }
        var met = 0
        for rotation in stride(from: 0.0, to: 2 * .pi, by: .pi / 10) {
            let centre = Point(x: 300, y: 300)
            let turned = pen.stroke(through: star.map { centre + rotated($0 - centre, by: rotation) })
            let explained = ShapeRecognizer.explain(turned)
            #expect(explained.shape.kind != .doubleArrow, "a star turned \(rotation)")
            let meeting = explained.hypotheses.contains {
                $0.kind == .doubleArrow && $0.verdict.hasPrefix("not fitted: the heads meet")
            }
            if meeting { met += 1 }
        }
        #expect(met > 0, "no star read as an edge with a head at each end")
        let bracket = pen.stroke(through: [
            Point(x: 40, y: 40), Point(x: 0, y: 0), Point(x: 600, y: 0), Point(x: 640, y: 40),
        ])
        #expect(ShapeRecognizer.recognize(bracket).kind != .doubleArrow)
        let arrow = pen.stroke(through: [
            Point(x: 0, y: 0), Point(x: 600, y: 0), Point(x: 540, y: 40), Point(x: 600, y: 0), Point(x: 540, y: -40),
        ])
        #expect(ShapeRecognizer.recognize(arrow).kind == .arrow)
    }

    @Test func aLineWithAHookAtItsEndIsNotAnArrow() {
        var pen = SyntheticPen(seed: 2, jitter: 0.5)
        let stroke = pen.stroke(through: [Point(x: 0, y: 0), Point(x: 400, y: 0), Point(x: 330, y: 40)])
        #expect(ShapeRecognizer.recognize(stroke).kind == .none)
    }

    // MARK: Everything else

    @Test(arguments: NonShape.allCases, [UInt64(1), 2, 3])
    func gesturesThatAreNotShapesAreLeftAlone(_ gesture: NonShape, seed: UInt64) {
        var pen = SyntheticPen(seed: seed, jitter: 0)
        let size = Self.size(&pen)
        pen.jitter = Self.jitter(for: size)
        let stroke = gesture.drawn(with: &pen, size: size, rotation: pen.random(in: 0...(2 * .pi)))
        let shape = ShapeRecognizer.recognize(stroke)
        #expect(shape == .none, "\(gesture.rawValue), seed \(seed): recognised as \(shape.kind)")
    }

    @Test func strokesWithoutExtentAreNotShapes() {
        let p = Point(x: 3, y: 4)
        #expect(ShapeRecognizer.recognize([]) == .none)
        #expect(ShapeRecognizer.recognize([p]) == .none)
        #expect(ShapeRecognizer.recognize([p, p, p]) == .none)
        #expect(ShapeRecognizer.recognize([p, Point(x: .nan, y: 0), p]) == .none)
        #expect(ShapeRecognizer.recognize([p, Point(x: .infinity, y: 0)]) == .none)
    }

    @Test func scaleAndPositionDoNotChangeTheAnswer() {
        var pen = SyntheticPen(seed: 9, jitter: 0.8)
        let stroke = pen.stroke(through: [
            Point(x: 0, y: 0), Point(x: 120, y: 10), Point(x: 60, y: 100), Point(x: 0, y: 0),
        ])
        let small = ShapeRecognizer.recognize(stroke)
        let offset = Point(x: -7000, y: 3000)
        let large = ShapeRecognizer.recognize(stroke.map { $0 * 40 + offset })
        #expect(small.kind == .triangle && large.kind == .triangle)
        for (a, b) in zip(small.points, large.points) {
            #expect((a * 40 + offset).distance(to: b) < 1e-6 * 40 * 120)
        }
    }

    // MARK: The parts

    /// The curve through the pen's points: a dense stroke comes back unchanged; through
    /// eight points of a circle, every pen point is kept in order, no gap is longer than the
    /// spacing, and the points added lie on the circle to within 1 % of its radius,
    /// where the chords' middles are 7.6 % inside it.
    @Test func theCurveThroughSparsePenPointsFollowsThem() {
        let dense = (0...100).map { Point(x: Double($0), y: sin(Double($0) / 10)) }
        #expect(StrokeResampling.curve(through: dense, spacing: 5) == dense)
        let circle = (0...8).map { k in Point(x: 100 * cos(Double(k) * .pi / 4), y: 100 * sin(Double(k) * .pi / 4)) }
        let spacing = StrokeResampling.length(of: circle) / 63
        let curve = StrokeResampling.curve(through: circle, spacing: spacing)
        var next = 0
        for point in curve where next < circle.count && point == circle[next] { next += 1 }
        #expect(next == circle.count, "the pen's points, in order")
        #expect(zip(curve, curve.dropFirst()).allSatisfy { $0.distance(to: $1) <= spacing })
        // The ends' neighbours are mirrored, so only the middle segments are whole arcs.
        let middle = curve[(curve.count / 8)...(7 * curve.count / 8)]
        #expect(middle.allSatisfy { abs($0.distance(to: Point(x: 0, y: 0)) - 100) < 1 })
    }

    @Test func partitionSplitsASquareAtItsCorners() {
        // 16 points a side, starting a few points into the first side.
        let square = (0..<64).map { k -> Point in
            let (side, t) = ((k + 5) / 16 % 4, Double((k + 5) % 16) / 16)
            return [Point(x: t, y: 0), Point(x: 1, y: t), Point(x: 1 - t, y: 1), Point(x: 0, y: 1 - t)][side]
        }
        let partition = StraightRunPartition(closed: square, fewestRuns: 3).runs(4)!
        #expect(partition.residual < 1e-9)
        // Each run begins at a corner, or just after it (a corner lies on both sides).
        #expect(partition.runs.map { $0.lowerBound % 16 }.allSatisfy { $0 == 11 || $0 == 12 })
    }

    @Test func ellipseFitRecoversAnExactEllipse() {
        let points = (0..<50).map { k -> Point in
            let angle = Double(k) / 50 * 2 * .pi
            return Point(x: 40, y: -20) + rotated(Point(x: 90 * cos(angle), y: 35 * sin(angle)), by: 0.6)
        }
        let ellipse = FittedEllipse(fitting: points)!
        #expect(ellipse.center.distance(to: Point(x: 40, y: -20)) < 1e-6)
        #expect(abs(ellipse.semiMajor - 90) < 1e-6 && abs(ellipse.semiMinor - 35) < 1e-6)
        #expect(abs(abs(ellipse.majorAxis.dot(Point(x: cos(0.6), y: sin(0.6)))) - 1) < 1e-9)
        #expect(FittedEllipse(fitting: (0..<10).map { Point(x: Double($0), y: 2 * Double($0)) }) == nil, "collinear")
    }

    @Test func hooksAreTrimmedOnlyNearTheEnds() {
        let straight = (0..<64).map { Point(x: Double($0), y: 0) }
        #expect(StrokeResampling.trimmingHooks(straight, within: 0.1, sharperThan: .pi / 3) == straight)
        // A hook at the start (3 samples doubling back) and a right-angle turn in the middle.
        let hooked =
            [Point(x: 3, y: 3), Point(x: 2, y: 2), Point(x: 1, y: 1)] + (0..<30).map { Point(x: Double($0), y: 0) }
            + (1..<31).map { Point(x: 29, y: Double($0)) }
        let trimmed = StrokeResampling.trimmingHooks(hooked, within: 0.1, sharperThan: .pi / 3)
        #expect(trimmed.first == Point(x: 1, y: 1) || trimmed.first == Point(x: 0, y: 0))
        #expect(trimmed.last == hooked.last)
    }

    @Test func roundedHooksAreCutWhereTheEndLeavesTheStrokesDirection() {
        let straight = (0..<64).map { Point(x: Double($0), y: 0) }
        #expect(StrokeResampling.roundedHookCuts(straight, within: 0.1, sharperThan: .pi / 3) == (0, 63))
        // A straight run of 58 samples, then a curl of 6 samples turning 20° each (120° in
        // all): no sample turns by more than 40° over its two neighbours each way, so
        // `hookCuts` keeps it; the chord to the end leaves the direction of the tenth before
        // by up to 80°, most inside the curl.
        var curled = (0..<58).map { Point(x: Double($0), y: 0) }
        for k in 1...6 {
            let angle = Double(k) * 20 * Double.pi / 180
            curled.append(curled.last! + Point(x: cos(angle), y: sin(angle)))
        }
        #expect(StrokeResampling.hookCuts(curled, within: 0.1, sharperThan: .pi / 3).last == 63)
        let cuts = StrokeResampling.roundedHookCuts(curled, within: 0.1, sharperThan: .pi / 3)
        #expect(cuts.first == 0)
        #expect((58...61).contains(cuts.last), "cut at \(cuts.last)")
    }

    @Test func aSideThatIsOnlyPassedNearIsNotDrawn() {
        // A caret compared with the triangle it would close into: its base is undrawn,
        // though both ends of the base are on the stroke.
        let caret = StrokeResampling.resampled(
            [Point(x: 0, y: 100), Point(x: 20, y: 0), Point(x: 40, y: 100)], count: 64)
        let triangle = [Point(x: 0, y: 100), Point(x: 20, y: 0), Point(x: 40, y: 100), Point(x: 0, y: 100)]
        let match = OutlineMatch(stroke: caret, sides: .edges(of: triangle))
        #expect(match.rmsDistance < 1e-9)
        #expect(match.leastDrawnSide < 0.1)
        #expect(match.drawnFraction < 0.85)
        // Rounded corners do not draw a side that was never drawn.
        let rounded = OutlineMatch(stroke: caret, sides: .edges(of: triangle), roundedCornerReach: 100)
        #expect(rounded.leastDrawnSide < 0.1)
    }

    /// A square whose corners are cut off by chords 20 px from each corner: the chords'
    /// points fall on one side or the other, and about a quarter of each 100 px side is left
    /// untraced beside its corners (0.76 of the outline traced); with rounded corners
    /// allowed over 30 px (both sides of a corner together) every side is drawn, over 15 px
    /// nothing more than before.
    @Test func roundedCornersAreDrawnWithinTheirReach() {
        let square = [
            Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 100, y: 100), Point(x: 0, y: 100), Point(x: 0, y: 0),
        ]
        let cut = [
            Point(x: 20, y: 0), Point(x: 80, y: 0), Point(x: 100, y: 20), Point(x: 100, y: 80), Point(x: 80, y: 100),
            Point(x: 20, y: 100), Point(x: 0, y: 80), Point(x: 0, y: 20), Point(x: 20, y: 0),
        ]
        let stroke = StrokeResampling.resampled(cut, count: 64)
        let plain = OutlineMatch(stroke: stroke, sides: .edges(of: square))
        let within = OutlineMatch(stroke: stroke, sides: .edges(of: square), roundedCornerReach: 30)
        let beyond = OutlineMatch(stroke: stroke, sides: .edges(of: square), roundedCornerReach: 15)
        #expect(plain.drawnFraction < 0.8)
        #expect(within.drawnFraction == 1 && within.leastDrawnSide == 1)
        #expect(abs(beyond.drawnFraction - plain.drawnFraction) < 1e-12)
        // Not on separate polylines (an arrow's sides), whose ends are no corners.
        let separate = OutlineMatch(
            stroke: stroke, sides: .each((0..<4).map { [square[$0], square[$0 + 1]] }), roundedCornerReach: 30)
        #expect(abs(separate.drawnFraction - plain.drawnFraction) < 1e-12)
    }
}
