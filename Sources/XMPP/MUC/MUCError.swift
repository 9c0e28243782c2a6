/// Why joining a room failed, or why a configuration cannot be used, with what a user needs
/// to act on it: what the room or service said and what to change.
///
/// New kinds can be added without breaking the API. Two errors are equal when their kinds
/// are: the detail is a diagnostic for the user and the logs.
public struct MUCError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in broad terms.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A configuration value (room JID, nickname, page size) that cannot be used.
        public static let invalidConfiguration = Kind("invalid configuration")
        /// The room is members-only and the account is not a member (`registration-required`).
        public static let registrationRequired = Kind("registration required")
        /// The room is password-protected and the password was missing or wrong (`not-authorized`).
        public static let notAuthorized = Kind("not authorized")
        /// The account is banned from the room (`forbidden`).
        public static let banned = Kind("banned")
        /// The room does not exist and the service did not create it, or it is locked while
        /// its creator configures it (`item-not-found`).
        public static let roomNotFound = Kind("room not found")
        /// The room does not exist and the account may not create rooms (`not-allowed`).
        public static let creationNotAllowed = Kind("room creation not allowed")
        /// The room has reached its maximum number of occupants (`service-unavailable`).
        public static let roomFull = Kind("room full")
        /// Every nickname tried is in use by someone else (`conflict`).
        public static let nicknameConflict = Kind("nickname conflict")
        /// The room refused the nickname itself (`not-acceptable`, `jid-malformed`).
        public static let nicknameRejected = Kind("nickname rejected")
        /// We created the room but the service refused the instant-room configuration.
        public static let roomConfigurationFailed = Kind("room configuration failed")
        /// The room refused the join for another reason.
        public static let joinRejected = Kind("join rejected")

        /// Whether joining later may succeed without changing anything: the room may be
        /// locked while its creator configures it (item-not-found), or full for now.
        public var mayRetry: Bool {
            self == .roomNotFound || self == .roomFull || self == .joinRejected
        }

        public var description: String { name }
    }

    /// The kind of failure.
    public var kind: Kind
    /// What happened and what to do about it.
    public var detail: String

    /// A MUC error.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// `KIND: DETAIL`.
    public var description: String { "\(kind): \(detail)" }

    public static func == (lhs: MUCError, rhs: MUCError) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}

extension MUCError {
    /// The error for a join presence the room answered with a presence error, other than a
    /// nickname conflict still worth retrying.
    ///
    /// `nickname` is the nickname of the refused attempt, `configuredNickname` the one asked
    /// for first.
    static func joinRefused(
        room: String, nickname: String, configuredNickname: String, error: MUCStanzaError
    ) -> MUCError {
        let said = error.text.map { " (the service said: \($0))" } ?? ""
        switch error.condition {
        case "registration-required":
            return MUCError(
                .registrationRequired,
                "room \(room) is members-only and this account is not a member\(said): "
                    + "ask an owner or admin of the room to add the account to its member list")
        case "not-authorized":
            return MUCError(
                .notAuthorized,
                "room \(room) is password-protected and the password was missing or wrong\(said): "
                    + "set the room's password in the room configuration")
        case "forbidden":
            return MUCError(
                .banned,
                "this account is banned from room \(room)\(said): ask an owner or admin of the room to lift the ban")
        case "item-not-found":
            return MUCError(
                .roomNotFound,
                "room \(room) does not exist and the service did not create it (item-not-found)\(said): "
                    + "it may be locked while its creator configures it, or the service lets only some accounts "
                    + "create rooms; check the room address, retry later, or create the room with an allowed account")
        case "not-allowed":
            return MUCError(
                .creationNotAllowed,
                "room \(room) does not exist and this account may not create rooms on the service "
                    + "(not-allowed)\(said): use an existing room, or ask the service's administrator to allow "
                    + "room creation")
        case "service-unavailable":
            return MUCError(
                .roomFull,
                "room \(room) has reached its maximum number of occupants (service-unavailable)\(said): "
                    + "retry later or ask an owner of the room to raise the limit")
        case "conflict":
            return MUCError(
                .nicknameConflict,
                "the nickname \(configuredNickname) and its variants up to "
                    + "\(configuredNickname)-\(MUCRoom.nicknameAttempts) are all in use in room \(room)\(said): "
                    + "configure another nickname")
        case "not-acceptable", "jid-malformed":
            return MUCError(
                .nicknameRejected,
                "room \(room) refused the nickname \(nickname) (\(error.condition))\(said): the room may require "
                    + "the account's reserved nickname, or the nickname holds characters it does not accept; "
                    + "configure another nickname")
        default:
            return MUCError(
                .joinRejected,
                "room \(room) refused the join with \(error.condition)\(said): check the room address and the "
                    + "account's rights in the room")
        }
    }
}
