import CanvasCore

/// Decodes and validates wire messages (protocol/PROTOCOL.md).
///
/// Validation is complete before anything is returned: a message is either entirely valid
/// or rejected with a `ProtocolError` naming the field, so a replica never applies half a
/// message. Unknown fields are ignored; an unknown `type` gives `.unsupported`.
public enum MessageDecoder {
    /// Decodes one message from UTF-8 JSON bytes, or from the compact binary form of an
    /// operation (`CompactOperationCoding`).
    public static func decode(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> Message {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(ProtocolError) in try decode(buffer: buffer) }
        }
        if let result {
            return try result.get()
        }
        return try decode(Array(bytes))
    }

    /// Decodes one message from UTF-8 JSON bytes (the common case, without generic dispatch).
    public static func decode(_ bytes: [UInt8]) throws(ProtocolError) -> Message {
        try bytes.withUnsafeBufferPointer { (buffer) throws(ProtocolError) in try decode(buffer: buffer) }
    }

    /// Decodes one message from a JSON string.
    public static func decode(_ text: String) throws(ProtocolError) -> Message {
        var text = text
        text.makeContiguousUTF8()
        return try decode(text.utf8)
    }

    private static func decode(buffer: UnsafeBufferPointer<UInt8>) throws(ProtocolError) -> Message {
        guard buffer.count <= ProtocolLimits.maxMessageBytes else {
            throw ProtocolError(
                .limitExceeded, path: "",
                "message of \(buffer.count) bytes exceeds the limit of \(ProtocolLimits.maxMessageBytes)")
        }
        if let first = buffer.first, CompactOperationCoding.isCompact(firstByte: first) {
            return try CompactOperationCoding.decode(buffer)
        }
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
            if let known = FieldKey(key) {
                try fields.read(known, from: &reader)
            } else {
                _ = try reader.readValue()
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
            if let known = FieldKey(.decoded(name)) {
                fields.store(known, value)
            }
        }
        return try fields.message()
    }
}

/// The top-level fields the decoder knows; all others are ignored.
enum FieldKey: CaseIterable {
    case type, identifier, weight, colour, start, points, offset, startOffset, endOffset, isShape, data

    /// The key as it appears in JSON.
    var name: StaticString {
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

    /// The field a key names, if the decoder knows it: the length and first byte pick the
    /// one candidate, then its bytes are compared.
    init?(_ key: borrowing JSONReader.RawString) {
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
            guard candidate.name.matches(bytes) else { return nil }
            self = candidate
        case .decoded(let string):
            guard let match = FieldKey.allCases.first(where: { $0.name.matches(string) }) else { return nil }
            self = match
        }
    }
}

/// The message types the decoder knows.
enum MessageKind: Equatable {
    case add, append, delete, removeStroke, mega
    /// The anti-entropy messages (SyncCoding.swift).
    case sync(SyncKind)
    case unknown(String)

    init(_ raw: JSONReader.RawString) {
        switch raw {
        case .ascii(let bytes):
            self = MessageKind.known(bytes) ?? .unknown(raw.string)
        case .decoded(let name):
            var copy = name
            self = copy.withUTF8(MessageKind.known) ?? .unknown(name)
        }
    }

    /// The known type these bytes spell, if any.
    private static func known(_ bytes: UnsafeBufferPointer<UInt8>) -> MessageKind? {
        let candidate: MessageKind
        switch (bytes.count, bytes.first) {
        case (3, _): candidate = .add
        case (6, UInt8(ascii: "A")?): candidate = .append
        case (6, UInt8(ascii: "D")?): candidate = .delete
        case (13, _): candidate = .removeStroke
        case (4, _): candidate = .mega
        case (9, _): candidate = .sync(.want)
        case (12, _):
            return [MessageKind.sync(.summary), .sync(.buckets), .sync(.strokes)].first { $0.literal.matches(bytes) }
        default: return nil
        }
        return candidate.literal.matches(bytes) ? candidate : nil
    }

