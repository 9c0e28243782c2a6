import Testing
import XMPP

/// One SCRAM exchange from an RFC: the inputs and every message on the wire.
struct SCRAMVector: Sendable, CustomStringConvertible {
    var hash: CryptoHash
    var clientNonce: String
    var clientFirst: String
    var serverFirst: String
    var clientFinal: String
    var serverFinal: String

    var description: String { "\(hash)" }

    /// RFC 5802 §5.
    static let sha1 = SCRAMVector(
        hash: .sha1,
        clientNonce: "fyko+d2lbbFgONRv9qkxdawL",
        clientFirst: "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL",
        serverFirst: "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
        clientFinal: "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
        serverFinal: "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")

    /// RFC 7677 §3.
    static let sha256 = SCRAMVector(
        hash: .sha256,
        clientNonce: "rOprNGfwEbeRWgbNEkqO",
        clientFirst: "n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
        serverFirst: "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
        clientFinal:
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
        serverFinal: "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")

    func client() throws -> SCRAMClient {
        try SCRAMClient(hash: hash, username: "user", password: "pencil", clientNonce: clientNonce)
    }
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite struct SCRAMClientTests {
    @Test(arguments: [SCRAMVector.sha1, .sha256])
    func rfcVector(vector: SCRAMVector) throws {
        var scram = try vector.client()
        #expect(String(decoding: scram.initialMessage(), as: UTF8.self) == vector.clientFirst)
        let clientFinal = try scram.respond(toChallenge: bytes(vector.serverFirst))
        #expect(String(decoding: clientFinal, as: UTF8.self) == vector.clientFinal)
        #expect(!scram.isAuthenticated)
        try scram.verify(success: bytes(vector.serverFinal))
        #expect(scram.isAuthenticated)
    }

    @Test(arguments: [SCRAMVector.sha1, .sha256])
    func wrongServerSignatureIsRejected(vector: SCRAMVector) throws {
        var scram = try vector.client()
        _ = try scram.respond(toChallenge: bytes(vector.serverFirst))
        let forged = "v=" + Crypto.base64Encode([UInt8](repeating: 7, count: vector.hash.outputLength))
        expectThrows(SASLError(
            .serverSignatureMismatch,
            "the server's signature does not match our password: it may not be the server we trust")
        ) {
            try scram.verify(success: bytes(forged))
        }
        #expect(!scram.isAuthenticated)
    }

    @Test func signatureFromTheOtherHashIsRejected() throws {
        var scram = try SCRAMVector.sha256.client()
        _ = try scram.respond(toChallenge: bytes(SCRAMVector.sha256.serverFirst))
        #expect(throws: SASLError.self) { try scram.verify(success: bytes(SCRAMVector.sha1.serverFinal)) }
    }

    @Test func serverErrorIsSurfaced() throws {
        var scram = try SCRAMVector.sha1.client()
        _ = try scram.respond(toChallenge: bytes(SCRAMVector.sha1.serverFirst))
        expectThrows(SASLError(.serverError, "the server refused the authentication: invalid-proof")) {
            try scram.verify(success: bytes("e=invalid-proof"))
        }
    }

    @Test func malformedServerFinalIsRejected() throws {
        var scram = try SCRAMVector.sha1.client()
        _ = try scram.respond(toChallenge: bytes(SCRAMVector.sha1.serverFirst))
        expectThrows(SASLError(
            .malformedServerMessage, "the server sent no server-final message, so it did not prove it knows the password")
        ) {
            try scram.verify(success: [])
        }
        var other = try SCRAMVector.sha1.client()
        _ = try other.respond(toChallenge: bytes(SCRAMVector.sha1.serverFirst))
        expectThrows(SASLError(
            .malformedServerMessage, "the server-final message starts with x=, expected v= or e=")
        ) {
            try other.verify(success: bytes("x=1"))
        }
    }

    @Test(arguments: [
        "r=someoneElsesNonce123,s=QSXCR+Q6sek8bf92,i=4096",
        "r=fyko+d2lbbFgONRv9qkxdawL,s=QSXCR+Q6sek8bf92,i=4096",  // the server added nothing
        "r=fyko+d2lbbFgONRv9qkxdaw,s=QSXCR+Q6sek8bf92,i=4096",
    ])
    func nonceMismatchIsRejected(serverFirst: String) throws {
        var scram = try SCRAMVector.sha1.client()
        let error = #expect(throws: SASLError.self) { try scram.respond(toChallenge: bytes(serverFirst)) }
        #expect(error?.kind == .nonceMismatch)
    }

    @Test(arguments: [
        ("r=fyko+d2lbbFgONRv9qkxdawL3rfc,i=4096", SASLError.Kind.malformedServerMessage),  // missing s=
        ("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92", .malformedServerMessage),  // missing i=
        ("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=0", .iterationCountOutOfRange),
        ("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=4095", .iterationCountOutOfRange),
        ("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=1000001", .iterationCountOutOfRange),
        ("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=4k", .malformedServerMessage),
        ("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=-4096", .malformedServerMessage),
        ("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=", .malformedServerMessage),
        ("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=99999999999999999999999", .malformedServerMessage),
        ("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=!!!,i=4096", .malformedServerMessage),
        ("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=,i=4096", .malformedServerMessage),
        ("s=QSXCR+Q6sek8bf92,r=fyko+d2lbbFgONRv9qkxdawL3rfc,i=4096", .malformedServerMessage),
        ("m=ext,r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=4096", .unsupportedExtension),
        ("", .malformedServerMessage),
    ])
    func malformedServerFirstIsRejected(serverFirst: String, kind: SASLError.Kind) throws {
        var scram = try SCRAMVector.sha1.client()
        let error = #expect(throws: SASLError.self) { try scram.respond(toChallenge: bytes(serverFirst)) }
        #expect(error?.kind == kind)
    }

    @Test func unknownMExtensionIsNamed() throws {
        var scram = try SCRAMVector.sha1.client()
        expectThrows(SASLError(
            .unsupportedExtension, "the server requires the SCRAM extension m=ext, which we do not implement")
        ) {
            try scram.respond(toChallenge: bytes("m=ext,r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=4096"))
        }
    }

    @Test func serverFirstNotUTF8IsRejected() throws {
        var scram = try SCRAMVector.sha1.client()
        expectThrows(SASLError(.malformedServerMessage, "the server-first message is not UTF-8")) {
            try scram.respond(toChallenge: [0xFF, 0xFE])
        }
    }

    @Test func optionalExtensionsAfterTheIterationCountAreIgnored() throws {
        var scram = try SCRAMVector.sha1.client()
        _ = try scram.respond(toChallenge: bytes(SCRAMVector.sha1.serverFirst + ",x=future"))
    }

    @Test func aFailedExchangeStaysFailed() throws {
        var scram = try SCRAMVector.sha1.client()
        _ = #expect(throws: SASLError.self) { try scram.respond(toChallenge: bytes("i=0")) }
        let error = #expect(throws: SASLError.self) {
            try scram.respond(toChallenge: bytes(SCRAMVector.sha1.serverFirst))
        }
        #expect(error?.kind == .unexpectedMessage)
    }

