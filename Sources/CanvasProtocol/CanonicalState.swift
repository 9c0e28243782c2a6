public import CanvasCore

/// The canonical JSON form of a whole document (`canvas replay --state`): equal documents
/// give equal bytes, whatever order their operations arrived in.
///
/// `{"strokes":[{"identifier":…,"header":{"weight":…,"colour":[…],"start":[x,y],
/// "is_shape":false}|null,"points":[[x,y]…],"pending":[{"offset":k,"points":[…]}…],
/// "erased":[[a,b]…]}…]}` with strokes sorted by identifier (UTF-8 byte order), `points`
/// the drawable points from index 0, and an erased upper bound of `null` meaning
/// "to the end, present and future points" (REMOVE_STROKE).
public enum CanonicalState {
    /// The document's canonical JSON, ending with a newline.
    public static func encode(_ document: Document) -> [UInt8] {
        var bytes: [UInt8] = []
        CanonicalJSON.appendLiteral(#"{"strokes":["#, to: &bytes)
        for (index, stroke) in document.sortedStrokes.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(stroke, to: &bytes)
        }
        CanonicalJSON.appendLiteral("]}\n", to: &bytes)
        return bytes
    }

    private static func append(_ stroke: Stroke, to bytes: inout [UInt8]) {
        CanonicalJSON.appendLiteral(#"{"identifier":"#, to: &bytes)
        CanonicalJSON.appendString(stroke.id.rawValue, to: &bytes)
        CanonicalJSON.appendLiteral(#","header":"#, to: &bytes)
        if let header = stroke.header {
            CanonicalJSON.appendLiteral(#"{"weight":"#, to: &bytes)
            CanonicalJSON.appendNumber(header.weight, to: &bytes)
            CanonicalJSON.appendLiteral(#","colour":"#, to: &bytes)
            CanonicalJSON.appendColour(header.colour, to: &bytes)
            CanonicalJSON.appendLiteral(#","start":"#, to: &bytes)
            CanonicalJSON.appendPoint(header.start, to: &bytes)
            CanonicalJSON.appendLiteral(#","is_shape":"#, to: &bytes)
            bytes.append(contentsOf: (header.isShape ? "true" : "false").utf8)
            bytes.append(UInt8(ascii: "}"))
        } else {
            CanonicalJSON.appendLiteral("null", to: &bytes)
        }
        CanonicalJSON.appendLiteral(#","points":"#, to: &bytes)
        appendPoints(stroke.points, to: &bytes)
        CanonicalJSON.appendLiteral(#","pending":["#, to: &bytes)
        for (index, run) in stroke.pending.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            CanonicalJSON.appendLiteral(#"{"offset":"#, to: &bytes)
            CanonicalJSON.appendInteger(Int64(run.offset), to: &bytes)
            CanonicalJSON.appendLiteral(#","points":"#, to: &bytes)
            appendPoints(run.points, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        CanonicalJSON.appendLiteral(#"],"erased":["#, to: &bytes)
        for (index, interval) in stroke.erased.intervals.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "["))
            CanonicalJSON.appendNumber(interval.lowerBound, to: &bytes)
            bytes.append(UInt8(ascii: ","))
            if interval.upperBound.isFinite {
                CanonicalJSON.appendNumber(interval.upperBound, to: &bytes)
            } else {
                CanonicalJSON.appendLiteral("null", to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        CanonicalJSON.appendLiteral("]}", to: &bytes)
    }

    private static func appendPoints(_ points: [Point], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (index, point) in points.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            CanonicalJSON.appendPoint(point, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
