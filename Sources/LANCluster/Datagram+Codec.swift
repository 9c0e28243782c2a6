/// The binary form of a datagram, version 1. Integers are big-endian.
///
/// ```
/// "CVLN"  version=1  kind:u8  flags:u8
/// room:    length:u8 (1...255) + UTF-8
/// sender:  length:u8 (1...255) + UTF-8
/// incarnation:u64  sequence:u64 (≥ 1)
/// body, by kind:
///   1 beacon: capabilities:u8  interval-ms:u32 (1...3600000)  highest-data-sequence:u64
///             summary: length:u16 + bytes
///   2 data:   data-sequence:u64 (> index)  index:u16  count:u16 (index < count)
///             chunk: length:u16 + bytes
///   3 nack:   target: length:u8 (1...255) + UTF-8  target-incarnation:u64
///             range-count:u16 (≥ 1), then per range first:u64 last:u64 (ascending, disjoint, not adjacent, ≥ 1)
///   4 leave:  (nothing)
/// tag: 32 bytes of HMAC-SHA-256 over everything before it, when flags bit 0 is set
/// ```
extension Datagram {
    /// The magic bytes every datagram starts with.
    public static let magic: [UInt8] = Array("CVLN".utf8)
    /// The format version this module writes and reads.
    public static let version: UInt8 = 1
    /// The largest datagram UDP can carry over IPv4.
    public static let maximumSize = 65_507

    /// The bytes of the fixed header fields around the room and sender names.
    static let headerOverhead = 4 + 1 + 1 + 1 + 1 + 1 + 8 + 8
    /// The bytes a data body adds to its chunk.
    static let dataOverhead = 8 + 2 + 2 + 2
    /// The bytes a beacon body adds to its summary.
    static let beaconOverhead = 1 + 4 + 8 + 2
    /// The bytes of a NACK body without its target name and ranges.
    static let nackOverhead = 1 + 8 + 2
    /// The bytes of one NACK range.
    static let nackRangeSize = 16

    static let authenticatedFlag: UInt8 = 1 << 0

    enum KindCode: UInt8 {
        case beacon = 1
        case data = 2
        case nack = 3
        case leave = 4
    }

    /// The datagram's bytes, ending with an HMAC-SHA-256 tag when `key` is given.
    ///
    /// Throws when a field is outside what the format allows (an empty or too long name,
    /// sequence 0, an inconsistent fragment, badly ordered NACK ranges, a too long summary or
    /// chunk), naming the field.
    public func encoded(key: RoomKey?) throws(DatagramError) -> [UInt8] {
        try checkFields()
        let bytes = encodedUnchecked(key: key)
        guard bytes.count <= Self.maximumSize else {
            throw DatagramError(.tooLarge, "\(bytes.count) bytes, more than UDP's \(Self.maximumSize)")
        }
        return bytes
    }

    /// The bytes of a datagram whose fields the caller built within the format's limits.
    func encodedUnchecked(key: RoomKey?, roomTag: [UInt8]? = nil) -> [UInt8] {
        if format == .compact { return compactEncodedUnchecked(key: key, roomTag: roomTag ?? Self.roomTag(room)) }
        var writer = preamble(version: Self.version, key: key)
        writer.appendName(room)
        writer.appendName(sender)
        writer.append(incarnation)
        writer.append(sequence)
        switch body {
        case .beacon(let beacon):
            writer.append(beacon.capabilities.rawValue)
            writer.append(beacon.intervalMilliseconds)
            writer.append(beacon.highestDataSequence)
            writer.appendBlob(beacon.summary)
        case .data(let fragment):
            writer.append(fragment.dataSequence)
            writer.append(fragment.index)
            writer.append(fragment.count)
            writer.appendBlob(fragment.chunk)
        case .nack(let nack):
            writer.appendName(nack.target)
            writer.append(nack.targetIncarnation)
            writer.append(UInt16(nack.missing.count))
            for range in nack.missing {
                writer.append(range.lowerBound)
                writer.append(range.upperBound)
            }
        case .leave:
            break
        }
        return writer.finished(key: key)
    }

    /// A writer holding the fields both versions start with: magic, version, kind, flags.
    func preamble(version: UInt8, key: RoomKey?) -> ByteWriter {
        var writer = ByteWriter()
        writer.append(Self.magic)
        writer.append(version)
        writer.append(kindCode.rawValue)
        writer.append(key == nil ? 0 : Self.authenticatedFlag)
        return writer
    }

