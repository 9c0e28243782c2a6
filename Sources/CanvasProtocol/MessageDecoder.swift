import CanvasCore

/// Decodes and validates wire messages (protocol/PROTOCOL.md).
///
/// Validation is complete before anything is returned: a message is either entirely valid
/// or rejected with a `ProtocolError` naming the field, so a replica never applies half a
/// message. Unknown fields are ignored; an unknown `type` gives `.unsupported`.
public enum MessageDecoder {
    /// Decodes one message from UTF-8 JSON bytes.
    public static func decode(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> Message {
        guard bytes.count <= ProtocolLimits.maxMessageBytes else {
            throw ProtocolError(
                .limitExceeded, path: "",
                "message of \(bytes.count) bytes exceeds the limit of \(ProtocolLimits.maxMessageBytes)")
        }
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(ProtocolError) in try decode(buffer: buffer) }
        }
        if let result {
            return try result.get()
        }
        return try decode(Array(bytes))
    }

    /// Decodes one message from a JSON string.
    public static func decode(_ text: String) throws(ProtocolError) -> Message {
        var text = text
        text.makeContiguousUTF8()
        return try decode(text.utf8)
    }

    private static func decode(buffer: UnsafeBufferPointer<UInt8>) throws(ProtocolError) -> Message {
        var reader = JSONReader(buffer)
        reader.skipWhitespace()
        guard reader.peek == UInt8(ascii: "{") else {
            // Report broken JSON as such before complaining about the shape.
            _ = try reader.readValue()
            try reader.expectEnd()
            throw ProtocolError(.wrongType, path: "", "expected a JSON object with a \"type\" field")
        }
        var fields = Fields()
        try reader.forEachMember { (reader, key) throws(ProtocolError) in
            switch FieldKey(key) {
            case .points?: fields.points = try PointsField(reading: &reader)
            case let known?: fields.set(known, try reader.readValue())
            case nil: _ = try reader.readValue()
            }
        }
        try reader.expectEnd()
        return try fields.message()
    }

    /// Decodes a message from an already parsed JSON value: the same validation as the
    /// byte path, without its fast paths (tests use it with another parser as an oracle).
    static func decode(tree: JSONValue) throws(ProtocolError) -> Message {
        guard case .object(let members) = tree else {
            throw ProtocolError(.wrongType, path: "", "expected a JSON object with a \"type\" field")
        }
        var fields = Fields()
        for (name, value) in members {
            switch FieldKey(.decoded(name)) {
            case .points?: fields.points = .other(value)
            case let known?: fields.set(known, value)
            case nil: continue
            }
        }
        return try fields.message()
    }
}

/// The top-level fields the decoder knows; all others are ignored.
enum FieldKey: Int, CaseIterable {
    case type, identifier, weight, colour, start, points, offset, startOffset, endOffset, isShape, data

    /// The key as it appears in JSON.
    var name: String {
        switch self {
        case .type: "type"
        case .identifier: "identifier"
        case .weight: "weight"
        case .colour: "colour"
        case .start: "start"
        case .points: "points"
        case .offset: "offset"
        case .startOffset: "start_offset"
        case .endOffset: "end_offset"
        case .isShape: "is_shape"
        case .data: "data"
        }
    }

    private static let names: [[UInt8]] = allCases.map { Array($0.name.utf8) }

    /// The field a raw key names, if the decoder knows it: the length and first byte pick
    /// the one candidate, then its bytes are compared.
    init?(_ key: JSONReader.MemberKey) {
        switch key {
        case .ascii(let bytes):
            guard let first = bytes.first else { return nil }
            let candidate: FieldKey
            switch (bytes.count, first) {
            case (4, UInt8(ascii: "t")): candidate = .type
            case (4, UInt8(ascii: "d")): candidate = .data
            case (10, UInt8(ascii: "i")): candidate = .identifier
            case (10, UInt8(ascii: "e")): candidate = .endOffset
            case (6, UInt8(ascii: "w")): candidate = .weight
            case (6, UInt8(ascii: "c")): candidate = .colour
            case (6, UInt8(ascii: "p")): candidate = .points
            case (6, UInt8(ascii: "o")): candidate = .offset
            case (5, UInt8(ascii: "s")): candidate = .start
            case (12, UInt8(ascii: "s")): candidate = .startOffset
            case (8, UInt8(ascii: "i")): candidate = .isShape
            default: return nil
            }
            let name = FieldKey.names[candidate.rawValue]
            for index in 1..<name.count where name[index] != bytes[index] {
                return nil
            }
            self = candidate
        case .decoded(let string):
            guard let match = FieldKey.allCases.first(where: { $0.name == string }) else { return nil }
            self = match
        }
    }
}

/// The known top-level fields of a message, gathered before its type is known (JSON
/// objects are unordered: `type` may come last). A repeated key keeps its last value.
private struct Fields {
    /// The message type, once known: the first part of every error path.
    private var typeName = ""
    private var typeField, identifierField, weightField, colourField, startField, offsetField, startOffsetField, endOffsetField,
        isShapeField, dataField: JSONValue?
    var points: PointsField?

    subscript(key: FieldKey) -> JSONValue? {
        switch key {
        case .type: typeField
        case .identifier: identifierField
        case .weight: weightField
        case .colour: colourField
        case .start: startField
        case .points: nil
        case .offset: offsetField
        case .startOffset: startOffsetField
        case .endOffset: endOffsetField
        case .isShape: isShapeField
        case .data: dataField
        }
    }

