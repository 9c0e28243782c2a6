/// One multi-user chat room (XEP-0045) as a pure state machine: joining (after a XEP-0030
/// disco#info query that tells whether the room keeps an archive), creating a room that
/// does not exist yet, occupants, catching up on missed messages (the XEP-0313 archive,
/// paged with XEP-0059, or else the room's history), live messages, private messages through
/// the room, XEP-0410 self-ping and leaving.
///
/// No I/O and no clock: the driver offers it every stanza that arrives on the ready session
/// (`handle(_:)`), sends the stanzas it returns, and tells it about time (`selfPingTimedOut()`)
/// and the connection (`connectionLost()`). A driver with several rooms offers each stanza
/// to each room; `isAbout(_:)` says which one it concerned.
///
/// Requests from the room (`<iq type='get'/>` or `'set'`) are not answered here: the
/// session answers them (RFC 6120 requires an answer, `service-unavailable` will do).
public struct MUCRoom: Sendable {
    /// The room and nickname this machine joins.
    public let configuration: MUCRoomConfiguration
    /// Our nickname in the room: the one asked for, or the one we got (`nickname-2` …, or
    /// set by the service).
    public internal(set) var nickname: String
    /// The occupants by nickname, ourselves included; empty when not in the room.
    public internal(set) var occupants: [String: MUCOccupant] = [:]
    /// Whether the room keeps a XEP-0313 archive (`urn:xmpp:mam:2`): `nil` until its
    /// disco#info was answered, `false` if the query failed (the room did not exist yet).
    public internal(set) var supportsArchive: Bool?
    /// The newest archive id seen, kept across `connectionLost()`; the last one reported by
    /// `MUCEvent.archivePosition`.
    public internal(set) var archivePosition: String?

    /// Where the room stands.
    enum State: Hashable {
        /// Not in the room and not trying: before `join`, after `leave`, a departure, a
        /// failure or a lost connection.
        case idle
        /// The disco#info query `iqID` is out; the join presence waits for its answer, which
        /// decides whether to ask the room for its history.
        case discovering(iqID: String)
        /// The join presence is out with the nickname of `attempt` (1: as configured,
        /// n: `nickname-n`).
        case joining(attempt: Int)
        /// We created the room (status 201) and sent the instant-room form `iqID`; the room
        /// stays locked, and we do not count as joined, until it is accepted.
        case creatingRoom(iqID: String)
        /// In the room, catching up or done.
        case joined(CatchUp)
    }

    /// How far catching up on missed messages has come while joined.
    enum CatchUp: Hashable {
        /// Receiving the room's history (delayed messages); its subject message ends it.
        case history(messages: Int)
        /// Paging through the archive.
        case archive(ArchiveQuery)
        /// Done: every message now is live.
        case finished
    }

    /// The XEP-0313 page request that is out.
    struct ArchiveQuery: Hashable {
        /// The `id` of the `<iq/>` whose result closes the page with `<fin/>`.
        var iqID: String
        /// The `queryid` every result of this page carries.
        var queryID: String
        /// The archive id the page starts after; `nil` for the start of the archive.
        var after: String?
        /// Messages with a body delivered from the archive so far.
        var messages: Int
    }

    var state = State.idle
    /// The lowercased bare room JID, for comparing addresses.
    let roomAddress: String
    /// Counter for the ids of our queries.
    var nextQueryNumber = 1
    /// Ids of our recent messages, oldest first, to recognise their reflections.
    var sentMessageIDs: [String] = []
    /// Self-pings sent and not answered yet.
    var pendingSelfPings: Set<String> = []

    /// How many nicknames to try: the configured one, then `-2` … `-9`.
    static let nicknameAttempts = 9
    /// How many messages of history to ask for when the room has no archive; the service
    /// caps it at what it keeps (Prosody: `max_history_messages`, 20 by default).
    static let historyRequest = 1000
    /// How many of our message ids to remember for `MUCMessage.isOwn`.
    static let rememberedMessageIDs = 256

