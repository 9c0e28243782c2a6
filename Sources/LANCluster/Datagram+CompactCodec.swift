internal import COpenSSL

/// The compact binary form of a datagram, version 2: what a member sends while every member
/// announces `Capabilities.compactHeaders` (beacons stay in version 1, which every node reads,
/// so that a node of the previous version still hears of this one).
///
/// ```
/// "CVLN"  version=2  kind:u8  flags:u8                  (as in version 1)
/// room-tag: 8 bytes, the first 8 of SHA-256("CVLN room " + room name)
/// sender:   id
/// incarnation:u64  sequence:varint (≥ 1)
/// body, by kind:
///   1 beacon: capabilities:u8  interval-ms:varint  highest-data-sequence:varint  summary: length:varint + bytes
///   2 data:   data-sequence:varint  index:varint  count:varint  chunk: every byte up to the tag
///   3 nack:   target:id  target-incarnation:u64  range-count:varint (≥ 1), then per range
///             first:varint  span:varint (last − first)
///   4 leave:  (nothing)
/// id:     form:u8; 0: 16 bytes follow, the id's 32 lowercase hexadecimal digits as bytes;
///         1...255: that many bytes of UTF-8
/// varint: unsigned LEB128, at most 64 bits, shortest form
/// tag:    as in version 1
/// ```
///
/// Version 1 spends about 100 bytes on the header of a data datagram (the room's name, a
/// 32-character node id, fixed-width numbers); this form about 40, which on datagrams of one
/// author's second of drawing (15 points, 50–70 bytes of payload) is 3–4 bytes a point.
extension Datagram {
    /// The compact format's version number.
    public static let compactVersion: UInt8 = 2

