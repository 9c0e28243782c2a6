/// Why the cluster refused a configuration or a request from the application.
///
/// Two errors are equal when their kinds are: the detail is a diagnostic for logs.
public struct ClusterError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in broad terms. New kinds may be added.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A `ClusterConfiguration` value outside its allowed range.
        public static let invalidConfiguration = Kind("invalid cluster configuration")
        /// A node id that is empty or longer than 255 UTF-8 bytes.
        public static let invalidNodeID = Kind("invalid node id")
        /// An empty room key.
        public static let invalidKey = Kind("invalid room key")
        /// A payload larger than `ClusterConfiguration.maxPayloadBytes`.
        public static let payloadTooLarge = Kind("payload too large")
        /// A sync summary that does not fit in a beacon.
        public static let summaryTooLarge = Kind("sync summary too large")
        /// The node is not running: call `start(now:)` first, or it was stopped.
        public static let notRunning = Kind("cluster node not running")

        public var description: String { name }
    }

    /// The kind of failure.
    public var kind: Kind
    /// Which value, what was found and what was expected.
    public var detail: String

    /// A cluster error.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// `KIND: DETAIL`.
    public var description: String { "\(kind): \(detail)" }

    public static func == (lhs: ClusterError, rhs: ClusterError) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}