    /// A room, not joined yet.
    public init(configuration: MUCRoomConfiguration) {
        self.configuration = configuration
        self.nickname = configuration.nickname
        self.roomAddress = MUCAddress(configuration.roomJID).bare
    }

    /// Whether we are an occupant (our presence arrived, the room is configured if we
    /// created it), whether or not catching up is done.
    public var isJoined: Bool {
        if case .joined = state { true } else { false }
    }

    /// Whether a join is under way: its disco#info query or join presence (or the
    /// instant-room form of a room we created) waits for the room's answer.
    public var isJoining: Bool {
        switch state {
        case .discovering, .joining, .creatingRoom: true
        case .idle, .joined: false
        }
    }

    /// Starts the join, or starts it over after a reconnect or a departure: first a
    /// disco#info query to the room, then (on its answer) the join presence.
    ///
    /// - Parameter archivePosition: the last archive id the driver persisted
    ///   (`MUCEvent.archivePosition`); catching up from the archive continues after it. `nil`
    ///   keeps the position this room already knows, which is none on a first join: the
    ///   whole archive is fetched then.
    public mutating func join(archivePosition: String?) -> [MUCEvent] {
        if let archivePosition { self.archivePosition = archivePosition }
        reset()
        let id = makeQueryID("disco")
        state = .discovering(iqID: id)
        let query = MUCStanza.element("query", MUCNamespace.discoInfo)
        return [.send(MUCStanza.iq(type: "get", to: configuration.roomJID, id: id, query))]
    }

    /// Leaves the room: an unavailable presence (if the join presence went out) and
    /// `.left(.voluntary)`. Nothing when not in the room nor joining.
    public mutating func leave() -> [MUCEvent] {
        var events: [MUCEvent] = []
        switch state {
        case .idle: return []
        case .discovering: break
        case .joining, .creatingRoom, .joined: events.append(.send(unavailablePresence()))
        }
        reset()
        events.append(.left(.voluntary))
        return events
    }

    /// The session dropped and was not resumed: we are no longer in the room (the service
    /// removes us). Occupants are cleared; the archive position is kept for the next `join`.
    public mutating func connectionLost() {
        reset()
    }

    /// Whether `stanza` is a presence, message or IQ from this room or one of its occupants.
    public func isAbout(_ stanza: XMLElement) -> Bool {
        guard ["presence", "message", "iq"].contains(stanza.name), let from = stanza.attribute("from") else {
            return false
        }
        return MUCAddress(from).bare == roomAddress
    }

    /// Handles a stanza that arrived on the session. Returns `[]` for stanzas that are not
    /// about this room, and for those about it that change nothing.
    public mutating func handle(_ stanza: XMLElement) -> [MUCEvent] {
        guard isAbout(stanza), let from = stanza.attribute("from") else { return [] }
        let sender = MUCAddress(from)
        switch stanza.name {
        case "presence": return handlePresence(stanza, from: sender)
        case "message": return handleMessage(stanza, from: sender)
        default: return handleIQ(stanza)
        }
    }

    // MARK: Joining and occupants

    /// Back to idle, out of the room.
    mutating func reset() {
        state = .idle
        occupants = [:]
        pendingSelfPings = []
        nickname = configuration.nickname
    }

    /// Leaves the room because the room (or the self-ping) says we are out.
    mutating func depart(_ reason: MUCDepartureReason) -> [MUCEvent] {
        reset()
        return [.left(reason)]
    }

    /// Gives up joining.
    mutating func fail(_ error: MUCError) -> [MUCEvent] {
        reset()
        return [.failed(error)]
    }

    mutating func makeQueryID(_ purpose: String) -> String {
        defer { nextQueryNumber += 1 }
        return "muc-\(purpose)-\(nextQueryNumber)"
    }

