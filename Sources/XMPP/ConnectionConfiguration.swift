/// What `XMPPConnectionStateMachine` needs to take a client stream to a ready session.
public struct XMPPConnectionConfiguration: Sendable {
    /// Whether the stream must be encrypted with STARTTLS before authentication.
    public enum TLSPolicy: Sendable, Hashable {
        /// Refuse to go on unless the server offers STARTTLS. The default.
        case required
        /// Never start TLS: for tests against a local server only. PLAIN is then refused,
        /// and a server that requires TLS is reported as such.
        case disabledForTesting
        /// The connection is TLS from its first byte (XEP-0368, "direct TLS"): the stream
        /// starts encrypted and STARTTLS is not negotiated.
        case direct
    }

    /// Creates the SCRAM exchange for a hash, username and password; tests inject a fixed
    /// client nonce through it.
    public typealias SCRAMClientFactory =
        @Sendable (CryptoHash, _ username: String, _ password: String) throws(SASLError) -> SCRAMClient

    /// The local part of the JID: the SASL username.
    public let localpart: String
    /// The domain of the JID: the `to` of the stream header.
    public let domain: String
    /// The resource to ask for, or `nil` to let the server choose one.
    public let resource: String?
    public var password: String
    public var tlsPolicy: TLSPolicy
    /// The largest stanza the driver's `XMLStreamParser` accepts, in bytes.
    public var maximumStanzaSize: Int
    /// Whether to enable or resume XEP-0198 stream management after authentication.
    public var streamManagement: StreamManagementRequest
    public var makeSCRAMClient: SCRAMClientFactory

    /// A configuration for `jid` (`local@domain` or `local@domain/resource`).
    public init(
        jid: String,
        password: String,
        tlsPolicy: TLSPolicy = .required,
        maximumStanzaSize: Int = 256 * 1024,
        streamManagement: StreamManagementRequest = .enable,
        makeSCRAMClient: @escaping SCRAMClientFactory = XMPPConnectionConfiguration.randomNonceSCRAMClient
    ) throws(ConnectionError) {
        var bare = jid[...]
        var resource: String?
        if let slash = jid.firstIndex(of: "/") {
            bare = jid[..<slash]
            resource = String(jid[jid.index(after: slash)...])
        }
        let parts = bare.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw ConnectionError(
                .invalidConfiguration, "the JID \"\(jid)\" must have the form user@domain or user@domain/resource")
        }
        let domain = String(parts[1])
        guard domain.allSatisfy({ !$0.isWhitespace && !"<>&'\"".contains($0) }) else {
            throw ConnectionError(
                .invalidConfiguration,
                "the domain \"\(domain)\" of the JID \"\(jid)\" contains characters a domain cannot hold")
        }
        if let resource, resource.isEmpty {
            throw ConnectionError(
                .invalidConfiguration, "the JID \"\(jid)\" has an empty resource: leave out the '/' or name a resource")
        }
        self.localpart = String(parts[0])
        self.domain = domain
        self.resource = resource
        self.password = password
        self.tlsPolicy = tlsPolicy
        self.maximumStanzaSize = maximumStanzaSize
        self.streamManagement = streamManagement
        self.makeSCRAMClient = makeSCRAMClient
    }

    /// A SCRAM exchange with a fresh random client nonce: the factory outside tests.
    public static func randomNonceSCRAMClient(
        hash: CryptoHash, username: String, password: String
    ) throws(SASLError) -> SCRAMClient {
        try SCRAMClient(hash: hash, username: username, password: password)
    }

    /// `localpart@domain`.
    public var bareJID: String { "\(localpart)@\(domain)" }
}
