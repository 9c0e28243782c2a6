/// The PLAIN mechanism (RFC 4616): the password itself, so only ever inside TLS
/// (see `SASLMechanism.strongest(offered:streamIsEncrypted:)`).
public struct PlainClient: Sendable {
    private let message: [UInt8]

    /// A PLAIN exchange for `username` and `password`, both prepared with SASLprep.
    public init(username: String, password: String) throws(SASLError) {
        let username = try SASLprep.prepare(username, field: "username")
        let password = try SASLprep.prepare(password, field: "password")
        message = [0] + Array(username.utf8) + [0] + Array(password.utf8)
    }

    /// The single client message: an empty authorization identity, then `\0user\0password`.
    public func initialMessage() -> [UInt8] { message }
}
