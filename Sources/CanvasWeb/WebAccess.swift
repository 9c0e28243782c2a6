/// Who may use a node's web server (docs/web.md, "Security"): the decisions, apart from
/// the server.
///
/// On loopback with no token, only pages served by this very server may open sockets:
/// the `Host` must name the loopback (no DNS-rebinding page can reach the node) and a
/// browser's `Origin` must be the server itself (no other site's page can). On any other
/// address a token is required as well: in the socket's and the room's URLs
/// (`?token=…`), or as `Authorization: Bearer …` for operators' tools.
public struct WebAccess: Sendable {
    /// The token every request for a room, its socket, `/healthz` and `/metrics` must carry
    /// (nil: none, on loopback only).
    public let token: String?
    /// Whether the server listens on loopback only.
    public let loopbackOnly: Bool

    /// Why a request is refused: the HTTP status and a sentence for the client.
    public struct Refusal: Error, Equatable, Sendable {
        public var status: Int
        public var message: String
    }

    public init(token: String?, loopbackOnly: Bool) {
        self.token = token
        self.loopbackOnly = loopbackOnly
    }

    /// Checks a request for a room's data: its `Host`, its `Origin` (browsers send one with
    /// every socket), and its token (from the query, or the `Authorization` header).
    public func check(host: String?, origin: String?, queryToken: String?, authorization: String?) -> Refusal? {
        if loopbackOnly, let host, !Self.isLoopbackHost(host) {
            return Refusal(status: 403, message: "the Host \(host) is not this node's loopback address")
        }
        if let origin, origin != "null" {
            guard let host, origin == "http://" + host || origin == "https://" + host else {
                return Refusal(status: 403, message: "pages of \(origin) may not use this node")
            }
        }
        guard let token else { return nil }
        let presented = queryToken ?? authorization.flatMap { value in
            value.hasPrefix("Bearer ") ? String(value.dropFirst("Bearer ".count)) : nil
        }
        guard let presented, Self.constantTimeEqual(presented, token) else {
            return Refusal(status: 401, message: "a valid token is required (the URL the node printed has it)")
        }
        return nil
    }

    /// `127.x.x.x`, `localhost` or `[::1]`, with or without a port.
    static func isLoopbackHost(_ host: String) -> Bool {
        var name = Substring(host)
        if name.hasPrefix("[") {
            guard let end = name.firstIndex(of: "]") else { return false }
            return name[name.index(after: name.startIndex)..<end] == "::1"
        }
        if let colon = name.lastIndex(of: ":") { name = name[..<colon] }
        return name == "localhost" || name.hasPrefix("127.")
    }

    /// Compares every byte, whatever the first difference: the time taken says nothing of
    /// the token.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }

    /// A random token of 32 hexadecimal digits (128 bits).
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let word = String(generator.next() as UInt32, radix: 16)
            return String(repeating: "0", count: 8 - word.count) + word
        }.joined()
    }
}
