import CanvasCore

/// An object with an `"action"`, read field by field: what local actions and a page's
/// requests share. Every error names the field as `ACTION.field`.
struct ActionFields {
    /// The action's name.
    let name: String
    /// The `"action"` value as it came, for the error of an unknown one.
    let kind: JSONValue
    private let members: [String: JSONValue]

    /// Parses `bytes` (at most `ProtocolLimits.maxMessageBytes`): an object whose
    /// `"action"` is a string. `what` names the input in the error of one too long.
    init(_ bytes: some Collection<UInt8>, what: String) throws(ProtocolError) {
        guard bytes.count <= ProtocolLimits.maxMessageBytes else {
            throw ProtocolError(
                .limitExceeded, path: "", "\(what) of \(bytes.count) bytes exceeds the limit of \(ProtocolLimits.maxMessageBytes)")
        }
        members = try Validate.object(try JSONValue(parsing: bytes), "")
        guard let kind = members["action"] else {
            throw ProtocolError(.missingField, path: "action", "missing field")
        }
        guard case .string(let name) = kind else {
            throw ProtocolError(.wrongType, path: "action", "expected a string, got \(kind.excerpt)")
        }
        self.kind = kind
        self.name = name
    }

    /// The value of `key`; absent or null is an error.
    func required(_ key: String) throws(ProtocolError) -> JSONValue {
        guard let value = members[key], value != .null else {
            throw ProtocolError(.missingField, path: "\(name).\(key)", "missing field")
        }
        return value
    }

    /// `recognize`: absent, null or false is false.
    func recognize() throws(ProtocolError) -> Bool {
        try members["recognize"].flatMap { value throws(ProtocolError) in
            value == .null ? nil : try Validate.bool(value, "\(name).recognize")
        } ?? false
    }

    /// `points`, at least one.
    func points() throws(ProtocolError) -> [Point] {
        let points = try Validate.points(required("points"), "\(name).points")
        guard !points.isEmpty else {
            throw ProtocolError(.invalidValue, path: "\(name).points", "expected at least one point")
        }
        return points
    }

    /// `weight` (> 0) and `colour` (`[r, g, b]`): a pen.
    func pen() throws(ProtocolError) -> (weight: Double, colour: Colour) {
        (try Validate.positiveNumber(required("weight"), "\(name).weight"), try Validate.colour(required("colour"), "\(name).colour"))
    }

    /// The error for an action not among `expected`.
    func unknown(expected: [String]) -> ProtocolError {
        let names = expected.map { "\"\($0)\"" }
        return ProtocolError(
            .invalidValue, path: "action",
            "expected \(names.dropLast().joined(separator: ", ")) or \(names.last ?? ""), got \(kind.excerpt)")
    }
}
