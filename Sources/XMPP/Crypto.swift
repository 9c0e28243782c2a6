internal import COpenSSL
internal import Foundation

/// A hash function SCRAM can be parameterised with.
public enum CryptoHash: Sendable, Hashable {
    case sha1
    case sha256

    /// The digest length in bytes.
    public var outputLength: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        }
    }

    fileprivate var evp: OpaquePointer? {
        switch self {
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        }
    }
}

/// Thin wrappers over OpenSSL's one-shot APIs: no contexts to free, no state kept.
public enum Crypto {
    /// `H(data)`.
    public static func digest(_ data: [UInt8], using hash: CryptoHash) throws(SASLError) -> [UInt8] {
        ERR_clear_error()
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, hash.evp, nil)
        }
        guard ok == 1 else { throw openSSLFailure("EVP_Digest") }
        return Array(output.prefix(Int(length)))
    }

    /// `HMAC(key, message)`.
    public static func hmac(key: [UInt8], message: [UInt8], using hash: CryptoHash) throws(SASLError) -> [UInt8] {
        ERR_clear_error()
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                HMAC(
                    hash.evp, keyBytes.baseAddress, Int32(keyBytes.count),
                    messageBytes.baseAddress, messageBytes.count, &output, &length)
            }
        }
        guard result != nil else { throw openSSLFailure("HMAC") }
        return Array(output.prefix(Int(length)))
    }

    /// PBKDF2 with HMAC-`hash` (RFC 8018), deriving `length` bytes (the hash length by default).
    public static func pbkdf2(
        password: [UInt8], salt: [UInt8], iterations: Int, length: Int? = nil, using hash: CryptoHash
    ) throws(SASLError) -> [UInt8] {
        guard iterations > 0, iterations <= Int(Int32.max) else {
            throw SASLError(.crypto, "PBKDF2 needs an iteration count in 1...\(Int32.max), not \(iterations)")
        }
        ERR_clear_error()
        let outputLength = length ?? hash.outputLength
        var output = [UInt8](repeating: 0, count: outputLength)
        let ok = password.withUnsafeBytes { passwordBytes in
            salt.withUnsafeBufferPointer { saltBytes in
                PKCS5_PBKDF2_HMAC(
                    passwordBytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(passwordBytes.count),
                    saltBytes.baseAddress, Int32(saltBytes.count), Int32(iterations), hash.evp,
                    Int32(outputLength), &output)
            }
        }
        guard ok == 1 else { throw openSSLFailure("PKCS5_PBKDF2_HMAC") }
        return output
    }

    /// `count` bytes from OpenSSL's cryptographically secure generator.
    public static func randomBytes(count: Int) throws(SASLError) -> [UInt8] {
        ERR_clear_error()
        var output = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&output, Int32(count)) == 1 else { throw openSSLFailure("RAND_bytes") }
        return output
    }

    /// Whether `a` and `b` are equal, in time that depends only on their lengths, so an
    /// attacker learns nothing from how long a signature check takes.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// Standard Base64 with padding (RFC 4648 §4), as SASL and SCRAM use it.
    public static func base64Encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// The bytes of strict standard Base64, or nil when `text` is not valid Base64.
    public static func base64Decode(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text).map { Array($0) }
    }

    private static func openSSLFailure(_ function: String) -> SASLError {
        let code = ERR_get_error()
        guard code != 0 else { return SASLError(.crypto, "\(function) failed without an OpenSSL error code") }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return SASLError(.crypto, "\(function) failed: \(text)")
    }
}
