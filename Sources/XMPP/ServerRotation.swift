/// A server to connect to: a host name or address and a TCP port.
public struct ServerAddress: Hashable, Sendable, CustomStringConvertible {
    /// A host name, an IPv4 address or an IPv6 address (without brackets).
    public var host: String
    /// The TCP port, 1…65535.
    public var port: Int
    /// How to secure a connection to it when its DNS record says so (XEP-0368: found as
    /// `_xmpps-client`, `true`; as `_xmpp-client`, `false`); `nil`, the client's configured
    /// `XMPPClientConfiguration.Security`.
    public var directTLS: Bool?

    /// The server at `host`:`port`, secured as `directTLS` says (`nil`: as configured).
    public init(host: String, port: Int, directTLS: Bool? = nil) {
        self.host = host
        self.port = port
        self.directTLS = directTLS
    }

    /// Reads `HOST`, `HOST:PORT`, `[IPV6]` or `[IPV6]:PORT` (the form of `--host` and of a
    /// `see-other-host` stream error, RFC 6120 §4.9.3.19); without a port, `defaultPort`.
    public init(parsing text: String, defaultPort: Int) throws(ConnectionError) {
        func invalid(_ why: String) -> ConnectionError {
            ConnectionError(.invalidConfiguration, "server address \"\(text)\": \(why); expected HOST, HOST:PORT or [IPV6]:PORT")
        }
        var host = Substring(text)
        var port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw invalid("an IPv6 address without its closing bracket") }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw invalid("text after the closing bracket") }
                port = rest.dropFirst()
            }
        } else if let colon = host.firstIndex(of: ":") {
            guard host[host.index(after: colon)...].firstIndex(of: ":") == nil else {
                throw invalid("an IPv6 address must be in brackets")
            }
            port = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { throw invalid("no host") }
        self.host = String(host)
        if let port {
            guard let number = Int(port), (1...65535).contains(number) else { throw invalid("the port is not 1…65535") }
            self.port = number
        } else {
            self.port = defaultPort
        }
    }

    /// `host:port`, `[host]:port` for an IPv6 address; ` (direct TLS)` or ` (STARTTLS)` when
    /// its DNS record chose.
    public var description: String {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return switch directTLS {
        case nil: address
        case true?: address + " (direct TLS)"
        case false?: address + " (STARTTLS)"
        }
    }
}

/// Which server the client tries next, and how long it waits first: with several addresses
/// (the members of a cluster, RFC 6120 §3.2's list of candidates), a failed or lost
/// connection moves on to the next one at once, and the client backs off only once every
/// address has failed since the last stable connection. A `see-other-host` stream error
/// sends the next attempt to the address the server named (a few times in a row at most,
/// so that two servers pointing at each other do not keep the client busy).
///
/// A value with no clock: the driver reports how each attempt ended and sleeps for what it
/// is told; the randomness of the backoff is injected.
public struct ServerRotation: Sendable {
    /// The addresses, in order of preference.
    public let addresses: [ServerAddress]
    /// How many `see-other-host` redirections in a row are followed.
    public static let maxRedirects = 3

    private var index = 0
    private var failuresInRound = 0
    private var redirect: ServerAddress?
    private var redirects = 0
    private var backoff: ReconnectBackoff

    /// A rotation over `addresses` (at least one), backing off with `backoff`.
    public init(addresses: [ServerAddress], backoff: ReconnectBackoff = ReconnectBackoff()) {
        precondition(!addresses.isEmpty, "a rotation needs at least one address")
        self.addresses = addresses
        self.backoff = backoff
    }

    /// The address of the next attempt.
    public var current: ServerAddress { redirect ?? addresses[index] }

    /// The attempt at `current` ended with `error`; `stable` says whether it had stayed up
    /// long enough to count as a working server (`XMPPClientConfiguration.stableConnection`).
    /// Returns how long to wait before trying `current` (now the next address).
    public mutating func failed(_ error: ConnectionError, stable: Bool, random: inout some RandomNumberGenerator) -> Duration {
        if stable {
            backoff.reset()
            failuresInRound = 0
            redirects = 0
        }
        if let other = error.otherHost, redirects < Self.maxRedirects {
            redirects += 1
            redirect = other
            return .zero
        }
        if redirect != nil {
            // The address a server sent us to failed: back to the list, where we were.
            redirect = nil
        } else {
            index = (index + 1) % addresses.count
        }
        failuresInRound += 1
        guard failuresInRound >= addresses.count else { return .zero }
        failuresInRound = 0
        redirects = 0
        return backoff.nextDelay(random: &random)
    }
}
