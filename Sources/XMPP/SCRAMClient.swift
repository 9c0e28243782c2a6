/// The client side of SCRAM (RFC 5802; SCRAM-SHA-256 in RFC 7677) without channel
/// binding, as a value-type state machine: it performs no I/O and draws no randomness
/// unless asked to, so an exchange replays exactly from its inputs.
///
/// ```
/// var scram = try SCRAMClient(hash: .sha256, username: "user", password: "pencil")
/// send(scram.initialMessage())                          // <auth mechanism='SCRAM-SHA-256'>
/// send(try scram.respond(toChallenge: challenge))       // <challenge> → <response>
/// try scram.verify(success: additionalData)             // <success>: authenticates the server
/// ```
///
/// Any error leaves the machine failed: later calls throw `unexpectedMessage`.
public struct SCRAMClient: Sendable {
    /// The iteration counts we accept from a server: fewer makes a stolen database cheap
    /// to attack (RFC 7677 asks for at least 4096), more lets a hostile server make
    /// us burn CPU.
    public static let acceptedIterationCounts: ClosedRange<Int> = 4096...1_000_000

    /// The hash the mechanism is parameterised with.
    public let hash: CryptoHash
    private let password: String
    private let clientNonce: String
    private let clientFirstMessageBare: String
    private var state: State = .awaitingServerFirst

    /// Where the exchange is.
    private enum State: Sendable {
        /// `initialMessage()` may be sent; the server-first message is expected next.
        case awaitingServerFirst
        /// The client-final message is sent; the server must prove it knows the password.
        case awaitingServerFinal(expectedServerSignature: [UInt8])
        /// The server proved its identity.
        case authenticated
        /// An error ended the exchange.
        case failed

        /// Where the exchange was, for errors about a message that came at the wrong time.
        var phrase: String {
            switch self {
            case .awaitingServerFirst: "before the server-first message"
            case .awaitingServerFinal: "after the client-final message"
            case .authenticated: "after the exchange succeeded"
            case .failed: "after the exchange failed"
            }
        }
    }

    /// The gs2 header: no channel binding, no authorization identity.
    private static let gs2Header = "n,,"

    /// A SCRAM exchange with a fresh random client nonce.
    public init(hash: CryptoHash, username: String, password: String) throws(SASLError) {
        let nonce = Crypto.base64Encode(try Crypto.randomBytes(count: 18))
        try self.init(hash: hash, username: username, password: password, clientNonce: nonce)
    }