    /// The 8 bytes that name `room` in a compact datagram.
    public static func roomTag(_ room: String) -> [UInt8] {
        let input = Array("CVLN room \(room)".utf8)
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = input.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &digest) }
        return Array(digest.prefix(8))
    }

    func compactEncodedUnchecked(key: RoomKey?, roomTag: [UInt8]) -> [UInt8] {
        var writer = preamble(version: Self.compactVersion, key: key)
        writer.append(roomTag)
        writer.appendID(sender)
        writer.append(incarnation)
        writer.appendVarint(sequence)
        switch body {
        case .beacon(let beacon):
            writer.append(beacon.capabilities.rawValue)
            writer.appendVarint(UInt64(beacon.intervalMilliseconds))
            writer.appendVarint(beacon.highestDataSequence)
            writer.appendVarint(UInt64(beacon.summary.count))
            writer.append(beacon.summary)
        case .data(let fragment):
            writer.appendVarint(fragment.dataSequence)
            writer.appendVarint(UInt64(fragment.index))
            writer.appendVarint(UInt64(fragment.count))
            writer.append(fragment.chunk)
        case .nack(let nack):
            writer.appendID(nack.target)
            writer.append(nack.targetIncarnation)
            writer.appendVarint(UInt64(nack.missing.count))
            for range in nack.missing {
                writer.appendVarint(range.lowerBound)
                writer.appendVarint(range.upperBound - range.lowerBound)
            }
        case .leave:
            break
        }
        return writer.finished(key: key)
    }

    /// Reads the rest of a compact datagram (`reader` is past the version).
    init(decodingCompact reader: inout ByteReader, room expected: String?, tag expectedTag: [UInt8]?) throws(DatagramError) {
        let kind = try Self.readKindAndFlags(&reader, version: Self.compactVersion)
        let tag = try reader.bytes(8, field: "room tag")
        var room = ""
        if let expected {
            guard tag.elementsEqual(expectedTag ?? Self.roomTag(expected)) else {
                throw DatagramError(.otherRoom, "the room tag is not that of room \(expected)")
            }
            room = expected
        }
        let sender = try reader.id(field: "sender")
        let incarnation = try reader.uint64(field: "incarnation")
        let sequence = try reader.varint(field: "sequence")
        try Self.check(sequence: sequence)
        let body: Body
        switch kind {
        case .beacon:
            let capabilities = Capabilities(rawValue: try reader.uint8(field: "capabilities"))
            let interval = try reader.varint(field: "beacon interval")
            guard interval <= UInt64(UInt32.max) else {
                throw DatagramError(.invalidField, "beacon interval \(interval) ms; expected 1...\(Beacon.maximumIntervalMilliseconds)")
            }
            try Self.check(intervalMilliseconds: UInt32(interval))
            let highest = try reader.varint(field: "highest data sequence")
            let length = try reader.varint(field: "beacon summary length")
            guard length <= UInt64(UInt16.max) else {
                throw DatagramError(.invalidField, "beacon summary of \(length) bytes; expected at most \(UInt16.max)")
            }
            let summary = Array(try reader.bytes(Int(length), field: "beacon summary"))
            body = .beacon(
                Beacon(
                    capabilities: capabilities, intervalMilliseconds: UInt32(interval), highestDataSequence: highest,
                    summary: summary))
        case .data:
            let dataSequence = try reader.varint(field: "data sequence")
            let index = try reader.varint(field: "fragment index")
            let count = try reader.varint(field: "fragment count")
            guard index <= UInt64(UInt16.max), count <= UInt64(UInt16.max) else {
                throw DatagramError(.invalidField, "fragment \(index) of \(count); expected at most \(UInt16.max) fragments")
            }
            try Self.check(fragment: dataSequence, index: UInt16(index), count: UInt16(count))
            let chunk = reader.rest()
            try Self.check(blob: chunk, field: "data chunk")
            body = .data(DataFragment(dataSequence: dataSequence, index: UInt16(index), count: UInt16(count), chunk: chunk))
        case .nack:
            let target = try reader.id(field: "NACK target")
            let targetIncarnation = try reader.uint64(field: "NACK target incarnation")
            let rangeCount = try reader.varint(field: "NACK range count")
            // Each range takes at least two bytes: no count can promise more than what is left.
            guard rangeCount <= UInt64(UInt16.max), rangeCount <= UInt64(reader.remaining / 2) else {
                throw DatagramError(.truncated, "\(rangeCount) NACK ranges announced, \(reader.remaining) bytes left")
            }
            var ranges: [ClosedRange<UInt64>] = []
            ranges.reserveCapacity(Int(rangeCount))
            for _ in 0..<rangeCount {
                let first = try reader.varint(field: "NACK range start")
                let span = try reader.varint(field: "NACK range span")
                guard span <= UInt64.max - first else {
                    throw DatagramError(.invalidField, "NACK range from \(first) spanning \(span) passes the largest sequence")
                }
                ranges.append(first...(first + span))
            }
            try Self.check(ranges: ranges)
            body = .nack(Nack(target: target, targetIncarnation: targetIncarnation, missing: ranges))
        case .leave:
            body = .leave
        }
        guard reader.remaining == 0 else {
            throw DatagramError(.trailingBytes, "\(reader.remaining) bytes after the last field of a \(kind) datagram")
        }
        self.init(room: room, sender: sender, incarnation: incarnation, sequence: sequence, body: body, format: .compact)
    }
}

extension ByteWriter {
    /// A node id: its 16 bytes when it is 32 lowercase hexadecimal digits, else its UTF-8.
    mutating func appendID(_ id: String) {
        if let raw = Self.hexBytes(id) {
            append(UInt8(0))
            append(raw)
        } else {
            appendName(id)
        }
    }

    /// The 16 bytes of 32 lowercase hexadecimal digits, or nil.
    private static func hexBytes(_ id: String) -> [UInt8]? {
        let utf8 = id.utf8
        guard utf8.count == 32 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        for character in utf8 {
            let digit: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = character - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | digit)
                high = nil
            } else {
                high = digit
            }
        }
        return bytes
    }
}

extension ByteReader {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A node id written by `ByteWriter.appendID`.
    mutating func id(field: @autoclosure () -> String) throws(DatagramError) -> String {
        let form = try uint8(field: "\(field()) form")
        guard form == 0 else {
            // A name: its length is the form byte.
            let utf8 = try bytes(Int(form), field: field())
            guard let name = String(validating: utf8, as: UTF8.self) else {
                throw DatagramError(.invalidField, "the \(field()) is not valid UTF-8")
            }
            return name
        }
        let raw = try bytes(16, field: field())
        // Written straight into the string's storage: one allocation a datagram, not two.
        return String(unsafeUninitializedCapacity: 32) { digits in
            for (offset, byte) in raw.enumerated() {
                digits[2 * offset] = Self.hexDigits[Int(byte >> 4)]
                digits[2 * offset + 1] = Self.hexDigits[Int(byte & 0x0F)]
            }
            return 32
        }
    }
}
