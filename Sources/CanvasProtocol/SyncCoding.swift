import CanvasCore

/// The sync message kinds, as `MessageKind` cases spell them.
enum SyncKind: Equatable {
    case summary, buckets, strokes, want
}

extension SyncMessage {
    /// The canonical wire bytes: `{"type":"SYNC_…","data":{"version":1,"node":…,"root":…,…}}`
    /// with keys in the order of PROTOCOL.md §13 and hashes as 16 lowercase hex digits.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        bytes.append(contentsOf: #"{"type":"#.utf8)
        CanonicalJSON.appendString(type, to: &bytes)
        bytes.append(contentsOf: #","data":{"version":"#.utf8)
        CanonicalJSON.appendInteger(Int64(SyncMessage.version), to: &bytes)
        bytes.append(contentsOf: #","node":"#.utf8)
        CanonicalJSON.appendString(node, to: &bytes)
        bytes.append(contentsOf: #","root":""#.utf8)
        Hex.append(root, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        if let to {
            bytes.append(contentsOf: #","to":"#.utf8)
            CanonicalJSON.appendString(to, to: &bytes)
        }
        switch body {
        case .summary:
            break
        case .buckets(let first, let hashes):
            bytes.append(contentsOf: #","first":"#.utf8)
            CanonicalJSON.appendInteger(Int64(first), to: &bytes)
            bytes.append(contentsOf: #","hashes":""#.utf8)
            for hash in hashes {
                Hex.append(hash, to: &bytes)
            }
            bytes.append(UInt8(ascii: "\""))
        case .strokes(let cover, let strokes):
            bytes.append(contentsOf: #","cover":["#.utf8)
            for (index, part) in cover.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(UInt8(ascii: "["))
                CanonicalJSON.appendInteger(Int64(part.bucket), to: &bytes)
                for bound in [part.lower, part.upper] {
                    bytes.append(UInt8(ascii: ","))
                    if let bound {
                        CanonicalJSON.appendString(bound.rawValue, to: &bytes)
                    } else {
                        bytes.append(contentsOf: "null".utf8)
                    }
                }
                bytes.append(UInt8(ascii: "]"))
            }
            bytes.append(UInt8(ascii: "]"))
            Self.appendStrokes(strokes, to: &bytes)
        case .want(let strokes):
            Self.appendStrokes(strokes, to: &bytes)
        }
        bytes.append(contentsOf: "}}".utf8)
        return bytes
    }

    /// The encoded size of one stroke summary, for packing messages under a size limit.
    public static func encodedSize(of summary: SyncStrokeSummary) -> Int {
        var bytes: [UInt8] = []
        appendSummary(summary, to: &bytes)
        return bytes.count + 1
    }

    private static func appendStrokes(_ strokes: [SyncStrokeSummary], to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #","strokes":["#.utf8)
        for (index, summary) in strokes.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendSummary(summary, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `["id",contiguous,pending,"header","points","erased"]`
    private static func appendSummary(_ summary: SyncStrokeSummary, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        CanonicalJSON.appendString(summary.id.rawValue, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        CanonicalJSON.appendInteger(Int64(summary.contiguousCount), to: &bytes)
        bytes.append(UInt8(ascii: ","))
        CanonicalJSON.appendInteger(Int64(summary.pendingCount), to: &bytes)
        for hash in [summary.headerHash, summary.pointsHash, summary.erasedHash] {
            bytes.append(contentsOf: #",""#.utf8)
            Hex.append(hash, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

/// Decoding of the `data` object of a sync message; every failure names its field
/// (`SYNC_STROKES.data.strokes[2][3]`).
enum SyncDecoding {
    /// Most stroke summaries or covers in one message.
    static let maxEntries = 65_536

    static func message(_ kind: SyncKind, type: String, data: JSONValue) throws(ProtocolError) -> Message {
        let path = "\(type).data"
        let members = try Validate.object(data, path)
        func required(_ key: String) throws(ProtocolError) -> JSONValue {
            guard let value = members[key], value != .null else {
                throw ProtocolError(.missingField, path: "\(path).\(key)", "missing field")
            }
            return value
        }
        let version = try Validate.integer(required("version"), "\(path).version", in: 1...Int(Int32.max))
        guard version == SyncMessage.version else {
            return .unsupported(type: type)
        }
        let node = try Validate.identifier(required("node"), "\(path).node").rawValue
        let root = try hash(required("root"), "\(path).root")
        var to: String?
        if kind != .summary {
            to = try Validate.identifier(required("to"), "\(path).to").rawValue
        }
        let body: SyncMessage.Body
        switch kind {
        case .summary:
            body = .summary
        case .buckets:
            let first = try Validate.integer(required("first"), "\(path).first", in: 0...(Digest.bucketCount - 1))
            let hashes = try hashList(required("hashes"), "\(path).hashes")
            guard !hashes.isEmpty, first + hashes.count <= Digest.bucketCount else {
                throw ProtocolError(
                    .invalidValue, path: "\(path).hashes",
                    "expected 1 to \(Digest.bucketCount - first) hashes from bucket \(first), got \(hashes.count)")
            }
            body = .buckets(first: first, hashes: hashes)
        case .strokes:
            let entries = try Validate.array(required("cover"), "\(path).cover")
            try count(entries.count, "\(path).cover")
            var cover: [SyncCover] = []
            for (index, entry) in entries.enumerated() {
                let itemPath = "\(path).cover[\(index)]"
                let triple = try Validate.array(entry, itemPath, count: 3)
                cover.append(
                    SyncCover(
                        bucket: try Validate.integer(triple[0], itemPath + "[0]", in: 0...(Digest.bucketCount - 1)),
                        lower: try optionalIdentifier(triple[1], itemPath + "[1]"),
                        upper: try optionalIdentifier(triple[2], itemPath + "[2]")))
            }
            body = .strokes(cover: cover, strokes: try summaries(required("strokes"), "\(path).strokes"))
        case .want:
            body = .want(try summaries(required("strokes"), "\(path).strokes"))
        }
        return .sync(SyncMessage(node: node, root: root, to: to, body: body))
    }

    private static func count(_ count: Int, _ path: String) throws(ProtocolError) {
        guard count <= maxEntries else {
            throw ProtocolError(.limitExceeded, path: path, "\(count) entries exceed the limit of \(maxEntries) per message")
        }
    }

    private static func optionalIdentifier(_ value: JSONValue, _ path: String) throws(ProtocolError) -> StrokeID? {
        value == .null ? nil : try Validate.identifier(value, path)
    }

    private static func summaries(_ value: JSONValue, _ path: String) throws(ProtocolError) -> [SyncStrokeSummary] {
        let entries = try Validate.array(value, path)
        try count(entries.count, path)
        var result: [SyncStrokeSummary] = []
        result.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            let itemPath = "\(path)[\(index)]"
            let fields = try Validate.array(entry, itemPath, count: 6)
            let maxCount = ProtocolLimits.maxPointIndex + 1
            result.append(
                SyncStrokeSummary(
                    id: try Validate.identifier(fields[0], itemPath + "[0]"),
                    contiguousCount: try Validate.integer(fields[1], itemPath + "[1]", in: 0...maxCount),
                    pendingCount: try Validate.integer(fields[2], itemPath + "[2]", in: 0...maxCount),
                    headerHash: try hash(fields[3], itemPath + "[3]"),
                    pointsHash: try hash(fields[4], itemPath + "[4]"),
                    erasedHash: try hash(fields[5], itemPath + "[5]")))
        }
        return result
    }

    private static func hash(_ value: JSONValue, _ path: String) throws(ProtocolError) -> UInt64 {
        let hashes = try hashList(value, path)
        guard hashes.count == 1 else {
            throw ProtocolError(.invalidValue, path: path, "expected 16 lowercase hex digits, got \(value.excerpt)")
        }
        return hashes[0]
    }

    /// A string of 16 lowercase hex digits per hash.
    private static func hashList(_ value: JSONValue, _ path: String) throws(ProtocolError) -> [UInt64] {
        guard case .string(let text) = value else {
            throw ProtocolError(.wrongType, path: path, "expected a string of hex digits, got \(value.excerpt)")
        }
        let utf8 = Array(text.utf8)
        guard utf8.count % 16 == 0, let hashes = Hex.parse(utf8) else {
            throw ProtocolError(
                .invalidValue, path: path, "expected 16 lowercase hex digits per hash, got \(value.excerpt)")
        }
        return hashes
    }
}

/// 64-bit hashes as 16 lowercase hex digits.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 60, through: 0, by: -4) {
            bytes.append(digits[Int((value >> UInt64(shift)) & 0xf)])
        }
    }

    /// Parses consecutive groups of 16 digits; nil at any other byte.
    static func parse(_ bytes: [UInt8]) -> [UInt64]? {
        var result: [UInt64] = []
        result.reserveCapacity(bytes.count / 16)
        var index = 0
        while index + 16 <= bytes.count {
            var value: UInt64 = 0
            for byte in bytes[index..<(index + 16)] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
                default: return nil
                }
                value = value << 4 | UInt64(digit)
            }
            result.append(value)
            index += 16
        }
        return index == bytes.count ? result : nil
    }
}