    /// Handles the disco#info answer: the room's features decide how to join.
    mutating func completeDiscovery(_ iq: XMLElement) -> [MUCEvent] {
        // An error (item-not-found: the room does not exist yet, we create it by joining)
        // leaves no archive to catch up from.
        let features =
            iq.child(named: "query", namespace: MUCNamespace.discoInfo)?
            .children(named: "feature", namespace: MUCNamespace.discoInfo) ?? []
        supportsArchive =
            iq.attribute("type") == "result" && features.contains { $0.attribute("var") == MUCNamespace.archive }
        return [sendJoinPresence(attempt: 1)]
    }

    /// The join presence for nickname attempt `attempt`. With an archive we want no history
    /// (we page through the archive instead); without, as much history as the room keeps.
    mutating func sendJoinPresence(attempt: Int) -> MUCEvent {
        nickname = attempt == 1 ? configuration.nickname : "\(configuration.nickname)-\(attempt)"
        state = .joining(attempt: attempt)
        let maximum = supportsArchive == true ? 0 : Self.historyRequest
        var children = [MUCStanza.element("history", MUCNamespace.muc, ["maxstanzas": String(maximum)])]
        if let password = configuration.password {
            children.append(MUCStanza.text("password", MUCNamespace.muc, password))
        }
        var presence = MUCStanza.element(
            "presence", XMPPNamespace.client, ["to": "\(configuration.roomJID)/\(nickname)"],
            [MUCStanza.element("x", MUCNamespace.muc, [:], children)])
        if let capabilities = configuration.capabilities {
            presence.children.append(.element(capabilities.presenceElement))
        }
        return .send(presence)
    }

    func unavailablePresence() -> XMLElement {
        MUCStanza.element(
            "presence", XMPPNamespace.client, ["to": "\(configuration.roomJID)/\(nickname)", "type": "unavailable"])
    }

    mutating func handlePresence(_ presence: XMLElement, from sender: MUCAddress) -> [MUCEvent] {
        switch presence.attribute("type") {
        case "error":
            // Prosody's join errors lack the MUC <x/>: any presence error from the room while
            // our join presence is out answers it.
            guard case .joining(let attempt) = state else { return [] }
            let error = MUCStanzaError(of: presence)
            if error.condition == "conflict", attempt < Self.nicknameAttempts {
                return [sendJoinPresence(attempt: attempt + 1)]
            }
            return fail(
                .joinRefused(
                    room: configuration.roomJID, nickname: nickname, configuredNickname: configuration.nickname,
                    error: error))
        case nil:
            guard let occupantNickname = sender.resource else { return [] }
            let info = MUCUserInfo(presence)
            if info.statusCodes.contains(110) {
                return handleOwnPresence(info.occupant(nickname: occupantNickname, presence: presence), info: info)
            }
            return handleOccupantPresence(info.occupant(nickname: occupantNickname, presence: presence))
        case "unavailable":
            guard let occupantNickname = sender.resource else { return [] }
            let info = MUCUserInfo(presence)
            if info.statusCodes.contains(110) {
                return handleOwnDeparture(info: info)
            }
            return handleOccupantDeparture(nickname: occupantNickname, info: info)
        default:
            return []
        }
    }

    mutating func handleOwnPresence(_ occupant: MUCOccupant, info: MUCUserInfo) -> [MUCEvent] {
        var events: [MUCEvent] = []
        switch state {
        case .idle, .discovering:
            return []
        case .joining:
            nickname = occupant.nickname
            occupants[occupant.nickname] = occupant
            if nickname != configuration.nickname {
                events.append(.nicknameChanged(from: configuration.nickname, to: nickname))
            }
            if info.statusCodes.contains(201) {
                // XEP-0045 §10.1.2: accept the default configuration (an instant room).
                let id = makeQueryID("create")
                state = .creatingRoom(iqID: id)
                let form = MUCStanza.element("x", MUCNamespace.dataForms, ["type": "submit"])
                let query = MUCStanza.element("query", MUCNamespace.owner, [:], [form])
                events.append(.send(MUCStanza.iq(type: "set", to: configuration.roomJID, id: id, query)))
                return events
            }
            return events + enterRoom(created: false)
        case .creatingRoom, .joined:
            if occupant.nickname != nickname {
                occupants[nickname] = nil
                events.append(.nicknameChanged(from: nickname, to: occupant.nickname))
                nickname = occupant.nickname
            }
            occupants[occupant.nickname] = occupant
            return events
        }
    }

