import CanvasCore
import CanvasGeometry
import Foundation
import FuzzDriver

/// Any bytes as a stroke, as a page or an embedding app may hand one to the recogniser: the
/// first byte picks a scale, and every four bytes after it are a point, two little-endian
/// 16-bit coordinates times the scale (a grid, so the fuzzer finds repeated, collinear and
/// square-cornered points at once; the scales reach where squares overflow or vanish).
/// Recognition never crashes; its shape has finite points, as many as its kind has (none
/// for no shape, a closed polygon of at least 32 sides for an ellipse, four equal sides for
/// a diamond, opposite sides equal and parallel for a parallelogram, one or two right-angled
/// bends and a head for an elbow arrow, a head at each end for a double arrow, each head open
/// or closed); and `recognize`
/// decides as `explain` says, though it stops matching as soon as a shape cannot win. The
/// same points split in two strokes (where the last byte says), and the second again in two
/// (where the byte before it says), make an arrow of two strokes and of three (straight, or
/// an elbow arrow with square bends) or none, as `explainArrow` says, with finite points, and
/// so does the last joining the arrow the first made of the three before it, the first split
/// again (where the byte before those says); the three joined make a closed shape (no
/// triangle) or none, as `explainClosedShape` says, and the four read one after the other
/// each join no more strokes than came before them.
func fuzzRecognizer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size >= 1 else { return 0 }
    let scales: [Double] = [1, 1.0 / 64, 1e-300, 1e-160, 1e6, 1e150, 1e300, 3.7]
    let scale = scales[Int(data[0]) % scales.count]
    func coordinate(at offset: Int) -> Double {
        Double(Int16(bitPattern: UInt16(data[offset]) | UInt16(data[offset + 1]) << 8)) * scale
    }
    let points = (0..<min((size - 1) / 4, 4096)).map { k in
        Point(x: coordinate(at: 1 + 4 * k), y: coordinate(at: 3 + 4 * k))
    }
    let shape = ShapeRecognizer.recognize(points)
    let explained = ShapeRecognizer.explain(points).shape
    guard explained == shape else {
        fatalError("recognize found \(shape.kind) \(shape.points), explain \(explained.kind) \(explained.points)")
    }
    guard shape.points.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
        fatalError("a \(shape.kind) with a point that is not finite: \(shape.points)")
    }
    let isClosed = shape.points.first == shape.points.last
    let expected: Bool =
        switch shape.kind {
        case .none: shape.points.isEmpty
        case .line: shape.points.count == 2
        case .triangle: shape.points.count == 4 && isClosed
        case .rectangle: shape.points.count == 5 && isClosed
        case .diamond: shape.points.count == 5 && isClosed && hasEqualSides(shape.points)
        case .parallelogram: shape.points.count == 5 && isClosed && hasEqualOppositeSides(shape.points)
        case .arrow: shape.points.count == 5 && hasHead(shape.points)
        case .elbowArrow:
            (6...7).contains(shape.points.count) && hasHead(shape.points) && hasSquareBends(shape.points.dropLast(3))
        // Barb, tip, barb, tip (or tip, barb, barb, tip: closed), then tip, barb, tip, barb (or
        // tip, barb, barb, tip).
        case .doubleArrow:
            shape.points.count == 8 && (shape.points[1] == shape.points[3] || shape.points[0] == shape.points[3])
                && hasHead(shape.points)
        case .ellipse: shape.points.count >= 33 && isClosed
        }
    guard expected else { fatalError("a \(shape.kind) of \(shape.points.count) points: \(shape.points)") }
    let split = Int(data[size - 1]) % (points.count + 1)
    let (first, second) = (Array(points[..<split]), Array(points[split...]))
    checkArrow(
        ShapeRecognizer.recognizeArrow(drawnFirst: first, then: second),
        explained: ShapeRecognizer.explainArrow(drawnFirst: first, then: second).shape, of: "two strokes")
    // The second stroke split again where the byte before the last says: three strokes.
    let secondSplit = Int(data[max(0, size - 2)]) % (second.count + 1)
    let (middle, last) = (Array(second[..<secondSplit]), Array(second[secondSplit...]))
    checkArrow(
        ShapeRecognizer.recognizeArrow(drawnFirst: first, then: middle, then: last),
        explained: ShapeRecognizer.explainArrow(drawnFirst: first, then: middle, then: last).shape,
        of: "three strokes")
    // The same three read as a node reads a third stroke after two that made an arrow.
    checkArrow(
        ShapeRecognizer.recognizeArrow(madeOf: first, middle, joining: last),
        explained: ShapeRecognizer.explainArrow(madeOf: first, middle, joining: last).shape,
        of: "a stroke joining an arrow of two")
    // The first stroke split again where the byte before those says: a fourth stroke read
    // after three that made an arrow.
    let firstSplit = Int(data[max(0, size - 3)]) % (first.count + 1)
    let (start, rest) = (Array(first[..<firstSplit]), Array(first[firstSplit...]))
    checkArrow(
        ShapeRecognizer.recognizeArrow(madeOf: start, rest, middle, joining: last),
        explained: ShapeRecognizer.explainArrow(madeOf: start, rest, middle, joining: last).shape,
        of: "a stroke joining an arrow of three")
    // The three strokes joined into a closed shape, and read one after the other as a node
    // reads them: each reading joins no more strokes than were drawn before it.
    let strokes = [first, middle, last]
    let joined = ShapeRecognizer.recognizeClosedShape(joining: strokes)
    let joinedExplained = ShapeRecognizer.explainClosedShape(joining: strokes).shape
    guard joined == joinedExplained else {
        fatalError("recognizeClosedShape found \(joined.kind) \(joined.points), explain \(joinedExplained.kind)")
    }
    let closedPoints: Bool =
        switch joined.kind {
        case .none: joined.points.isEmpty
        case .rectangle, .diamond, .parallelogram: joined.points.count == 5 && joined.points.first == joined.points.last
        case .ellipse: joined.points.count >= 33 && joined.points.first == joined.points.last
        case .line, .triangle, .arrow, .elbowArrow, .doubleArrow: false
        }
    guard closedPoints, joined.points.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
        fatalError("three strokes joined made a \(joined.kind) of \(joined.points)")
    }
    for (index, reading) in ShapeRecognizer.recognizeInARow([start, rest, middle, last]).enumerated() {
        guard reading.joins <= index, reading.joins == 0 || reading.shape.kind != .none,
            reading.shape.points.allSatisfy({ $0.x.isFinite && $0.y.isFinite })
        else { fatalError("stroke \(index + 1) of four read in a row: \(reading)") }
    }
    return 0
}

