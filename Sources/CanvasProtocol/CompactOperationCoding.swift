public import CanvasCore

/// The compact binary form of an operation, for transports whose members are all Canvas
/// nodes that announced they read it (the LAN cluster: PROTOCOL.md §15). It carries exactly
/// what the JSON message carries — every `Double` comes back bit for bit — in about a
/// fifth of the bytes: coordinates that are whole thousandths (what pens and the JSON form
/// produce) travel as varints, in the largest unit that divides them all (a quarter pixel,
/// a pixel…), of their difference from a linear prediction (a pen moves smoothly).
///
/// ```
/// tag:u8 (1 ADD, 2 APPEND, 3 DELETE, 4 REMOVE_STROKE)   id: varint length (1…256) + UTF-8
/// ADD:     weight:number  colour: red green blue (3 bytes)  start: x:number y:number  flags:u8 (bit 0 shape)
/// APPEND:  offset: varint (0: none)  count: varint  unit: varint ≥ 1 (thousandths)  count × (x:coordinate y:coordinate)
/// DELETE:  start:number  end:number
/// number:     varint u; u even: zigzag(u >> 1) thousandths; u = 1: a big-endian IEEE 754 double follows
/// coordinate: varint u; u even: the value is (p + zigzag⁻¹(u >> 1)) × unit / 1000, where p, in
///             units, predicts from the axis's earlier coordinates given so: 0 for the first, the
///             previous for the second, 2 × previous − the one before it after that;
///             u = 1: a raw double follows (and takes no part in the prediction)
/// ```
///
/// A compact message never starts with a byte a JSON text can start with, so that one
/// decoder (`MessageDecoder.decode`) reads both; it applies the same limits and checks as
/// the JSON decoder and names the offending field the same way.
public enum CompactOperationCoding {
    /// The first byte of each kind of compact message.
    enum Tag: UInt8 {
        case add = 1, append = 2, delete = 3, removeStroke = 4
    }

    /// Whether `byte`, as a message's first byte, marks a compact message.
    @inlinable
    public static func isCompact(firstByte byte: UInt8) -> Bool { (1...4).contains(byte) }

    /// The largest magnitude carried as thousandths (as in the canonical JSON writer).
    static let thousandthsLimit = 1e12

    /// The compact message for `operation`. A DELETE's bounds must be finite.
    public static func encode(_ operation: Operation) -> [UInt8] {
        var bytes: [UInt8] = []
        append(operation, to: &bytes)
        return bytes
    }

    /// Appends the compact message for `operation` to `bytes`.
    public static func append(_ operation: Operation, to bytes: inout [UInt8]) {
        var writer = CompactWriter(bytes: bytes)
        bytes = []
        switch operation {
        case .add(let id, let header):
            writer.prefix(.add, id)
            writer.number(header.weight)
            writer.bytes.append(contentsOf: [header.colour.red, header.colour.green, header.colour.blue])
            writer.number(header.start.x)
            writer.number(header.start.y)
            writer.bytes.append(header.isShape ? 1 : 0)
        case .append(let id, let points, let offset):
            writer.bytes.reserveCapacity(writer.bytes.count + id.rawValue.utf8.count + 8 + points.count * 5)
            writer.prefix(.append, id)
            writer.unsigned(UInt64(offset ?? 0))
            writer.unsigned(UInt64(points.count))
            let unit = CompactWriter.unit(of: points)
            writer.unsigned(UInt64(unit))
            var x = AxisPrediction()
            var y = AxisPrediction()
            for point in points {
                writer.coordinate(point.x, unit: unit, prediction: &x)
                writer.coordinate(point.y, unit: unit, prediction: &y)
            }
        case .delete(let id, let start, let end):
            precondition(start.isFinite && end.isFinite, "DELETE bounds must be finite")
            writer.prefix(.delete, id)
            writer.number(start)
            writer.number(end)
        case .removeStroke(let id):
            writer.prefix(.removeStroke, id)
        }
        bytes = writer.bytes
    }

