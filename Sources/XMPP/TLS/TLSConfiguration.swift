/// How a client sets up TLS for one server: the name it expects and the authorities it trusts.
public struct TLSClientConfiguration: Sendable, Hashable {
    /// Whether the server's certificate is checked.
    public enum Verification: Sendable, Hashable {
        /// The certificate must chain to a trusted authority and name ``TLSClientConfiguration/serverName``.
        case full
        /// No check at all: anyone on the path can read and change the traffic. Only for tests
        /// against throwaway servers.
        case noneInsecureForTestingOnly
    }

    /// The host name sent in SNI and verified against the server's certificate. An IP
    /// address literal is verified against the certificate's IP addresses and not sent in SNI.
    public var serverName: String
    /// A PEM file of trusted certificate authorities; nil trusts OpenSSL's default verify
    /// paths (the system store).
    public var caFile: String?
    /// Whether the server's certificate is checked; `.full` unless a test says otherwise.
    public var verification: Verification

    /// A client configuration for the server `serverName`.
    public init(serverName: String, caFile: String? = nil, verification: Verification = .full) {
        self.serverName = serverName
        self.caFile = caFile
        self.verification = verification
    }
}
