import CanvasCore
import CanvasGeometry
import Foundation
import Testing

@testable import CanvasSVG

@Suite("SVG export")
struct SVGExporterTests {
    let red = Colour(red: 220, green: 20, blue: 20)
    let blue = Colour(red: 20, green: 40, blue: 220)

    /// A horizontal red stroke from (0, 0) to (200, 0) with its middle [1.5, 2.5] erased
    /// (x from 75 to 125), a blue polyline shape below it, and a green dot.
    func sampleDocument() -> Document {
        var document = Document()
        let wave = StrokeID("a-wave")
        document.apply(.add(wave, StrokeHeader(weight: 6, colour: red, start: Point(x: 0, y: 0))))
        document.apply(.append(wave, points: (1...4).map { Point(x: Double($0) * 50, y: 0) }, offset: 1))
        document.apply(.delete(wave, start: 1.5, end: 2.5))
        let box = StrokeID("b-box")
        document.apply(.add(box, StrokeHeader(weight: 4, colour: blue, start: Point(x: 0, y: 60), isShape: true)))
        document.apply(.append(box, points: [Point(x: 200, y: 60), Point(x: 200, y: 120)], offset: 1))
        let dot = StrokeID("c-dot")
        document.apply(.add(dot, StrokeHeader(weight: 10, colour: Colour(red: 0, green: 160, blue: 0), start: Point(x: 100, y: 90))))
        // A placeholder: operations arrived before its ADD; it must not be drawn.
        document.apply(.append(StrokeID("d-pending"), points: [Point(x: 500, y: 500)], offset: 1))
        return document
    }

    @Test func writesPathsForVisibleRunsDotsAndNothingForPlaceholders() {
        let svg = String(decoding: SVGExporter.export(sampleDocument()), as: UTF8.self)
        #expect(svg.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        // The erased middle splits the wave into two runs.
        #expect(svg.components(separatedBy: ##"stroke="#dc1414""##).count - 1 == 2)
        #expect(svg.contains(##"<path d="M0,60L200,60L200,120" fill="none" stroke="#1428dc" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/>"##))
        #expect(svg.contains(##"<circle cx="100" cy="90" r="5" fill="#00a000"/>"##))
        #expect(!svg.contains("500"))
        // The viewBox fits the content (x from −3 to 203, y from −3 to 122: half of each stroke's
        // weight beyond its curve) plus the margin of 16.
        #expect(svg.contains(#"viewBox="-19 -19 238 157""#))
    }

    @Test func sameDocumentGivesSameBytesWhateverTheOrderOfOperations() {
        var shuffled = Document()
        for operation in sampleDocument().operations.reversed() {
            shuffled.apply(operation)
        }
        #expect(SVGExporter.export(shuffled) == SVGExporter.export(sampleDocument()))
    }

    @Test func anEmptyDocumentIsAValidEmptyDrawing() throws {
        let svg = SVGExporter.export(Document())
        let raster = try Raster(rendering: svg)
        #expect(raster.width > 0 && raster.height > 0)
    }

    @Test func aRealRendererDrawsInkWhereStrokesAreVisibleAndNoneWhereErased() throws {
        let svg = SVGExporter.export(sampleDocument())
        let raster = try Raster(rendering: svg)
        // Document coordinates map to pixels by the viewBox origin (−19, −19).
        func pixel(_ x: Double, _ y: Double) -> (Double, Double) { (x + 19, y + 19) }
        #expect(raster.width == 238 && raster.height == 157)

        for x in [10.0, 40, 60, 140, 160, 190] {
            let (px, py) = pixel(x, 0)
            #expect(raster.colours(around: px, py).contains { $0.isClose(to: .init(red: 220, green: 20, blue: 20)) }, "red ink at x=\(x)")
        }
        for x in [85.0, 100, 115] {
            let (px, py) = pixel(x, 0)
            #expect(raster.colours(around: px, py, radius: 2).allSatisfy { $0 == .white }, "erased at x=\(x)")
        }
        for (x, y) in [(50.0, 60.0), (150, 60), (200, 90)] {
            let (px, py) = pixel(x, y)
            #expect(raster.colours(around: px, py).contains { $0.isClose(to: .init(red: 20, green: 40, blue: 220)) }, "blue shape at (\(x), \(y))")
        }
        let (dx, dy) = pixel(100, 90)
        #expect(raster[Int(dx), Int(dy)].isClose(to: .init(red: 0, green: 160, blue: 0)), "green dot")
        let (ex, ey) = pixel(100, 30)
        #expect(raster.colours(around: ex, ey, radius: 3).allSatisfy { $0 == .white }, "nothing between the strokes")
    }

    @Test func curvesPassThroughTheSampledPointsWhenRendered() throws {
        var document = Document()
        let id = StrokeID("curve")
        let points = (0...12).map { Point(x: Double($0) * 20, y: 60 + 50 * sin(Double($0) / 2)) }
        document.apply(.add(id, StrokeHeader(weight: 3, colour: .black, start: points[0])))
        document.apply(.append(id, points: Array(points.dropFirst()), offset: 1))
        let svg = String(decoding: SVGExporter.export(document, margin: 10), as: UTF8.self)
        let raster = try Raster(rendering: Array(svg.utf8))
        let viewBox = try #require(svg.firstMatch(of: /viewBox="(-?[0-9.]+) (-?[0-9.]+)/))
        let originX = try #require(Double(viewBox.1))
        let originY = try #require(Double(viewBox.2))
        for point in points {
            #expect(
                raster.colours(around: point.x - originX, point.y - originY).contains { $0.isClose(to: .init(red: 0, green: 0, blue: 0)) },
                "ink at sample \(point)")
        }
    }
}