    /// We are in: report it and start catching up. A room we just created has nothing to
    /// catch up on.
    mutating func enterRoom(created: Bool) -> [MUCEvent] {
        var events: [MUCEvent] = [
            .joined(nickname: nickname, occupants: occupants.values.sorted { $0.nickname < $1.nickname })
        ]
        if created {
            state = .joined(.finished)
            events.append(.catchUpFinished(messages: 0, usedArchive: false))
        } else if supportsArchive == true {
            events.append(queryArchive(after: archivePosition, messagesSoFar: 0))
        } else {
            state = .joined(.history(messages: 0))
        }
        return events
    }

    mutating func completeRoomCreation(_ iq: XMLElement) -> [MUCEvent] {
        if iq.attribute("type") == "result" {
            return enterRoom(created: true)
        }
        let error = MUCStanzaError(of: iq)
        let said = error.text.map { " (the service said: \($0))" } ?? ""
        // Leaving the locked room we created lets the service destroy it.
        let leaving = unavailablePresence()
        return [.send(leaving)]
            + fail(
                MUCError(
                    .roomConfigurationFailed,
                    "room \(configuration.roomJID) did not exist; we created it, but the service refused its "
                        + "instant configuration with \(error.condition)\(said): create and configure the room "
                        + "with an owner account, then join again"))
    }

    mutating func handleOccupantPresence(_ occupant: MUCOccupant) -> [MUCEvent] {
        switch state {
        case .idle, .discovering: return []
        case .joining, .creatingRoom:
            // Listed in `.joined` once we are in.
            occupants[occupant.nickname] = occupant
            return []
        case .joined:
            // A presence from someone already here changes their role or status: no event.
            let isNew = occupants[occupant.nickname] == nil
            occupants[occupant.nickname] = occupant
            return isNew ? [.occupantJoined(occupant)] : []
        }
    }

    mutating func handleOwnDeparture(info: MUCUserInfo) -> [MUCEvent] {
        switch state {
        case .idle, .discovering: return []
        case .joining, .creatingRoom, .joined: break
        }
        let reason = info.departureReason
        if case .nicknameChanged(let newNickname) = reason {
            // Our available presence under the new nickname follows.
            occupants[nickname] = nil
            let old = nickname
            nickname = newNickname
            return [.nicknameChanged(from: old, to: newNickname)]
        }
        return depart(reason)
    }

    mutating func handleOccupantDeparture(nickname occupantNickname: String, info: MUCUserInfo) -> [MUCEvent] {
        guard let occupant = occupants.removeValue(forKey: occupantNickname), case .joined = state else { return [] }
        return [.occupantLeft(occupant, reason: info.departureReason)]
    }

    mutating func handleIQ(_ iq: XMLElement) -> [MUCEvent] {
        guard let id = iq.attribute("id"), ["result", "error"].contains(iq.attribute("type")) else { return [] }
        if pendingSelfPings.contains(id) {
            return completeSelfPing(iq, id: id)
        }
        switch state {
        case .discovering(let iqID) where iqID == id:
            return completeDiscovery(iq)
        case .creatingRoom(let iqID) where iqID == id:
            return completeRoomCreation(iq)
        case .joined(.archive(let query)) where query.iqID == id:
            return completeArchivePage(iq, query: query)
        default:
            return []
        }
    }
}