    /// Reads the kind and the flags (both versions), and sets the tag aside when the flags
    /// announce one.
    static func readKindAndFlags(_ reader: inout ByteReader, version: UInt8) throws(DatagramError) -> KindCode {
        let code = try reader.uint8(field: "kind")
        guard let kind = KindCode(rawValue: code) else {
            throw DatagramError(.unknownKind, "kind \(code); version \(version) defines 1 (beacon) to 4 (leave)")
        }
        let flags = try reader.uint8(field: "flags")
        guard flags & ~authenticatedFlag == 0 else {
            throw DatagramError(.invalidField, "flags \(flags); version \(version) defines only bit 0 (authenticated)")
        }
        if flags & authenticatedFlag != 0 {
            try reader.reserveTrailer(RoomKey.tagLength, field: "authentication tag")
        }
        return kind
    }

    private func checkFields() throws(DatagramError) {
        try Self.check(name: room, field: "room")
        try Self.check(name: sender, field: "sender")
        try Self.check(sequence: sequence)
        switch body {
        case .beacon(let beacon):
            try Self.check(intervalMilliseconds: beacon.intervalMilliseconds)
            try Self.check(blob: beacon.summary, field: "beacon summary")
        case .data(let fragment):
            try Self.check(fragment: fragment.dataSequence, index: fragment.index, count: fragment.count)
            try Self.check(blob: fragment.chunk, field: "data chunk")
        case .nack(let nack):
            try Self.check(name: nack.target, field: "NACK target")
            try Self.check(ranges: nack.missing)
        case .leave:
            break
        }
    }

    /// The datagram in `bytes`, with every field validated.
    ///
    /// It reads the authentication flag and sets the tag aside, but does not verify it: call
    /// `Datagram.authenticate(_:key:)` (decoding first lets a node drop other rooms'
    /// datagrams, which may use other keys, without counting them as forgeries).
    /// A compact datagram (version 2) names its room by a tag: it is read as `room`'s when
    /// the tag is `room`'s (`roomTag`, when the caller keeps it, saves computing it), and
    /// refused as `.otherRoom` otherwise (without `room`, its `room` is empty).
    /// `readsCompact: false` stands in for a node of the previous version, which refuses
    /// version 2 as unsupported.
    public init(
        decoding bytes: [UInt8], room expected: String? = nil, roomTag: [UInt8]? = nil, readsCompact: Bool = true
    ) throws(DatagramError) {
        guard bytes.count <= Self.maximumSize else {
            throw DatagramError(.tooLarge, "\(bytes.count) bytes, more than UDP's \(Self.maximumSize)")
        }
        var reader = ByteReader(bytes[...])
        guard try reader.bytes(Self.magic.count, field: "magic").elementsEqual(Self.magic) else {
            throw DatagramError(.badMagic, "the datagram does not start with \"CVLN\"")
        }
        let version = try reader.uint8(field: "version")
        if version == Self.compactVersion, readsCompact {
            self = try Self(decodingCompact: &reader, room: expected, tag: roomTag)
            return
        }
        guard version == Self.version else {
            throw DatagramError(
                .unsupportedVersion,
                "version \(version); this node speaks version \(Self.version)\(readsCompact ? " and \(Self.compactVersion)" : "")")
        }
        let kind = try Self.readKindAndFlags(&reader, version: version)
        room = try reader.name(field: "room")
        sender = try reader.name(field: "sender")
        incarnation = try reader.uint64(field: "incarnation")
        sequence = try reader.uint64(field: "sequence")
        try Self.check(sequence: sequence)
        switch kind {
        case .beacon:
            let capabilities = Capabilities(rawValue: try reader.uint8(field: "capabilities"))
            let interval = try reader.uint32(field: "beacon interval")
            try Self.check(intervalMilliseconds: interval)
            let highest = try reader.uint64(field: "highest data sequence")
            let summary = try reader.blob(field: "beacon summary")
            body = .beacon(
                Beacon(
                    capabilities: capabilities, intervalMilliseconds: interval, highestDataSequence: highest,
                    summary: summary))
        case .data:
            let dataSequence = try reader.uint64(field: "data sequence")
            let index = try reader.uint16(field: "fragment index")
            let count = try reader.uint16(field: "fragment count")
            try Self.check(fragment: dataSequence, index: index, count: count)
            let chunk = try reader.blob(field: "data chunk")
            body = .data(DataFragment(dataSequence: dataSequence, index: index, count: count, chunk: chunk))
        case .nack:
            let target = try reader.name(field: "NACK target")
            let targetIncarnation = try reader.uint64(field: "NACK target incarnation")
            let rangeCount = try reader.uint16(field: "NACK range count")
            try reader.require(Int(rangeCount) * Self.nackRangeSize, field: "NACK ranges")
            var ranges: [ClosedRange<UInt64>] = []
            ranges.reserveCapacity(Int(rangeCount))
            for _ in 0..<rangeCount {
                let first = try reader.uint64(field: "NACK range start")
                let last = try reader.uint64(field: "NACK range end")
                guard first <= last else {
                    throw DatagramError(.invalidField, "NACK range \(first)...\(last) ends before it starts")
                }
                ranges.append(first...last)
            }
            try Self.check(ranges: ranges)
            body = .nack(Nack(target: target, targetIncarnation: targetIncarnation, missing: ranges))
        case .leave:
            body = .leave
        }
        guard reader.remaining == 0 else {
            throw DatagramError(.trailingBytes, "\(reader.remaining) bytes after the last field of a \(kind) datagram")
        }
    }