    /// Decodes and validates one compact message (its first byte is a tag).
    static func decode(_ buffer: UnsafeBufferPointer<UInt8>) throws(ProtocolError) -> Message {
        var reader = CompactReader(buffer: buffer)
        guard let tag = Tag(rawValue: try reader.byte("type")) else {
            throw ProtocolError(.malformedCompact, path: "", "unknown compact message tag \(buffer[0])")
        }
        let kind = tag.name
        // The path is built only for an error (built eagerly, it was a string allocated per
        // operation received).
        let id = try reader.identifier(path: "\(kind).identifier")
        let operation: Operation
        switch tag {
        case .add:
            let weight = try reader.number("ADD.weight")
            guard weight > 0 else {
                throw ProtocolError(.invalidValue, path: "ADD.weight", "expected a number greater than 0, got \(weight)")
            }
            let colour = Colour(
                red: try reader.byte("ADD.colour[0]"), green: try reader.byte("ADD.colour[1]"),
                blue: try reader.byte("ADD.colour[2]"))
            let start = Point(x: try reader.number("ADD.start[0]"), y: try reader.number("ADD.start[1]"))
            let flags = try reader.byte("ADD.is_shape")
            guard flags <= 1 else {
                throw ProtocolError(.invalidValue, path: "ADD.is_shape", "expected flags 0 or 1, got \(flags)")
            }
            operation = .add(id, StrokeHeader(weight: weight, colour: colour, start: start, isShape: flags == 1))
        case .append:
            let rawOffset = try reader.unsigned("APPEND.offset")
            let count = try reader.unsigned("APPEND.points")
            guard count <= UInt64(ProtocolLimits.maxPointsPerMessage) else {
                throw ProtocolError(
                    .limitExceeded, path: "APPEND.points",
                    "\(count) points exceed the limit of \(ProtocolLimits.maxPointsPerMessage) per message")
            }
            // Each point takes at least two bytes: a count beyond what is left is a lie.
            guard count <= UInt64(reader.remaining / 2) else {
                throw ProtocolError(
                    .malformedCompact, path: "APPEND.points", "\(count) points announced, \(reader.remaining) bytes left")
            }
            let unit = try reader.unsigned("APPEND.unit")
            guard (1...UInt64(CompactOperationCoding.thousandthsLimit * 1000)).contains(unit) else {
                throw ProtocolError(.invalidValue, path: "APPEND.unit", "expected a unit from 1 to 10^15 thousandths, got \(unit)")
            }
            var points: [Point] = []
            points.reserveCapacity(Int(count))
            var x = AxisPrediction()
            var y = AxisPrediction()
            for index in 0..<Int(count) {
                let px = try reader.coordinate(unit: Int64(unit), prediction: &x, "APPEND.points[\(index)][0]")
                let py = try reader.coordinate(unit: Int64(unit), prediction: &y, "APPEND.points[\(index)][1]")
                points.append(Point(x: px, y: py))
            }
            var offset: Int?
            if rawOffset != 0 {
                let last = max(1, ProtocolLimits.maxPointIndex - max(points.count - 1, 0))
                guard rawOffset <= UInt64(last) else {
                    throw ProtocolError(
                        .invalidValue, path: "APPEND.offset", "expected an integer from 1 to \(last), got \(rawOffset)")
                }
                offset = Int(rawOffset)
            }
            operation = .append(id, points: points, offset: offset)
        case .delete:
            operation = .delete(id, start: try reader.number("DELETE.start_offset"), end: try reader.number("DELETE.end_offset"))
        case .removeStroke:
            operation = .removeStroke(id)
        }
        guard reader.remaining == 0 else {
            throw ProtocolError(.malformedCompact, path: kind, "\(reader.remaining) bytes after the end of the message")
        }
        return .operation(operation)
    }
}

extension CompactOperationCoding.Tag {
    /// The JSON `type` of the same message, for error paths.
    var name: String {
        switch self {
        case .add: "ADD"
        case .append: "APPEND"
        case .delete: "DELETE"
        case .removeStroke: "REMOVE_STROKE"
        }
    }
}

/// Writes the compact form.
private struct CompactWriter {
    var bytes: [UInt8]

