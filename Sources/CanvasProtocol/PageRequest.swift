public import CanvasCore

/// What a page (the browser client a node serves, docs/web.md) asks of its node: one JSON
/// object per WebSocket text message, validated like every other input.
///
/// `{"action":"pen-down","pen":P,"points":[[x,y],…],"weight":w,"colour":[r,g,b]}`,
/// `{"action":"pen-move","pen":P,"points":[[x,y],…]}`, `{"action":"pen-up","pen":P,"recognize":true|false}`,
/// and the local actions a page may take whole: `draw` (a stroke drawn while the page was
/// offline), `erase`, `undo`, `redo` (docs/actions.md).
///
/// A pen is the page's own number for a pointer that is down (`PointerEvent.pointerId`):
/// the page never names strokes; its node does.
public enum PageRequest: Hashable, Sendable {
    /// A pointer went down: a live stroke begins.
    case penDown(pen: Int, points: [Point], weight: Double, colour: Colour)
    /// A pointer that is down moved: its stroke grows.
    case penMove(pen: Int, points: [Point])
    /// A pointer went up: its stroke is finished (and replaced by a shape, if asked and
    /// one is recognised).
    case penUp(pen: Int, recognize: Bool)
    /// A whole action: `draw`, `erase`, `undo` or `redo`.
    case action(LocalAction)

    /// The largest pen number a page may use.
    public static let maxPen = Int(Int32.max)

    /// Decodes and validates one request; errors name the field (`pen-move.points[3][0]: …`).
    public static func decode(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> PageRequest {
        guard bytes.count <= ProtocolLimits.maxMessageBytes else {
            throw ProtocolError(
                .limitExceeded, path: "", "request of \(bytes.count) bytes exceeds the limit of \(ProtocolLimits.maxMessageBytes)")
        }
        let members = try Validate.object(try JSONValue(parsing: bytes), "")
        guard let kind = members["action"] else {
            throw ProtocolError(.missingField, path: "action", "missing field")
        }
        guard case .string(let name) = kind else {
            throw ProtocolError(.wrongType, path: "action", "expected a string, got \(kind.excerpt)")
        }
        func required(_ key: String) throws(ProtocolError) -> JSONValue {
            guard let value = members[key], value != .null else {
                throw ProtocolError(.missingField, path: "\(name).\(key)", "missing field")
            }
            return value
        }
        func pen() throws(ProtocolError) -> Int { try Validate.integer(required("pen"), "\(name).pen", in: 0...maxPen) }
        func points() throws(ProtocolError) -> [Point] {
            let points = try Validate.points(required("points"), "\(name).points")
            guard !points.isEmpty else {
                throw ProtocolError(.invalidValue, path: "\(name).points", "expected at least one point")
            }
            return points
        }
        switch name {
        case "pen-down":
            return .penDown(
                pen: try pen(), points: try points(), weight: try Validate.positiveNumber(required("weight"), "pen-down.weight"),
                colour: try Validate.colour(required("colour"), "pen-down.colour"))
        case "pen-move":
            return .penMove(pen: try pen(), points: try points())
        case "pen-up":
            let recognize = try members["recognize"].flatMap { value throws(ProtocolError) in
                value == .null ? nil : try Validate.bool(value, "pen-up.recognize")
            } ?? false
            return .penUp(pen: try pen(), recognize: recognize)
        case "draw", "erase", "undo", "redo":
            return .action(try LocalAction.decode(bytes))
        default:
            throw ProtocolError(
                .invalidValue, path: "action",
                "expected \"pen-down\", \"pen-move\", \"pen-up\", \"draw\", \"erase\", \"undo\" or \"redo\", got \(kind.excerpt)")
        }
    }
}
