/// Which room to join, and as whom. Validated when made, so a `MUCRoom` never sends a
/// stanza to an address that cannot be a room.
public struct MUCRoomConfiguration: Sendable, Hashable {
    /// The room's bare JID, `room@service`.
    public let roomJID: String
    /// The nickname asked for. If it is taken, `MUCRoom` tries `nickname-2` … `nickname-9`.
    public let nickname: String
    /// The room's password, for a password-protected room.
    public let password: String?
    /// How many archived messages to ask for per XEP-0313 page. The service may send fewer
    /// (Prosody: at most `max_archive_query_results`, 50 by default); paging goes on anyway.
    public let archivePageSize: Int
    /// The application's own element, carried in messages instead of a `<body>` (so that
    /// clients that read only bodies never see it): messages that hold one are delivered with
    /// its text as `MUCMessageContent.payload`. Nil: only bodies count.
    public let payloadElement: MUCPayloadElement?
    /// What the join presence announces of this client (XEP-0115), so that occupants know
    /// what it speaks. Nil: nothing.
    public let capabilities: EntityCapabilities?

    /// A configuration, or `MUCError` of kind `.invalidConfiguration` naming the bad value.
    public init(
        roomJID: String, nickname: String, password: String? = nil, archivePageSize: Int = 100,
        payloadElement: MUCPayloadElement? = nil, capabilities: EntityCapabilities? = nil
    ) throws(MUCError) {
        let parts = roomJID.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !roomJID.contains("/") else {
            throw MUCError(
                .invalidConfiguration,
                "room JID '\(roomJID)' is not a bare room address: expected room@service, "
                    + "with one '@' and no '/' (the nickname is configured separately)")
        }
        guard !nickname.isEmpty else {
            throw MUCError(.invalidConfiguration, "the nickname for room \(roomJID) is empty: a room needs a nickname")
        }
        guard archivePageSize > 0 else {
            throw MUCError(
                .invalidConfiguration,
                "archive page size \(archivePageSize) for room \(roomJID) is not positive: expected 1 or more "
                    + "(100 is a good value)")
        }
        self.roomJID = roomJID
        self.nickname = nickname
        self.password = password
        self.archivePageSize = archivePageSize
        self.payloadElement = payloadElement
        self.capabilities = capabilities
    }
}

/// An application element that a message carries instead of a `<body>`: its name and
/// namespace (`<canvas xmlns='urn:x-canvas:1'>…</canvas>`).
public struct MUCPayloadElement: Sendable, Hashable {
    /// The element's local name.
    public let name: String
    /// The element's namespace.
    public let namespace: String

    /// The element `<name xmlns='namespace'>`.
    public init(name: String, namespace: String) {
        self.name = name
        self.namespace = namespace
    }
}
