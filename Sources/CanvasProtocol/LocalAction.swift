public import CanvasCore

/// What a local user does, as the node's input format (docs/actions.md) beside the wire
/// operations: draw a stroke, erase along a path, undo or redo. A node turns actions into
/// operations (its `Replica`); actions themselves never travel.
///
/// `{"action":"draw","points":[[x,y],…],"weight":w,"colour":[r,g,b],"recognize":true|false}`
/// `{"action":"erase","points":[[x,y],…],"radius":r}`
/// `{"action":"undo"}`, `{"action":"redo"}`
public enum LocalAction: Hashable, Sendable {
    /// A finished stroke; with `recognize`, a recognised shape replaces it.
    case draw(points: [Point], weight: Double, colour: Colour, recognize: Bool)
    /// The eraser, a circle of `radius` swept along `points`.
    case erase(points: [Point], radius: Double)
    /// Takes back the last drawing or erasing done here that is not undone yet.
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
        guard bytes.count <= ProtocolLimits.maxMessageBytes else {
            throw ProtocolError(
                .limitExceeded, path: "", "action of \(bytes.count) bytes exceeds the limit of \(ProtocolLimits.maxMessageBytes)")
        }
        let members = try Validate.object(try JSONValue(parsing: bytes), "")
        guard let kind = members["action"] else {
            throw ProtocolError(.missingField, path: "action", "missing field")
        }
        guard case .string(let name) = kind else {
            throw ProtocolError(.wrongType, path: "action", "expected a string, got \(kind.excerpt)")
        }
        switch name {
        case "undo": return .undo
        case "redo": return .redo
        default: break
        }
        func required(_ key: String) throws(ProtocolError) -> JSONValue {
            guard let value = members[key], value != .null else {
                throw ProtocolError(.missingField, path: "\(name).\(key)", "missing field")
            }
            return value
        }
        let points = try Validate.points(required("points"), "\(name).points")
        guard !points.isEmpty else {
            throw ProtocolError(.invalidValue, path: "\(name).points", "expected at least one point")
        }
        switch name {
        case "draw":
            let recognize = try members["recognize"].flatMap { value throws(ProtocolError) in
                value == .null ? nil : try Validate.bool(value, "draw.recognize")
            } ?? false
            return .draw(
                points: points, weight: try Validate.positiveNumber(required("weight"), "draw.weight"),
                colour: try Validate.colour(required("colour"), "draw.colour"), recognize: recognize)
        case "erase":
            return .erase(points: points, radius: try Validate.positiveNumber(required("radius"), "erase.radius"))
        default:
            throw ProtocolError(
                .invalidValue, path: "action", "expected \"draw\", \"erase\", \"undo\" or \"redo\", got \(kind.excerpt)")
        }
    }
}

/// The input of `canvas recognize`: one stroke per line, an object with `points` (other
/// fields ignored).
public enum StrokeSample {
    /// The stroke's points; errors name the field (`points[4][0]: …`).
    public static func points(from bytes: some Collection<UInt8>) throws(ProtocolError) -> [Point] {
        let members = try Validate.object(try JSONValue(parsing: bytes), "")
        guard let points = members["points"], points != .null else {
            throw ProtocolError(.missingField, path: "points", "missing field")
        }
        return try Validate.points(points, "points")
    }
}