    mutating func prefix(_ tag: CompactOperationCoding.Tag, _ id: StrokeID) {
        bytes.append(tag.rawValue)
        let utf8 = id.rawValue.utf8
        unsigned(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func unsigned(_ value: UInt64) { Varint.append(value, to: &bytes) }

    /// `value` in thousandths when that is exact, else as a raw double.
    mutating func number(_ value: Double) {
        var prediction = AxisPrediction()
        coordinate(value, unit: 1, prediction: &prediction)
    }

    /// `value` in `unit`s (which divide it) as the difference from `prediction` (updated),
    /// or raw.
    mutating func coordinate(_ value: Double, unit: Int64, prediction: inout AxisPrediction) {
        if let thousandths = Self.thousandths(value) {
            let units = thousandths / unit
            let residual = units - prediction.next!  // units ≤ 10^15: no overflow
            prediction.record(units)
            let zigzag = UInt64(bitPattern: (residual << 1) ^ (residual >> 63))
            unsigned(zigzag << 1)
            return
        }
        bytes.append(1)
        let bits = value.bitPattern
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    /// The largest unit (in thousandths) that divides every coordinate of `points` given in
    /// thousandths: 250 for quarter pixels, 1000 for whole ones; 1 when there is none.
    static func unit(of points: [Point]) -> Int64 {
        var unit: Int64 = 0
        /// Narrows `unit` to divide `value` too; true when it reached 1.
        func include(_ value: Double) -> Bool {
            guard let thousandths = thousandths(value) else { return false }
            // Mostly the unit divides the next coordinate already: one division, no GCD.
            if unit != 0, thousandths % unit == 0 { return false }
            unit = gcd(unit, thousandths.magnitude)
            return unit == 1
        }
        for point in points where include(point.x) || include(point.y) { return 1 }
        return max(unit, 1)
    }

    private static func gcd(_ a: Int64, _ b: UInt64) -> Int64 {
        var (a, b) = (UInt64(a), b)
        while b != 0 { (a, b) = (b, a % b) }
        return Int64(a)
    }

    /// `value × 1000` when `value` is exactly that many thousandths (as the canonical JSON
    /// writer decides: see `CanonicalWriter.number`).
    static func thousandths(_ value: Double) -> Int64? {
        guard abs(value) < CompactOperationCoding.thousandthsLimit else { return nil }
        let scaled = (value * 1000).rounded()
        guard scaled / 1000 == value else { return nil }
        return Int64(scaled)
    }
}

/// Reads the compact form, every failure a `ProtocolError` naming the field.
private struct CompactReader {
    let buffer: UnsafeBufferPointer<UInt8>
    var position = 0

    var remaining: Int { buffer.count - position }

    mutating func byte(_ path: @autoclosure () -> String) throws(ProtocolError) -> UInt8 {
        guard position < buffer.count else { throw Self.cut(path()) }
        defer { position += 1 }
        return buffer[position]
    }

    mutating func unsigned(_ path: @autoclosure () -> String) throws(ProtocolError) -> UInt64 {
        guard let value = Varint.read(buffer, at: &position) else {
            throw ProtocolError(.malformedCompact, path: path(), "the message ends inside this number, or it exceeds 64 bits")
        }
        return value
    }

    mutating func identifier(path: @autoclosure () -> String) throws(ProtocolError) -> StrokeID {
        let length = try unsigned(path())
        guard length > 0 else { throw ProtocolError(.invalidValue, path: path(), "expected a non-empty identifier") }
        guard length <= UInt64(ProtocolLimits.maxIdentifierBytes) else {
            throw ProtocolError(
                .limitExceeded, path: path(),
                "identifier of \(length) bytes exceeds the limit of \(ProtocolLimits.maxIdentifierBytes)")
        }
        guard Int(length) <= remaining else { throw Self.cut(path()) }
        let slice = UnsafeBufferPointer(rebasing: buffer[position..<position + Int(length)])
        position += Int(length)
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw ProtocolError(.invalidValue, path: path(), "identifier is not valid UTF-8")
        }
        return StrokeID(text)
    }

    mutating func number(_ path: @autoclosure () -> String) throws(ProtocolError) -> Double {
        var prediction = AxisPrediction()
        return try coordinate(unit: 1, prediction: &prediction, path())
    }

    mutating func coordinate(
        unit: Int64, prediction: inout AxisPrediction, _ path: @autoclosure () -> String
    ) throws(ProtocolError) -> Double {
        let head = try unsigned(path())
        if head & 1 == 0 {
            let zigzag = head >> 1
            let residual = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
            let limit = CompactOperationCoding.thousandthsLimit * 1000
            guard let predicted = prediction.next else { throw Self.outOfRange(path()) }
            let (units, overflow) = predicted.addingReportingOverflow(residual)
            let (thousandths, overflowed) = units.multipliedReportingOverflow(by: unit)
            guard !overflow, !overflowed, Double(thousandths.magnitude) < limit else { throw Self.outOfRange(path()) }
            prediction.record(units)
            return Double(thousandths) / 1000
        }
        guard head == 1 else { throw ProtocolError(.malformedCompact, path: path(), "unknown number form \(head)") }
        guard remaining >= 8 else { throw Self.cut(path()) }
        var bits: UInt64 = 0
        for _ in 0..<8 {
            bits = bits << 8 | UInt64(buffer[position])
            position += 1
        }
        let value = Double(bitPattern: bits)
        guard value.isFinite else {
            throw ProtocolError(.invalidValue, path: path(), "expected a finite number, got \(value)")
        }
        return value + 0
    }

    static func outOfRange(_ path: String) -> ProtocolError {
        ProtocolError(.invalidValue, path: path, "coordinate out of range (more than 10^12)")
    }

    static func cut(_ path: String) -> ProtocolError {
        ProtocolError(.malformedCompact, path: path, "message ends in the middle of this field")
    }
}

/// The prediction of an axis's next coordinate in an APPEND, in units: 0 at first, then
/// the previous one, then the line through the last two (a pen keeps its direction and
/// speed from one sample to the next).
struct AxisPrediction {
    private var last: Int64 = 0
    private var beforeLast: Int64 = 0
    private var seen = 0

    /// The predicted next value; nil when it overflows (only a damaged message gets there).
    var next: Int64? {
        switch seen {
        case 0: return 0
        case 1: return last
        default:
            let (double, overflow) = last.multipliedReportingOverflow(by: 2)
            let (next, overflowed) = double.subtractingReportingOverflow(beforeLast)
            return overflow || overflowed ? nil : next
        }
    }

    mutating func record(_ value: Int64) {
        beforeLast = last
        last = value
        seen += 1
    }
}
