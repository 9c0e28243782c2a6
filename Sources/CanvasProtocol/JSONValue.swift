import CanvasCore

/// A parsed JSON value. The decoder builds these only for small fields (colours, start
/// points, MEGA entries); the points of an APPEND take a faster path.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// An object; for a repeated key the last value wins (as in JavaScript's JSON.parse).
    case object([String: JSONValue])

    /// The value parsed from UTF-8 JSON text (one value, surrounded by optional whitespace).
    public init(parsing bytes: some Collection<UInt8>) throws(ProtocolError) {
        let copy = Array(bytes)
        self = try copy.withUnsafeBufferPointer { (buffer) throws(ProtocolError) -> JSONValue in
            var reader = JSONReader(buffer)
            reader.skipWhitespace()
            let value = try reader.readValue()
            try reader.expectEnd()
            return value
        }
    }

    /// The JSON type's name, for error messages ("expected a number, got a string").
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The value as compact JSON, shortened for an error message. Out-of-range numbers
    /// (which JSON text can spell, as `1e400`, but a `Double` cannot hold) are named so.
    var excerpt: String {
        var bytes: [UInt8] = []
        write(to: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        return text.count > 40 ? String(text.prefix(37)) + "..." : text
    }

    private func write(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value):
            if value.isFinite {
                CanonicalJSON.appendNumber(value, to: &bytes)
            } else {
                bytes.append(contentsOf: "a number beyond the range of a double".utf8)
            }
        case .string(let value): CanonicalJSON.appendString(value, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(to: &bytes)
                if bytes.count > 64 { break }
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                CanonicalJSON.appendString(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                members[key]!.write(to: &bytes)
                if bytes.count > 64 { break }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}