    /// A SCRAM exchange with the given client nonce: printable ASCII without ',' (RFC 5802
    /// §7). Tests inject it; otherwise use the initialiser that draws a random one.
    public init(hash: CryptoHash, username: String, password: String, clientNonce: String) throws(SASLError) {
        guard !clientNonce.isEmpty, clientNonce.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: ",") })
        else {
            throw SASLError(.invalidNonce, "the client nonce \"\(clientNonce)\" must be non-empty printable ASCII without ','")
        }
        let username = try SASLprep.prepare(username, field: "username")
        self.hash = hash
        self.password = try SASLprep.prepare(password, field: "password")
        self.clientNonce = clientNonce
        self.clientFirstMessageBare = "n=\(Self.saslName(username)),r=\(clientNonce)"
    }

    /// Whether the server has proved it knows the password (`verify(success:)` passed).
    public var isAuthenticated: Bool {
        if case .authenticated = state { true } else { false }
    }

    /// The client-first message: the gs2 header and `n=USERNAME,r=NONCE`.
    public func initialMessage() -> [UInt8] {
        Array((Self.gs2Header + clientFirstMessageBare).utf8)
    }

    /// The client-final message answering the server-first `challenge`, with the proof
    /// that we know the password.
    public mutating func respond(toChallenge challenge: [UInt8]) throws(SASLError) -> [UInt8] {
        guard case .awaitingServerFirst = state else {
            let found = state
            state = .failed
            throw SASLError(.unexpectedMessage, "a SCRAM challenge arrived \(found.phrase), not after the first message")
        }
        do {
            let (response, signature) = try clientFinal(serverFirst: challenge)
            state = .awaitingServerFinal(expectedServerSignature: signature)
            return response
        } catch {
            state = .failed
            throw error
        }
    }

    /// Checks the server-final message: the server's signature must match, or the server
    /// is not the one that holds our password.
    ///
    /// The message is the additional data of `<success>`, or, from a server that cannot
    /// put data there, of a last `<challenge>` (RFC 6120 §6.3.10), which the client then
    /// answers with an empty `<response>`.
    public mutating func verify(success serverFinal: [UInt8]) throws(SASLError) {
        guard case .awaitingServerFinal(let expected) = state else {
            let found = state
            state = .failed
            throw SASLError(.unexpectedMessage, "a SCRAM server-final message arrived \(found.phrase)")
        }
        state = .failed
        guard let text = String(validating: serverFinal, as: UTF8.self) else {
            throw SASLError(.malformedServerMessage, "the server-final message is not UTF-8")
        }
        guard !text.isEmpty else {
            throw SASLError(
                .malformedServerMessage,
                "the server sent no server-final message, so it did not prove it knows the password")
        }
        guard let first = text.split(separator: ",", omittingEmptySubsequences: false).first,
            let (key, value) = Self.attribute(first)
        else {
            throw SASLError(.malformedServerMessage, "the server-final message \"\(text)\" has neither v= nor e=")
        }
        switch key {
        case "e":
            throw SASLError(.serverError, "the server refused the authentication: \(value)")
        case "v":
            guard let signature = Crypto.base64Decode(String(value)) else {
                throw SASLError(.malformedServerMessage, "the server signature v=\(value) is not Base64")
            }
            guard Crypto.constantTimeEqual(signature, expected) else {
                throw SASLError(
                    .serverSignatureMismatch,
                    "the server's signature does not match our password: it may not be the server we trust")
            }
            state = .authenticated
        default:
            throw SASLError(
                .malformedServerMessage, "the server-final message starts with \(key)=, expected v= or e=")
        }
    }

    /// The client-final message and the server signature to expect.
    private func clientFinal(serverFirst challenge: [UInt8]) throws(SASLError) -> ([UInt8], [UInt8]) {
        guard let serverFirst = String(validating: challenge, as: UTF8.self) else {
            throw SASLError(.malformedServerMessage, "the server-first message is not UTF-8")
        }
        var attributes = serverFirst.split(separator: ",", omittingEmptySubsequences: false)[...]
        func next(_ expected: Character, _ meaning: String) throws(SASLError) -> Substring {
            guard let field = attributes.popFirst(), let (key, value) = Self.attribute(field) else {
                throw SASLError(
                    .malformedServerMessage, "the server-first message \"\(serverFirst)\" lacks \(expected)= (\(meaning))")
            }
            if key == "m" {
                throw SASLError(
                    .unsupportedExtension, "the server requires the SCRAM extension m=\(value), which we do not implement")
            }
            guard key == expected else {
                throw SASLError(
                    .malformedServerMessage,
                    "the server-first message \"\(serverFirst)\" has \(key)= where \(expected)= (\(meaning)) belongs")
            }
            return value
        }
        let nonce = try next("r", "the nonce")
        guard nonce.hasPrefix(clientNonce), nonce.count > clientNonce.count else {
            throw SASLError(
                .nonceMismatch, "the server nonce \"\(nonce)\" does not extend our nonce \"\(clientNonce)\"")
        }
        let saltText = try next("s", "the salt")
        guard let salt = Crypto.base64Decode(String(saltText)), !salt.isEmpty else {
            throw SASLError(.malformedServerMessage, "the salt s=\(saltText) is not non-empty Base64")
        }
        let iterationText = try next("i", "the iteration count")
        guard iterationText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let iterations = Int(iterationText)
        else {
            throw SASLError(.malformedServerMessage, "the iteration count i=\(iterationText) is not a decimal number")
        }
        guard Self.acceptedIterationCounts.contains(iterations) else {
            throw SASLError(
                .iterationCountOutOfRange,
                "the iteration count i=\(iterations) is outside \(Self.acceptedIterationCounts.lowerBound)...\(Self.acceptedIterationCounts.upperBound)"
            )
        }

        let channelBinding = Crypto.base64Encode(Array(Self.gs2Header.utf8))
        let clientFinalWithoutProof = "c=\(channelBinding),r=\(nonce)"
        let authMessage = Array("\(clientFirstMessageBare),\(serverFirst),\(clientFinalWithoutProof)".utf8)

        let saltedPassword = try Crypto.pbkdf2(
            password: Array(password.utf8), salt: salt, iterations: iterations, using: hash)
        let clientKey = try Crypto.hmac(key: saltedPassword, message: Array("Client Key".utf8), using: hash)
        let storedKey = try Crypto.digest(clientKey, using: hash)
        let clientSignature = try Crypto.hmac(key: storedKey, message: authMessage, using: hash)
        let clientProof = zip(clientKey, clientSignature).map { $0 ^ $1 }
        let serverKey = try Crypto.hmac(key: saltedPassword, message: Array("Server Key".utf8), using: hash)
        let serverSignature = try Crypto.hmac(key: serverKey, message: authMessage, using: hash)

        let clientFinal = "\(clientFinalWithoutProof),p=\(Crypto.base64Encode(clientProof))"
        return (Array(clientFinal.utf8), serverSignature)
    }

    /// `x=value` split into its one-letter key and its value.
    private static func attribute(_ field: Substring) -> (Character, Substring)? {
        guard field.count >= 2, let key = field.first, key.isASCII, key.isLetter,
            field[field.index(after: field.startIndex)] == "="
        else { return nil }
        return (key, field.dropFirst(2))
    }

    /// A username as a SCRAM saslname: ',' and '=' would end or confuse the attribute.
    private static func saslName(_ username: String) -> String {
        var escaped = ""
        for character in username {
            switch character {
            case ",": escaped += "=2C"
            case "=": escaped += "=3D"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