    /// Checks the authentication of a datagram that `init(decoding:)` accepted: with a
    /// key, it must carry a valid tag; without one, it must carry none (its sender uses a
    /// key this node lacks).
    public static func authenticate(_ bytes: [UInt8], key: RoomKey?) throws(DatagramError) {
        let tagged = bytes.count > 6 && bytes[6] & authenticatedFlag != 0 && bytes.count >= RoomKey.tagLength
        switch (key, tagged) {
        case (nil, false):
            return
        case (nil, true):
            throw DatagramError(
                .unexpectedAuthentication,
                "the datagram is authenticated, and this node has no room key: configure the room's key")
        case (.some, false):
            throw DatagramError(.missingAuthentication, "the room has a key, and the datagram carries no tag")
        case (.some(let key), true):
            let split = bytes.count - RoomKey.tagLength
            guard key.isValid(tag: bytes[split...], for: bytes[..<split]) else {
                throw DatagramError(
                    .authenticationFailed, "the tag does not match: the datagram was altered or sent with another key")
            }
        }
    }

    var kindCode: KindCode {
        switch body {
        case .beacon: .beacon
        case .data: .data
        case .nack: .nack
        case .leave: .leave
        }
    }

    static func check(name: String, field: String) throws(DatagramError) {
        let count = name.utf8.count
        guard (1...255).contains(count) else {
            throw DatagramError(.invalidField, "\(field) of \(count) UTF-8 bytes; expected 1...255")
        }
    }

    static func check(blob: [UInt8], field: String) throws(DatagramError) {
        guard blob.count <= Int(UInt16.max) else {
            throw DatagramError(.invalidField, "\(field) of \(blob.count) bytes; expected at most \(UInt16.max)")
        }
    }

    static func check(sequence: UInt64) throws(DatagramError) {
        guard sequence > 0 else { throw DatagramError(.invalidField, "sequence 0; sequence numbers start at 1") }
    }

    static func check(intervalMilliseconds: UInt32) throws(DatagramError) {
        guard (1...Beacon.maximumIntervalMilliseconds).contains(intervalMilliseconds) else {
            throw DatagramError(
                .invalidField,
                "beacon interval \(intervalMilliseconds) ms; expected 1...\(Beacon.maximumIntervalMilliseconds)")
        }
    }

    static func check(fragment dataSequence: UInt64, index: UInt16, count: UInt16) throws(DatagramError) {
        guard count > 0, index < count else {
            throw DatagramError(
                .invalidField, "fragment \(index) of \(count); expected an index below a count of at least 1")
        }
        guard dataSequence > UInt64(index), dataSequence <= UInt64.max - UInt64(count - 1 - index) else {
            throw DatagramError(
                .invalidField,
                "data sequence \(dataSequence) for fragment \(index) of \(count); the payload's sequence numbers must lie in 1...\(UInt64.max)"
            )
        }
    }

    static func check(ranges: [ClosedRange<UInt64>]) throws(DatagramError) {
        guard !ranges.isEmpty, ranges.count <= Int(UInt16.max) else {
            throw DatagramError(.invalidField, "\(ranges.count) NACK ranges; expected 1...\(UInt16.max)")
        }
        guard ranges[0].lowerBound > 0 else {
            throw DatagramError(.invalidField, "NACK range starting at 0; data sequence numbers start at 1")
        }
        for (previous, next) in zip(ranges, ranges.dropFirst()) {
            guard next.lowerBound > previous.upperBound, next.lowerBound - previous.upperBound >= 2 else {
                throw DatagramError(
                    .invalidField,
                    "NACK ranges \(previous) and \(next) overlap, touch or are out of order; expected ascending gaps")
            }
        }
    }
}

