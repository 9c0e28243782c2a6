/// What a `MUCRoom` reports, in the order things happened: stanzas for the driver to send and
/// what changed in the room.
public enum MUCEvent: Sendable, Hashable {
    /// A stanza to send on the session (render it with default namespace `jabber:client`).
    case send(XMLElement)
    /// Our own presence arrived (status 110), and for a room we created, its configuration
    /// was accepted: we are in the room as `nickname`, with `occupants` (ourselves included,
    /// sorted by nickname).
    case joined(nickname: String, occupants: [MUCOccupant])
    /// Someone entered the room after we joined.
    case occupantJoined(MUCOccupant)
    /// Someone left the room (or changed nickname: `reason` is `.nicknameChanged`, and an
    /// `.occupantJoined` with the new nickname follows).
    case occupantLeft(MUCOccupant, reason: MUCDepartureReason)
    /// Our nickname is not the one asked for: taken (we picked `nickname-2` …), or changed by
    /// the service (status 210).
    case nicknameChanged(from: String, to: String)
    /// A groupchat message with a body: live, from the room's history on join, or from its
    /// archive.
    case message(MUCMessage)
    /// A private message with a body from the occupant `from` (a nickname), through the
    /// room (`type='chat'` from `room@service/nickname`), while we are in the room. The
    /// room neither reflects, archives nor replays private messages.
    case privateMessage(from: String, content: MUCMessageContent)
    /// The newest archive id seen so far (a `<stanza-id/>` set by the room, or a XEP-0313
    /// result id). Persist it after handling the messages before it, and pass it to
    /// `MUCRoom.join(archivePosition:)` after a restart.
    case archivePosition(String)
    /// Catching up on missed messages is done: archive paging ended (`usedArchive` true), or
    /// the room's history ended with its subject (`usedArchive` false; also when we created
    /// the room, or when the archive refused our query). `messages` counts the messages
    /// delivered by the catch-up, not the live ones in between.
    case catchUpFinished(messages: Int, usedArchive: Bool)
    /// The room did not accept a message we sent: `stanzaID` is its `id`, `condition` the
    /// stanza error (`not-acceptable`: we are not in the room; `resource-constraint`,
    /// `policy-violation`: a rate limit, back off), `text` the service's explanation.
    case messageRejected(stanzaID: String?, condition: String, text: String?)
    /// We are out of the room. `reason.mayRejoin` tells whether joining again makes sense.
    case left(MUCDepartureReason)
    /// Joining failed; the error says why and what to change.
    case failed(MUCError)
}

/// Someone in the room.
public struct MUCOccupant: Sendable, Hashable {
    /// The occupant's nickname in the room.
    public var nickname: String
    /// The occupant's real JID, when the room shows it to us (non-anonymous rooms, moderators).
    public var realJID: String?
    /// What the occupant may do in the room now.
    public var role: MUCRole
    /// The occupant's long-lived standing with the room.
    public var affiliation: MUCAffiliation
    /// What the occupant's presence announces of its software (XEP-0115), if anything.
    public var capabilities: AnnouncedCapabilities?

    public init(
        nickname: String, realJID: String? = nil, role: MUCRole, affiliation: MUCAffiliation,
        capabilities: AnnouncedCapabilities? = nil
    ) {
        self.nickname = nickname
        self.realJID = realJID
        self.role = role
        self.affiliation = affiliation
        self.capabilities = capabilities
    }
}

/// An occupant's role (XEP-0045 §5.1): what they may do while in the room.
public enum MUCRole: String, Sendable, Hashable {
    case moderator, participant, visitor, none

    /// The role named by an `<item role='…'/>`, `.none` if absent or unknown.
    init(attribute: String?) {
        self = attribute.flatMap(MUCRole.init(rawValue:)) ?? .none
    }
}

/// An occupant's affiliation (XEP-0045 §5.2): their standing with the room across visits.
public enum MUCAffiliation: String, Sendable, Hashable {
    case owner, admin, member, outcast, none

    /// The affiliation named by an `<item affiliation='…'/>`, `.none` if absent or unknown.
    init(attribute: String?) {
        self = attribute.flatMap(MUCAffiliation.init(rawValue:)) ?? .none
    }
}

/// What a room message carries: a `<body>`, or the text of the application's payload
/// element (`MUCRoomConfiguration.payloadElement`). A message holding both is delivered as
/// its payload: the body is then for clients that know nothing else.
public enum MUCMessageContent: Sendable, Hashable {
    case body(String)
    case payload(String)

