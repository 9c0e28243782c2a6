/// A store that cannot be opened, read or written, with what a user needs to act on it:
/// the file, the byte offset where reading failed, and what was expected there.
///
/// New kinds can be added without breaking the API. Two errors are equal when their kinds
/// are: the path, offset and detail are diagnostics for the user and the logs.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in broad terms.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A log record before the last one is damaged: not a torn write, so not dropped.
        public static let corruptRecord = Kind("corrupt log record")
        /// The snapshot fails its magic, version, checksum or structure checks.
        public static let corruptSnapshot = Kind("corrupt snapshot")
        /// The node identity file is unreadable.
        public static let corruptNodeID = Kind("corrupt node id")
        /// The room has no folder in the store (and the caller asked not to create it).
        public static let missingRoom = Kind("missing room")
        /// The room name cannot name a folder (it is empty).
        public static let invalidRoomName = Kind("invalid room name")
        /// A system call failed (the detail names it and the errno text).
        public static let io = Kind("I/O error")

        public var description: String { name }
    }

    /// The kind of failure.
    public var kind: Kind
    /// The file or folder concerned.
    public var path: String
    /// The byte offset in `path` where the problem starts, when it is about content.
    public var offset: Int?
    /// What was found and what was expected.
    public var detail: String

    /// A store error.
    public init(_ kind: Kind, path: String, offset: Int? = nil, _ detail: String) {
        self.kind = kind
        self.path = path
        self.offset = offset
        self.detail = detail
    }

    /// `PATH: byte OFFSET: KIND: DETAIL`.
    public var description: String {
        var text = path
        if let offset { text += ": byte \(offset)" }
        return text + ": \(kind): \(detail)"
    }

    public static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}
