public import CanvasCore
import CanvasProtocol

/// The operation log's format: one record per line, append-only.
///
///     RECORD  = BINARY | TEXT
///     BINARY  = 0x01 ESCAPED NEWLINE               what this version writes
///     ESCAPED = COMPACT CRC32, with every 0x0A byte written as 0x1B 0x01 and every 0x1B
///               byte as 0x1B 0x02, so that no newline occurs inside
///     COMPACT = the compact binary form of one operation (CompactOperationCoding,
///               PROTOCOL.md §15: every Double comes back bit for bit)
///     CRC32   = CRC-32 of COMPACT, 4 bytes, big-endian
///     TEXT    = JSON TAB CRC NEWLINE               what earlier versions wrote; still read
///     JSON    = the canonical wire encoding of one operation (MessageEncoder)
///     CRC     = CRC-32 of the JSON bytes, 8 lowercase hex digits
///
/// A JSON text starts with `{`, never 0x01, so the first byte tells the two apart and a log
/// may hold both (a store written by an earlier version and appended to by this one).
/// Canonical JSON escapes every control character, so neither a tab nor a newline can
/// occur inside JSON: the last tab of a line separates the checksum. A line is a record
/// only with its newline, so a write cut short anywhere leaves a last line that fails
/// (no newline, short checksum, or a checksum mismatch) and is recognised as torn; damage
/// inside a record spoils only its own line.
///
/// The binary form takes about a fifth of the bytes of the text and a fraction of its time
/// to write: at a thousand authors a node logs 15,000 points a second, and the log's size
/// decides how often it is folded into the snapshot (docs/store.md).
public enum LogFormat {
    static let binaryMarker: UInt8 = 0x01
    static let newline: UInt8 = 0x0A
    static let escape: UInt8 = 0x1B

    /// Appends the (binary) record of `operation` to `bytes`.
    public static func appendRecord(_ operation: Operation, to bytes: inout [UInt8]) {
        appendRecord(to: &bytes) { CompactOperationCoding.append(operation, to: &$0) }
    }

    /// Appends the (binary) record of an operation given in its compact form, as a peer
    /// sent it: bytes that `CompactOperationCoding` decodes to the operation (the caller
    /// decoded them), written as they are instead of encoding the operation again.
    public static func appendRecord(compactForm: [UInt8], to bytes: inout [UInt8]) {
        appendRecord(to: &bytes) { $0 += compactForm }
    }

    /// Appends a binary record whose compact form `writeCompact` appends.
    private static func appendRecord(to bytes: inout [UInt8], writeCompact: (inout [UInt8]) -> Void) {
        let start = bytes.count
        bytes.append(binaryMarker)
        writeCompact(&bytes)
        let crc = bytes.withUnsafeBufferPointer { CRC32.checksum(UnsafeBufferPointer(rebasing: $0[(start + 1)...])) }
        bytes.append(UInt8(crc >> 24))
        bytes.append(UInt8(truncatingIfNeeded: crc >> 16))
        bytes.append(UInt8(truncatingIfNeeded: crc >> 8))
        bytes.append(UInt8(truncatingIfNeeded: crc))
        escapeInPlace(&bytes, from: start + 1)
        bytes.append(newline)
    }

    /// Escapes `bytes[start...]` where it stands (no array in between: a third of the
    /// records of random drawing hold a 0x0A or 0x1B byte): grows the array by one byte per
    /// byte to escape, then moves the tail up from its end.
    private static func escapeInPlace(_ bytes: inout [UInt8], from start: Int) {
        var extra = 0
        for byte in bytes[start...] where byte == newline || byte == escape { extra += 1 }
        guard extra > 0 else { return }
        var read = bytes.count - 1
        bytes.append(contentsOf: repeatElement(0, count: extra))
        var write = bytes.count - 1
        while read >= start {
            let byte = bytes[read]
            switch byte {
            case newline, escape:
                bytes[write] = byte == newline ? 0x01 : 0x02
                bytes[write - 1] = escape
                write -= 2
            default:
                bytes[write] = byte
                write -= 1
            }
            read -= 1
        }
    }

    /// Appends the text record of `operation` (the format of earlier versions, which this
    /// one still reads) to `bytes`.
    static func appendTextRecord(_ operation: Operation, to bytes: inout [UInt8]) {
        let start = bytes.count
        MessageEncoder.append(operation, to: &bytes)
        let crc = bytes.withUnsafeBufferPointer { CRC32.checksum(UnsafeBufferPointer(rebasing: $0[start...])) }
        bytes.append(0x09)
        appendHex(crc, to: &bytes)
        bytes.append(newline)
    }

    /// A record that could not be read.
    public struct Damage: Hashable, Sendable, CustomStringConvertible {
        /// Byte offset of the start of the record.
        public var offset: Int
        /// Length of the damaged line, newline included when there is one.
        public var length: Int
        /// What is wrong with it.
        public var reason: String

