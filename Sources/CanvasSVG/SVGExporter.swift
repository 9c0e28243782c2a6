public import CanvasCore
public import CanvasGeometry

/// A document as a standalone SVG 1.1 file.
///
/// Each visible run of a stroke becomes one `<path>` of cubic Bézier commands (line
/// commands for shapes), stroked with the stroke's colour and weight, round caps and
/// joins, no fill; a stroke of a single point is a dot; placeholders (no ADD yet) are
/// left out. Strokes are drawn in identifier order and coordinates are rounded to
/// 1/100 px and printed in their shortest form, so the same document always gives the
/// same bytes.
public enum SVGExporter {
    /// Space around the drawing, in canvas pixels.
    public static let defaultMargin = 16.0

    /// The SVG file for `document`.
    public static func export(_ document: Document, margin: Double = defaultMargin) -> [UInt8] {
        var body: [UInt8] = []
        var extent: Rect?
        for stroke in document.sortedStrokes {
            guard let header = stroke.header else { continue }
            let halfWidth = header.weight / 2
            if StrokeCurves.isVisibleDot(stroke) {
                let centre = stroke.points[0]
                extent = include(Rect(enclosing: [centre])!.expanded(by: halfWidth), in: extent)
                appendDot(at: centre, header: header, to: &body)
                continue
            }
            for run in StrokeCurves.visibleRuns(of: stroke) {
                for curve in run {
                    extent = include(curve.bounds.expanded(by: halfWidth), in: extent)
                }
                appendPath(run, header: header, to: &body)
            }
        }
        let box = (extent ?? Rect(minX: 0, minY: 0, maxX: 0, maxY: 0)).expanded(by: margin)
        var file: [UInt8] = []
        file.reserveCapacity(body.count + 256)
        file.append(contentsOf: #"<?xml version="1.0" encoding="UTF-8"?>"#.utf8)
        file.append(contentsOf: "\n".utf8)
        file.append(contentsOf: #"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox=""#.utf8)
        file.appendCanonical(maxBytes: 4 * (CanonicalWriter.maxNumberBytes + 1)) { writer in
            number(box.minX, &writer)
            writer.byte(UInt8(ascii: " "))
            number(box.minY, &writer)
            writer.byte(UInt8(ascii: " "))
            number(box.width, &writer)
            writer.byte(UInt8(ascii: " "))
            number(box.height, &writer)
        }
        file.append(contentsOf: #"" width=""#.utf8)
        file.appendCanonical(maxBytes: CanonicalWriter.maxNumberBytes) { number(box.width, &$0) }
        file.append(contentsOf: #"" height=""#.utf8)
        file.appendCanonical(maxBytes: CanonicalWriter.maxNumberBytes) { number(box.height, &$0) }
        file.append(contentsOf: "\">\n".utf8)
        file.append(contentsOf: body)
        file.append(contentsOf: "</svg>\n".utf8)
        return file
    }

    private static func include(_ rect: Rect, in extent: Rect?) -> Rect {
        extent.map { $0.union(rect) } ?? rect
    }

    /// `<path d="M… C…" …/>` for one visible run.
    private static func appendPath(_ run: [CubicBezier], header: StrokeHeader, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"<path d=""#.utf8)
        appendPathData(run, isShape: header.isShape, to: &bytes)
        bytes.append(contentsOf: #"" fill="none" stroke=""#.utf8)
        appendColour(header.colour, to: &bytes)
        bytes.append(contentsOf: #"" stroke-width=""#.utf8)
        bytes.appendCanonical(maxBytes: CanonicalWriter.maxNumberBytes) { number(header.weight, &$0) }
        bytes.append(contentsOf: #"" stroke-linecap="round" stroke-linejoin="round"/>"#.utf8)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// The path data of one visible run (`M x,y C … ` for a hand-drawn stroke, `M x,y L …`
    /// for a shape), coordinates rounded as in the file: what a page hands to `Path2D` to
    /// draw a stroke exactly as the export does.
    public static func appendPathData(_ run: [CubicBezier], isShape: Bool, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "M"))
        bytes.appendCanonical(maxBytes: 2 * CanonicalWriter.maxNumberBytes + 1) { point(run[0].p0, &$0) }
        let perCurve = 6 * (CanonicalWriter.maxNumberBytes + 1) + 2
        bytes.appendCanonical(maxBytes: run.count * perCurve) { writer in
            for curve in run {
                if isShape {
                    writer.literal("L")
                    point(curve.p3, &writer)
                } else {
                    writer.literal("C")
                    point(curve.p1, &writer)
                    writer.byte(UInt8(ascii: " "))
                    point(curve.p2, &writer)
                    writer.byte(UInt8(ascii: " "))
                    point(curve.p3, &writer)
                }
            }
        }
    }

    /// A coordinate as the file writes it: rounded to 1/100 px, shortest form.
    public static func appendCoordinate(_ value: Double, to bytes: inout [UInt8]) {
        bytes.appendCanonical(maxBytes: CanonicalWriter.maxNumberBytes) { number(value, &$0) }
    }

    /// `<circle …/>` for a stroke of one point: the dot a pen leaves.
    private static func appendDot(at centre: Point, header: StrokeHeader, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"<circle cx=""#.utf8)
        bytes.appendCanonical(maxBytes: CanonicalWriter.maxNumberBytes) { number(centre.x, &$0) }
        bytes.append(contentsOf: #"" cy=""#.utf8)
        bytes.appendCanonical(maxBytes: CanonicalWriter.maxNumberBytes) { number(centre.y, &$0) }
        bytes.append(contentsOf: #"" r=""#.utf8)
        bytes.appendCanonical(maxBytes: CanonicalWriter.maxNumberBytes) { number(header.weight / 2, &$0) }
        bytes.append(contentsOf: #"" fill=""#.utf8)
        appendColour(header.colour, to: &bytes)
        bytes.append(contentsOf: "\"/>\n".utf8)
    }

    /// `#rrggbb`, as the file writes a stroke's colour.
    public static func appendColour(_ colour: Colour, to bytes: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "#"))
        for component in [colour.red, colour.green, colour.blue] {
            bytes.append(hex[Int(component >> 4)])
            bytes.append(hex[Int(component & 0xF)])
        }
    }

    /// A coordinate rounded to 1/100 px (far below what a display shows), shortest form.
    private static func number(_ value: Double, _ writer: inout CanonicalWriter) {
        writer.number((value * 100).rounded() / 100)
    }

    /// `x,y`.
    private static func point(_ point: Point, _ writer: inout CanonicalWriter) {
        number(point.x, &writer)
        writer.byte(UInt8(ascii: ","))
        number(point.y, &writer)
    }
}
