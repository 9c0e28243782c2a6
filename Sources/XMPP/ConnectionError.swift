/// Why an XMPP connection could not reach a ready session, with what a user needs to act
/// on it: which step failed, what the server said and what to change.
///
/// New kinds can be added without breaking the API. Two errors are equal when their kinds
/// are: the detail is a diagnostic for the user and the logs.
public struct ConnectionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in broad terms.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A configuration value (the JID) that cannot be used.
        public static let invalidConfiguration = Kind("invalid configuration")
        /// TLS is required but the server does not offer it, refused it, or requires TLS
        /// that the configuration disabled.
        public static let tlsUnavailable = Kind("TLS unavailable")
        /// None of the server's SASL mechanisms may be used on this stream.
        public static let noUsableMechanism = Kind("no usable SASL mechanism")
        /// The server rejected the authentication, or failed to prove it knows the password.
        public static let authenticationFailed = Kind("authentication failed")
        /// The server refused to bind a resource.
        public static let bindFailed = Kind("resource binding failed")
        /// The server closed the stream with a stream error (RFC 6120 §4.9).
        public static let streamError = Kind("stream error")
        /// The server does not serve the JID's domain (stream error `host-unknown`): the
        /// wrong server or the wrong JID.
        public static let hostUnknown = Kind("host unknown")
        /// The server sent us to another (stream error `see-other-host`, RFC 6120
        /// §4.9.3.19): `ConnectionError.otherHost` says where.
        public static let redirected = Kind("redirected")
        /// The server closed the stream without a stream error before the session was ready.
        public static let streamClosed = Kind("stream closed")
        /// The server (or the driver) did something the protocol does not allow at this point.
        public static let protocolViolation = Kind("protocol violation")

        /// The TCP connection could not be made, or broke.
        public static let connectionLost = Kind("connection lost")
        /// The TLS handshake failed or the server's certificate was not trusted.
        public static let tlsFailed = Kind("TLS failed")
        /// The server did not answer in time (connect, handshake or keepalive).
        public static let timeout = Kind("timeout")
        /// Our side closed the connection.
        public static let closedByClient = Kind("closed by the client")

        public var description: String { name }

        /// Whether trying again cannot help until the configuration or the server's
        /// settings change (bad credentials, no usable mechanism, untrusted certificate).
        public var isPermanent: Bool {
            self == .invalidConfiguration || self == .tlsUnavailable || self == .noUsableMechanism
                || self == .authenticationFailed || self == .tlsFailed || self == .hostUnknown
        }
    }

    /// The kind of failure.
    public var kind: Kind
    /// What happened and what to do about it.
    public var detail: String
    /// Where a `see-other-host` stream error sent us (`.redirected`).
    public var otherHost: ServerAddress?

    /// A connection error.
    public init(_ kind: Kind, _ detail: String, otherHost: ServerAddress? = nil) {
        self.kind = kind
        self.detail = detail
        self.otherHost = otherHost
    }

    /// `KIND: DETAIL`.
    public var description: String { "\(kind): \(detail)" }

    public static func == (lhs: ConnectionError, rhs: ConnectionError) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}
