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

        /// How to secure a connection to `server`: as its DNS record says (XEP-0368), with
        /// the same trust settings; as configured for a server given by hand.
        public func securing(_ server: ServerAddress) -> Security {
            switch (self, server.directTLS) {
            case (.startTLS(let settings), true?): .directTLS(settings)
            case (.directTLS(let settings), false?): .startTLS(settings)
            default: self
            }
        }
    }

    /// The account and the stream (JID, password, stream management).
    public var connection: XMPPConnectionConfiguration
    /// The servers to connect to, in order of preference (by default the JID's domain): the
    /// members of a cluster, say. After a failed or lost connection the client tries the
    /// next at once, and backs off only once all have failed (`ServerRotation`).
    public var servers: [ServerAddress]
    /// Whether the client first asks DNS for the domain's servers (SRV records, RFC 6120
    /// §3.2.1 and XEP-0368: `_xmpp-client._tcp` and `_xmpps-client._tcp` mixed, each server
    /// secured as its record says; only `_xmpps-client._tcp` with `.directTLS`) and tries
    /// them before `servers`: true when neither a host nor a port was given.
    public var discoversServers = false
    /// The first server's host.
    public var host: String { servers[0].host }
    /// The first server's port.
    public var port: Int { servers[0].port }
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
        let security = security ?? .startTLS(TLSClientConfiguration(serverName: connection.domain))
        self.init(
            connection: connection,
            servers: [ServerAddress(host: host ?? connection.domain, port: port ?? Self.defaultPort(for: security))],
            security: security)
        discoversServers = host == nil && port == nil
    }

    /// A client for `connection.bareJID` trying `servers` in turn (at least one).
    public init(connection: XMPPConnectionConfiguration, servers: [ServerAddress], security: Security) {
        precondition(!servers.isEmpty, "a client needs at least one server")
        self.connection = connection
        self.servers = servers
        self.security = security
    }

    /// 5223 with direct TLS (XEP-0368's convention), 5222 otherwise.
    public static func defaultPort(for security: Security) -> Int {
        if case .directTLS = security { 5223 } else { 5222 }
    }
}

extension XMPPNamespace {
    /// XEP-0199 XMPP Ping.
    public static let ping = "urn:xmpp:ping"
}