        public var description: String { "byte \(offset): \(reason)" }
    }

    /// What a scan of a log found.
    public struct Scan: Sendable {
        /// The operations of the valid records, in order.
        public var operations: [Operation] = []
        /// Number of valid records.
        public var records = 0
        /// Every damaged record, in order.
        public var damage: [Damage] = []
        /// True when the only damaged record is the last one: a torn write, safely dropped.
        public var hasOnlyTornTail: Bool {
            damage.count == 1 && damage[0].offset + damage[0].length == totalLength
        }
        /// Length of the log scanned.
        public var totalLength = 0
    }

    /// Reads every record of `bytes`; never throws, so that `verify` can list all damage.
    public static func scan(_ bytes: [UInt8]) -> Scan {
        var scan = Scan()
        scan.totalLength = bytes.count
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                guard let newline = buffer[start...].firstIndex(of: 0x0A) else {
                    scan.damage.append(Damage(offset: start, length: buffer.count - start, reason: "record has no end of line (torn write)"))
                    break
                }
                let line = UnsafeBufferPointer(rebasing: buffer[start..<newline])
                switch parse(line) {
                case .success(let operation):
                    scan.operations.append(operation)
                    scan.records += 1
                case .failure(let reason):
                    scan.damage.append(Damage(offset: start, length: newline + 1 - start, reason: reason.text))
                }
                start = newline + 1
            }
        }
        return scan
    }

    private struct Reason: Error {
        var text: String
    }

    private static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result<Operation, Reason> {
        line.first == binaryMarker ? parseBinary(UnsafeBufferPointer(rebasing: line[1...])) : parseText(line)
    }

    private static func parseBinary(_ escaped: UnsafeBufferPointer<UInt8>) -> Result<Operation, Reason> {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(escaped.count)
        var index = 0
        while index < escaped.count {
            let byte = escaped[index]
            index += 1
            guard byte == escape else {
                bytes.append(byte)
                continue
            }
            switch index < escaped.count ? escaped[index] : nil {
            case 0x01: bytes.append(newline)
            case 0x02: bytes.append(escape)
            default: return .failure(Reason(text: "binary record has an escape byte not followed by 1 or 2"))
            }
            index += 1
        }
        guard bytes.count > 4 else {
            return .failure(Reason(text: "binary record is shorter than an operation and its 4-byte CRC-32"))
        }
        let stored = bytes[(bytes.count - 4)...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return bytes.withUnsafeBufferPointer { buffer in
            let compact = UnsafeBufferPointer(rebasing: buffer[..<(buffer.count - 4)])
            let computed = CRC32.checksum(compact)
            guard computed == stored else {
                return .failure(Reason(text: "checksum mismatch (stored \(hex(stored)), computed \(hex(computed)))"))
            }
            guard let first = compact.first, CompactOperationCoding.isCompact(firstByte: first) else {
                return .failure(Reason(text: "binary record is not a compact operation"))
            }
            return operation(decoding: compact)
        }
    }

    private static func parseText(_ line: UnsafeBufferPointer<UInt8>) -> Result<Operation, Reason> {
        guard line.count > 9, line[line.count - 9] == 0x09 else {
            return .failure(Reason(text: "record does not end with a tab and 8 hex digits of CRC-32"))
        }
        guard let stored = parseHex(UnsafeBufferPointer(rebasing: line[(line.count - 8)...])) else {
            return .failure(Reason(text: "checksum is not 8 lowercase hex digits"))
        }
        let json = UnsafeBufferPointer(rebasing: line[..<(line.count - 9)])
        let computed = CRC32.checksum(json)
        guard computed == stored else {
            return .failure(Reason(text: "checksum mismatch (stored \(hex(stored)), computed \(hex(computed)))"))
        }
        return operation(decoding: json)
    }

    /// The one operation of a record's message (JSON or compact).
    private static func operation(decoding message: UnsafeBufferPointer<UInt8>) -> Result<Operation, Reason> {
        do {
            guard case .operation(let operation) = try MessageDecoder.decode(message) else {
                return .failure(Reason(text: "record is not a single ADD, APPEND, DELETE or REMOVE_STROKE"))
            }
            return .success(operation)
        } catch {
            return .failure(Reason(text: "record is not a valid operation: \(error)"))
        }
    }

    private static let digits = Array("0123456789abcdef".utf8)

    static func appendHex(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 28, through: 0, by: -4) {
            bytes.append(digits[Int((value >> UInt32(shift)) & 0xF)])
        }
    }

    static func hex(_ value: UInt32) -> String {
        var bytes: [UInt8] = []
        appendHex(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func parseHex(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        for byte in bytes {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
