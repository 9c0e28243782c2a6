import CanvasCore

/// One line of a node's event stream (`canvas join --events`): a JSON object whose
/// `"event"` names what happened, followed by its fields in a fixed order.
///
/// Lines are built field by field so that the stream stays cheap at high drawing rates
/// and its fields keep a stable order for tools that read it.
public struct NodeEvent: Sendable, Hashable {
    /// The event's name (`"joined"`, `"applied"`, `"state"` …).
    public let name: String
    /// The whole line, without the newline.
    public private(set) var line: [UInt8]

    /// An event called `name`, with no fields yet.
    public init(_ name: String) {
        self.name = name
        line = Array(#"{"event":"#.utf8)
        CanonicalJSON.appendString(name, to: &line)
    }

    /// The line, closed and terminated by a newline.
    public var ndjson: [UInt8] { line + Array("}\n".utf8) }

    /// Adds a string field (`nil` writes `null`).
    public func with(_ key: String, _ value: String?) -> NodeEvent {
        var copy = self
        copy.key(key)
        if let value {
            CanonicalJSON.appendString(value, to: &copy.line)
        } else {
            copy.line += Array("null".utf8)
        }
        return copy
    }

    /// Adds an integer field.
    public func with(_ key: String, _ value: Int) -> NodeEvent {
        var copy = self
        copy.key(key)
        CanonicalJSON.appendInteger(Int64(value), to: &copy.line)
        return copy
    }

    /// Adds a number field.
    public func with(_ key: String, _ value: Double) -> NodeEvent {
        var copy = self
        copy.key(key)
        CanonicalJSON.appendNumber(value, to: &copy.line)
        return copy
    }

    /// Adds a Boolean field.
    public func with(_ key: String, _ value: Bool) -> NodeEvent {
        var copy = self
        copy.key(key)
        copy.line += Array((value ? "true" : "false").utf8)
        return copy
    }

    /// Adds an array of strings.
    public func with(_ key: String, _ values: [String]) -> NodeEvent {
        var copy = self
        copy.key(key)
        copy.line.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { copy.line.append(UInt8(ascii: ",")) }
            CanonicalJSON.appendString(value, to: &copy.line)
        }
        copy.line.append(UInt8(ascii: "]"))
        return copy
    }

    private mutating func key(_ key: String) {
        line.append(UInt8(ascii: ","))
        CanonicalJSON.appendString(key, to: &line)
        line.append(UInt8(ascii: ":"))
    }
}
