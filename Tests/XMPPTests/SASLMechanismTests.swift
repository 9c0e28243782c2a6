import Testing
import XMPP

@Suite struct SASLMechanismTests {
    @Test(arguments: [
        (["PLAIN", "SCRAM-SHA-1", "SCRAM-SHA-256"], true, SASLMechanism.scramSHA256),
        (["PLAIN", "SCRAM-SHA-1", "SCRAM-SHA-256"], false, .scramSHA256),
        (["SCRAM-SHA-1", "PLAIN"], false, .scramSHA1),
        (["SCRAM-SHA-1", "PLAIN"], true, .scramSHA1),
        (["PLAIN", "X-OAUTH2"], true, .plain),
        (["SCRAM-SHA-1-PLUS", "SCRAM-SHA-1"], false, .scramSHA1),
        (["\n  SCRAM-SHA-256 \n"], false, .scramSHA256),
    ])
    func choosesTheStrongest(offered: [String], encrypted: Bool, expected: SASLMechanism) throws {
        #expect(try SASLMechanism.strongest(offered: offered, streamIsEncrypted: encrypted) == expected)
    }

    @Test(arguments: [
        ([String](), "the server offers no SASL mechanism"),
        (["PLAIN"], "the server offers only PLAIN, which is refused without TLS"),
        (["PLAIN", "X-OAUTH2"], "the server offers no mechanism we support without TLS: PLAIN, X-OAUTH2 (PLAIN is refused without TLS)"),
        (["X-OAUTH2", "scram-sha-1"], "the server offers no mechanism we support: X-OAUTH2, scram-sha-1"),
    ])
    func refusesWithAClearMessage(offered: [String], message: String) {
        expectThrows(SASLError(.noUsableMechanism, message)) {
            try SASLMechanism.strongest(offered: offered, streamIsEncrypted: false)
        }
    }

    @Test func noSupportedMechanismEvenInsideTLS() {
        expectThrows(SASLError(.noUsableMechanism, "the server offers no mechanism we support: EXTERNAL")) {
            try SASLMechanism.strongest(offered: ["EXTERNAL"], streamIsEncrypted: true)
        }
    }

    @Test func scramHash() {
        #expect(SASLMechanism.scramSHA256.scramHash == .sha256)
        #expect(SASLMechanism.scramSHA1.scramHash == .sha1)
        #expect(SASLMechanism.plain.scramHash == nil)
    }

    @Test func plainEncoding() throws {
        let plain = try PlainClient(username: "tim", password: "tanstaaftanstaaf")
        #expect(plain.initialMessage() == [0] + Array("tim".utf8) + [0] + Array("tanstaaftanstaaf".utf8))
    }

    @Test func plainRefusesANulInThePassword() {
        expectThrows(SASLError(.invalidCredentials, "the password contains U+0000, which SASLprep (RFC 4013) prohibits")) {
            try PlainClient(username: "tim", password: "a\u{0}b")
        }
    }

    /// RFC 4013 §3, except the bidirectional example, which we do not implement.
    @Test(arguments: [
        ("I\u{00AD}X", "IX"),
        ("user", "user"),
        ("USER", "USER"),
        ("\u{00AA}", "a"),
        ("\u{2168}", "IX"),
        ("a\u{00A0}b", "a b"),
        ("caf\u{0065}\u{0301}", "caf\u{00E9}"),
    ])
    func saslprepMaps(input: String, expected: String) throws {
        let prepared = try SASLprep.prepare(input, field: "password")
        #expect(Array(prepared.unicodeScalars) == Array(expected.unicodeScalars))
    }

    @Test(arguments: ["\u{0007}", "a\u{E000}", "\u{FFFF}", "\u{200E}x", "", "\u{00AD}"])
    func saslprepProhibits(input: String) {
        #expect(throws: SASLError.self) { try SASLprep.prepare(input, field: "password") }
    }

    @Test func saslprepNamesTheField() {
        expectThrows(SASLError(.invalidCredentials, "the username contains U+0007, which SASLprep (RFC 4013) prohibits")) {
            try SASLprep.prepare("a\u{7}", field: "username")
        }
    }
}