/// Appends big-endian fields (and LEB128 varints).
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func append(_ value: UInt8) { bytes.append(value) }
    mutating func append(_ values: [UInt8]) { bytes.append(contentsOf: values) }
    mutating func append(_ value: UInt16) { appendBigEndian(value) }
    mutating func append(_ value: UInt32) { appendBigEndian(value) }
    mutating func append(_ value: UInt64) { appendBigEndian(value) }

    private mutating func appendBigEndian(_ value: some FixedWidthInteger) {
        for shift in stride(from: value.bitWidth - 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    mutating func appendName(_ name: String) {
        append(UInt8(truncatingIfNeeded: name.utf8.count))
        bytes.append(contentsOf: name.utf8)
    }

    mutating func appendBlob(_ blob: [UInt8]) {
        append(UInt16(truncatingIfNeeded: blob.count))
        append(blob)
    }

    /// The datagram's bytes, ending with the tag of `key` over everything before it.
    func finished(key: RoomKey?) -> [UInt8] {
        guard let key else { return bytes }
        return bytes + key.tag(for: bytes[...])
    }

    /// Unsigned LEB128: 7 bits a byte, least significant group first.
    mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
}

/// Reads big-endian fields (and LEB128 varints), throwing when the input ends first. A
/// field's name is built only for an error (names like "sender form" were built for
/// every datagram read).
struct ByteReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var remaining: Int { bytes.count }

    mutating func require(_ count: Int, field: @autoclosure () -> String) throws(DatagramError) {
        guard bytes.count >= count else {
            throw DatagramError(.truncated, "the \(field()) needs \(count) bytes, and \(bytes.count) remain")
        }
    }

    /// Sets the last `count` bytes aside, so that fields cannot run into them.
    mutating func reserveTrailer(_ count: Int, field: @autoclosure () -> String) throws(DatagramError) {
        try require(count, field: field())
        bytes = bytes.dropLast(count)
    }

    mutating func bytes(_ count: Int, field: @autoclosure () -> String) throws(DatagramError) -> ArraySlice<UInt8> {
        try require(count, field: field())
        let result = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return result
    }

    mutating func uint8(field: @autoclosure () -> String) throws(DatagramError) -> UInt8 { try integer(field: field()) }
    mutating func uint16(field: @autoclosure () -> String) throws(DatagramError) -> UInt16 { try integer(field: field()) }
    mutating func uint32(field: @autoclosure () -> String) throws(DatagramError) -> UInt32 { try integer(field: field()) }
    mutating func uint64(field: @autoclosure () -> String) throws(DatagramError) -> UInt64 { try integer(field: field()) }

    // Inlined into each width's reader: called unspecialised, it looked up the generic
    // type's metadata at run time for every field of every datagram.
    @inline(__always)
    private mutating func integer<T: FixedWidthInteger>(field: @autoclosure () -> String) throws(DatagramError) -> T {
        var value: T = 0
        for byte in try bytes(T.bitWidth / 8, field: field()) { value = value << 8 | T(byte) }
        return value
    }

    mutating func name(field: @autoclosure () -> String) throws(DatagramError) -> String {
        let length = Int(try uint8(field: "\(field()) length"))
        guard length > 0 else { throw DatagramError(.invalidField, "empty \(field()); expected 1...255 UTF-8 bytes") }
        let utf8 = try bytes(length, field: field())
        guard let name = String(validating: utf8, as: UTF8.self) else {
            throw DatagramError(.invalidField, "the \(field()) is not valid UTF-8")
        }
        return name
    }

    mutating func blob(field: @autoclosure () -> String) throws(DatagramError) -> [UInt8] {
        let length = Int(try uint16(field: "\(field()) length"))
        return Array(try bytes(length, field: field()))
    }

    /// An unsigned LEB128 of at most 64 bits, in its shortest form.
    mutating func varint(field: @autoclosure () -> String) throws(DatagramError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try uint8(field: field())
            guard shift < 64, shift < 63 || byte <= 1 else {
                throw DatagramError(.invalidField, "the \(field()) is a varint of more than 64 bits")
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                guard byte != 0 || shift == 0 else {
                    throw DatagramError(.invalidField, "the \(field()) is a varint with a needless last byte")
                }
                return value
            }
            shift += 7
        }
    }

    /// Everything left.
    mutating func rest() -> [UInt8] {
        defer { bytes = bytes.suffix(0) }
        return Array(bytes)
    }
}
