internal import COpenSSL

/// A room's datagrams sealed with its key (format version 3): encrypted and authenticated
/// with ChaCha20-Poly1305 from OpenSSL's EVP, so that nobody on the LAN without the key can
/// read the room, let alone change it.
///
/// ```
/// "CVLN"  version=3  room-tag:8  sender: length:u8 (1...255) + UTF-8  incarnation:u64  sequence:u64
/// nonce:12  ciphertext  tag:16
/// ```
///
/// The plaintext is the datagram in version 1 or 2, unauthenticated. The header in clear
/// (the sender and its sequence number among it) is the associated data, and must match the
/// sealed datagram's own fields; the nonce is drawn afresh for every datagram (96 random
/// bits: no repeat to fear below 2⁴⁸ datagrams of a room). The key is derived for the room
/// from the key file's bytes with HKDF-SHA-256, so one file can serve several rooms.
/// The replay window works on the opened datagram, as before.
public struct DatagramSealer: Sendable {
    /// The format version of a sealed datagram.
    public static let version: UInt8 = 3
    static let nonceLength = 12
    static let tagLength = 16
    static let keyLength = 32

    private let key: [UInt8]
    private let room: String
    private let roomTag: [UInt8]

    /// The sealer of `room`'s datagrams with `key`.
    public init(key: RoomKey, room: String) {
        self.key = key.derived(salt: Array("CVLN sealed datagrams v3".utf8), info: Array("room \(room)".utf8), length: Self.keyLength)
        self.room = room
        roomTag = Datagram.roomTag(room)
    }

    /// Whether `bytes` are a sealed datagram (of any room).
    public static func isSealed(_ bytes: [UInt8]) -> Bool {
        bytes.count > Datagram.magic.count && bytes.starts(with: Datagram.magic) && bytes[Datagram.magic.count] == version
    }

    /// The bytes a sealed datagram adds to the one it carries, for a sender of `senderBytes`.
    static func overhead(senderBytes: Int) -> Int {
        Datagram.magic.count + 1 + 8 + 1 + senderBytes + 8 + 8 + nonceLength + tagLength
    }

    /// `inner` (a datagram of this room, unauthenticated, from `sender`) sealed; nil only if
    /// OpenSSL fails (out of memory): the datagram is then not sent, and repaired later.
    public func seal(_ inner: [UInt8], sender: String, incarnation: UInt64, sequence: UInt64) -> [UInt8]? {
        var writer = ByteWriter()
        writer.append(Datagram.magic)
        writer.append(Self.version)
        writer.append(roomTag)
        writer.appendName(sender)
        writer.append(incarnation)
        writer.append(sequence)
        let header = writer.bytes
        var nonce = [UInt8](repeating: 0, count: Self.nonceLength)
        guard RAND_bytes(&nonce, Int32(nonce.count)) == 1,
            let (ciphertext, tag) = AEAD.seal(inner, key: key, nonce: nonce, associatedData: header)
        else { return nil }
        return header + nonce + ciphertext + tag
    }

    /// The datagram a sealed one carries, checked: of this room (`.otherRoom` otherwise),
    /// sealed with this room's key and unaltered (`.authenticationFailed`), from the sender,
    /// incarnation and sequence number its header names.
    public func open(_ bytes: [UInt8], readsCompact: Bool = true) throws(DatagramError) -> Datagram {
        var reader = ByteReader(bytes[...])
        guard try reader.bytes(Datagram.magic.count, field: "magic").elementsEqual(Datagram.magic),
            try reader.uint8(field: "version") == Self.version
        else { throw DatagramError(.badMagic, "not a sealed datagram") }
        guard try reader.bytes(roomTag.count, field: "room tag").elementsEqual(roomTag) else {
            throw DatagramError(.otherRoom, "a sealed datagram of another room")
        }
        let sender = try reader.name(field: "sender")
        let incarnation = try reader.uint64(field: "incarnation")
        let sequence = try reader.uint64(field: "sequence")
        let headerEnd = bytes.count - reader.remaining
        let nonce = try reader.bytes(Self.nonceLength, field: "nonce")
        guard reader.remaining >= Self.tagLength else {
            throw DatagramError(.truncated, "the sealed datagram ends before its tag")
        }
        let sealed = try reader.bytes(reader.remaining - Self.tagLength, field: "ciphertext")
        let tag = try reader.bytes(Self.tagLength, field: "tag")
        guard
            let inner = AEAD.open(
                Array(sealed), key: key, nonce: Array(nonce), associatedData: Array(bytes[..<headerEnd]), tag: Array(tag))
        else {
            throw DatagramError(
                .authenticationFailed, "the sealed datagram does not open: altered, or sealed with another key")
        }
        let datagram = try Datagram(decoding: inner, room: room, roomTag: roomTag, readsCompact: readsCompact)
        guard datagram.room == room, datagram.sender == sender, datagram.incarnation == incarnation, datagram.sequence == sequence else {
            throw DatagramError(.authenticationFailed, "the sealed datagram's header does not name its sender")
        }
        try Datagram.authenticate(inner, key: nil)
        return datagram
    }
}

/// ChaCha20-Poly1305 through OpenSSL's EVP interface.
enum AEAD {
    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]) -> (ciphertext: [UInt8], tag: [UInt8])? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var tag = [UInt8](repeating: 0, count: DatagramSealer.tagLength)
        var length: Int32 = 0
        var total: Int32 = 0
        guard EVP_EncryptInit_ex(context, EVP_chacha20_poly1305(), nil, nil, nil) == 1,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonce.count), nil) == 1,
            EVP_EncryptInit_ex(context, nil, nil, key, nonce) == 1,
            associatedData.isEmpty || EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1,
            EVP_EncryptUpdate(context, &ciphertext, &length, plaintext, Int32(plaintext.count)) == 1
        else { return nil }
        total = length
        let finished = ciphertext.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(total), &length)
        }
        guard finished == 1, EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tag.count), &tag) == 1 else { return nil }
        return (Array(ciphertext.prefix(Int(total + length))), tag)
    }

    static func open(_ ciphertext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8], tag: [UInt8]) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var tag = tag
        var length: Int32 = 0
        guard EVP_DecryptInit_ex(context, EVP_chacha20_poly1305(), nil, nil, nil) == 1,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonce.count), nil) == 1,
            EVP_DecryptInit_ex(context, nil, nil, key, nonce) == 1,
            associatedData.isEmpty || EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1,
            ciphertext.isEmpty || EVP_DecryptUpdate(context, &plaintext, &length, ciphertext, Int32(ciphertext.count)) == 1,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tag.count), &tag) == 1
        else { return nil }
        let total = ciphertext.isEmpty ? 0 : length
        let verified = plaintext.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress! + Int(total), &length)
        }
        guard verified == 1 else { return nil }
        return Array(plaintext.prefix(Int(total + length)))
    }
}
