public import CanvasCore

/// The snapshot's binary format: the net effect of a room (`Document.operations`) written
/// compactly, so that a compacted store costs a few bytes per point and opens fast.
///
///     SNAPSHOT  = MAGIC "CNVSNAP" VERSION(1 byte, 1) COUNT(varint) OPERATION* CRC(4 bytes LE)
///     OPERATION = TAG(1 byte) ID(varint length + UTF-8) FIELDS
///       1 ADD            weight f64, red green blue (3 bytes), start x f64, y f64, shape (1 byte)
///       2 APPEND         offset varint (0 = none), count varint, SCALE (1 byte), POINTS
///       3 DELETE         start f64, end f64
///       4 REMOVE_STROKE  (nothing)
///     POINTS    = SCALE k in 0…8: per point, zigzag varints of the x and y deltas of the
///                 fixed-point values x·2^k, y·2^k (from 0, 0) — chosen when every
///                 coordinate of the batch is an exact multiple of 2^-k (the smallest k);
///                 SCALE 255: per point, x and y as raw IEEE 754 doubles.
///
/// Numbers are little-endian; f64 is the raw bit pattern, so every value round-trips
/// exactly. The CRC-32 covers everything before it.
public enum SnapshotFormat {
    static let magic = Array("CNVSNAP".utf8)
    static let version: UInt8 = 1
    static let rawScale: UInt8 = 255
    static let maxScale = 8
    /// Fixed-point values stay within ±2^53, where doubles are exact integers.
    private static let fixedLimit = 9_007_199_254_740_992.0

    /// The snapshot of `operations` (normally `document.operations`).
    public static func encode(_ operations: [Operation]) -> [UInt8] {
        var writer = ByteWriter()
        writer.header(operationCount: operations.count)
        for operation in operations {
            switch operation {
            case .add(let id, let header): writer.add(id, header)
            case .append(let id, let points, let offset): writer.append(id, points, offset: offset ?? 0)
            case .delete(let id, let start, let end): writer.delete(id, start: start, end: end)
            case .removeStroke(let id): writer.removeStroke(id)
            }
        }
        return writer.sealed()
    }

    /// A snapshot of `document`: the bytes of `encode(document.operations)`, written stroke
    /// by stroke without building the operations or copying a point (a compaction of a
    /// large room made them all, half its work).
    public static func encode(_ document: Document) -> [UInt8] {
        let strokes = document.sortedStrokes
        var writer = ByteWriter()
        // About what a snapshot takes (points are mostly 2–4 bytes): one buffer from the start,
        // not a dozen doublings of a large one.
        writer.bytes.reserveCapacity(64 + 48 * strokes.count + 4 * document.drawablePointCount)
        writer.header(operationCount: strokes.reduce(0) { $0 + $1.operationCount })
        for stroke in strokes {
            stroke.forEachOperation { part in
                switch part {
                case .add(let header): writer.add(stroke.id, header)
                case .append(let points, let offset): writer.append(stroke.id, points, offset: offset)
                case .delete(let start, let end): writer.delete(stroke.id, start: start, end: end)
                case .removeStroke: writer.removeStroke(stroke.id)
                }
            }
        }
        return writer.sealed()
    }

