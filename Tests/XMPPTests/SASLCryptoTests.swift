import Testing
import XMPP

@Suite struct SASLCryptoTests {
    @Test(arguments: [
        (CryptoHash.sha1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (CryptoHash.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ])
    func digestOfABC(hash: CryptoHash, expected: String) throws {
        #expect(hex(try Crypto.digest(Array("abc".utf8), using: hash)) == expected)
    }

    /// RFC 2202 and RFC 4231 test case 2.
    @Test(arguments: [
        (CryptoHash.sha1, "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
        (CryptoHash.sha256, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    ])
    func hmacOfJefe(hash: CryptoHash, expected: String) throws {
        let mac = try Crypto.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8), using: hash)
        #expect(hex(mac) == expected)
    }

    /// RFC 6070 for PBKDF2-HMAC-SHA1.
    @Test(arguments: [
        (1, "0c60c80f961f0e71f3a9b524af6012062fe037a6"),
        (2, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"),
        (4096, "4b007901b765489abead49d926f721d065a429c1"),
    ])
    func pbkdf2SHA1(iterations: Int, expected: String) throws {
        let key = try Crypto.pbkdf2(
            password: Array("password".utf8), salt: Array("salt".utf8), iterations: iterations, using: .sha1)
        #expect(hex(key) == expected)
    }

    /// RFC 7914 §11 for PBKDF2-HMAC-SHA256, 64 bytes.
    @Test func pbkdf2SHA256() throws {
        let key = try Crypto.pbkdf2(
            password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64, using: .sha256)
        #expect(
            hex(key) == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
    }

    @Test func pbkdf2RefusesZeroIterations() {
        #expect(throws: SASLError.self) {
            try Crypto.pbkdf2(password: [1], salt: [2], iterations: 0, using: .sha256)
        }
    }

    @Test func randomBytesHaveTheRequestedLengthAndDiffer() throws {
        let a = try Crypto.randomBytes(count: 32)
        let b = try Crypto.randomBytes(count: 32)
        #expect(a.count == 32)
        #expect(a != b)
    }

    @Test func constantTimeEqual() {
        #expect(Crypto.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!Crypto.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!Crypto.constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(Crypto.constantTimeEqual([], []))
    }

    @Test func base64RoundTripsAndRefusesGarbage() {
        let bytes: [UInt8] = Array(0...255)
        #expect(Crypto.base64Decode(Crypto.base64Encode(bytes)) == bytes)
        #expect(Crypto.base64Encode(Array("n,,".utf8)) == "biws")
        #expect(Crypto.base64Decode("not base64!") == nil)
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}
