/// Why a message was rejected. Every rejection names the field (`path`, e.g.
/// `APPEND.points[3][1]`) and says what was expected and what came instead, so that the
/// author of a faulty peer can fix it from the log line alone.
///
/// Two errors are equal when their kinds are: the path and detail are diagnostics for logs.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The category of a rejection. New kinds may be added without breaking API.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The bytes are not JSON (or not UTF-8).
        public static let malformedJSON = Kind("malformed JSON")
        /// A required field is absent.
        public static let missingField = Kind("missing field")
        /// A field holds the wrong JSON type.
        public static let wrongType = Kind("wrong type")
        /// A field has the right type but an unacceptable value.
        public static let invalidValue = Kind("invalid value")
        /// The message exceeds one of `ProtocolLimits`.
        public static let limitExceeded = Kind("limit exceeded")
        /// A compact binary message (PROTOCOL.md §15) is cut short or breaks its format.
        public static let malformedCompact = Kind("malformed compact message")

        public var description: String { name }
    }

    /// The category.
    public var kind: Kind
    /// The offending field, as `TYPE.field[index]…`; empty for the message as a whole.
    public var path: String
    /// What was expected and what was found.
    public var detail: String

    public init(_ kind: Kind, path: String, _ detail: String) {
        self.kind = kind
        self.path = path
        self.detail = detail
    }

    /// `path: detail`, the form printed in logs and by `canvas replay`.
    public var description: String {
        path.isEmpty ? detail : "\(path): \(detail)"
    }

    public static func == (lhs: ProtocolError, rhs: ProtocolError) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}
