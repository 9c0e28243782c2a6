public import CanvasCore

/// What a local user does, as the node's input format (docs/actions.md) beside the wire
/// operations: draw a stroke, erase along a path, undo or redo. A node turns actions into
/// operations (its `Replica`); actions themselves never travel.
///
/// `{"action":"draw","points":[[x,y],…],"weight":w,"colour":[r,g,b],"recognize":true|false}`
/// `{"action":"erase","points":[[x,y],…],"radius":r}`
/// `{"action":"undo"}`, `{"action":"redo"}`
/// `{"action":"begin","points":[[x,y],…],"weight":w,"colour":[r,g,b]}`,
/// `{"action":"extend","stroke":"ID","points":[[x,y],…]}`, `{"action":"end","stroke":"ID","recognize":true|false}`
public enum LocalAction: Hashable, Sendable {
    /// A finished stroke; with `recognize`, a recognised shape replaces it.
    case draw(points: [Point], weight: Double, colour: Colour, recognize: Bool)
    /// Pen down: a new stroke drawn live, sent while the pen moves. Its ADD (and an APPEND
    /// of the other points) names the stroke that `extend` and `end` take.
    case begin(points: [Point], weight: Double, colour: Colour)
    /// More points of a live stroke begun here, while the pen moves.
    case extend(stroke: StrokeID, points: [Point])
    /// Pen up: the live stroke is finished (undo can take it back); with `recognize`, a
    /// recognised shape replaces it as for `draw`.
    case end(stroke: StrokeID, recognize: Bool)
    /// The eraser, a circle of `radius` swept along `points`.
    case erase(points: [Point], radius: Double)
    /// Takes back the last drawing or erasing done here that is not undone yet. A recognised
    /// shape is a step of its own: undoing it brings back the stroke as drawn, whose drawing
    /// the next undo takes back (docs/actions.md).
    case undo
    /// Does again the last undone drawing or erasing (until something new is drawn or erased).
    case redo

    /// True when `bytes` are an object with an `action` key; `decode` then says whether it is
    /// a valid action. (A line with a `type` is a wire message, whatever else it holds: ask
    /// this only of lines that are not valid messages.)
    public static func isAction(_ bytes: some Collection<UInt8>) -> Bool {
        guard case .object(let members)? = try? JSONValue(parsing: bytes) else { return false }
        return members["action"] != nil
    }

    /// Decodes and validates one action; errors name the field (`draw.points[2][0]: …`).
    public static func decode(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> LocalAction {
        let fields = try ActionFields(bytes, what: "action")
        switch fields.name {
        case "undo":
            return .undo
        case "redo":
            return .redo
        case "end":
            return .end(stroke: try Validate.identifier(fields.required("stroke"), "end.stroke"), recognize: try fields.recognize())
        case "draw":
            let points = try fields.points()
            let pen = try fields.pen()
            return .draw(points: points, weight: pen.weight, colour: pen.colour, recognize: try fields.recognize())
        case "begin":
            let points = try fields.points()
            let pen = try fields.pen()
            return .begin(points: points, weight: pen.weight, colour: pen.colour)
        case "extend":
            return .extend(stroke: try Validate.identifier(fields.required("stroke"), "extend.stroke"), points: try fields.points())
        case "erase":
            return .erase(points: try fields.points(), radius: try Validate.positiveNumber(fields.required("radius"), "erase.radius"))
        default:
            throw fields.unknown(expected: ["draw", "erase", "begin", "extend", "end", "undo", "redo"])
        }
    }
}

/// The input of `canvas recognize`: one stroke per line, an object with `points` (other
/// fields ignored), or with `--two-strokes` two strokes drawn one after the other
/// (`strokes`).
public enum StrokeSample {
    /// The stroke's points; errors name the field (`points[4][0]: …`).
    public static func points(from bytes: some Collection<UInt8>) throws(ProtocolError) -> [Point] {
        try points(in: try Validate.object(try JSONValue(parsing: bytes), ""))
    }

    private static func points(in members: [String: JSONValue]) throws(ProtocolError) -> [Point] {
        guard let points = members["points"], points != .null else {
            throw ProtocolError(.missingField, path: "points", "missing field")
        }
        return try Validate.points(points, "points")
    }

    /// The strokes of `canvas recognize --two-strokes` or `--three-strokes`, drawn one after
    /// the other: `strokes`, an array of exactly `count`; errors name the field
    /// (`strokes[1][3][0]: …`).
    public static func strokesDrawnTogether(
        _ count: Int, from bytes: some Collection<UInt8>
    ) throws(ProtocolError) -> [[Point]] {
        try strokesDrawnTogether(count...count, from: bytes)
    }

    /// The strokes of `canvas recognize --joined` or `--in-a-row`, drawn one after the other:
    /// `strokes`, an array of as many as `counts` allows; errors name the field.
    public static func strokesDrawnTogether(
        _ counts: ClosedRange<Int>, from bytes: some Collection<UInt8>
    ) throws(ProtocolError) -> [[Point]] {
        let members = try Validate.object(try JSONValue(parsing: bytes), "")
        guard members["strokes"] != nil, members["strokes"] != .null else {
            throw ProtocolError(.missingField, path: "strokes", "missing field")
        }
        let strokes = try self.strokes(in: members)
        guard counts.contains(strokes.count) else {
            let expected =
                counts.count == 1
                ? "\(counts.lowerBound)"
                : counts.upperBound == .max
                    ? "at least \(counts.lowerBound)" : "\(counts.lowerBound) to \(counts.upperBound)"
            throw ProtocolError(.invalidValue, path: "strokes", "\(expected) strokes expected, found \(strokes.count)")
        }
        return strokes
    }

    /// A labelled gesture of the recognition data (../shared/data): its `label` when it is
    /// a string, and its strokes: `strokes` ([[[x, y], …], …]) for a gesture drawn in
    /// several strokes, else `points` as one. Errors name the field (`strokes[1][3][0]: …`).
    public static func gesture(from bytes: some Collection<UInt8>) throws(ProtocolError) -> (
        label: String?, strokes: [[Point]]
    ) {
        let members = try Validate.object(try JSONValue(parsing: bytes), "")
        let label: String? = if case .string(let text)? = members["label"] { text } else { nil }
        return (label, try strokes(in: members))
    }

    /// `strokes` ([[[x, y], …], …]) of a gesture's members, else `points` as one stroke.
    private static func strokes(in members: [String: JSONValue]) throws(ProtocolError) -> [[Point]] {
        guard let strokes = members["strokes"], strokes != .null else {
            return [try points(in: members)]
        }
        var result: [[Point]] = []
        for (index, stroke) in try Validate.array(strokes, "strokes").enumerated() {
            result.append(try Validate.points(stroke, "strokes[\(index)]"))
        }
        return result
    }
}
