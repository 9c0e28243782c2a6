/// Why a received datagram was refused: its structure, its version or its authentication.
///
/// Two errors are equal when their kinds are: the detail is a diagnostic for logs.
public struct DatagramError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in broad terms. New kinds may be added.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The datagram ends before a field it announces.
        public static let truncated = Kind("truncated datagram")
        /// The datagram does not start with the magic bytes "CVLN": it is not ours.
        public static let badMagic = Kind("not a Canvas LAN datagram")
        /// A format version this node does not speak (a newer or older node on the LAN).
        public static let unsupportedVersion = Kind("unsupported format version")
        /// A datagram kind this version does not define.
        public static let unknownKind = Kind("unknown datagram kind")
        /// A field holds a value the format does not allow.
        public static let invalidField = Kind("invalid field")
        /// Bytes follow the last field.
        public static let trailingBytes = Kind("trailing bytes")
        /// The datagram is larger than any UDP datagram can be.
        public static let tooLarge = Kind("datagram too large")
        /// The room has a key, and the datagram carries no authentication tag.
        public static let missingAuthentication = Kind("missing authentication")
        /// The authentication tag does not match: tampered, or sent with another key.
        public static let authenticationFailed = Kind("authentication failed")
        /// The datagram carries an authentication tag, and this node has no room key.
        public static let unexpectedAuthentication = Kind("unexpected authentication")
        /// A compact datagram whose room tag is not the expected room's (another room on
        /// the same group and port).
        public static let otherRoom = Kind("another room's datagram")

        public var description: String { name }
    }

    /// The kind of failure.
    public var kind: Kind
    /// Which field, what was found and what was expected.
    public var detail: String

    /// A datagram error.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// `KIND: DETAIL`.
    public var description: String { "\(kind): \(detail)" }

    public static func == (lhs: DatagramError, rhs: DatagramError) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}