/// Whether `points` end in an arrow's head: tip, barb, tip, barb (open) or tip, barb, barb,
/// tip (closed).
func hasHead(_ points: [Point]) -> Bool {
    let n = points.count
    return n >= 4 && (points[n - 4] == points[n - 2] || points[n - 4] == points[n - 1])
}

/// Stops when `arrow`, what strokes drawn one after the other made, is not what `explained`
/// says they made, or is no arrow of finite points (straight, or an elbow arrow with square
/// bends) nor none.
func checkArrow(_ arrow: RecognizedShape, explained: RecognizedShape, of strokes: String) {
    guard explained == arrow else {
        fatalError("\(strokes): recognizeArrow found \(arrow.kind) \(arrow.points), explainArrow \(explained.kind)")
    }
    let isArrow: Bool =
        switch arrow.kind {
        case .none: arrow.points.isEmpty
        case .arrow: arrow.points.count == 5 && hasHead(arrow.points)
        case .elbowArrow:
            (6...7).contains(arrow.points.count) && hasHead(arrow.points) && hasSquareBends(arrow.points.dropLast(3))
        default: false
        }
    guard isArrow, arrow.points.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
        fatalError("\(strokes) made a \(arrow.kind) of \(arrow.points)")
    }
}

/// Whether each two consecutive segments of the polyline `points` meet at a right angle, to
/// rounding.
func hasSquareBends(_ points: ArraySlice<Point>) -> Bool {
    let segments = zip(points, points.dropFirst()).map { Point(x: $1.x - $0.x, y: $1.y - $0.y) }
    return zip(segments, segments.dropFirst()).allSatisfy { a, b in
        abs(a.x * b.x + a.y * b.y) <= 1e-6 * hypot(a.x, a.y) * hypot(b.x, b.y)
    }
}

/// Whether the closed polygon `points` has sides of one length, to rounding.
func hasEqualSides(_ points: [Point]) -> Bool {
    let lengths = zip(points, points.dropFirst()).map { hypot($1.x - $0.x, $1.y - $0.y) }
    return lengths.max()! - lengths.min()! <= 1e-9 * lengths.max()!
}

/// Whether the closed quadrilateral `points` has opposite sides equal and parallel (as
/// vectors, one the other turned round), to rounding.
func hasEqualOppositeSides(_ points: [Point]) -> Bool {
    let sides = zip(points, points.dropFirst()).map { Point(x: $1.x - $0.x, y: $1.y - $0.y) }
    let longest = sides.map { hypot($0.x, $0.y) }.max()!
    return (0..<2).allSatisfy { k in
        hypot(sides[k].x + sides[k + 2].x, sides[k].y + sides[k + 2].y) <= 1e-9 * longest
    }
}

runFuzzer { data, size in fuzzRecognizer(data, size) }