    /// The `type` as it is spelled on the wire (empty for an unknown type).
    var literal: StaticString {
        switch self {
        case .add: "ADD"
        case .append: "APPEND"
        case .delete: "DELETE"
        case .removeStroke: "REMOVE_STROKE"
        case .mega: "MEGA"
        case .sync(.summary): "SYNC_SUMMARY"
        case .sync(.buckets): "SYNC_BUCKETS"
        case .sync(.strokes): "SYNC_STROKES"
        case .sync(.want): "SYNC_WANT"
        case .unknown: ""
        }
    }

    /// The name as it appears in `type` and at the start of error paths.
    var name: String {
        if case .unknown(let name) = self { name } else { literal.description }
    }
}

extension StaticString {
    /// True when `bytes` are this literal's bytes. Keys and types are 3 to 13 bytes: two
    /// overlapping word loads compare them without a loop.
    @inline(__always)
    func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = utf8CodeUnitCount
        guard count == bytes.count, let other = bytes.baseAddress else { return count == bytes.count }
        let mine = UnsafeRawPointer(utf8Start)
        let theirs = UnsafeRawPointer(other)
        switch count {
        case 8...16:
            return mine.loadUnaligned(as: UInt64.self) == theirs.loadUnaligned(as: UInt64.self)
                && mine.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == theirs.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        case 4..<8:
            return mine.loadUnaligned(as: UInt32.self) == theirs.loadUnaligned(as: UInt32.self)
                && mine.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                    == theirs.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        default:
            for index in 0..<count where utf8Start[index] != other[index] {
                return false
            }
            return true
        }
    }

    func matches(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { matches($0) }
    }
}

/// Builds the path of a field for an error message, `TYPE.field`. A small value of its
/// own, so that the lazily built paths capture it and not the whole `Fields`.
struct FieldPath {
    /// The message type; its name is spelled out only when an error needs it.
    let kind: MessageKind

    func of(_ key: FieldKey) -> String { "\(kind.name).\(key.name)" }
}

/// The known top-level fields of a message, gathered before its type is known (JSON
/// objects are unordered: `type` may come last). A repeated key keeps its last value.
///
/// The fields of the common messages are kept in the form the decoder wants (a type, an
/// identifier, points, numbers); anything else — the small ADD and MEGA fields, or a value
/// of an unexpected type, kept to name it in an error — goes to `others`.
private struct Fields {
    var kind: MessageKind?
    var identifier: String?
    var points: [Point]?
    var weight, offset, startOffset, endOffset: Double?
    var others: [(key: FieldKey, value: JSONValue)] = []
    /// Error paths, once the message type is known.
    var path = FieldPath(kind: .unknown(""))