    mutating func set(_ key: FieldKey, _ newValue: JSONValue) {
        switch key {
        case .type: typeField = newValue
        case .identifier: identifierField = newValue
        case .weight: weightField = newValue
        case .colour: colourField = newValue
        case .start: startField = newValue
        case .points: break
        case .offset: offsetField = newValue
        case .startOffset: startOffsetField = newValue
        case .endOffset: endOffsetField = newValue
        case .isShape: isShapeField = newValue
        case .data: dataField = newValue
        }
    }

    mutating func message() throws(ProtocolError) -> Message {
        guard let typeValue = self[.type] else {
            throw ProtocolError(.missingField, path: "type", "missing field (every message has a \"type\")")
        }
        guard case .string(let type) = typeValue else {
            throw ProtocolError(.wrongType, path: "type", "expected a string, got \(typeValue.excerpt)")
        }
        typeName = type
        switch type {
        case MessageType.add:
            let id = try identifier()
            let header = StrokeHeader(
                weight: try weight(.weight),
                colour: try colour(.colour),
                start: try point(.start),
                isShape: try optionalBool(.isShape) ?? false)
            return .operation(.add(id, header))
        case MessageType.append:
            let id = try identifier()
            let points = try readPoints()
            let offset = try offset(pointCount: points.count)
            return .operation(.append(id, points: points, offset: offset))
        case MessageType.delete:
            let id = try identifier()
            return .operation(
                .delete(id, start: try finiteNumber(.startOffset), end: try finiteNumber(.endOffset)))
        case MessageType.removeStroke:
            return .operation(.removeStroke(try identifier()))
        case MessageType.mega:
            return .mega(try LegacyMega.operations(from: required(.data), path: "MEGA.data"))
        default:
            return .unsupported(type: type)
        }
    }
}

/// Reading the fields by key, with paths of the form `TYPE.field`.
extension Fields {
    func path(_ key: FieldKey) -> String { "\(typeName).\(key.name)" }

    /// A field that must be present and not null.
    func required(_ key: FieldKey) throws(ProtocolError) -> JSONValue {
        guard let found = self[key], found != .null else {
            throw ProtocolError(.missingField, path: path(key), "missing field")
        }
        return found
    }

    func identifier() throws(ProtocolError) -> StrokeID {
        try Validate.identifier(required(.identifier), path(.identifier))
    }

    func weight(_ key: FieldKey) throws(ProtocolError) -> Double {
        try Validate.positiveNumber(required(key), path(key))
    }

    func colour(_ key: FieldKey) throws(ProtocolError) -> Colour {
        try Validate.colour(required(key), path(key))
    }

    func point(_ key: FieldKey) throws(ProtocolError) -> Point {
        try Validate.point(required(key), path(key))
    }

    func finiteNumber(_ key: FieldKey) throws(ProtocolError) -> Double {
        try Validate.finiteNumber(required(key), path(key))
    }

    /// An optional boolean; absent or null means nil.
    func optionalBool(_ key: FieldKey) throws(ProtocolError) -> Bool? {
        guard let found = self[key], found != .null else { return nil }
        return try Validate.bool(found, path(key))
    }

    func readPoints() throws(ProtocolError) -> [Point] {
        switch points {
        case .points(let points)?: return points
        case .other(let found)?: return try Validate.points(found, path(.points))
        case nil: throw ProtocolError(.missingField, path: path(.points), "missing field")
        }
    }

    /// APPEND's optional `offset`: an integer ≥ 1 such that the batch stays within
    /// `ProtocolLimits.maxPointIndex`.
    func offset(pointCount: Int) throws(ProtocolError) -> Int? {
        guard let found = self[.offset], found != .null else { return nil }
        let last = max(1, ProtocolLimits.maxPointIndex - max(pointCount - 1, 0))
        return try Validate.integer(found, path(.offset), in: 1...last)
    }
}

/// The `points` field, read in one pass: the common case (an array of `[x, y]` pairs of
/// finite numbers) straight into `Point`s; anything else as a tree, so that the error can
/// name the offending element — or be ignored, when the message type has no points.
enum PointsField {
    case points([Point])
    case other(JSONValue)

    init(reading reader: inout JSONReader) throws(ProtocolError) {
        let start = reader.position
        var fast = reader
        if let points = fast.readPointPairs() {
            reader = fast
            self = .points(points)
        } else {
            precondition(reader.position == start)
            self = .other(try reader.readValue())
        }
    }
}

extension JSONReader {
    /// Reads `[[x,y],…]` of finite numbers, or returns nil (leaving `self` unspecified)
    /// at the first deviation, syntax errors included: the caller then re-reads the value
    /// from a saved copy with full error reporting.
    mutating func readPointPairs() -> [Point]? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var points: [Point] = []
        if consume(UInt8(ascii: "]")) { return points }
        repeat {
            guard points.count < ProtocolLimits.maxPointsPerMessage, consume(UInt8(ascii: "[")) else { return nil }
            skipWhitespace()
            guard let x = try? readNumber(), x.isFinite, consume(UInt8(ascii: ",")) else { return nil }
            skipWhitespace()
            guard let y = try? readNumber(), y.isFinite, consume(UInt8(ascii: "]")) else { return nil }
            points.append(Point(x: x, y: y))
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "]")) else { return nil }
        return points
    }
}
