/// A SASL exchange that cannot go on, with what a user needs to act on it: which
/// message or field was wrong, the value found and what was expected.
///
/// New kinds can be added without breaking the API. Two errors are equal when their kinds
/// are: the detail is a diagnostic for the user and the logs.
public struct SASLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in broad terms.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// None of the server's mechanisms is one we support (or may use on this stream).
        public static let noUsableMechanism = Kind("no usable SASL mechanism")
        /// A username or password that SASLprep (RFC 4013) refuses, or that is empty.
        public static let invalidCredentials = Kind("invalid credentials")
        /// An injected client nonce with characters SCRAM does not allow.
        public static let invalidNonce = Kind("invalid client nonce")
        /// A server message that does not follow the mechanism's grammar.
        public static let malformedServerMessage = Kind("malformed server message")
        /// The server's nonce does not extend the nonce we sent.
        public static let nonceMismatch = Kind("nonce mismatch")
        /// The server demands a SCRAM extension (`m=`) we do not implement.
        public static let unsupportedExtension = Kind("unsupported SCRAM extension")
        /// The server's iteration count is outside the range we accept.
        public static let iterationCountOutOfRange = Kind("iteration count out of range")
        /// The server's signature does not prove it knows the password: it may be an impostor.
        public static let serverSignatureMismatch = Kind("server signature mismatch")
        /// The server reported an error (`e=`) in its final message.
        public static let serverError = Kind("server error")
        /// A message arrived in a state where the exchange does not expect it.
        public static let unexpectedMessage = Kind("unexpected message")
        /// An OpenSSL call failed (the detail names it and OpenSSL's error text).
        public static let crypto = Kind("cryptography failure")

        public var description: String { name }
    }

    /// The kind of failure.
    public var kind: Kind
    /// What was found and what was expected.
    public var detail: String

    /// A SASL error.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// `KIND: DETAIL`.
    public var description: String { "\(kind): \(detail)" }

    public static func == (lhs: SASLError, rhs: SASLError) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}
