import CanvasCore
import Foundation
import Testing

@testable import CanvasGeometry

@Suite("Drawing a finished stroke")
struct DrawingTests {
    let pen = (weight: 3.0, colour: Colour(red: 10, green: 20, blue: 30))
    let id = StrokeID("me-1")
    let shapeID = StrokeID("me-1/shape")

    @Test func withoutRecognitionTheStrokeIsAddedAsDrawn() {
        let points = [Point(x: 0, y: 0), Point(x: 10, y: 30), Point(x: 20, y: 0)]
        let result = Drawing.draw(points, weight: pen.weight, colour: pen.colour, recognize: false, id: id, shapeID: shapeID)
        #expect(result.shape == .none)
        #expect(
            result.operations == [
                .add(id, StrokeHeader(weight: 3, colour: pen.colour, start: points[0])),
                .append(id, points: Array(points.dropFirst()), offset: 1),
            ])
    }

    @Test func aRecognisedShapeReplacesTheHandDrawnStroke() throws {
        let points = (0...20).map { Point(x: Double($0) * 10, y: $0 % 2 == 0 ? 0 : 0.8) }
        let result = Drawing.draw(points, weight: pen.weight, colour: pen.colour, recognize: true, id: id, shapeID: shapeID)
        #expect(result.shape == .line)
        #expect(result.operations.count == 5)
        #expect(result.operations[2] == .delete(id, start: 0, end: 20))
        guard case .add(let added, let header) = result.operations[3], case .append(let appended, let corners, let offset) = result.operations[4]
        else {
            Issue.record("expected ADD and APPEND of the shape, got \(result.operations)")
            return
        }
        #expect(added == shapeID && appended == shapeID && offset == 1)
        #expect(header.isShape && header.weight == 3 && header.colour == pen.colour)
        #expect(corners.count == 1)
        #expect(abs(header.start.x) < 1 && abs(corners[0].x - 200) < 1)
        // Applied, the hand-drawn stroke is invisible and the shape is a straight segment.
        var document = Document()
        result.operations.forEach { document.apply($0) }
        #expect(try #require(document[id]).visible.isEmpty)
        #expect(try #require(document[shapeID]).points.count == 2)
    }

    /// Any finite points may arrive from a page or a peer. A circle a billion pixels across
    /// becomes an ellipse of at most `ShapeRecognizer.ellipseMaximumSegments` sides (it
    /// needed 180,000, more than one message holds), and one of 10¹⁵⁰ px too (it needed more
    /// sides than an Int counts, and the node crashed: FuzzRecognizer).
    @Test(arguments: [1e9, 1e150]) func hugeCirclesMakeEllipsesThatFitAMessage(size: Double) {
        let circle = (0...64).map { k in
            Point(x: size * cos(Double(k) * .pi / 32), y: size / 2 * sin(Double(k) * .pi / 32))
        }
        let result = Drawing.draw(
            circle, weight: pen.weight, colour: pen.colour, recognize: true, id: id, shapeID: shapeID)
        #expect(result.shape == .ellipse)
        guard case .append(_, let outline, _)? = result.operations.last else {
            Issue.record("expected the ellipse's APPEND, got \(result.operations)")
            return
        }
        #expect(outline.count == ShapeRecognizer.ellipseMaximumSegments)
        #expect(outline.allSatisfy { $0.x.isFinite && $0.y.isFinite })
    }

    @Test func aSinglePointIsADotAndNoPointsIsNothing() {
        let dot = Drawing.draw([Point(x: 5, y: 5)], weight: 2, colour: .black, recognize: true, id: id, shapeID: shapeID)
        #expect(dot.operations == [.add(id, StrokeHeader(weight: 2, colour: .black, start: Point(x: 5, y: 5)))])
        #expect(Drawing.draw([], weight: 2, colour: .black, recognize: true, id: id, shapeID: shapeID).operations.isEmpty)
    }
}