    /// The operations of a snapshot; `path` names the file in errors.
    public static func decode(_ bytes: [UInt8], path: String) throws(StoreError) -> [Operation] {
        let header = magic.count + 1
        guard bytes.count >= header + 4, bytes.starts(with: magic) else {
            throw StoreError(.corruptSnapshot, path: path, offset: 0, "not a Canvas snapshot (expected the magic \"CNVSNAP\")")
        }
        guard bytes[magic.count] == version else {
            throw StoreError(
                .corruptSnapshot, path: path, offset: magic.count,
                "snapshot version \(bytes[magic.count]) is not supported (this build reads version \(version))")
        }
        let body = bytes.count - 4
        let stored = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[body + $1]) << UInt32(8 * $1) }
        let computed = bytes.withUnsafeBufferPointer { CRC32.checksum(UnsafeBufferPointer(rebasing: $0[..<body])) }
        guard stored == computed else {
            throw StoreError(
                .corruptSnapshot, path: path, offset: body,
                "checksum mismatch (stored \(LogFormat.hex(stored)), computed \(LogFormat.hex(computed)))")
        }
        return try bytes.withUnsafeBufferPointer { buffer throws(StoreError) in
            var reader = ByteReader(buffer: UnsafeBufferPointer(rebasing: buffer[..<body]), position: header, path: path)
            let count = try reader.count()
            var operations: [Operation] = []
            operations.reserveCapacity(count)
            for _ in 0..<count {
                let tagOffset = reader.position
                let tag = try reader.byte()
                let id = StrokeID(try reader.string())
                switch tag {
                case 1:
                    let weight = try reader.double()
                    let colour = Colour(red: try reader.byte(), green: try reader.byte(), blue: try reader.byte())
                    let start = Point(x: try reader.double(), y: try reader.double())
                    let isShape = try reader.byte() != 0
                    operations.append(.add(id, StrokeHeader(weight: weight, colour: colour, start: start, isShape: isShape)))
                case 2:
                    let offset = try reader.count()
                    let pointCount = try reader.count()
                    let points = try reader.points(pointCount)
                    operations.append(.append(id, points: points, offset: offset == 0 ? nil : offset))
                case 3:
                    operations.append(.delete(id, start: try reader.double(), end: try reader.double()))
                case 4:
                    operations.append(.removeStroke(id))
                default:
                    throw StoreError(.corruptSnapshot, path: path, offset: tagOffset, "unknown operation tag \(tag) (expected 1…4)")
                }
            }
            guard reader.position == reader.buffer.count else {
                throw StoreError(.corruptSnapshot, path: path, offset: reader.position, "unexpected bytes after the last operation")
            }
            return operations
        }
    }

    /// The smallest k ≤ 8 such that every coordinate is an exact multiple of 2^-k within
    /// the exact range of doubles, or nil when there is none.
    static func fixedPointScale(of points: some Collection<Point>) -> Int? {
        var scale = 0
        func fit(_ value: Double) -> Bool {
            while scale <= maxScale {
                let scaled = value * Double(1 << scale)
                if scaled.magnitude <= fixedLimit, scaled == scaled.rounded(.towardZero) { return true }
                scale += 1
            }
            return false
        }
        for point in points {
            guard fit(point.x), fit(point.y) else { return nil }
        }
        return scale
    }
}

/// Little-endian bytes and LEB128 varints.
struct ByteWriter {
    var bytes: [UInt8] = []

    // MARK: A snapshot's parts

    /// The magic, the version and the number of operations that follow.
    mutating func header(operationCount: Int) {
        bytes.append(contentsOf: SnapshotFormat.magic)
        bytes.append(SnapshotFormat.version)
        varint(UInt64(operationCount))
    }

    mutating func add(_ id: StrokeID, _ header: StrokeHeader) {
        bytes.append(1)
        string(id.rawValue)
        double(header.weight)
        bytes.append(header.colour.red)
        bytes.append(header.colour.green)
        bytes.append(header.colour.blue)
        double(header.start.x)
        double(header.start.y)
        bytes.append(header.isShape ? 1 : 0)
    }

    mutating func append(_ id: StrokeID, _ points: some Collection<Point>, offset: Int) {
        bytes.append(2)
        string(id.rawValue)
        varint(UInt64(offset))
        varint(UInt64(points.count))
        self.points(points)
    }

    mutating func delete(_ id: StrokeID, start: Double, end: Double) {
        bytes.append(3)
        string(id.rawValue)
        double(start)
        double(end)
    }

    mutating func removeStroke(_ id: StrokeID) {
        bytes.append(4)
        string(id.rawValue)
    }

