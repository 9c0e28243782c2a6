internal import COpenSSL

/// The shared secret of a room's LAN cluster: with it, every datagram is sealed
/// (`DatagramSealer`: ChaCha20-Poly1305 with a key derived for the room). The HMAC-SHA-256
/// tag of format versions 1 and 2 remains for tests and tools that read those formats.
public struct RoomKey: Sendable {
    private let bytes: [UInt8]

    /// The length of a tag in bytes.
    public static let tagLength = 32

    /// A key of `bytes`, which must not be empty (32 random bytes are a good key).
    public init(_ bytes: [UInt8]) throws(ClusterError) {
        guard !bytes.isEmpty else {
            throw ClusterError(.invalidKey, "the room key file is empty: put at least 16 random bytes in it")
        }
        self.bytes = bytes
    }

    /// HMAC-SHA-256 of `message` with this key.
    ///
    /// Should OpenSSL fail (it only does when memory runs out), the tag is all zeros: no
    /// receiver accepts it, so the failure drops the datagram instead of crashing.
    func tag(for message: ArraySlice<UInt8>) -> [UInt8] {
        Self.hmac(key: bytes, message: message)
    }

    /// HMAC-SHA-256; all zeros if OpenSSL fails (see `tag(for:)`).
    static func hmac(key: [UInt8], message: ArraySlice<UInt8>) -> [UInt8] {
        ERR_clear_error()
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { input in
                HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), input.baseAddress, input.count, &output, &length)
            }
        }
        guard result != nil, length == UInt32(tagLength) else {
            return [UInt8](repeating: 0, count: tagLength)
        }
        return Array(output.prefix(tagLength))
    }

    /// `length` bytes derived from this key for `info` with `salt`: HKDF-SHA-256 (RFC 5869).
    func derived(salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        let pseudorandom = Self.hmac(key: salt, message: bytes[...])
        var output: [UInt8] = []
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < length {
            block = Self.hmac(key: pseudorandom, message: (block + info + [counter])[...])
            output += block
            counter += 1
        }
        return Array(output.prefix(length))
    }

    /// Whether `tag` is the tag of `message`, compared in constant time so that the time a
    /// check takes tells an attacker nothing about how much of a forged tag was right.
    func isValid(tag: ArraySlice<UInt8>, for message: ArraySlice<UInt8>) -> Bool {
        let expected = self.tag(for: message)
        guard tag.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(tag, expected) { difference |= a ^ b }
        return difference == 0 && expected.contains { $0 != 0 }
    }
}
