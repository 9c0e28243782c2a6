/// Everything an `XMPPClient` needs: the account, where to connect, how to secure the
/// connection, and how to keep it alive.
public struct XMPPClientConfiguration: Sendable {
    /// How the TCP connection is secured.
    public enum Security: Sendable, Hashable {
        /// Plain TCP upgraded with STARTTLS (RFC 6120 §5), required: the default, port 5222.
        case startTLS(TLSClientConfiguration)
        /// TLS from the first byte (XEP-0368), port 5223 by convention.
        case directTLS(TLSClientConfiguration)
        /// No TLS at all: for a local test server only. PLAIN is then refused.
        case noneForTesting
    }

    /// The account and the stream (JID, password, stream management).
    public var connection: XMPPConnectionConfiguration
    /// The host to connect to (by default the JID's domain).
    public var host: String
    /// The TCP port.
    public var port: Int
    public var security: Security
    /// How long a TCP connection (and the TLS handshake) may take.
    public var connectTimeout: Duration = .seconds(10)
    /// How long the stream may stay silent before the client checks the server is still
    /// there (XEP-0198 `<r/>` when stream management is on, XEP-0199 ping otherwise).
    public var keepAliveInterval: Duration = .seconds(30)
    /// How long the server has to answer that check before the connection counts as lost.
    public var keepAliveTimeout: Duration = .seconds(20)
    /// Waits between reconnection attempts.
    public var backoff = ReconnectBackoff()
    /// A connection that stayed up this long resets the backoff to its first delay.
    public var stableConnection: Duration = .seconds(30)
    /// What this client answers to disco#info queries (XEP-0030, XEP-0115); nil: no
    /// answer but `service-unavailable`, as to any request it does not handle.
    public var capabilities: EntityCapabilities?

    /// A client for `connection.bareJID`, connecting to `host` (default: the JID's domain)
    /// on `port` (default: 5222, or 5223 with direct TLS), verifying the server's
    /// certificate against the system's trusted CAs (or `caFile`).
    public init(
        connection: XMPPConnectionConfiguration,
        host: String? = nil,
        port: Int? = nil,
        security: Security? = nil
    ) {
        self.connection = connection
        self.host = host ?? connection.domain
        let security = security ?? .startTLS(TLSClientConfiguration(serverName: connection.domain))
        self.security = security
        if case .directTLS = security {
            self.port = port ?? 5223
        } else {
            self.port = port ?? 5222
        }
    }
}

extension XMPPNamespace {
    /// XEP-0199 XMPP Ping.
    public static let ping = "urn:xmpp:ping"
}
