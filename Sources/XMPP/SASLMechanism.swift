/// The SASL mechanisms we speak, strongest first.
public enum SASLMechanism: String, Sendable, Hashable, CaseIterable {
    case scramSHA256 = "SCRAM-SHA-256"
    case scramSHA1 = "SCRAM-SHA-1"
    case plain = "PLAIN"

    /// Whether the mechanism sends the password itself, so must only run inside TLS.
    public var sendsPasswordInClear: Bool { self == .plain }

    /// The hash a SCRAM mechanism is parameterised with; nil for PLAIN.
    public var scramHash: CryptoHash? {
        switch self {
        case .scramSHA256: .sha256
        case .scramSHA1: .sha1
        case .plain: nil
        }
    }

    /// The strongest of the server's `offered` mechanism names that we may use:
    /// SCRAM-SHA-256, then SCRAM-SHA-1, then PLAIN, which only when `streamIsEncrypted`.
    ///
    /// Names are compared exactly (SASL names are upper case), after trimming the
    /// whitespace an XML `<mechanism>` element may carry.
    public static func strongest(offered: [String], streamIsEncrypted: Bool) throws(SASLError) -> SASLMechanism {
        let names = offered.map { name in
            String(name.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        }
        let usable = allCases.filter { names.contains($0.rawValue) && (streamIsEncrypted || !$0.sendsPasswordInClear) }
        if let best = usable.first { return best }
        if names.isEmpty {
            throw SASLError(.noUsableMechanism, "the server offers no SASL mechanism")
        }
        let list = names.joined(separator: ", ")
        if names.contains(SASLMechanism.plain.rawValue) {
            if names.count == 1 {
                throw SASLError(.noUsableMechanism, "the server offers only PLAIN, which is refused without TLS")
            }
            throw SASLError(
                .noUsableMechanism,
                "the server offers no mechanism we support without TLS: \(list) (PLAIN is refused without TLS)")
        }
        throw SASLError(.noUsableMechanism, "the server offers no mechanism we support: \(list)")
    }
}