    /// Reads one field's value from the reader, the cursor at the value.
    mutating func read(_ key: FieldKey, from reader: inout JSONReader) throws(ProtocolError) {
        switch key {
        case .type where reader.peek == UInt8(ascii: "\""):
            forget(key)
            kind = MessageKind(try reader.readRawString())
        case .identifier where reader.peek == UInt8(ascii: "\""):
            forget(key)
            identifier = try reader.readString()
        case .points:
            var fast = reader
            if let points = fast.readPointPairs() {
                reader = fast
                forget(key)
                self.points = points
            } else {
                keep(key, try reader.readValue())
            }
        case .weight, .offset, .startOffset, .endOffset:
            if let byte = reader.peek, byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) {
                forget(key)
                setNumber(key, try reader.readNumber())
            } else {
                keep(key, try reader.readValue())
            }
        default:
            keep(key, try reader.readValue())
        }
    }

    /// Stores one field from a parsed tree; points always take the validating path.
    mutating func store(_ key: FieldKey, _ value: JSONValue) {
        switch (key, value) {
        case (.type, .string(let name)): kind = MessageKind(.decoded(name))
        case (.identifier, .string(let text)): identifier = text
        case (.weight, .number(let number)), (.offset, .number(let number)), (.startOffset, .number(let number)),
            (.endOffset, .number(let number)):
            setNumber(key, number)
        default: keep(key, value)
        }
    }

    private mutating func setNumber(_ key: FieldKey, _ number: Double) {
        switch key {
        case .weight: weight = number
        case .offset: offset = number
        case .startOffset: startOffset = number
        default: endOffset = number
        }
    }

    /// Keeps a value in `others`, replacing whatever the field held.
    private mutating func keep(_ key: FieldKey, _ value: JSONValue) {
        forget(key)
        others.append((key, value))
    }

    /// Drops what the field held (a repeated key keeps its last value).
    private mutating func forget(_ key: FieldKey) {
        switch key {
        case .type: kind = nil
        case .identifier: identifier = nil
        case .points: points = nil
        case .weight: weight = nil
        case .offset: offset = nil
        case .startOffset: startOffset = nil
        case .endOffset: endOffset = nil
        case .colour, .start, .isShape, .data: break
        }
        if !others.isEmpty {
            others.removeAll { $0.key == key }
        }
    }

    /// The value kept in `others` for a field, if any.
    func other(_ key: FieldKey) -> JSONValue? {
        others.last { $0.key == key }?.value
    }

    mutating func message() throws(ProtocolError) -> Message {
        guard let kind else {
            if let value = other(.type), value != .null {
                throw ProtocolError(.wrongType, path: "type", "expected a string, got \(value.excerpt)")
            }
            throw ProtocolError(.missingField, path: "type", "missing field (every message has a \"type\")")
        }
        let path = FieldPath(kind: kind)
        self.path = path
        switch kind {
        case .add:
            let id = try strokeID()
            let header = StrokeHeader(
                weight: try Validate.positiveNumber(required(weight, .weight), path.of(.weight)),
                colour: try Validate.colour(required(.colour), path.of(.colour)),
                start: try Validate.point(required(.start), path.of(.start)),
                isShape: try optional(.isShape).map { value throws(ProtocolError) in try Validate.bool(value, path.of(.isShape)) } ?? false)
            return .operation(.add(id, header))
        case .append:
            let id = try strokeID()
            let points = try pointsValue()
            return .operation(.append(id, points: points, offset: try offsetValue(pointCount: points.count)))
        case .delete:
            let id = try strokeID()
            return .operation(
                .delete(
                    id, start: try Validate.finiteNumber(required(startOffset, .startOffset), path.of(.startOffset)),
                    end: try Validate.finiteNumber(required(endOffset, .endOffset), path.of(.endOffset))))
        case .removeStroke:
            return .operation(.removeStroke(try strokeID()))
        case .mega:
            return .mega(try LegacyMega.operations(from: required(.data), path: "MEGA.data"))
        case .sync(let sync):
            return try SyncDecoding.message(sync, type: kind.name, data: required(.data))
        case .unknown(let name):
            return .unsupported(type: name)
        }
    }

    /// A field that must be present and not null.
    func required(_ key: FieldKey) throws(ProtocolError) -> JSONValue {
        guard let value = other(key), value != .null else {
            throw ProtocolError(.missingField, path: path.of(key), "missing field")
        }
        return value
    }

    /// A number field that must be present: the number, or what came instead.
    func required(_ number: Double?, _ key: FieldKey) throws(ProtocolError) -> JSONValue {
        if let number { .number(number) } else { try required(key) }
    }

    /// An optional field: absent and null both mean nil.
    func optional(_ key: FieldKey) -> JSONValue? {
        let value = other(key)
        return value == .null ? nil : value
    }

    func strokeID() throws(ProtocolError) -> StrokeID {
        let path = self.path  // captured by the lazy error paths instead of `self`
        if let identifier {
            return try Validate.identifier(identifier, path.of(.identifier))
        }
        return try Validate.identifier(required(.identifier), path.of(.identifier))
    }

    /// The points, moved out of the fields (the message is built once).
    mutating func pointsValue() throws(ProtocolError) -> [Point] {
        let path = self.path
        if let points = points.take() {
            return points
        }
        return try Validate.points(required(.points), path.of(.points))
    }

    /// APPEND's optional `offset`: an integer ≥ 1 such that the batch stays within
    /// `ProtocolLimits.maxPointIndex`.
    func offsetValue(pointCount: Int) throws(ProtocolError) -> Int? {
        let path = self.path
        guard let value = offset.map(JSONValue.number) ?? optional(.offset) else { return nil }
        let last = max(1, ProtocolLimits.maxPointIndex - max(pointCount - 1, 0))
        return try Validate.integer(value, path.of(.offset), in: 1...last)
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