    @Test func messagesOutOfOrderAreRejected() throws {
        var scram = try SCRAMVector.sha1.client()
        let early = #expect(throws: SASLError.self) { try scram.verify(success: bytes(SCRAMVector.sha1.serverFinal)) }
        #expect(early?.kind == .unexpectedMessage)

        var twice = try SCRAMVector.sha1.client()
        _ = try twice.respond(toChallenge: bytes(SCRAMVector.sha1.serverFirst))
        let again = #expect(throws: SASLError.self) {
            try twice.respond(toChallenge: bytes(SCRAMVector.sha1.serverFirst))
        }
        #expect(again?.kind == .unexpectedMessage)
    }

    @Test(arguments: [
        ("a,b", "n,,n=a=2Cb,r=nonce"),
        ("a=b", "n,,n=a=3Db,r=nonce"),
        ("=,=", "n,,n==3D=2C=3D,r=nonce"),
        ("jürgen", "n,,n=jürgen,r=nonce"),
    ])
    func usernameIsEscaped(username: String, expected: String) throws {
        let scram = try SCRAMClient(hash: .sha256, username: username, password: "p", clientNonce: "nonce")
        #expect(String(decoding: scram.initialMessage(), as: UTF8.self) == expected)
    }

    @Test(arguments: ["", "has,comma", "has space", "é"])
    func invalidInjectedNonceIsRejected(nonce: String) {
        let error = #expect(throws: SASLError.self) {
            try SCRAMClient(hash: .sha1, username: "user", password: "pencil", clientNonce: nonce)
        }
        #expect(error?.kind == .invalidNonce)
    }

    @Test func randomNoncesDifferAndAreValid() throws {
        let a = try SCRAMClient(hash: .sha256, username: "user", password: "pencil")
        let b = try SCRAMClient(hash: .sha256, username: "user", password: "pencil")
        #expect(a.initialMessage() != b.initialMessage())
        #expect(String(decoding: a.initialMessage(), as: UTF8.self).hasPrefix("n,,n=user,r="))
    }

    /// The password goes through SASLprep: U+2168 ROMAN NUMERAL NINE hashes as "IX".
    @Test func passwordIsPrepared() throws {
        let serverFirst = bytes(SCRAMVector.sha256.serverFirst)
        var prepared = try SCRAMClient(
            hash: .sha256, username: "user", password: "\u{2168}", clientNonce: SCRAMVector.sha256.clientNonce)
        var ascii = try SCRAMClient(
            hash: .sha256, username: "user", password: "IX", clientNonce: SCRAMVector.sha256.clientNonce)
        #expect(try prepared.respond(toChallenge: serverFirst) == ascii.respond(toChallenge: serverFirst))
    }
}
