/// A TLS connection that cannot go on, with what a user needs to act on it: OpenSSL's
/// reason, the certificate problem if there was one, and what to change.
///
/// New kinds can be added without breaking the API. Two errors are equal when their kinds
/// are: the detail is a diagnostic for the user and the logs.
public struct TLSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in broad terms.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The configuration cannot be used: an unreadable CA file, certificate or key, an empty server name.
        public static let configuration = Kind("TLS configuration error")
        /// The handshake failed for a reason other than the peer's certificate (no common
        /// protocol version or cipher, an alert from the peer, bytes that are not TLS).
        public static let handshakeFailed = Kind("TLS handshake failed")
        /// The peer's certificate is not trusted or does not name the expected host.
        public static let certificateVerificationFailed = Kind("TLS certificate verification failed")
        /// The peer broke the protocol after the handshake, or the engine was used out of order.
        public static let protocolError = Kind("TLS protocol error")
        /// The connection closed before the operation could finish.
        public static let closed = Kind("TLS connection closed")

        /// The kind in words.
        public var description: String { name }
    }

    /// The kind of failure.
    public var kind: Kind
    /// What happened and what to do about it.
    public var detail: String

    /// A TLS error.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// `KIND: DETAIL`.
    public var description: String { "\(kind): \(detail)" }

    public static func == (lhs: TLSError, rhs: TLSError) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}