    /// The text, whichever it is.
    public var text: String {
        switch self {
        case .body(let text), .payload(let text): text
        }
    }
}

/// A groupchat message with a body or the application's payload.
public struct MUCMessage: Sendable, Hashable {
    /// Where a message came from.
    public enum Source: Sendable, Hashable {
        /// Sent while we were in the room.
        case live
        /// Sent before we joined, replayed by the room on join (it carries `<delay/>`).
        case history
        /// Fetched from the room's XEP-0313 archive.
        case archive
    }

    /// The body, or the application's payload.
    public var content: MUCMessageContent
    /// The sender's nickname; `nil` for a message from the room itself.
    public var fromNickname: String?
    /// The sender's `id` attribute (or XEP-0359 `<origin-id/>` if it has none): for our
    /// messages, the `stanzaID` given to `MUCRoom.message(body:stanzaID:)`.
    public var stanzaID: String?
    /// The room's id for the message: the XEP-0359 `<stanza-id/>` set by the room, or the
    /// XEP-0313 result id of an archived message.
    public var archiveID: String?
    /// Whether this is our own message reflected by the room: its id or origin-id is one we
    /// sent recently, or it comes from our current nickname.
    public var isOwn: Bool
    /// Live, history or archive.
    public var source: Source

    /// The text of the `<body/>`, for a message that carries one and no payload.
    public var body: String? {
        if case .body(let text) = content { text } else { nil }
    }

    /// A message with a body.
    public init(
        body: String, fromNickname: String?, stanzaID: String?, archiveID: String?, isOwn: Bool, source: Source
    ) {
        self.init(
            content: .body(body), fromNickname: fromNickname, stanzaID: stanzaID, archiveID: archiveID, isOwn: isOwn,
            source: source)
    }

    public init(
        content: MUCMessageContent, fromNickname: String?, stanzaID: String?, archiveID: String?, isOwn: Bool,
        source: Source
    ) {
        self.content = content
        self.fromNickname = fromNickname
        self.stanzaID = stanzaID
        self.archiveID = archiveID
        self.isOwn = isOwn
        self.source = source
    }
}

/// Why an occupant, or we, left the room.
public enum MUCDepartureReason: Sendable, Hashable {
    /// Left of its own accord (for us: `MUCRoom.leave()`, or another session of ours left).
    case voluntary
    /// Changed nickname to `to` (status 303); the occupant is still in the room.
    case nicknameChanged(to: String)
    /// Kicked by a moderator (status 307), with the moderator's reason if given.
    case kicked(reason: String?)
    /// Banned (status 301), with the reason if given.
    case banned(reason: String?)
    /// Removed because an admin changed the affiliation (status 321), typically membership
    /// revoked in a members-only room.
    case affiliationChanged(reason: String?)
    /// Removed because the room became members-only and the occupant is no member (status 322).
    case membersOnly
    /// Removed because the MUC service is shutting down (status 332).
    case serviceShutdown
    /// Removed because of a technical problem, such as its client not answering (status 333).
    case technicalProblem
    /// The room was destroyed by its owner, with the reason and a replacement room if given.
    case roomDestroyed(reason: String?, alternateRoom: String?)
    /// Our XEP-0410 self-ping showed we are no longer an occupant: the room answered with
    /// the error `condition`, or did not answer in time (`nil`).
    case selfPingFailed(condition: String?)

    /// Whether joining again makes sense. Not after a ban or the room's destruction; after a
    /// kick, a shutdown, an affiliation or members-only change, a rejoin is allowed to try
    /// (and reports `MUCEvent.failed` with the room's reason if membership is still missing).
    public var mayRejoin: Bool {
        switch self {
        case .banned, .roomDestroyed: false
        case .voluntary, .nicknameChanged, .kicked, .affiliationChanged, .membersOnly, .serviceShutdown,
            .technicalProblem, .selfPingFailed:
            true
        }
    }

    /// Whether the room, not a person, ended our presence: the service shut down (a server
    /// restart, a cluster member leaving), a technical problem, or a self-ping that found us
    /// gone (the room died with its cluster member). Such a room is usually back at once,
    /// on another member of a cluster, so a rejoin need not wait.
    public var roomVanished: Bool {
        switch self {
        case .serviceShutdown, .technicalProblem, .selfPingFailed: true
        case .voluntary, .nicknameChanged, .kicked, .banned, .affiliationChanged, .membersOnly, .roomDestroyed:
            false
        }
    }
}