    /// The bytes with their CRC-32 after them.
    consuming func sealed() -> [UInt8] {
        let crc = CRC32.checksum(bytes)
        for shift in stride(from: 0, to: 32, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift)))
        }
        return bytes
    }

    // MARK: Values

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func double(_ value: Double) {
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
    }

    mutating func string(_ string: String) {
        varint(UInt64(string.utf8.count))
        bytes.append(contentsOf: string.utf8)
    }

    mutating func points(_ points: some Collection<Point>) {
        guard let scale = SnapshotFormat.fixedPointScale(of: points) else {
            bytes.append(SnapshotFormat.rawScale)
            for point in points {
                double(point.x)
                double(point.y)
            }
            return
        }
        bytes.append(UInt8(scale))
        let factor = Double(1 << scale)
        var previousX: Int64 = 0
        var previousY: Int64 = 0
        for point in points {
            let x = Int64(point.x * factor)
            let y = Int64(point.y * factor)
            varint(zigzag(x &- previousX))
            varint(zigzag(y &- previousY))
            previousX = x
            previousY = y
        }
    }

    private func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }
}

/// Reads what `ByteWriter` wrote; every overrun is an error naming the offset.
struct ByteReader {
    let buffer: UnsafeBufferPointer<UInt8>
    var position: Int
    let path: String

    private func truncated(_ what: String) -> StoreError {
        StoreError(.corruptSnapshot, path: path, offset: position, "snapshot ends inside \(what)")
    }

    mutating func byte() throws(StoreError) -> UInt8 {
        guard position < buffer.count else { throw truncated("a field") }
        defer { position += 1 }
        return buffer[position]
    }

    mutating func varint() throws(StoreError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < buffer.count else { throw truncated("a varint") }
            let byte = buffer[position]
            position += 1
            guard shift < 64 else {
                throw StoreError(.corruptSnapshot, path: path, offset: position - 1, "varint longer than 10 bytes")
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// A varint used as a count or an index: it must fit what the rest of the file can hold.
    mutating func count() throws(StoreError) -> Int {
        let start = position
        let value = try varint()
        guard value <= UInt64(buffer.count) * 8 + (1 << 24) else {
            throw StoreError(.corruptSnapshot, path: path, offset: start, "count \(value) is larger than the snapshot can hold")
        }
        return Int(value)
    }

    mutating func double() throws(StoreError) -> Double {
        guard position + 8 <= buffer.count else { throw truncated("a number") }
        var bits: UInt64 = 0
        for index in 0..<8 {
            bits |= UInt64(buffer[position + index]) << UInt64(8 * index)
        }
        position += 8
        return Double(bitPattern: bits)
    }

    mutating func string() throws(StoreError) -> String {
        let start = position
        let length = try count()
        guard position + length <= buffer.count else { throw truncated("an identifier") }
        defer { position += length }
        guard let string = String(validating: UnsafeBufferPointer(rebasing: buffer[position..<(position + length)]), as: UTF8.self),
            !string.isEmpty
        else {
            throw StoreError(.corruptSnapshot, path: path, offset: start, "stroke identifier is empty or not UTF-8")
        }
        return string
    }

    mutating func points(_ count: Int) throws(StoreError) -> [Point] {
        let scaleOffset = position
        let scale = try byte()
        var points: [Point] = []
        points.reserveCapacity(count)
        if scale == SnapshotFormat.rawScale {
            for _ in 0..<count {
                points.append(Point(x: try double(), y: try double()))
            }
            return points
        }
        guard Int(scale) <= SnapshotFormat.maxScale else {
            throw StoreError(.corruptSnapshot, path: path, offset: scaleOffset, "point scale \(scale) is neither 0…8 nor 255")
        }
        let factor = 1 / Double(1 << Int(scale))
        var x: Int64 = 0
        var y: Int64 = 0
        for _ in 0..<count {
            x &+= unzigzag(try varint())
            y &+= unzigzag(try varint())
            points.append(Point(x: Double(x) * factor, y: Double(y) * factor))
        }
        return points
    }

    private func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }
}
